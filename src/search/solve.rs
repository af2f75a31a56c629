//! The three-valued driver: answers X wins / O wins / draw with at most two binary searches
//! over one table, then finds a best move and a principal variation from the table.

use super::dfpn::{Dfpn, Limits, LiveStats};
use super::numbers::Numbers;
use super::pn_dfpn::{self, PnDfpnConfig, TreeReport, Workers};
use super::rules::immediate_win;
use super::shared_dfpn;
use super::table::{Table, TableCounters};
use crate::game::{Move, Outcome, Player, Position};
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// The longest principal variation reported.
const MAX_PV_PLIES: usize = 40;

/// Which search engine answers the binary questions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Engine {
    /// Single-threaded depth-first proof-number search.
    Dfpn,
    /// The parallel engine: a root proof-number tree feeding DFPN jobs to workers.
    PnDfpn,
    /// DFPN searchers from the root, one per thread, sharing one table (see
    /// [`super::shared_dfpn`]).
    SharedDfpn,
}

impl Engine {
    /// The engine's name as shown to users.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Dfpn => "dfpn",
            Engine::PnDfpn => "pn-dfpn",
            Engine::SharedDfpn => "shared-dfpn",
        }
    }
}

/// How to solve: engine, tuning and limits. Plain data, so a job can be sent elsewhere.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SolveOptions {
    /// The engine.
    pub engine: Engine,
    /// Worker threads (engines that are single-threaded ignore it).
    pub threads: usize,
    /// ε of the 1+ε trick.
    pub epsilon: f64,
    /// Give up (answer `unknown`) after this long.
    pub time_limit: Option<Duration>,
    /// Give up after this many nodes (MID calls) over all searches.
    pub node_limit: Option<u64>,
    /// Ask only "does this player win?" (one binary search) instead of the full value.
    pub attacker: Option<Player>,
    /// PN-DFPN: MID calls per job.
    pub job_work: u64,
    /// PN-DFPN: cumulative work after which a leaf is expanded into the tree.
    pub split_threshold: u64,
    /// PN-DFPN: bytes the tree may use.
    pub tree_bytes: u64,
}

/// The defaults users get: the command line starts from these, so they are the one source.
impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            engine: Engine::PnDfpn,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            epsilon: DEFAULT_EPSILON,
            time_limit: None,
            node_limit: None,
            attacker: None,
            job_work: DEFAULT_JOB_WORK,
            split_threshold: DEFAULT_SPLIT_THRESHOLD,
            tree_bytes: DEFAULT_TREE_BYTES,
        }
    }
}

impl SolveOptions {
    /// The threads that actually search: one for DFPN, `threads` (at least one) for PN-DFPN.
    pub fn worker_threads(&self) -> usize {
        match self.engine {
            Engine::Dfpn => 1,
            Engine::PnDfpn | Engine::SharedDfpn => self.threads.max(1),
        }
    }
}

/// Default MID calls per PN-DFPN job (tens of milliseconds of work).
pub const DEFAULT_JOB_WORK: u64 = 20_000;
/// Default work after which a PN-DFPN leaf is expanded.
pub const DEFAULT_SPLIT_THRESHOLD: u64 = 40_000;
/// Default PN-DFPN tree memory.
pub const DEFAULT_TREE_BYTES: u64 = 256 << 20;

/// The default ε of the 1+ε trick (see the benchmark figures in the README).
pub const DEFAULT_EPSILON: f64 = 0.25;

/// The answer to one binary question.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BinaryOutcome {
    /// The attacker wins.
    Proved,
    /// The attacker does not win.
    Disproved,
    /// Not settled within the limits.
    Unknown,
}

/// One binary search's figures, as reported in `searches`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SearchReport {
    /// The player whose win was asked about.
    pub attacker: Player,
    /// Its answer.
    pub outcome: BinaryOutcome,
    /// Wall time.
    pub elapsed: Duration,
    /// MID calls.
    pub nodes: u64,
    /// The root's numbers for its side to move at the end (∞ = [`super::numbers::INFINITY`]).
    pub root: Numbers,
}

