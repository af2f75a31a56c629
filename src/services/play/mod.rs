//! Playing a move where the proof may not reach: a Monte Carlo tree search that knows what is
//! proved ([`crate::search::mcts`]), and the rules by which a move is chosen from what it
//! found. What is proved is said as a value; what is not is an estimate, and says so.
//!
//! The move, by these rules in order:
//! - a move proved to win, as soon as one is found;
//! - never a move proved to lose while another move is not proved to lose;
//! - a proved draw, unless an unproved move's estimate gives the mover more than one half (a
//!   win 1, a draw ½);
//! - else the unproved move most visited (with a temperature, one drawn with chances growing
//!   with its visits);
//! - from a proved loss, the move whose refutation took the most work, as `solve` does.

pub mod calibration;
pub mod estimate;

pub use estimate::{
    Estimate, EstimateBudget, Shares, DEFAULT_ESTIMATE_PLAYOUTS, ESTIMATE_TIME_SHARE,
};

use super::report::{SolveValue, Verdict};
use super::solve::Solver;
use crate::db::{Database, DbError};
use crate::game::{Move, Player, Position, Rng, Rules};
use crate::search::dfpn::Limits;
use crate::search::mcts::{Bounds, ChildStats, Mcts, MctsOptions, MctsReport, Score};
use crate::search::options::{Engine, SolveOptions};
use crate::search::rules::{immediate_win, safe_moves};
use crate::search::threads::ThreadError;
use crate::table::Table;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// How to play: the search, and how varied the choice among unproved moves is.
#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// The search.
    pub search: MctsOptions,
    /// With a temperature T > 0 an unproved move is drawn with chances proportional to its
    /// visits to the power 1/T (seeded by the search's seed); `None` plays the most visited.
    pub temperature: Option<f64>,
}

/// One move at the root, as the search left it.
#[derive(Clone, Copy, Debug)]
pub struct PlayedMove {
    /// The move.
    pub mv: Move,
    /// What is proved of the position after it.
    pub bounds: Bounds,
    /// Playouts through it.
    pub visits: u32,
    /// Its playouts' shares (`None` when it was never played out, or is proved).
    pub estimate: Option<Estimate>,
}

/// What `play` decided: the move, what is proved, and the estimate where nothing is.
#[derive(Clone, Debug)]
pub struct PlayReport {
    /// The position played from.
    pub position: Position,
    /// The move chosen (`None` when the game is over).
    pub chosen: Option<Move>,
    /// What is proved of the position: the winner, a draw, or unknown.
    pub verdict: Verdict,
    /// What is proved when the value is not ("X cannot win"), as bounds.
    pub bounds: Bounds,
    /// The shares of the root's playouts, where the value is not proved.
    pub estimate: Option<Estimate>,
    /// The search's figures and line.
    pub search: MctsReport,
    /// Each move at the root.
    pub moves: Vec<PlayedMove>,
    /// Whether the search went on from a tree kept from an earlier move.
    pub kept_tree: bool,
}

impl PlayReport {
    /// The value for the side to move.
    pub fn value(&self) -> SolveValue {
        self.verdict.value_for(self.position.side_to_move())
    }

    /// Whether the result is proved.
    pub fn proved(&self) -> bool {
        self.verdict.is_answered()
    }
}

/// The verdict that exact bounds give.
fn verdict_of(bounds: Bounds) -> Verdict {
    match bounds.value() {
        Some(Score::X_WINS) => Verdict::Wins(Player::X),
        Some(Score::O_WINS) => Verdict::Wins(Player::O),
        Some(_) => Verdict::Draw,
        None => Verdict::Unknown,
    }
}

/// Why a player could not choose.
#[derive(Debug)]
pub enum PlayError {
    /// The database failed.
    Database(DbError),
    /// The system refused a search thread.
    Thread(ThreadError),
}

