//! PN-DFPN: a root thread keeps a proof-number tree near the root and feeds work-limited DFPN
//! jobs to a pool of workers over a channel; all share one transposition table.
//!
//! Each tree node has real numbers (what the searches found) and virtual numbers: a leaf with
//! a job in flight counts as provisionally solved in the direction it leans, so the next
//! most-proving leaf the root selects (by the virtual numbers, with the 1+ε trick) is a
//! different one. When every path is virtually solved the root waits for results. A leaf is
//! expanded into the tree, from the children's numbers its job returns, once its cumulative
//! work passes the split threshold, or at once when the root last found no leaf for a free
//! worker: its children are new leaves to select, so a tree of few leaves does not leave
//! workers idle. For the same reason the root starts expanded when more than one job fits.
//! (Over `positions/midgame.txt` with two threads, `scripts/compare-builds.sh`, two rounds:
//! expanding a leaf at once when starved took 0.93× the time, 0.86× on the solves over half
//! a second, with the same node counts; starting with the root expanded as well, 0.97× and
//! 0.91× of that; both against neither, in a later run, 0.97× and 0.90×. Runs vary by about
//! ±5 %, most on the short solves, which process start-up dominates.) Nodes store no
//! positions: the root replays moves while walking down.
//!
//! Results find their leaf again by the moves of their path, never by a node id, so a subtree
//! freed (once solved) while a job was in flight below it simply drops that job's result.

use super::dfpn::{Dfpn, Limits, Poll, SolvedEntry};
use super::numbers::{add, child_thresholds, select_child, Numbers, INFINITY};
use super::table::{Table, TableCounters};
use super::table_key;
use crate::game::{Move, Player, Position};
use crossbeam_channel::RecvTimeoutError;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// "No node" in the first-child and next-sibling links.
const NONE: u32 = u32::MAX;
/// How often the root thread wakes to check the clock and the stop flag while it waits.
const POLL: Duration = Duration::from_millis(20);

/// Tuning of the parallel engine.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct PnDfpnConfig {
    /// Worker threads.
    pub threads: usize,
    /// MID calls a job may spend before it returns its numbers.
    pub job_work: u64,
    /// Cumulative work after which a leaf is expanded into the tree.
    pub split_threshold: u64,
    /// Bytes the tree may use.
    pub tree_bytes: u64,
    /// ε of the 1+ε trick.
    pub epsilon: f64,
}

/// A unit of work for a worker: plain data, so it could be sent to another machine.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Job {
    /// Squares of the moves from the root to the leaf.
    pub path: Vec<u8>,
    /// DFPN thresholds for the leaf.
    pub thresholds: Numbers,
    /// The most MID calls to spend.
    pub work_limit: u64,
    /// The question: "does this player win?".
    pub attacker: Player,
    /// Return the subtrees solved with at least this many MID calls (in
    /// [`JobResult::solved`]), for workers that do not share one table.
    #[serde(default)]
    pub share_min_work: Option<u64>,
    /// Keep searching the leaf past its thresholds until this many MID calls are spent (or
    /// it is solved): for workers far away, whose round trip would otherwise cost more than
    /// a short job's work (see [`run_job`]).
    #[serde(default)]
    pub min_work: u64,
}

/// What a worker found for a job.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct JobResult {
    /// The job's path, to find the leaf again.
    pub path: Vec<u8>,
    /// The leaf's numbers after the search.
    pub numbers: Numbers,
    /// MID calls spent.
    pub work: u64,
    /// The job's work limit (the root thread reserved this much of the node budget for it).
    pub work_limit: u64,
    /// Each searched move's square and the child's numbers, in move order (moves that lose
    /// at once are left out, see `rules::safe_moves`); for a solved leaf too, so that the root
    /// thread can read a best move from them.
    pub children: Vec<(u8, Numbers)>,
    /// Worker time spent, in nanoseconds.
    pub busy_ns: u64,
    /// Table traffic of the job.
    pub counters: TableCounters,
    /// The subtrees the job solved, when [`Job::share_min_work`] asked for them.
    #[serde(default)]
    pub solved: Vec<SolvedEntry>,
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