/// The game value for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SolveValue {
    /// The side to move wins.
    Win,
    /// The side to move loses.
    Loss,
    /// Draw with best play.
    Draw,
    /// Not settled (a limit was hit, or a single `--attacker` search was disproved).
    Unknown,
}

/// What a solve established, independent of who is to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// This player wins with best play.
    Wins(Player),
    /// Neither player can force a win.
    Draw,
    /// A single-question solve ([`SolveOptions::attacker`]) showed that this player cannot
    /// force a win: the game is a draw or the other player wins.
    DoesNotWin(Player),
    /// Not settled within the limits.
    Unknown,
}

impl Verdict {
    /// The game value for `side`; [`SolveValue::Unknown`] unless the verdict names it
    /// (a [`Verdict::DoesNotWin`] leaves a draw and a loss open).
    pub fn value_for(self, side: Player) -> SolveValue {
        match self {
            Verdict::Wins(winner) if winner == side => SolveValue::Win,
            Verdict::Wins(_) => SolveValue::Loss,
            Verdict::Draw => SolveValue::Draw,
            Verdict::DoesNotWin(_) | Verdict::Unknown => SolveValue::Unknown,
        }
    }

    /// Whether the question asked was answered (everything but [`Verdict::Unknown`]).
    pub fn is_answered(self) -> bool {
        self != Verdict::Unknown
    }
}

/// Table figures in a report.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TableReport {
    /// Table size in bytes.
    pub bytes: u64,
    /// Bytes of the part in use at the end (an anonymous table grows as it fills).
    pub active_bytes: u64,
    /// Entry capacity.
    pub entries: u64,
    /// Lookups made.
    pub lookups: u64,
    /// Lookups that hit.
    pub hits: u64,
    /// Stores made.
    pub stores: u64,
    /// Stores that evicted another position.
    pub replacements: u64,
    /// Estimated fraction of entries in use at the end.
    pub fill: f64,
}

impl TableReport {
    /// The traffic part of the figures.
    pub fn counters(&self) -> TableCounters {
        TableCounters {
            lookups: self.lookups,
            hits: self.hits,
            stores: self.stores,
            replacements: self.replacements,
            fills: 0,
        }
    }

    /// The figures of `table` after traffic `counters`.
    pub fn of(table: &Table, counters: &TableCounters) -> TableReport {
        TableReport {
            bytes: table.bytes(),
            active_bytes: table.active_bytes(),
            entries: table.entries(),
            lookups: counters.lookups,
            hits: counters.hits,
            stores: counters.stores,
            replacements: counters.replacements,
            fill: table.fill(),
        }
    }
}

/// Everything a solve found out, as typed data; the command line renders it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SolveReport {
    /// The position solved.
    pub position: Position,
    /// What was established.
    pub verdict: Verdict,
    /// A best move for the side to move, when the verdict is known and the game not over.
    pub best_move: Option<Move>,
    /// A principal variation from the table (may be short), starting with `best_move`.
    pub pv: Vec<Move>,
    /// The engine.
    pub engine: Engine,
    /// Threads used.
    pub threads: usize,
    /// Wall time of the whole solve.
    pub elapsed: Duration,
    /// MID calls over all searches.
    pub nodes: u64,
    /// The binary searches run, in order.
    pub searches: Vec<SearchReport>,
    /// Table figures.
    pub table: TableReport,
    /// PN-DFPN tree figures (summed over its searches).
    pub tree: Option<TreeReport>,
}

impl SolveReport {
    /// The side to move in the solved position.
    pub fn to_move(&self) -> Player {
        self.position.side_to_move()
    }

    /// The game value for the side to move.
    pub fn value(&self) -> SolveValue {
        self.verdict.value_for(self.to_move())
    }

