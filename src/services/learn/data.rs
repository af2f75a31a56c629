//! Training samples from the solver's own proofs: positions of seeded random games, each
//! question ("does X win?", "does O win?") solved by one-threaded DFPN with a node limit and
//! a fresh table, and the positions settled inside those searches.
//!
//! Every game is independent (its own seed, its own tables), so the samples depend on the
//! options alone, not on the threads or the machine.

use super::{could_follow, Sample, Settled};
use crate::game::tables::splitmix64;
use crate::game::{format_position, Player, Position, Rng, Rules};
use crate::search::dfpn::{Dfpn, Limits};
use crate::search::rules::{evaluate, Evaluation};
use crate::search::threads::spawn_gated;
use crate::search::{Numbers, Question};
use crate::table::Table;
use std::collections::HashMap;
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;

/// ε of the searches that make samples (the solver's default).
const EPSILON: f64 = crate::search::options::DEFAULT_EPSILON;

/// A game that ends before its chosen ply is played again with the next draw, at most this
/// many times.
const MAX_REDRAWS: usize = 1_000;

/// What samples to make.
#[derive(Clone, Debug)]
pub struct DataOptions {
    /// Seeded games to take a position from.
    pub games: u64,
    /// The number of the first of them: games `first_game..first_game + games` are made
    /// (each game's samples depend on its number alone, so a run may be made in parts).
    pub first_game: u64,
    /// The seed: game `g` draws its moves from a generator seeded by it and `g`.
    pub seed: u64,
    /// MID calls each question may take.
    pub node_limit: u64,
    /// The stones a position may hold (its ply), drawn uniformly for each game.
    pub stones: RangeInclusive<u32>,
    /// The rule sets, taken in turn by the games.
    pub rules: Vec<Rules>,
    /// Threads solving games at once (the samples do not depend on it).
    pub threads: usize,
    /// Bytes of each question's table.
    pub table_bytes: u64,
    /// A position settled inside a search with work `w` is kept with probability
    /// `min(1, w / keep_work)`: cheap positions are by far the most numerous, and would
    /// otherwise swamp the rest.
    pub keep_work: u64,
    /// When not 0, also keep positions searched inside a search and still open when it ended,
    /// each with the work spent under it as a lower bound on its cost (censored, as a root
    /// left open at the node limit is), with probability min(1, w / (keep_work ·
    /// keep_unsettled)): they outnumber the settled ones about twelve to one, and the cheap
    /// ones' bounds say little. Without them the samples hold only what the search settled,
    /// and never a position that looked cheap and was not.
    pub keep_unsettled: u64,
}

/// What making the samples came to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DataSummary {
    /// Games played.
    pub games: u64,
    /// Games left out because their position could follow a benchmark position.
    pub excluded: u64,
    /// Samples written, of roots and of positions inside searches.
    pub root_samples: u64,
    /// Samples of positions settled inside a search.
    pub inner_samples: u64,
    /// Samples of positions searched inside a search and open at its end.
    pub open_samples: u64,
    /// MID calls over all searches.
    pub nodes: u64,
}

