//! Monte Carlo tree search that knows what is proved: the search a player uses where the proof
//! does not reach (the opening and the middle game), over the same game core, static rules and
//! table as the proof searches.
//!
//! - **Tree** ([`tree`]): grown by UCT, one expansion at a time, by several threads that share
//!   it under a spin lock (each step under the lock is short; the playouts and the looks run
//!   outside it), spread apart by virtual losses.
//! - **Proofs back up exactly** ([`bounds`], score-bounded MCTS): each node keeps bounds on
//!   its value over the three outcomes, from the static rules, the table and short DFPN
//!   searches ([`leaf`]), and from its children. A child proved won for the mover proves its
//!   parent; children all proved lost, or all proved with a draw the best, prove theirs; a
//!   bound such as "X cannot win" is kept as one. A child that can no longer change its
//!   parent's value is never sampled again.
//! - **Playouts** ([`playout`]): random, but a winning move is taken and a move that hands the
//!   opponent a win is avoided. A playout's score is held within the bounds of the node it
//!   starts from, and a node the looks settle counts its proved value instead of a playout.
//!
//! What the search says of a position that it does not prove is an estimate: shares of
//! playout results, never a value. [`MctsReport`] keeps the two apart.

pub mod bounds;
pub mod leaf;
pub mod playout;
mod spin;
pub mod tree;

pub use bounds::{Bounds, Score};
pub use tree::ChildStats;

use super::dfpn::Limits;
use crate::game::{Move, Position, Rng};
use crate::search::threads::{join_gated, spawn_gated, ThreadError};
use crate::table::Table;
use leaf::Looker;
use serde::{Deserialize, Serialize};
use spin::SpinLock;
use std::time::{Duration, Instant};
use tree::{Descent, Found, Growth, Task, Tree};

/// How to search: threads, budget and tuning. Plain data.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MctsOptions {
    /// Threads sharing the tree.
    pub threads: usize,
    /// Seed of the playouts' random choices: with one thread and a budget in playouts (no
    /// time limit), the same seed gives the same search.
    pub seed: u64,
    /// Stop after this many playouts (a node the looks settle counts as one).
    pub playouts: Option<u64>,
    /// Stop after this long, counted from the start of the search.
    pub time_limit: Option<Duration>,
    /// MID calls of each DFPN look near the end of the game; 0 turns them off.
    pub leaf_work: u64,
    /// A node gets a DFPN look when at most this many empty cells are left in open boards.
    pub search_within: u32,
    /// UCT's exploration constant.
    pub exploration: f64,
    /// Bytes the tree may take (64 a node).
    pub tree_bytes: u64,
    /// Stop once the move most visited at the root can no longer change with the budget left
    /// (a player's search); `false` spends the whole budget (an estimate's search, whose
    /// shares go on sharpening).
    #[serde(default = "stops_when_decided")]
    pub stop_when_decided: bool,
}

fn stops_when_decided() -> bool {
    true
}

/// The default DFPN look: a thousand MID calls (about a millisecond), where at most 30 empty
/// cells are left.
pub const DEFAULT_LEAF_WORK: u64 = 1_000;
/// See [`DEFAULT_LEAF_WORK`].
pub const DEFAULT_SEARCH_WITHIN: u32 = 30;
/// UCT's exploration constant: below UCB1's usual 1.4, since playouts that take wins and
/// avoid handing them over are less noisy than random ones (not yet tuned by measurement).
pub const DEFAULT_EXPLORATION: f64 = 0.7;

impl Default for MctsOptions {
    fn default() -> Self {
        MctsOptions {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            seed: 1,
            playouts: None,
            time_limit: None,
            leaf_work: DEFAULT_LEAF_WORK,
            search_within: DEFAULT_SEARCH_WITHIN,
            exploration: DEFAULT_EXPLORATION,
            tree_bytes: super::options::DEFAULT_TREE_BYTES,
            stop_when_decided: true,
        }
    }
}

/// What a search found: what is proved of the root and of each move, and the playouts'
/// results (an estimate, never a value).
#[derive(Clone, Debug)]
pub struct MctsReport {
    /// The root position.
    pub root: Position,
    /// What is proved of the root.
    pub bounds: Bounds,
    /// Each move worth playing at the root (none when the root was settled before it was
    /// expanded).
    pub children: Vec<ChildStats>,
    /// The root's results by score ([`Score::index`]), a proved move's playouts all counted
    /// as its proved value: the estimate's counts.
    pub results: [u64; 3],
    /// Playouts of this search (each node a look settled counts as one).
    pub playouts: u64,
    /// Playouts the tree held before this search (a tree kept from an earlier move).
    pub reused: u64,
    /// Nodes in the tree.
    pub tree_nodes: u64,
    /// MID calls of the DFPN looks.
    pub dfpn_nodes: u64,
    /// Wall time of the search.
    pub elapsed: Duration,
    /// The line the tree expects.
    pub pv: Vec<Move>,
}