    /// Nodes per second over the whole solve.
    pub fn nodes_per_second(&self) -> u64 {
        (self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9)) as u64
    }
}

/// The result of one binary search by any engine.
struct BinaryRun {
    numbers: Numbers,
    nodes: u64,
    counters: TableCounters,
    tree: Option<TreeReport>,
}

/// Solves `pos` with `options` against `table` (which may hold earlier work); `stop` ends
/// the solve early with `unknown`.
pub fn solve(
    pos: &Position,
    options: &SolveOptions,
    table: &Table,
    stop: &AtomicBool,
) -> SolveReport {
    solve_watched(pos, options, table, stop, None)
}

/// [`solve`], publishing progress to `live` for a display.
pub fn solve_watched(
    pos: &Position,
    options: &SolveOptions,
    table: &Table,
    stop: &AtomicBool,
    live: Option<&LiveStats>,
) -> SolveReport {
    let limits = Limits {
        stop,
        deadline: options.time_limit.map(|t| Instant::now() + t),
        live,
    };
    solve_within(
        pos,
        options,
        table,
        limits,
        options.node_limit.unwrap_or(u64::MAX),
        None,
    )
}

/// [`solve_watched`] with PN-DFPN's jobs run by `workers` (e.g. other processes) instead of
/// local threads; `options.engine` must be [`Engine::PnDfpn`]. The searches of the principal
/// variation still run here, against `table`.
pub fn solve_on(
    pos: &Position,
    options: &SolveOptions,
    table: &Table,
    stop: &AtomicBool,
    live: Option<&LiveStats>,
    workers: &mut dyn Workers,
) -> SolveReport {
    assert_eq!(
        options.engine,
        Engine::PnDfpn,
        "only PN-DFPN runs jobs elsewhere"
    );
    let limits = Limits {
        stop,
        deadline: options.time_limit.map(|t| Instant::now() + t),
        live,
    };
    let mut report = solve_within(
        pos,
        options,
        table,
        limits,
        options.node_limit.unwrap_or(u64::MAX),
        Some(workers),
    );
    report.threads = report.threads.max(1);
    report
}

/// [`solve`] within `limits` (whose deadline replaces `options.time_limit`) and `node_budget`
/// MID calls (which replaces `options.node_limit`), for callers that share limits between
/// several solves; PN-DFPN jobs run on `workers` when given, else on local threads.
pub(super) fn solve_within<'d>(
    pos: &Position,
    options: &SolveOptions,
    table: &Table,
    limits: Limits,
    node_budget: u64,
    mut workers: Option<&mut (dyn Workers + 'd)>,
) -> SolveReport {
    let start = Instant::now();
    let side = pos.side_to_move();
    let mut report = SolveReport {
        position: *pos,
        verdict: Verdict::Unknown,
        best_move: None,
        pv: Vec::new(),
        engine: options.engine,
        threads: options.worker_threads(),
        elapsed: Duration::ZERO,
        nodes: 0,
        searches: Vec::new(),
        table: TableReport::default(),
        tree: None,
    };
    let mut counters = TableCounters::default();
    if let Some((verdict, best)) = settled_without_search(pos) {
        report.verdict = verdict;
        report.best_move = best;
        report.pv = best.into_iter().collect();
    } else {
        let questions = match options.attacker {
            Some(attacker) => vec![attacker],
            None => vec![side, side.opponent()],
        };
        let mut decisive = None;
        for attacker in questions {
            let started = Instant::now();
            let budget = node_budget.saturating_sub(report.nodes);
            let run = run_binary(
                pos,
                attacker,
                options,
                table,
                limits,
                budget,
                workers.as_deref_mut(),
            );
            if let Some(live) = limits.live {
                live.publish_root(run.numbers);
            }
            counters.add(&run.counters);
            report.nodes += run.nodes;
            if let Some(tree) = &run.tree {
                merge_tree(report.tree.get_or_insert_with(TreeReport::default), tree);
            }
            let outcome = binary_outcome(pos, attacker, run.numbers);
            report.searches.push(SearchReport {
                attacker,
                outcome,
                elapsed: started.elapsed(),
                nodes: run.nodes,
                root: run.numbers,
            });
            match outcome {
                BinaryOutcome::Unknown => break,
                BinaryOutcome::Proved => {
                    report.verdict = Verdict::Wins(attacker);
                    decisive = Some(attacker);
                    break;
                }
                BinaryOutcome::Disproved if options.attacker.is_some() => {
                    report.verdict = Verdict::DoesNotWin(attacker);
                    decisive = Some(attacker);
                }
                BinaryOutcome::Disproved if attacker != side => {
                    report.verdict = Verdict::Draw;
                    decisive = Some(attacker);
                }
                BinaryOutcome::Disproved => {}
            }
        }
        if let Some(attacker) = decisive {
            let mut searcher = Dfpn::new(table, attacker, options.epsilon, limits);
            let budget = node_budget.saturating_sub(report.nodes);
            report.pv = principal_variation(pos, &mut searcher, budget);
            report.best_move = report.pv.first().copied();
            counters.add(&searcher.counters());
            report.nodes += searcher.nodes();
        }
    }
    report.elapsed = start.elapsed();
    report.table = TableReport::of(table, &counters);
    report
}

