//! PN-DFPN: a root thread keeps a proof-number tree near the root and feeds work-limited DFPN
//! jobs ([`Job`]) to workers through a transport ([`Workers`]), taking their results back into
//! the tree.
//!
//! Each tree node has real numbers (what the searches found) and virtual numbers: a leaf with
//! a job in flight counts at twice its real numbers, as if already grown (see
//! [`tree::in_flight`]), and takes no second job. The root selects the most-proving leaf by the
//! virtual numbers, with the 1+ε trick, among the subtrees that still have a leaf free; when
//! none has, it waits for results. A leaf is
//! expanded into the tree, from the children's numbers its job returns, once its cumulative
//! work passes the split threshold, or at once when the root last found no leaf for a free
//! worker: its children are new leaves to select, so a tree of few leaves does not leave
//! workers idle. For the same reason the root starts expanded when more than one job fits.
//! Nodes store no positions: the root replays moves while walking down.
//!
//! Results find their leaf again by the moves of their path, never by a node id. A solved
//! subtree is freed only once no job below it is in flight, so every result finds its leaf; a
//! result whose walk ended early (no node for a move of its path) would count its work and
//! change nothing else.

use super::dfpn::{Dfpn, Limits};
use super::guide::Guide;
use super::job::{Job, JobResult, JobTerms, WorkBudget};
use super::numbers::{child_thresholds, select_child, Numbers, Selection, INFINITY};
use super::workers::Workers;
use super::{table_key, Question};
use crate::db::campaign::KeptNode;
use crate::game::{Move, Position};
use crate::table::{Table, TableCounters};
use serde::{Deserialize, Serialize};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tree::{in_flight, Tree, NONE};

mod keeper;
mod tree;

pub(crate) use keeper::seed_table;
pub use keeper::{SolvedLeaf, TreeChange, TreeKeeper};

/// How often the root thread wakes to check the clock and the stop flag while it waits.
const POLL: Duration = Duration::from_millis(20);

/// Tuning of the parallel engine.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct PnDfpnConfig {
    /// MID calls a job may spend before it returns its numbers.
    pub job_work: u64,
    /// Cumulative work after which a leaf is expanded into the tree.
    pub split_threshold: u64,
    /// Bytes the tree may use.
    pub tree_bytes: u64,
    /// ε of the 1+ε trick.
    pub epsilon: f64,
    /// Wall-clock time a job may take (as well as its MID calls), if bounded.
    pub job_time: Option<Duration>,
    /// Where new nodes' numbers come from, in the tree and in every job.
    #[serde(default)]
    pub guide: Guide,
}

/// Statistics of the tree, reported under `tree` in the JSON.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TreeReport {
    /// Nodes in the tree at the end.
    pub nodes: u64,
    /// The most nodes at any time.
    pub peak_nodes: u64,
    /// Leaves expanded.
    pub expansions: u64,
    /// Jobs completed.
    pub jobs: u64,
    /// Mean MID calls per job.
    pub mean_job_work: f64,
    /// Share of the workers' time spent searching.
    pub worker_busy_pct: f64,
    /// Share of the root thread's time spent waiting for results.
    pub root_wait_pct: f64,
}

/// The outcome of one PN-DFPN binary search.
pub struct PnDfpnRun {
    /// The root's numbers.
    pub numbers: Numbers,
    /// MID calls over all jobs.
    pub nodes: u64,
    /// Table traffic over all jobs.
    pub counters: TableCounters,
    /// Tree statistics.
    pub tree: TreeReport,
}

/// A binary question at a root.
#[derive(Clone, Copy, Debug)]
pub struct RootQuestion {
    /// The position searched.
    pub root: Position,
    /// The question.
    pub question: Question,
}