/// A tree node: 32 bytes (checked at compile time).
#[derive(Clone, Copy, Debug)]
struct Node {
    first_child: u32,
    next_sibling: u32,
    real: Numbers,
    virt: Numbers,
    /// Cumulative job work below this leaf, saturating.
    work: u32,
    /// Jobs in flight at or below this node.
    in_flight: u16,
    /// The square of the move from the parent.
    square: u8,
    _pad: u8,
}

const _: () = assert!(std::mem::size_of::<Node>() == 32);

/// The arena of nodes, with a free list of slots from freed subtrees.
struct Tree {
    nodes: Vec<Node>,
    free: Vec<u32>,
    live: u64,
    peak: u64,
    capacity: u64,
}

impl Tree {
    fn new(root: Numbers, bytes: u64) -> Tree {
        let root = Node {
            first_child: NONE,
            next_sibling: NONE,
            real: root,
            virt: root,
            work: 0,
            in_flight: 0,
            square: 0,
            _pad: 0,
        };
        Tree {
            nodes: vec![root],
            free: Vec::new(),
            live: 1,
            peak: 1,
            capacity: (bytes / 32).max(1),
        }
    }

    fn alloc(&mut self, node: Node) -> u32 {
        self.live += 1;
        self.peak = self.peak.max(self.live);
        match self.free.pop() {
            Some(id) => {
                self.nodes[id as usize] = node;
                id
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        }
    }

    fn children(&self, id: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut child = self.nodes[id as usize].first_child;
        while child != NONE {
            out.push(child);
            child = self.nodes[child as usize].next_sibling;
        }
        out
    }

    /// Gives the leaf `id` children: (square of the move, numbers) each.
    fn expand(&mut self, id: u32, children: &[(u8, Numbers)]) {
        let mut previous = NONE;
        for &(square, numbers) in children.iter().rev() {
            previous = self.alloc(Node {
                first_child: NONE,
                next_sibling: previous,
                real: numbers,
                virt: numbers,
                work: 0,
                in_flight: 0,
                square,
                _pad: 0,
            });
        }
        self.nodes[id as usize].first_child = previous;
    }

    /// Frees every node below `id`.
    fn free_below(&mut self, id: u32) {
        let mut stack = self.children(id);
        self.nodes[id as usize].first_child = NONE;
        while let Some(n) = stack.pop() {
            stack.extend(self.children(n));
            self.free.push(n);
            self.live -= 1;
        }
    }

    /// Recomputes an internal node's real and virtual numbers from its children.
    fn recompute(&mut self, id: u32) {
        let mut real = Numbers {
            phi: INFINITY,
            delta: 0,
        };
        let mut virt = Numbers {
            phi: INFINITY,
            delta: 0,
        };
        for child in self.children(id) {
            let c = self.nodes[child as usize];
            real.phi = real.phi.min(c.real.delta);
            real.delta = add(real.delta, c.real.phi);
            virt.phi = virt.phi.min(c.virt.delta);
            virt.delta = add(virt.delta, c.virt.phi);
        }
        let node = &mut self.nodes[id as usize];
        node.real = real;
        node.virt = virt;
    }
}

/// The numbers a leaf counts as while a job runs on it: solved in the direction it leans.
fn provisional(real: Numbers) -> Numbers {
    if real.phi < real.delta {
        Numbers::PROVED
    } else {
        Numbers::DISPROVED
    }
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

/// Where PN-DFPN jobs run: the local worker threads of [`search`], or (with the `mpi` feature)
/// other processes. The root loop only submits jobs and takes results back.
pub trait Workers {
    /// How many jobs may be in flight at once.
    fn slots(&self) -> usize;
    /// How many threads run them (for the busy share).
    fn threads(&self) -> usize;
    /// Announces a search before its first job: the root the jobs' paths start from and the
    /// ε of their DFPN. Clears an [`Workers::abort`] of an earlier search.
    fn begin(&mut self, root: &Position, epsilon: f64);
    /// Starts a job.
    fn submit(&mut self, job: Job);
    /// A finished job's result, waiting at most `timeout` for one.
    fn receive(&mut self, timeout: Duration) -> Option<JobResult>;
    /// Asks the running jobs to return at once; their results still come back.
    fn abort(&mut self);
}

/// The worker threads of one search in this process, fed over channels.
struct LocalWorkers<'a> {
    threads: usize,
    jobs: crossbeam_channel::Sender<Job>,
    results: crossbeam_channel::Receiver<JobResult>,
    abort: &'a AtomicBool,
    /// Raised by a worker thread that panicked: its job's result will never come.
    failed: &'a AtomicBool,
}

/// Raises its flag when dropped while its thread panics: a worker thread holds one, so that
/// the root loop, which waits for every job in flight, learns that one result will never
/// come even while the other threads keep the result channel open.
pub(crate) struct PanicFlag<'a>(pub(crate) &'a AtomicBool);