/// Makes the samples of `options`, handing each game's to `emit` in the order of the games.
/// `excluded` are positions no sample may equal or follow (the benchmarks'); `stop` ends the
/// run early: the games written are whole and in order, and a game whose search the stop cut
/// short is left out (its work would read as a node limit reached).
pub fn generate(
    options: &DataOptions,
    excluded: &[Position],
    stop: &AtomicBool,
    emit: &mut dyn FnMut(&[Sample]) -> std::io::Result<()>,
) -> anyhow::Result<DataSummary> {
    anyhow::ensure!(
        !options.rules.is_empty(),
        "no rule set to make samples under"
    );
    anyhow::ensure!(
        options.stones.start() <= options.stones.end() && *options.stones.end() <= 80,
        "the stones must be a range within 0..=80"
    );
    let next_game = AtomicU64::new(options.first_game);
    let end = options.first_game.saturating_add(options.games);
    let (sender, receiver) = mpsc::channel::<anyhow::Result<(u64, GameSamples)>>();
    let mut summary = DataSummary::default();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        // The solving threads: all of them, or an error in the system's words.
        spawn_gated(scope, options.threads.max(1), |_| {
            let sender = sender.clone();
            let next_game = &next_game;
            move || loop {
                let game = next_game.fetch_add(1, Ordering::Relaxed);
                if game >= end || stop.load(Ordering::Relaxed) {
                    break;
                }
                let made = samples_of_game(options, game, excluded, stop).map(|s| (game, s));
                if sender.send(made).is_err() {
                    break;
                }
            }
        })?;
        drop(sender);
        // The games come back in any order; they are written in theirs.
        let mut waiting = HashMap::new();
        let mut next_to_write = options.first_game;
        for made in receiver {
            let (game, samples) = made?;
            waiting.insert(game, samples);
            while let Some(samples) = waiting.remove(&next_to_write) {
                if samples.stopped {
                    // Nothing after it is written either: the games written stay first..n.
                    stop.store(true, Ordering::Relaxed);
                    return Ok(());
                }
                summary.add(&samples);
                emit(&samples.samples)?;
                next_to_write += 1;
            }
        }
        Ok(())
    })?;
    Ok(summary)
}

/// One game's samples and what they took.
#[derive(Default)]
struct GameSamples {
    samples: Vec<Sample>,
    excluded: bool,
    nodes: u64,
    /// A search was stopped before its node limit: the samples are not to be written.
    stopped: bool,
}

impl DataSummary {
    fn add(&mut self, game: &GameSamples) {
        self.games += 1;
        self.excluded += u64::from(game.excluded);
        self.root_samples += game.samples.iter().filter(|s| s.root).count() as u64;
        for sample in game.samples.iter().filter(|s| !s.root) {
            match sample.result {
                Settled::Unsettled => self.open_samples += 1,
                _ => self.inner_samples += 1,
            }
        }
        self.nodes += game.nodes;
    }
}

/// The position of game `game`: a random game of the chosen length under its rule set (a
/// game that ends early is drawn again).
fn position_of_game(options: &DataOptions, game: u64) -> anyhow::Result<Position> {
    let mut rng = Rng::new(splitmix64(options.seed ^ splitmix64(game).0).0);
    let rules = options.rules[(game % options.rules.len() as u64) as usize];
    let start = Position::start_under(rules);
    let span = (options.stones.end() - options.stones.start() + 1) as usize;
    let plies = *options.stones.start() as usize + rng.below(span);
    for _ in 0..MAX_REDRAWS {
        let moves = rng.playout(&start, plies);
        let pos = moves.iter().fold(start, |p, &m| p.play(m));
        if moves.len() == plies && !pos.is_over() {
            return Ok(pos);
        }
    }
    anyhow::bail!("no game of {plies} plies stayed in play in {MAX_REDRAWS} tries")
}

fn samples_of_game(
    options: &DataOptions,
    game: u64,
    excluded: &[Position],
    stop: &AtomicBool,
) -> anyhow::Result<GameSamples> {
    let root = position_of_game(options, game)?;
    if excluded.iter().any(|e| could_follow(&root, e)) {
        return Ok(GameSamples {
            excluded: true,
            ..GameSamples::default()
        });
    }
    let mut made = GameSamples::default();
    for attacker in [Player::X, Player::O] {
        let question = Question::wins(attacker);
        if let Evaluation::Solved(_) = evaluate(&root, question) {
            continue;
        }
        // A fresh table for each question, so that its work is its own and not what an
        // earlier search left behind.
        let table = Table::new(options.table_bytes)?;
        let mut inner = InnerSamples::new(root, attacker, game, options, excluded);
        let mut observe = |pos: &Position, numbers: Numbers, work: u64| {
            inner.observe(pos, numbers, work);
        };
        let mut searcher =
            Dfpn::new(&table, question, EPSILON, Limits::stop_only(stop)).observing(&mut observe);
        let numbers = searcher.solve(&root, options.node_limit);
        let nodes = searcher.nodes();
        if searcher.was_stopped() {
            return Ok(GameSamples {
                stopped: true,
                ..GameSamples::default()
            });
        }
        drop(searcher);
        made.nodes += nodes;
        made.samples.push(sample(
            &root,
            attacker,
            Settled::of(&root, attacker, numbers),
            nodes,
            true,
            game,
        ));
        let open = inner.open_ones();
        made.samples.extend(inner.kept);
        made.samples.extend(open);
    }
    Ok(made)
}