/// Answers `question` with jobs run by `workers`, within `node_budget` MID calls and `limits`
/// (the root thread, the caller, checks them and aborts the jobs in flight when one is
/// reached). With a `keeper`, the tree starts from the one it kept (whose numbers also seed
/// the table), leaves it knows solved need no job, and every merge is reported to it.
pub fn search(
    question: RootQuestion,
    config: &PnDfpnConfig,
    table: &Table,
    limits: Limits,
    node_budget: u64,
    workers: &mut (dyn Workers + '_),
    mut keeper: Option<&mut (dyn TreeKeeper + '_)>,
) -> PnDfpnRun {
    let start = Instant::now();
    let keep_solved = keeper.as_ref().is_some_and(|k| k.keeps_tree());
    let kept = keeper.as_mut().map(|k| k.kept_tree()).unwrap_or_default();
    let root = Root {
        pos: &question.root,
        question: question.question,
        table,
        keep_solved,
    };
    let mut root_searcher = Dfpn::new(table, root.question, config.epsilon, limits)
        .guided_by(limits.estimate(config.guide));
    let mut tree = if kept.is_empty() {
        Tree::new(root_searcher.peek(root.pos), config.tree_bytes)
    } else {
        seed_table(&kept, root.pos, root.question, table);
        Tree::from_kept(&kept, config.tree_bytes)
    };
    let mut run = PnDfpnRun {
        numbers: tree.nodes[0].real,
        nodes: 0,
        counters: TableCounters::default(),
        tree: TreeReport::default(),
    };
    if run.numbers.is_solved() {
        run.counters = root_searcher.counters();
        return run;
    }
    let slots = workers.slots().max(1);
    if tree.nodes[0].first_child == NONE && (slots > 1 || keep_solved) {
        // The root's children from the table and the static rules, so that every worker has
        // a leaf from the first job on (a one-node tree gives one job at a time); a kept tree
        // starts expanded, so that its best move is read from it.
        let children: Vec<(u8, Numbers)> = root_searcher
            .children(root.pos)
            .into_iter()
            .map(|(mv, numbers)| (mv.square() as u8, numbers))
            .collect();
        if !children.is_empty() {
            let mut changed = tree.expand(0, &children);
            tree.recompute(0);
            run.tree.expansions += 1;
            changed.push(0);
            let merged = Merged {
                changed,
                solved: None,
            };
            if !report_merge(&mut keeper, &tree, &merged, 0) {
                run.counters = root_searcher.counters();
                return run;
            }
        }
    }
    run.counters = root_searcher.counters();
    drop(root_searcher);
    let mut wait = Duration::ZERO;
    let mut busy_ns = 0u64;
    let terms = workers.terms();
    let mut in_flight = 0usize;
    // Work limits of the jobs in flight: the node budget left for new jobs excludes them, so
    // that all jobs together stay within it.
    let mut reserved = 0u64;
    // Whether a slot went unused since the last result because no leaf could be selected.
    let mut starved = false;
    // Whether the keeper failed (it keeps the error): the search ends as at a limit.
    let mut keeper_failed = false;
    loop {
        let out_of_budget = run.nodes >= node_budget || keeper_failed || limits.reached();
        if tree.nodes[0].real.is_solved() || out_of_budget {
            break;
        }
        while in_flight < slots && !tree.nodes[0].real.is_solved() {
            // Share what is left of the node budget among the free slots.
            let left = node_budget.saturating_sub(run.nodes + reserved);
            if left == 0 {
                break;
            }
            let Some((mut job, leaf)) = select_job(&mut tree, &root, config, terms) else {
                starved = true;
                break;
            };
            if let Some(numbers) = known_leaf(&mut keeper, &tree, leaf, &job) {
                // Solved in the keeper's knowledge: merged at once, with no job.
                let result = JobResult {
                    path: job.path,
                    numbers,
                    work: 0,
                    work_limit: 0,
                    children: Vec::new(),
                    busy_ns: 0,
                    counters: TableCounters::default(),
                    solved: Vec::new(),
                    subtree: Vec::new(),
                };
                let merged = merge(&mut tree, &root, config.split_threshold, &mut run, result);
                keeper_failed |= !report_merge(&mut keeper, &tree, &merged, 0);
                continue;
            }
            let share = (left / (slots - in_flight) as u64).max(1);
            job.work.limit = job.work.limit.min(share);
            reserved += job.work.limit;
            in_flight += 1;
            workers.submit(job);
        }
        if in_flight == 0 {
            // Nothing in flight and nothing to select: only possible if solved.
            break;
        }
        let waited = Instant::now();
        let received = workers.receive(POLL);
        wait += waited.elapsed();
        if let Some(result) = received {
            in_flight -= 1;
            reserved -= result.work_limit;
            busy_ns += result.busy_ns;
            // A starved root expands the leaf at once: its children are new leaves for the
            // free slots.
            let split_at = if starved { 0 } else { config.split_threshold };
            let work = result.work;
            let merged = merge(&mut tree, &root, split_at, &mut run, result);
            keeper_failed |= !report_merge(&mut keeper, &tree, &merged, work);
            starved = false;
            if let Some(live) = limits.live {
                live.publish_root(tree.nodes[0].real);
                live.tree_nodes.store(tree.live, Ordering::Relaxed);
                live.jobs.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    // Stop the jobs in flight and take their results in; the jobs never started come back
    // unrun.
    if in_flight > 0 {
        for job in workers.abort() {
            in_flight -= 1;
            withdraw(&mut tree, &job.path);
        }
    }
    while in_flight > 0 {
        if let Some(result) = workers.receive(POLL) {
            in_flight -= 1;
            busy_ns += result.busy_ns;
            let work = result.work;
            let merged = merge(&mut tree, &root, config.split_threshold, &mut run, result);
            if !keeper_failed {
                keeper_failed = !report_merge(&mut keeper, &tree, &merged, work);
            }
        }
    }
    let wall = start.elapsed().as_secs_f64().max(1e-9);
    run.numbers = tree.nodes[0].real;
    run.tree.nodes = tree.live;
    run.tree.peak_nodes = tree.peak;
    run.tree.mean_job_work = if run.tree.jobs > 0 {
        run.nodes as f64 / run.tree.jobs as f64
    } else {
        0.0
    };
    run.tree.worker_busy_pct =
        100.0 * busy_ns as f64 / 1e9 / (wall * workers.threads().max(1) as f64);
    run.tree.root_wait_pct = 100.0 * wait.as_secs_f64() / wall;
    run
}

/// The root of a search: what selection and merging need besides the tree.
struct Root<'a> {
    pos: &'a Position,
    question: Question,
    /// The table the tree's numbers are stored in.
    table: &'a Table,
    /// Solved subtrees stay in the tree (its keeper keeps it whole).
    keep_solved: bool,
}

/// What a merge changed.
struct Merged {
    /// The nodes whose kept fields changed, and new ones.
    changed: Vec<u32>,
    /// The leaf the job solved, if it did.
    solved: Option<SolvedLeaf>,
}

/// The keeper's numbers for the leaf `leaf` of `job` if it knows it solved; asked only before
/// a leaf's first job (its work is still zero).
fn known_leaf(
    keeper: &mut Option<&mut (dyn TreeKeeper + '_)>,
    tree: &Tree,
    leaf: u32,
    job: &Job,
) -> Option<Numbers> {
    let keeper = keeper.as_mut()?;
    if tree.nodes[leaf as usize].work != 0 {
        return None;
    }
    keeper.known(&job.leaf()).filter(|n| n.is_solved())
}

/// Tells the keeper, if any, what a merge of `work` MID calls changed; false if it failed.
fn report_merge(
    keeper: &mut Option<&mut (dyn TreeKeeper + '_)>,
    tree: &Tree,
    merged: &Merged,
    work: u64,
) -> bool {
    let Some(keeper) = keeper.as_mut() else {
        return true;
    };
    let nodes: Vec<KeptNode> = if keeper.keeps_tree() {
        merged.changed.iter().map(|&id| tree.kept(id)).collect()
    } else {
        Vec::new()
    };
    keeper.record(&TreeChange {
        nodes: &nodes,
        solved: merged.solved,
        work,
        root: tree.nodes[0].real,
    })
}

/// Walks down by the virtual numbers to the most-proving leaf that takes a job, marks it in
/// flight, and returns its job (on `terms`) and its id; `None` when no leaf takes one (each is
/// in flight or solved).
fn select_job(
    tree: &mut Tree,
    root: &Root,
    config: &PnDfpnConfig,
    terms: JobTerms,
) -> Option<(Job, u32)> {
    if !tree.takes_job(0) {
        return None;
    }
    let mut path_ids = vec![0u32];
    let mut path = Vec::new();
    let mut thresholds = Numbers {
        phi: INFINITY,
        delta: INFINITY,
    };
    let mut id = 0u32;
    while tree.nodes[id as usize].first_child != NONE {
        let (best, selection) = select_open_child(tree, id)?;
        thresholds = child_thresholds(thresholds, &selection, config.epsilon);
        id = best;
        let square = tree.nodes[id as usize].square;
        path.push(square);
        path_ids.push(id);
    }
    // Only open children were entered, so the leaf takes a job.
    let leaf = tree.nodes[id as usize];
    // The thresholds must leave the leaf room to grow, whatever rounding did on the way down.
    thresholds.phi = thresholds.phi.max(leaf.real.phi.saturating_add(1));
    thresholds.delta = thresholds.delta.max(leaf.real.delta.saturating_add(1));
    tree.nodes[id as usize].virt = in_flight(leaf.real);
    for &n in &path_ids {
        tree.nodes[n as usize].in_flight += 1;
    }
    for &n in path_ids.iter().rev().skip(1) {
        tree.recompute(n);
    }
    let job = Job {
        root: *root.pos,
        question: root.question,
        epsilon: config.epsilon,
        guide: config.guide,
        path,
        thresholds,
        work: WorkBudget {
            limit: config.job_work,
            minimum: terms.min_work,
            time: config.job_time,
        },
        share_solved_from: terms.share_solved_from,
        hand_over: terms.hand_over,
    };
    Some((job, id))
}

/// The most-proving of the children of `id` that take a job (by virtual numbers) and its
/// selection among them; `None` if no child takes a job. A child that takes none counts as
/// unselectable (δ = ∞, so it is neither best nor second best) but still adds its φ to the
/// others' sum, which is `id`'s δ: a child in flight is still a move the opponent must
/// answer. An open child's δ is finite (only solved numbers are infinite).
fn select_open_child(tree: &Tree, id: u32) -> Option<(u32, Selection)> {
    let children = tree.children(id);
    let selection = select_child(children.len(), |i| {
        let numbers = tree.nodes[children[i] as usize].virt;
        if tree.takes_job(children[i]) {
            numbers
        } else {
            Numbers {
                phi: numbers.phi,
                delta: INFINITY,
            }
        }
    });
    let best = children[selection.best];
    tree.takes_job(best).then_some((best, selection))
}

/// Takes a job's result into the tree: the leaf's numbers, expansion past the split
/// threshold, and back-propagation (real and virtual) to the root.
fn merge(
    tree: &mut Tree,
    root: &Root,
    split_threshold: u64,
    run: &mut PnDfpnRun,
    result: JobResult,
) -> Merged {
    run.nodes += result.work;
    run.tree.jobs += 1;
    run.counters.add(&result.counters);
    // Find the leaf again by its moves; a freed subtree ends the walk early.
    let ids = tree.walk(&result.path);
    let mut positions = vec![*root.pos];
    for &square in &result.path[..ids.len() - 1] {
        let pos = positions
            .last()
            .unwrap()
            .play(Move::from_square(square as usize));
        positions.push(pos);
    }
    // The job's work was done below every node of its path: each carries it, so that an
    // internal node's table entry (stored below) weighs its whole subtree, not the work it had
    // when it was expanded.
    let work = result.work.min(u64::from(u32::MAX)) as u32;
    for &n in &ids {
        let node = &mut tree.nodes[n as usize];
        node.in_flight = node.in_flight.saturating_sub(1);
        node.work = node.work.saturating_add(work);
    }
    let found = ids.len() == result.path.len() + 1;
    let mut merged = Merged {
        changed: ids.clone(),
        solved: None,
    };
    let mut writer = root.table.writer();
    if found && result.numbers.is_solved() {
        // A solved leaf's children as the worker saw them, so that a best move can be read
        // from this table (the worker's may be another process's). Entries already here are
        // kept: they carry their work.
        let leaf_pos = positions.last().unwrap();
        for &(square, numbers) in &result.children {
            let key = table_key(
                &leaf_pos.play(Move::from_square(square as usize)),
                root.question,
            );
            if writer.lookup(key).is_none() {
                writer.store(key, numbers, 1);
            }
        }
        let leaf = *ids.last().unwrap();
        merged.solved = Some(SolvedLeaf {
            position: *leaf_pos,
            numbers: result.numbers,
            work: u64::from(tree.nodes[leaf as usize].work),
            best_move: solved_leaf_move(result.numbers, &result.children),
        });
    }
    if found {
        let leaf = *ids.last().unwrap();
        let node = &mut tree.nodes[leaf as usize];
        node.real = result.numbers;
        node.virt = result.numbers;
        let expand = !result.numbers.is_solved()
            && node.first_child == NONE
            && u64::from(node.work) >= split_threshold
            && tree.live + result.children.len() as u64 <= tree.capacity;
        if expand {
            let children = tree.expand(leaf, &result.children);
            merged.changed.extend(children);
            run.tree.expansions += 1;
        }
    }
    // Back-propagate along the walked path (the leaf itself only if it has children).
    for (depth, &n) in ids.iter().enumerate().rev() {
        if tree.nodes[n as usize].first_child != NONE {
            tree.recompute(n);
        }
        let node = tree.nodes[n as usize];
        if node.real.is_solved()
            && node.in_flight == 0
            && node.first_child != NONE
            && !root.keep_solved
        {
            tree.free_below(n);
        }
        // The table learns the tree's numbers too, so best moves and later runs find them.
        let key = table_key(&positions[depth], root.question);
        writer.store(key, node.real, u64::from(node.work).max(1));
    }
    run.counters.add(&writer.counters());
    merged
}

/// Takes back a job that never ran, at `path`: its leaf and the nodes above it no longer count
/// it in flight, and their virtual numbers are their real ones again where nothing else is in
/// flight below.
fn withdraw(tree: &mut Tree, path: &[u8]) {
    let ids = tree.walk(path);
    for &n in &ids {
        let node = &mut tree.nodes[n as usize];
        node.in_flight = node.in_flight.saturating_sub(1);
    }
    if ids.len() == path.len() + 1 {
        let leaf = &mut tree.nodes[*ids.last().unwrap() as usize];
        if leaf.first_child == NONE && leaf.in_flight == 0 {
            leaf.virt = leaf.real;
        }
    }
    for &n in ids.iter().rev() {
        if tree.nodes[n as usize].first_child != NONE {
            tree.recompute(n);
        }
    }
}

/// A best move at a leaf solved with `numbers`, from its children's numbers (see
/// [`SolvedLeaf::best_move`]).
fn solved_leaf_move(numbers: Numbers, children: &[(u8, Numbers)]) -> Option<Move> {
    let square = if numbers.phi == 0 {
        children.iter().find(|(_, c)| c.delta == 0)?.0
    } else {
        children.first()?.0
    };
    Some(Move::from_square(square as usize))
}

#[cfg(test)]
mod tests;