impl Drop for PanicFlag<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

impl Workers for LocalWorkers<'_> {
    fn slots(&self) -> usize {
        self.threads
    }

    fn threads(&self) -> usize {
        self.threads
    }

    fn begin(&mut self, _root: &Position, _epsilon: f64) {
        // The threads were started for this search's root and ε.
    }

    fn submit(&mut self, job: Job) {
        self.jobs.send(job).expect("workers outlive the root loop");
    }

    fn receive(&mut self, timeout: Duration) -> Option<JobResult> {
        match self.results.recv_timeout(timeout) {
            Ok(result) => Some(result),
            Err(RecvTimeoutError::Timeout) if !self.failed.load(Ordering::Relaxed) => None,
            // Waiting for a panicked worker's result would never end.
            Err(_) => panic!("a PN-DFPN worker thread ended with a job in flight"),
        }
    }

    fn abort(&mut self) {
        self.abort.store(true, Ordering::Relaxed);
    }
}

/// Answers "does `attacker` win?" at `root` with the root thread (the caller) and
/// `config.threads` worker threads, within `node_budget` MID calls and `limits`.
pub fn search(
    root: &Position,
    attacker: Player,
    config: &PnDfpnConfig,
    table: &Table,
    limits: Limits,
    node_budget: u64,
) -> PnDfpnRun {
    let abort = AtomicBool::new(false);
    let failed = AtomicBool::new(false);
    let worker_limits = Limits {
        stop: &abort,
        deadline: limits.deadline,
        live: limits.live,
    };
    let (job_tx, job_rx) = crossbeam_channel::unbounded::<Job>();
    let (result_tx, result_rx) = crossbeam_channel::unbounded::<JobResult>();
    let threads = config.threads.max(1);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let job_rx = job_rx.clone();
            let result_tx = result_tx.clone();
            let failed = &failed;
            scope.spawn(move || {
                let _flag = PanicFlag(failed);
                for job in job_rx {
                    let result =
                        run_timed_job(root, &job, table, config.epsilon, worker_limits, None);
                    if result_tx.send(result).is_err() {
                        break;
                    }
                }
            });
        }
        drop(result_tx);
        let mut workers = LocalWorkers {
            threads,
            jobs: job_tx,
            results: result_rx,
            abort: &abort,
            failed: &failed,
        };
        // Dropping `workers` closes the job channel: the threads finish and the scope ends.
        search_on(
            root,
            attacker,
            config,
            table,
            limits,
            node_budget,
            &mut workers,
        )
    })
}