/// A search tree kept between searches (a player's, from move to move).
pub struct Mcts {
    tree: Tree,
}

/// The tree and the counts of the search under way, behind one lock.
struct Shared {
    tree: Tree,
    started: u64,
    finished: u64,
    /// The most playouts this search may start: the options' budget, and the room left in
    /// the tree's 32-bit counts.
    budget: Option<u64>,
}

/// The most playouts one tree counts (its counts are 32-bit; this leaves room for the
/// playouts under way): about two hours of two threads.
const MAX_TREE_PLAYOUTS: u64 = 1 << 31;

impl Mcts {
    /// A tree of `root` alone, which may grow to `tree_bytes`.
    pub fn new(root: Position, tree_bytes: u64) -> Mcts {
        Mcts {
            tree: Tree::new(root, tree_bytes),
        }
    }

    /// The root position.
    pub fn root(&self) -> Position {
        self.tree.root()
    }

    /// Whether `pos` is in the tree within two plies of the root (a search of it would go on
    /// from what the tree knows).
    pub fn reaches(&self, pos: &Position) -> bool {
        self.tree.path_to(pos, 2).is_some()
    }

    /// Moves the root to `pos`, keeping what the tree knows below it when `pos` is in the tree
    /// within two plies of the root (the player's move and the reply); otherwise starts a new
    /// tree of `pos` that may grow to `tree_bytes`. Returns whether the tree was kept.
    pub fn move_to(&mut self, pos: &Position, tree_bytes: u64) -> bool {
        let kept = self
            .tree
            .path_to(pos, 2)
            .and_then(|moves| self.tree.subtree(&moves));
        let found = kept.is_some();
        self.tree = kept.unwrap_or_else(|| Tree::new(*pos, tree_bytes));
        found
    }

    /// Every node of the tree with something proved of it, with its position (for checks
    /// against an independent solver).
    pub fn proved_nodes(&self) -> Vec<(Position, Bounds)> {
        self.tree.proved_nodes()
    }

    /// Searches from the root against `table` until the root is proved, a limit of `options`
    /// is reached, `limits`' stop flag is raised, or the move most visited can no longer
    /// change. The DFPN looks publish their nodes to `limits`' live display; the deadline is
    /// `options`' time limit from now. `known` holds facts from outside (a database) about the
    /// root and the positions after its moves, met with what the first look at each finds.
    /// A thread the system refuses ends it before any playout (the tree is kept as it was).
    pub fn search(
        &mut self,
        table: &Table,
        options: &MctsOptions,
        limits: Limits<'_>,
        known: &[(Position, Bounds)],
    ) -> Result<MctsReport, ThreadError> {
        let start = Instant::now();
        let limits = Limits {
            deadline: options
                .time_limit
                .and_then(|limit| start.checked_add(limit)),
            ..limits
        };
        let growth = Growth {
            exploration: options.exploration,
            search_within: if options.leaf_work == 0 {
                0
            } else {
                options.search_within
            },
        };
        let reused = u64::from(self.tree.root_results().iter().sum::<u32>());
        let placeholder = Tree::new(self.tree.root(), 0);
        let room = MAX_TREE_PLAYOUTS.saturating_sub(reused);
        let shared = SpinLock::new(Shared {
            tree: std::mem::replace(&mut self.tree, placeholder),
            started: 0,
            finished: 0,
            budget: super::options::tighter(options.playouts, Some(room)),
        });
        let threads = options.threads.max(1);
        let dfpn_nodes = std::thread::scope(|scope| {
            let workers = spawn_gated(scope, threads, |thread| {
                let shared = &shared;
                let seed = crate::game::tables::splitmix64(options.seed ^ thread as u64).0;
                let seed = if thread == 0 { options.seed } else { seed };
                move || {
                    let mut looker = Looker::new(table, limits, known);
                    search_thread(shared, &mut looker, options, growth, &limits, start, seed);
                    looker.dfpn_nodes
                }
            })?;
            Ok::<u64, ThreadError>(workers.into_iter().map(join_gated).sum())
        });
        let shared = shared.into_inner();
        self.tree = shared.tree;
        Ok(self.report(shared.finished, reused, dfpn_nodes?, start.elapsed()))
    }