/// A finished game, or one the side to move wins this move: the verdict and the winning move.
/// Such positions need no search.
fn settled_without_search(pos: &Position) -> Option<(Verdict, Option<Move>)> {
    match pos.outcome() {
        Outcome::Won(winner) => Some((Verdict::Wins(winner), None)),
        Outcome::Draw => Some((Verdict::Draw, None)),
        Outcome::InPlay => {
            immediate_win(pos).map(|mv| (Verdict::Wins(pos.side_to_move()), Some(mv)))
        }
    }
}

/// Whether the numbers of the root (for its side to move) answer "does `attacker` win?".
fn binary_outcome(pos: &Position, attacker: Player, numbers: Numbers) -> BinaryOutcome {
    let side_reaches_goal = match (numbers.phi, numbers.delta) {
        (0, _) => true,
        (_, 0) => false,
        _ => return BinaryOutcome::Unknown,
    };
    if side_reaches_goal == (pos.side_to_move() == attacker) {
        BinaryOutcome::Proved
    } else {
        BinaryOutcome::Disproved
    }
}

/// Runs one binary search with the chosen engine.
fn run_binary<'d>(
    pos: &Position,
    attacker: Player,
    options: &SolveOptions,
    table: &Table,
    limits: Limits,
    node_budget: u64,
    workers: Option<&mut (dyn Workers + 'd)>,
) -> BinaryRun {
    match options.engine {
        Engine::Dfpn => {
            let mut searcher =
                Dfpn::new(table, attacker, options.epsilon, limits).publishing_root_numbers();
            let numbers = searcher.solve(pos, node_budget);
            BinaryRun {
                numbers,
                nodes: searcher.nodes(),
                counters: searcher.counters(),
                tree: None,
            }
        }
        Engine::SharedDfpn => {
            let run = shared_dfpn::search(
                pos,
                attacker,
                options.epsilon,
                options.threads,
                table,
                limits,
                node_budget,
            );
            BinaryRun {
                numbers: run.numbers,
                nodes: run.nodes,
                counters: run.counters,
                tree: None,
            }
        }
        Engine::PnDfpn => {
            let config = PnDfpnConfig {
                threads: options.threads.max(1),
                job_work: options.job_work.max(1),
                split_threshold: options.split_threshold,
                tree_bytes: options.tree_bytes,
                epsilon: options.epsilon,
            };
            let run = match workers {
                Some(workers) => {
                    pn_dfpn::search_on(pos, attacker, &config, table, limits, node_budget, workers)
                }
                None => pn_dfpn::search(pos, attacker, &config, table, limits, node_budget),
            };
            BinaryRun {
                numbers: run.numbers,
                nodes: run.nodes,
                counters: run.counters,
                tree: Some(run.tree),
            }
        }
    }
}