/// [`search`] with jobs run by `workers` (local threads, or other processes).
pub fn search_on(
    root: &Position,
    attacker: Player,
    config: &PnDfpnConfig,
    table: &Table,
    limits: Limits,
    node_budget: u64,
    workers: &mut (dyn Workers + '_),
) -> PnDfpnRun {
    let start = Instant::now();
    let mut root_searcher = Dfpn::new(table, attacker, config.epsilon, limits);
    let root_numbers = root_searcher.peek(root);
    let mut run = PnDfpnRun {
        numbers: root_numbers,
        nodes: 0,
        counters: TableCounters::default(),
        tree: TreeReport::default(),
    };
    if root_numbers.is_solved() {
        run.counters = root_searcher.counters();
        return run;
    }
    let mut tree = Tree::new(root_numbers, config.tree_bytes);
    let slots = workers.slots().max(1);
    if slots > 1 {
        // The root's children from the table and the static rules, so that every worker has
        // a leaf from the first job on (a one-node tree gives one job at a time).
        let children: Vec<(u8, Numbers)> = root_searcher
            .children(root)
            .into_iter()
            .map(|(mv, numbers)| (mv.square() as u8, numbers))
            .collect();
        if !children.is_empty() {
            tree.expand(0, &children);
            tree.recompute(0);
            run.tree.expansions += 1;
        }
    }
    run.counters = root_searcher.counters();
    drop(root_searcher);
    let mut wait = Duration::ZERO;
    let mut busy_ns = 0u64;
    workers.begin(root, config.epsilon);
    let mut in_flight = 0usize;
    // Work limits of the jobs in flight: the node budget left for new jobs excludes them, so
    // that all jobs together stay within it.
    let mut reserved = 0u64;
    // Whether a slot went unused since the last result because no leaf could be selected.
    let mut starved = false;
    loop {
        let out_of_budget = run.nodes >= node_budget
            || limits.stop.load(Ordering::Relaxed)
            || limits.deadline.is_some_and(|d| Instant::now() >= d);
        if tree.nodes[0].real.is_solved() || out_of_budget {
            break;
        }
        while in_flight < slots {
            // Share what is left of the node budget among the free slots.
            let left = node_budget.saturating_sub(run.nodes + reserved);
            if left == 0 {
                break;
            }
            let Some(mut job) = select_job(&mut tree, attacker, config) else {
                starved = true;
                break;
            };
            let share = (left / (slots - in_flight) as u64).max(1);
            job.work_limit = job.work_limit.min(share);
            reserved += job.work_limit;
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
            merge(&mut tree, root, attacker, split_at, table, &mut run, result);
            starved = false;
            if let Some(live) = limits.live {
                live.publish_root(tree.nodes[0].real);
            }
        }
    }
    // Stop the jobs in flight and take their results in.
    if in_flight > 0 {
        workers.abort();
    }
    while in_flight > 0 {
        if let Some(result) = workers.receive(POLL) {
            in_flight -= 1;
            busy_ns += result.busy_ns;
            merge(
                &mut tree,
                root,
                attacker,
                config.split_threshold,
                table,
                &mut run,
                result,
            );
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

/// [`run_job`], with the worker time it took in `busy_ns`, and making `poll`'s call while it
/// searches (see [`Dfpn::polling`]).
pub fn run_timed_job<'a>(
    root: &Position,
    job: &Job,
    table: &'a Table,
    epsilon: f64,
    limits: Limits<'a>,
    poll: Option<Poll<'a>>,
) -> JobResult {
    let began = Instant::now();
    let mut searcher = Dfpn::new(table, job.attacker, epsilon, limits);
    if let Some(poll) = poll {
        searcher = searcher.polling(poll);
    }
    let mut result = run_job_with(root, job, searcher);
    result.busy_ns = began.elapsed().as_nanos() as u64;
    result
}

/// A worker thread's loop where each job comes with its search's root and ε (the helper
/// threads of an MPI worker rank, the workers of `--private-tables`): runs every job from
/// `jobs` against `table` and hands its result to `deliver`, until the jobs end or `deliver`
/// returns false (nobody takes results any more).
pub fn work_through_jobs(
    jobs: crossbeam_channel::Receiver<(Position, f64, Job)>,
    table: &Table,
    limits: Limits,
    mut deliver: impl FnMut(JobResult) -> bool,
) {
    for (root, epsilon, job) in jobs {
        if !deliver(run_timed_job(&root, &job, table, epsilon, limits, None)) {
            break;
        }
    }
}

/// Walks down by the virtual numbers to the most-proving leaf, marks it in flight, and
/// returns its job; `None` when every path is virtually solved.
fn select_job(tree: &mut Tree, attacker: Player, config: &PnDfpnConfig) -> Option<Job> {
    if tree.nodes[0].virt.is_solved() {
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
        let children = tree.children(id);
        let selection = select_child(children.len(), |i| tree.nodes[children[i] as usize].virt);
        thresholds = child_thresholds(thresholds, &selection, config.epsilon);
        let best = children[selection.best];
        id = best;
        let square = tree.nodes[id as usize].square;
        path.push(square);
        path_ids.push(id);
    }
    let leaf = tree.nodes[id as usize];
    if leaf.virt.is_solved() {
        return None;
    }
    // The thresholds must leave the leaf room to grow, whatever rounding did on the way down.
    thresholds.phi = thresholds.phi.max(leaf.real.phi.saturating_add(1));
    thresholds.delta = thresholds.delta.max(leaf.real.delta.saturating_add(1));
    tree.nodes[id as usize].virt = provisional(leaf.real);
    for &n in &path_ids {
        tree.nodes[n as usize].in_flight += 1;
    }
    for &n in path_ids.iter().rev().skip(1) {
        tree.recompute(n);
    }
    Some(Job {
        path,
        thresholds,
        work_limit: config.job_work,
        attacker,
        share_min_work: None,
        min_work: 0,
    })
}

/// A worker's side: replays the path, runs DFPN with the job's limits, and reports the
/// leaf's and its children's numbers.
///
/// A job with a [`Job::min_work`] that passes its thresholds sooner goes on searching its leaf
/// with no thresholds until it has spent that much (within its work limit) or solved the
/// leaf. Thresholds only order the search: the leaf's numbers stay true numbers of its
/// subtree, which the root merges like any others, so no value can change. For a worker in
/// another process this trades a little search in a leaf that may no longer be the most
/// proving for a message round trip: on `positions/midgame.txt` most jobs pass their
/// thresholds within a few hundred MID calls, far less work than the round trip costs.
pub fn run_job(
    root: &Position,
    job: &Job,
    table: &Table,
    epsilon: f64,
    limits: Limits,
) -> JobResult {
    run_job_with(root, job, Dfpn::new(table, job.attacker, epsilon, limits))
}

/// [`run_job`] with `searcher`, a new searcher for the job's question.
fn run_job_with(root: &Position, job: &Job, mut searcher: Dfpn) -> JobResult {
    let pos = job
        .path
        .iter()
        .fold(*root, |p, &sq| p.play(Move::from_square(sq as usize)));
    if let Some(min_work) = job.share_min_work {
        searcher = searcher.sharing_solved(min_work);
    }
    let mut numbers = searcher.search(&pos, job.thresholds, job.work_limit);
    let min_work = job.min_work.min(job.work_limit);
    if !numbers.is_solved() && !searcher.was_stopped() && searcher.nodes() < min_work {
        // Past its thresholds but short of its minimum: on to a solution or the minimum.
        numbers = searcher.solve(&pos, min_work - searcher.nodes());
    }
    // Also for a solved leaf: the root thread's table may not hold the children (another
    // process searched them), and a best move is read from them.
    let children = searcher
        .children(&pos)
        .into_iter()
        .map(|(mv, numbers)| (mv.square() as u8, numbers))
        .collect();
    JobResult {
        path: job.path.clone(),
        numbers,
        work: searcher.nodes(),
        work_limit: job.work_limit,
        children,
        busy_ns: 0,
        counters: searcher.counters(),
        solved: searcher.take_solved(),
    }
}

/// Takes a job's result into the tree: the leaf's numbers, expansion past the split
/// threshold, and back-propagation (real and virtual) to the root.
fn merge(
    tree: &mut Tree,
    root: &Position,
    attacker: Player,
    split_threshold: u64,
    table: &Table,
    run: &mut PnDfpnRun,
    result: JobResult,
) {
    run.nodes += result.work;
    run.tree.jobs += 1;
    run.counters.add(&result.counters);
    // Find the leaf again by its moves; a freed subtree ends the walk early.
    let mut ids = vec![0u32];
    let mut positions = vec![*root];
    for &square in &result.path {
        let here = *ids.last().unwrap();
        let next = tree
            .children(here)
            .into_iter()
            .find(|&c| tree.nodes[c as usize].square == square);
        match next {
            Some(c) => {
                ids.push(c);
                let pos = positions
                    .last()
                    .unwrap()
                    .play(Move::from_square(square as usize));
                positions.push(pos);
            }
            None => break,
        }
    }
    for &n in &ids {
        let node = &mut tree.nodes[n as usize];
        node.in_flight = node.in_flight.saturating_sub(1);
    }
    let found = ids.len() == result.path.len() + 1;
    let mut counters = TableCounters::default();
    if found && result.numbers.is_solved() {
        // A solved leaf's children as the worker saw them, so that a best move can be read
        // from this table (the worker's may be another process's). Entries already here are
        // kept: they carry their work.
        let leaf_pos = positions.last().unwrap();
        for &(square, numbers) in &result.children {
            let key = table_key(&leaf_pos.play(Move::from_square(square as usize)), attacker);
            if table.lookup(key, &mut counters).is_none() {
                table.store(key, numbers, 1, &mut counters);
            }
        }
    }
    if found {
        let leaf = *ids.last().unwrap();
        let node = &mut tree.nodes[leaf as usize];
        node.real = result.numbers;
        node.virt = result.numbers;
        node.work = node
            .work
            .saturating_add(result.work.min(u32::MAX as u64) as u32);
        let expand = !result.numbers.is_solved()
            && node.first_child == NONE
            && u64::from(node.work) >= split_threshold
            && tree.live + result.children.len() as u64 <= tree.capacity;
        if expand {
            tree.expand(leaf, &result.children);
            run.tree.expansions += 1;
        }
    }
    // Back-propagate along the walked path (the leaf itself only if it has children).
    for (depth, &n) in ids.iter().enumerate().rev() {
        if tree.nodes[n as usize].first_child != NONE {
            tree.recompute(n);
        }
        let node = tree.nodes[n as usize];
        if node.real.is_solved() && node.in_flight == 0 && node.first_child != NONE {
            tree.free_below(n);
        }
        // The table learns the tree's numbers too, so best moves and later runs find them.
        let key = table_key(&positions[depth], attacker);
        table.store(key, node.real, u64::from(node.work).max(1), &mut counters);
    }
    run.counters.add(&counters);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Line 67 of `positions/midgame.txt`: an O win that "does O win?" takes some 100,000 MID
    /// calls to prove.
    const POSITION: &str = "X;O.O...O..;X..OOO..O/X.XX...X./O...O.X.O/XO..X..O./..XXO.X../.O...X.../OOO...XO./X.O...X../.OX.....X";

    /// Workers that run each job when its result is asked for, one at a time: the tree then
    /// grows the same way on every run.
    struct InlineWorkers<'a> {
        slots: usize,
        root: Option<Position>,
        table: &'a Table,
        limits: Limits<'a>,
        queue: VecDeque<Job>,
    }

    impl Workers for InlineWorkers<'_> {
        fn slots(&self) -> usize {
            self.slots
        }
        fn threads(&self) -> usize {
            1
        }
        fn begin(&mut self, root: &Position, _epsilon: f64) {
            self.root = Some(*root);
        }
        fn submit(&mut self, job: Job) {
            self.queue.push_back(job);
        }
        fn receive(&mut self, _timeout: Duration) -> Option<JobResult> {
            let job = self.queue.pop_front()?;
            let root = self.root.expect("a search begins before its jobs");
            Some(run_job(&root, &job, self.table, 0.25, self.limits))
        }
        fn abort(&mut self) {}
    }

    /// The tree expansions of 80,000 MID calls on [`POSITION`] with `slots` jobs in flight and
    /// a split threshold never reached.
    fn expansions_with(slots: usize) -> u64 {
        let root: Position = POSITION.parse().unwrap();
        let table = Table::new(64 << 20).unwrap();
        let stop = AtomicBool::new(false);
        let limits = Limits::stop_only(&stop);
        let config = PnDfpnConfig {
            threads: slots,
            job_work: 1_000,
            split_threshold: u64::MAX,
            tree_bytes: 1 << 20,
            epsilon: 0.25,
        };
        let mut workers = InlineWorkers {
            slots,
            root: None,
            table: &table,
            limits,
            queue: VecDeque::new(),
        };
        let run = search_on(
            &root,
            Player::O,
            &config,
            &table,
            limits,
            80_000,
            &mut workers,
        );
        assert!(!run.numbers.is_solved(), "the budget must end the search");
        run.tree.expansions
    }

    /// The work and numbers of one job at [`POSITION`] ("does O win?") whose thresholds the
    /// leaf passes as soon as it grows, with a work limit of 20,000 MID calls.
    fn job_at_the_root(min_work: u64) -> (u64, Numbers) {
        let root: Position = POSITION.parse().unwrap();
        let table = Table::new(64 << 20).unwrap();
        let stop = AtomicBool::new(false);
        let limits = Limits::stop_only(&stop);
        let start = Dfpn::new(&table, Player::O, 0.25, limits).peek(&root);
        let job = Job {
            path: Vec::new(),
            thresholds: Numbers {
                phi: start.phi + 1,
                delta: start.delta + 1,
            },
            work_limit: 20_000,
            attacker: Player::O,
            share_min_work: None,
            min_work,
        };
        let result = run_job(&root, &job, &table, 0.25, limits);
        assert!(
            !result.numbers.is_solved(),
            "20,000 MID calls do not solve it"
        );
        (result.work, result.numbers)
    }

    #[test]
    fn a_job_with_a_minimum_of_work_searches_on_past_its_thresholds_within_its_limit() {
        let (without, _) = job_at_the_root(0);
        assert!(
            without < 1_000,
            "the thresholds end the plain job early: {without}"
        );
        let (with, numbers) = job_at_the_root(5_000);
        assert!((5_000..5_100).contains(&with), "{with} MID calls");
        assert!(numbers.phi > 0 && numbers.delta > 0);
        // The work limit still bounds the job.
        let (capped, _) = job_at_the_root(1_000_000);
        assert!((20_000..20_100).contains(&capped), "{capped} MID calls");
    }

    #[test]
    fn a_polling_job_calls_back_every_interval_and_stops_when_the_call_says_so() {
        let root: Position = POSITION.parse().unwrap();
        let job = Job {
            path: Vec::new(),
            thresholds: Numbers {
                phi: INFINITY,
                delta: INFINITY,
            },
            work_limit: 20_000,
            attacker: Player::O,
            share_min_work: None,
            min_work: 0,
        };
        let never = AtomicBool::new(false);
        let plain = run_job(
            &root,
            &job,
            &Table::new(64 << 20).unwrap(),
            0.25,
            Limits::stop_only(&never),
        );
        assert_eq!(plain.work, 20_000, "the work limit ends the plain job");

        // A job on a fresh table whose searcher makes `call` every 100 MID calls.
        let polled = |stop: &AtomicBool, call: &mut dyn FnMut()| {
            let poll = Poll {
                interval: 100,
                call,
            };
            let table = Table::new(64 << 20).unwrap();
            run_timed_job(
                &root,
                &job,
                &table,
                0.25,
                Limits::stop_only(stop),
                Some(poll),
            )
        };

        // A call that does nothing changes nothing, and comes about every 100 MID calls.
        let mut calls = 0u64;
        let counted = polled(&never, &mut || calls += 1);
        assert_eq!((counted.work, counted.numbers), (plain.work, plain.numbers));
        assert!(
            (190..=200).contains(&calls),
            "{calls} calls in 20,000 MID calls"
        );

        // A call that raises the stop flag ends the job at once.
        let stop = AtomicBool::new(false);
        let stopped = polled(&stop, &mut || stop.store(true, Ordering::Relaxed));
        assert!(stopped.work <= 105, "{} MID calls", stopped.work);
        assert!(!stopped.numbers.is_solved());
    }

    #[test]
    fn a_worker_thread_that_panics_raises_its_flag_and_one_that_ends_does_not() {
        let failed = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let ended = scope.spawn(|| {
                let _flag = PanicFlag(&failed);
            });
            assert!(ended.join().is_ok());
        });
        assert!(!failed.load(Ordering::Relaxed));
        std::thread::scope(|scope| {
            let panicked = scope.spawn(|| {
                let _flag = PanicFlag(&failed);
                panic!("a worker's bug");
            });
            assert!(panicked.join().is_err());
        });
        assert!(failed.load(Ordering::Relaxed));
    }

    #[test]
    fn the_tree_grows_before_the_split_threshold_only_to_keep_workers_busy() {
        // One job at a time never needs a second leaf: the tree stays the root alone.
        assert_eq!(expansions_with(1), 0);
        // Four: the root is expanded at once, and a returning leaf again whenever the root
        // found no leaf for a free slot (here two slots never want for one).
        assert!(expansions_with(4) >= 2);
    }
}