fn sample(
    pos: &Position,
    attacker: Player,
    result: Settled,
    work: u64,
    root: bool,
    game: u64,
) -> Sample {
    Sample {
        position: format_position(pos),
        rules: pos.rules(),
        attacker,
        result,
        work,
        root,
        game,
    }
}

/// The positions settled inside one search, with the work spent under each over all its
/// visits, kept with a probability that grows with that work (none that could follow an
/// excluded position); and, when asked for, those still open at the search's end.
struct InnerSamples<'e> {
    root: Position,
    /// Positions no sample may equal or follow.
    excluded: &'e [Position],
    attacker: Player,
    game: u64,
    keep_work: u64,
    /// Work so far under each position visited, by its hash; `u64::MAX` once settled.
    work: HashMap<u64, u64>,
    kept: Vec<Sample>,
    /// The positions visited, when the open ones are to be kept too.
    open: Option<OpenPositions>,
}

/// The positions one search visited, in the order of their first visits, from which those
/// still open at its end are drawn.
struct OpenPositions {
    /// An open position of work `w` is kept with probability min(1, w / scale).
    scale: u64,
    visited: Vec<Position>,
}

impl<'e> InnerSamples<'e> {
    fn new(
        root: Position,
        attacker: Player,
        game: u64,
        options: &DataOptions,
        excluded: &'e [Position],
    ) -> InnerSamples<'e> {
        InnerSamples {
            root,
            excluded,
            attacker,
            game,
            keep_work: options.keep_work.max(1),
            work: HashMap::new(),
            kept: Vec::new(),
            open: (options.keep_unsettled > 0).then(|| OpenPositions {
                scale: options
                    .keep_work
                    .max(1)
                    .saturating_mul(options.keep_unsettled),
                visited: Vec::new(),
            }),
        }
    }

    /// Whether a position of `spent` work is kept: with probability min(1, spent / scale),
    /// decided by the position's hash so that the same search keeps the same samples, and
    /// never one that could follow an excluded position.
    fn keeps(&self, pos: &Position, spent: u64, scale: u64) -> bool {
        let draw = splitmix64(pos.hash() ^ self.game).0 % scale;
        draw < spent && !self.excluded.iter().any(|e| could_follow(pos, e))
    }

    fn observe(&mut self, pos: &Position, numbers: Numbers, work: u64) {
        if *pos == self.root {
            return;
        }
        let total = self.work.entry(pos.hash()).or_insert(0);
        if *total == u64::MAX {
            return;
        }
        if *total == 0 {
            if let Some(open) = self.open.as_mut() {
                open.visited.push(*pos);
            }
        }
        *total += work;
        if !numbers.is_solved() {
            return;
        }
        let spent = *total;
        *total = u64::MAX;
        if self.keeps(pos, spent, self.keep_work) {
            let result = Settled::of(pos, self.attacker, numbers);
            self.kept
                .push(sample(pos, self.attacker, result, spent, false, self.game));
        }
    }

    /// The positions visited and still open, with their work as a lower bound (in the order
    /// of their first visits), when they are asked for.
    fn open_ones(&self) -> Vec<Sample> {
        let Some(open) = &self.open else {
            return Vec::new();
        };
        open.visited
            .iter()
            .filter_map(|pos| {
                let spent = self.work[&pos.hash()];
                (spent != u64::MAX && self.keeps(pos, spent, open.scale)).then(|| {
                    sample(
                        pos,
                        self.attacker,
                        Settled::Unsettled,
                        spent,
                        false,
                        self.game,
                    )
                })
            })
            .collect()
    }
}