    fn report(&self, playouts: u64, reused: u64, dfpn_nodes: u64, elapsed: Duration) -> MctsReport {
        let tree = &self.tree;
        let bounds = tree.root_bounds();
        let children = tree.root_children();
        let results = estimate_counts(bounds, &children, tree.root_results());
        MctsReport {
            root: tree.root(),
            bounds,
            children,
            results,
            playouts,
            reused,
            tree_nodes: tree.len() as u64,
            dfpn_nodes,
            elapsed,
            pv: tree.principal_variation(),
        }
    }
}

/// The estimate's counts (see [`MctsReport::results`]).
fn estimate_counts(bounds: Bounds, children: &[ChildStats], root: [u32; 3]) -> [u64; 3] {
    let total = |results: [u32; 3]| u64::from(results.iter().sum::<u32>());
    let mut counts = [0u64; 3];
    if let Some(score) = bounds.value() {
        counts[score.index()] = total(root).max(1);
        return counts;
    }
    if children.iter().all(|child| child.visits == 0) {
        return root.map(u64::from);
    }
    for child in children {
        match child.bounds.value() {
            Some(score) => counts[score.index()] += u64::from(child.visits),
            None => {
                for (count, result) in counts.iter_mut().zip(child.results) {
                    *count += u64::from(result);
                }
            }
        }
    }
    counts
}

/// One thread's share of a search: descents under the lock, looks and playouts outside it.
fn search_thread(
    shared: &SpinLock<Shared>,
    looker: &mut Looker<'_>,
    options: &MctsOptions,
    growth: Growth,
    limits: &Limits<'_>,
    start: Instant,
    seed: u64,
) {
    let mut rng = Rng::new(seed);
    let mut pending: Option<(Vec<u32>, Found)> = None;
    loop {
        let descent = {
            let mut guard = shared.lock();
            if let Some((path, found)) = pending.take() {
                guard.tree.finish(&path, found);
                guard.finished += 1;
            }
            if should_stop(&guard, limits, start, options.stop_when_decided) {
                break;
            }
            let Some(descent) = guard.tree.descend(growth, &mut rng) else {
                break;
            };
            guard.started += 1;
            descent
        };
        let found = work(&descent, looker, options, &mut rng);
        pending = Some((descent.path, found));
    }
}

/// What the search does at a descent's leaf, outside the lock.
fn work(descent: &Descent, looker: &mut Looker<'_>, options: &MctsOptions, rng: &mut Rng) -> Found {
    let pos = &descent.pos;
    let (look, searched, bounds) = match descent.task {
        Task::Look => {
            let looked = looker.look(pos, descent.path.len() <= 2);
            (Some((looked.bounds, looked.moves)), false, looked.bounds)
        }
        Task::Search => {
            let bounds = looker.search(pos, descent.bounds, options.leaf_work);
            (Some((bounds, crate::game::MoveSet::EMPTY)), true, bounds)
        }
        Task::Playout => (None, false, descent.bounds),
    };
    let score = bounds
        .value()
        .unwrap_or_else(|| bounds.clamp(playout::playout(pos, rng)));
    Found {
        look,
        searched,
        score,
    }
}

/// Whether the search should start no more playouts: a limit is reached, or (when
/// `when_decided`) the most visited move at the root can no longer change with the playouts
/// left (checked every 128 playouts, and only while no move at the root is proved a draw or
/// better, whose choice an estimate may still change).
fn should_stop(shared: &Shared, limits: &Limits<'_>, start: Instant, when_decided: bool) -> bool {
    if shared.budget.is_some_and(|budget| shared.started >= budget) || limits.reached() {
        return true;
    }
    if !when_decided || !shared.started.is_multiple_of(128) || shared.started == 0 {
        return false;
    }
    let by_budget = shared.budget.map(|budget| budget - shared.started);
    let by_time = limits.deadline.map(|deadline| {
        let spent = start.elapsed().as_secs_f64().max(1e-6);
        let left = deadline
            .saturating_duration_since(Instant::now())
            .as_secs_f64();
        (shared.started as f64 * left / spent) as u64
    });
    let Some(left) = super::options::tighter(by_budget, by_time) else {
        return false;
    };
    let children = shared.tree.root_children();
    let mover = shared.tree.root().side_to_move();
    if children.iter().any(|child| {
        child.bounds.is_exact() && child.bounds.low != Score::win_for(mover.opponent())
    }) {
        return false;
    }
    let mut visits: Vec<u32> = children
        .iter()
        .filter(|child| !child.bounds.is_exact())
        .map(|child| child.visits)
        .collect();
    visits.sort_unstable_by(|a, b| b.cmp(a));
    match visits.as_slice() {
        [first, second, ..] => u64::from(first - second) > left,
        _ => false,
    }
}