impl std::fmt::Display for PlayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlayError::Database(error) => write!(f, "the database: {}", error.with_causes()),
            PlayError::Thread(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for PlayError {}

impl From<DbError> for PlayError {
    fn from(error: DbError) -> PlayError {
        PlayError::Database(error)
    }
}

impl From<ThreadError> for PlayError {
    fn from(error: ThreadError) -> PlayError {
        PlayError::Thread(error)
    }
}

/// A player that keeps its search tree from one move to the next (within a game, the tree
/// below the moves played goes on growing).
pub struct TreePlayer {
    mcts: Option<Mcts>,
}

impl Default for TreePlayer {
    fn default() -> Self {
        TreePlayer::new()
    }
}

impl TreePlayer {
    /// A player with no tree yet.
    pub fn new() -> TreePlayer {
        TreePlayer { mcts: None }
    }

    /// Whether a search of `pos` would go on from this player's tree (`pos` is in it, within
    /// two plies of its root: after the player's move and a reply).
    pub fn reaches(&self, pos: &Position) -> bool {
        self.mcts.as_ref().is_some_and(|mcts| mcts.reaches(pos))
    }

    /// Chooses a move at `pos`, searching against `table` (its DFPN looks' proofs stay there)
    /// until a limit of `options` or `limits`' stop flag; what `database` knows of `pos` and
    /// of the position after each of its moves is proved from the start.
    pub fn choose(
        &mut self,
        pos: &Position,
        table: &Table,
        database: Option<&Database>,
        options: &PlayOptions,
        limits: Limits<'_>,
    ) -> Result<PlayReport, PlayError> {
        let known = match database {
            Some(database) => known_near(database, pos)?,
            None => Vec::new(),
        };
        Ok(self.choose_knowing(pos, table, &known, options, limits)?)
    }

    /// [`TreePlayer::choose`], with `known` (facts from outside about positions near `pos`)
    /// in place of a database's. A search thread the system refuses is an error.
    pub fn choose_knowing(
        &mut self,
        pos: &Position,
        table: &Table,
        known: &[(Position, Bounds)],
        options: &PlayOptions,
        limits: Limits<'_>,
    ) -> Result<PlayReport, ThreadError> {
        let search = &options.search;
        let kept_tree = match &mut self.mcts {
            Some(mcts) => mcts.move_to(pos, search.tree_bytes),
            None => false,
        };
        let mcts = self
            .mcts
            .get_or_insert_with(|| Mcts::new(*pos, search.tree_bytes));
        let report = mcts.search(table, search, limits, known)?;
        let rules = pos.rules();
        let moves: Vec<PlayedMove> = report
            .children
            .iter()
            .map(|child| played_move(child, rules))
            .collect();
        let verdict = verdict_of(report.bounds);
        let estimate = match verdict {
            Verdict::Unknown => Estimate::of_counts(report.results, report.bounds, rules),
            _ => None,
        };
        let mut rng = Rng::new(search.seed ^ 0x706c_6179); // "play"
        let chosen = if pos.is_over() {
            None
        } else {
            Some(
                choose_move(pos, &report, &moves, options.temperature, &mut rng).unwrap_or_else(
                    || fallback_move(pos, report.bounds, table, search, limits.stop),
                ),
            )
        };
        Ok(PlayReport {
            position: *pos,
            chosen,
            verdict,
            bounds: report.bounds,
            estimate,
            moves,
            search: report,
            kept_tree,
        })
    }
}

/// What `database` knows of `pos` and of the position after each legal move, as bounds.
fn known_near(database: &Database, pos: &Position) -> Result<Vec<(Position, Bounds)>, DbError> {
    let mut known = Vec::new();
    let positions = std::iter::once(*pos).chain(pos.legal_moves().map(|mv| pos.play(mv)));
    for at in positions {
        let facts = database.lookup(&at)?;
        for attacker in [Player::X, Player::O] {
            if let Some(answer) = facts.answer(attacker, None) {
                let bound = if answer.wins {
                    Bounds::exact(Score::win_for(attacker))
                } else {
                    Bounds::cannot_win(attacker)
                };
                known.push((at, bound));
            }
        }
    }
    Ok(known)
}

fn played_move(child: &ChildStats, rules: Rules) -> PlayedMove {
    let counts = child.results.map(u64::from);
    PlayedMove {
        mv: child.mv,
        bounds: child.bounds,
        visits: child.visits,
        estimate: if child.bounds.is_exact() {
            None
        } else {
            Estimate::of_counts(counts, child.bounds, rules)
        },
    }
}

/// The move the rules of this module choose from the root's moves, or `None` when the tree
/// gives no move that meets them (a root settled before it was expanded, or a proof found
/// in the table without its moves).
fn choose_move(
    pos: &Position,
    report: &MctsReport,
    moves: &[PlayedMove],
    temperature: Option<f64>,
    rng: &mut Rng,
) -> Option<Move> {
    let mover = pos.side_to_move();
    let most_visited = |candidates: &mut dyn Iterator<Item = &PlayedMove>| {
        candidates.max_by_key(|m| m.visits).map(|m| m.mv)
    };
    if let Some(value) = report.bounds.value() {
        // Proved: a move of the same value (from a loss, the one that took most work).
        return most_visited(&mut moves.iter().filter(|m| m.bounds.value() == Some(value)));
    }
    let loss = Score::win_for(mover.opponent());
    let open: Vec<&PlayedMove> = moves
        .iter()
        .filter(|m| m.bounds.value().is_none_or(|v| v != loss))
        .collect();
    let draw = most_visited(
        &mut open
            .iter()
            .copied()
            .filter(|m| m.bounds.value() == Some(Score::DRAW)),
    );
    let unproved: Vec<&PlayedMove> = open.into_iter().filter(|m| !m.bounds.is_exact()).collect();
    let promising = unproved.iter().any(|m| {
        m.estimate
            .is_some_and(|e| m.bounds.clamp_reward(e.reward_for(mover), mover) > 0.5)
    });
    if draw.is_some() && !promising {
        return draw;
    }
    let best = match temperature {
        Some(t) if t > 0.0 => draw_by_visits(&unproved, t, rng),
        _ => unproved.iter().max_by_key(|m| m.visits).map(|m| m.mv),
    };
    best.or(draw)
}

/// A move of `moves` drawn with chances proportional to its visits to the power `1 / t`.
///
/// The weights are taken relative to the most visited move's, in log space:
/// `(v / v_max)^(1/t) = exp((ln v - ln v_max) / t)`, which lies in (0, 1] for every `t > 0`.
/// Raised as they are, `v^(1/t)` overflows to infinity for small `t` (`1000^(1/0.01)` is
/// 10^300), every weight alike, and the draw fell through to the last move; here the most
/// visited moves weigh 1 whatever `t`, a very small `t` gives the others 0 (the most visited
/// is chosen, as documented), and a very large one gives every move about 1 (uniform).
fn draw_by_visits(moves: &[&PlayedMove], t: f64, rng: &mut Rng) -> Option<Move> {
    let log_visits = |m: &PlayedMove| f64::from(m.visits.max(1)).ln();
    let most = moves
        .iter()
        .map(|m| log_visits(m))
        .fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = moves
        .iter()
        .map(|m| ((log_visits(m) - most) / t).exp())
        .collect();
    let total: f64 = weights.iter().sum();
    let mut point = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
    for (m, weight) in moves.iter().zip(weights) {
        if point < weight {
            return Some(m.mv);
        }
        point -= weight;
    }
    // Rounding may leave `point` a hair past the last weight: a most visited move then.
    moves
        .iter()
        .rev()
        .find(|m| log_visits(m) == most)
        .map(|m| m.mv)
}

/// The move when the tree gives none: a win at once if there is one; for any other proved
/// value, the best move of a DFPN solve against the same table (which holds the proof's
/// pieces), as `solve` chooses it; else the first move that does not hand the opponent a win at once.
fn fallback_move(
    pos: &Position,
    bounds: Bounds,
    table: &Table,
    search: &MctsOptions,
    stop: &AtomicBool,
) -> Move {
    if let Some(win) = immediate_win(pos) {
        return win;
    }
    let first_safe = || {
        let safe = safe_moves(pos);
        let moves = if safe.is_empty() {
            pos.legal_moves()
        } else {
            safe
        };
        moves.into_iter().next().expect("a game in play has a move")
    };
    if bounds.is_exact() {
        let options = SolveOptions {
            engine: Engine::Dfpn,
            threads: 1,
            time_limit: search.time_limit,
            ..SolveOptions::default()
        };
        let report = Solver::new(&options, table).stopped_by(stop).solve(pos);
        if let Some(mv) = report.best_move {
            return mv;
        }
    }
    first_safe()
}

/// What an estimate's search found: the value, where it proved one; else the estimate.
#[derive(Clone, Debug)]
pub struct Appraisal {
    /// The value it proved, or `Unknown`.
    pub verdict: Verdict,
    /// Where it proved a value: a move that keeps it.
    pub best_move: Option<Move>,
    /// Where it did not: the estimate.
    pub estimate: Option<Estimate>,
    /// MID calls of its DFPN looks.
    pub nodes: u64,
    /// Its wall time.
    pub elapsed: Duration,
}

/// The estimate of `pos` (or its value, where the search proves one) that `analyze` and
/// `review` show beside a value `solver` left unknown: a tree search against the solver's
/// table (its proofs stay there), on its threads, until its stop flag, within `time` (a share
/// of a time limit, or `None`) and the playouts the solver asks for
/// ([`Solver::estimating_with`]). Each player of `cannot_win` is known not to win there (a
/// question a solve settled), so the estimate gives that outcome nothing. Seed 1: one thread
/// and a budget in playouts alone give the same answer every time. `None` when no estimate is
/// wanted, or nothing is left of `time`.
pub fn appraise(
    solver: &Solver<'_>,
    pos: &Position,
    cannot_win: &[Player],
    time: Option<Duration>,
) -> Option<Appraisal> {
    let budget = EstimateBudget::of(solver.estimate_playouts(), time)?;
    let start = Instant::now();
    let known: Vec<(Position, Bounds)> = cannot_win
        .iter()
        .map(|&player| (*pos, Bounds::cannot_win(player)))
        .collect();
    let options = PlayOptions {
        search: MctsOptions {
            threads: solver.options().threads,
            playouts: budget.playouts,
            time_limit: budget.time_limit,
            stop_when_decided: false,
            ..MctsOptions::default()
        },
        temperature: None,
    };
    let never = AtomicBool::new(false);
    let stop = solver.stop_flag().unwrap_or(&never);
    // No estimate when the system refuses its threads: the solve's answer stands alone.
    let report = TreePlayer::new()
        .choose_knowing(
            pos,
            solver.table(),
            &known,
            &options,
            Limits::stop_only(stop),
        )
        .ok()?;
    Some(Appraisal {
        verdict: report.verdict,
        best_move: report
            .verdict
            .is_answered()
            .then_some(report.chosen)
            .flatten(),
        estimate: report.estimate,
        nodes: report.search.dfpn_nodes,
        elapsed: start.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn played(square: usize, visits: u32) -> PlayedMove {
        PlayedMove {
            mv: Move::from_square(square),
            bounds: Bounds::UNKNOWN,
            visits,
            estimate: None,
        }
    }

    /// How often each of `moves` is drawn in 2,000 draws at temperature `t`.
    fn draws(moves: &[PlayedMove], t: f64) -> Vec<u32> {
        let refs: Vec<&PlayedMove> = moves.iter().collect();
        let mut rng = Rng::new(7);
        let mut counts = vec![0; moves.len()];
        for _ in 0..2000 {
            let chosen = draw_by_visits(&refs, t, &mut rng).expect("a move");
            counts[moves.iter().position(|m| m.mv == chosen).unwrap()] += 1;
        }
        counts
    }

    #[test]
    fn a_tiny_temperature_draws_the_most_visited_move() {
        // The case: the most visited move neither first nor last.
        let moves = [played(0, 1926), played(5, 3216), played(8, 1200)];
        for t in [0.01, 0.001, 1e-10, 1e-300, f64::MIN_POSITIVE] {
            assert_eq!(draws(&moves, t), [0, 2000, 0], "temperature {t}");
        }
    }

    #[test]
    fn a_huge_temperature_draws_about_uniformly() {
        let moves = [played(0, 1), played(5, 100_000), played(8, 50)];
        for t in [1e6, 1e300, f64::MAX, f64::INFINITY] {
            let counts = draws(&moves, t);
            assert!(
                counts.iter().all(|&c| (550..=780).contains(&c)),
                "{t}: {counts:?}"
            );
        }
    }

    #[test]
    fn temperature_one_draws_in_proportion_to_visits() {
        let counts = draws(&[played(0, 1000), played(5, 3000)], 1.0);
        assert!((400..=600).contains(&counts[0]), "{counts:?}");
    }
}