/// The moves that prove the decisive search's answer, read from the table. The first move is
/// always established (children missing from the table are searched again); later plies stop
/// where the table has lost the line. At a node whose side to move reaches its goal the move
/// is one to a child solved against its side to move; at one that fails, the move whose
/// refutation took the most work (the longest resistance by the search's own measure).
///
/// Searches spend at most `node_budget` MID calls in all; when it runs out the variation may
/// be empty even at a solved root.
fn principal_variation(root: &Position, searcher: &mut Dfpn, node_budget: u64) -> Vec<Move> {
    let mut pv = Vec::new();
    let mut pos = *root;
    while pv.len() < MAX_PV_PLIES && !pos.is_over() {
        let search_budget = if pv.is_empty() { node_budget } else { 0 };
        let Some(mv) = best_move(&pos, searcher, search_budget) else {
            break;
        };
        pv.push(mv);
        pos = pos.play(mv);
    }
    pv
}

/// The best move at a solved `pos` (see [`principal_variation`]); `None` if the table does not
/// know and `search_budget` (MID calls for re-searches, shared by all of them) is zero, or a
/// limit or the budget stopped the re-search.
fn best_move(pos: &Position, searcher: &mut Dfpn, search_budget: u64) -> Option<Move> {
    let may_search = search_budget > 0;
    let budget_end = searcher.nodes().saturating_add(search_budget);
    if let Some(mv) = immediate_win(pos) {
        return Some(mv);
    }
    let mut numbers = searcher.peek(pos);
    if !numbers.is_solved() && may_search {
        numbers = searcher.solve(pos, budget_end.saturating_sub(searcher.nodes()));
    }
    if !numbers.is_solved() {
        return None;
    }
    let mut children: Vec<(Move, Position, Numbers, u64)> = pos
        .legal_moves()
        .into_iter()
        .map(|mv| {
            let child = pos.play(mv);
            let numbers = searcher.peek(&child);
            (mv, child, numbers, searcher.recorded_work(&child))
        })
        .collect();
    if numbers.phi != 0 {
        // Every move fails: resist longest, by the work the table recorded. Among equal work,
        // prefer a child the table or the rules have not already settled, so that a move that
        // loses at once comes last.
        return children
            .iter()
            .max_by_key(|c| (c.3, !c.2.is_solved()))
            .map(|c| c.0);
    }
    // A child disproved for its own side to move is a move that reaches the goal.
    if let Some(c) = children.iter().find(|c| c.2.delta == 0) {
        return Some(c.0);
    }
    if !may_search {
        return None;
    }
    children.sort_by_key(|c| c.2.delta);
    for (mv, child, _, _) in children {
        let left = budget_end.saturating_sub(searcher.nodes());
        if left == 0 {
            break;
        }
        if searcher.solve(&child, left).delta == 0 {
            return Some(mv);
        }
        if searcher.was_stopped() {
            break;
        }
    }
    None
}

/// Adds one search's tree figures to the solve's (percentages weighted by jobs).
fn merge_tree(total: &mut TreeReport, one: &TreeReport) {
    let jobs = (total.jobs + one.jobs).max(1) as f64;
    let weigh = |a: f64, b: f64| (a * total.jobs as f64 + b * one.jobs as f64) / jobs;
    total.mean_job_work = weigh(total.mean_job_work, one.mean_job_work);
    total.worker_busy_pct = weigh(total.worker_busy_pct, one.worker_busy_pct);
    total.root_wait_pct = weigh(total.root_wait_pct, one.root_wait_pct);
    total.nodes = one.nodes;
    total.peak_nodes = total.peak_nodes.max(one.peak_nodes);
    total.expansions += one.expansions;
    total.jobs += one.jobs;
}
