//! The three-valued driver: answers X wins / O wins / draw with at most two binary searches
//! over one table, then finds a best move and a principal variation from the table.

use super::dfpn::{Dfpn, Limits, LiveStats};
use super::numbers::Numbers;
use super::pn_dfpn::{self, PnDfpnConfig, TreeReport};
use super::rules::immediate_win;
use super::table::{Table, TableCounters};
use crate::game::{format_position, Move, Outcome, Player, Position};
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
}

impl Engine {
    /// The engine's name as shown to users.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Dfpn => "dfpn",
            Engine::PnDfpn => "pn-dfpn",
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

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            engine: Engine::Dfpn,
            threads: 1,
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
    pub time_ms: u64,
    /// MID calls.
    pub nodes: u64,
    /// The root's φ for the side to move.
    pub root_phi: u32,
    /// The root's δ for the side to move.
    pub root_delta: u32,
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

/// Table figures in a report.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TableReport {
    /// Table size in bytes.
    pub bytes: u64,
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

/// Everything a solve found out; serialises to the documented JSON object.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SolveReport {
    /// The position solved, in notation.
    pub position: String,
    /// The side to move.
    pub to_move: Player,
    /// `X`, `O`, `draw`, `unknown`, or after a disproved `--attacker` search `not X`/`not O`.
    pub result: String,
    /// The value for the side to move.
    pub value: SolveValue,
    /// A best move for the side to move, when the value is known.
    pub best_move: Option<String>,
    /// A principal variation from the table (may be short).
    pub pv: Vec<String>,
    /// The engine's name.
    pub engine: String,
    /// Threads used.
    pub threads: usize,
    /// Wall time of the whole solve.
    pub time_ms: u64,
    /// MID calls over all searches.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// The binary searches run, in order.
    pub searches: Vec<SearchReport>,
    /// Table figures.
    pub table: TableReport,
    /// PN-DFPN tree figures (summed over its searches).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree: Option<TreeReport>,
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
    let start = Instant::now();
    let limits = Limits {
        stop,
        deadline: options.time_limit.map(|t| start + t),
        live,
    };
    let side = pos.side_to_move();
    let mut report = SolveReport {
        position: format_position(pos),
        to_move: side,
        result: "unknown".into(),
        value: SolveValue::Unknown,
        best_move: None,
        pv: Vec::new(),
        engine: options.engine.name().into(),
        threads: options.threads,
        time_ms: 0,
        nodes: 0,
        nps: 0,
        searches: Vec::new(),
        table: TableReport::default(),
        tree: None,
    };
    let mut counters = TableCounters::default();
    if let Some((result, value, best)) = settled_without_search(pos) {
        report.result = result;
        report.value = value;
        report.best_move = best.map(|m| m.to_string());
        report.pv = report.best_move.iter().cloned().collect();
    } else {
        let questions = match options.attacker {
            Some(attacker) => vec![attacker],
            None => vec![side, side.opponent()],
        };
        let mut decisive = None;
        for attacker in questions {
            let started = Instant::now();
            let budget = options
                .node_limit
                .map_or(u64::MAX, |n| n.saturating_sub(report.nodes));
            let run = run_binary(pos, attacker, options, table, limits, budget);
            counters.add(&run.counters);
            report.nodes += run.nodes;
            if let Some(tree) = &run.tree {
                merge_tree(report.tree.get_or_insert_with(TreeReport::default), tree);
            }
            let outcome = binary_outcome(pos, attacker, run.numbers);
            report.searches.push(SearchReport {
                attacker,
                outcome,
                time_ms: started.elapsed().as_millis() as u64,
                nodes: run.nodes,
                root_phi: run.numbers.phi,
                root_delta: run.numbers.delta,
            });
            match outcome {
                BinaryOutcome::Unknown => break,
                BinaryOutcome::Proved => {
                    report.result = attacker.letter().to_string();
                    report.value = if attacker == side {
                        SolveValue::Win
                    } else {
                        SolveValue::Loss
                    };
                    decisive = Some(attacker);
                    break;
                }
                BinaryOutcome::Disproved if options.attacker.is_some() => {
                    report.result = format!("not {attacker}");
                    decisive = Some(attacker);
                }
                BinaryOutcome::Disproved if attacker != side => {
                    report.result = "draw".into();
                    report.value = SolveValue::Draw;
                    decisive = Some(attacker);
                }
                BinaryOutcome::Disproved => {}
            }
        }
        if let Some(attacker) = decisive {
            let mut searcher = Dfpn::new(table, attacker, options.epsilon, limits);
            report.pv = principal_variation(pos, &mut searcher);
            report.best_move = report.pv.first().cloned();
            counters.add(&searcher.counters());
            report.nodes += searcher.nodes();
        }
    }
    report.time_ms = start.elapsed().as_millis() as u64;
    report.nps = (report.nodes as f64 / start.elapsed().as_secs_f64().max(1e-9)) as u64;
    report.table = TableReport {
        bytes: table.bytes(),
        entries: table.entries(),
        lookups: counters.lookups,
        hits: counters.hits,
        stores: counters.stores,
        replacements: counters.replacements,
        fill: table.fill(),
    };
    report
}

/// A finished game, or one the side to move wins this move: `(result, value, best move)`.
/// Such positions need no search and no big table.
pub fn settled_without_search(pos: &Position) -> Option<(String, SolveValue, Option<Move>)> {
    let side = pos.side_to_move();
    match pos.outcome() {
        Outcome::Won(winner) => {
            let value = if winner == side {
                SolveValue::Win
            } else {
                SolveValue::Loss
            };
            Some((winner.letter().to_string(), value, None))
        }
        Outcome::Draw => Some(("draw".into(), SolveValue::Draw, None)),
        Outcome::InPlay => {
            immediate_win(pos).map(|mv| (side.letter().to_string(), SolveValue::Win, Some(mv)))
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
fn run_binary(
    pos: &Position,
    attacker: Player,
    options: &SolveOptions,
    table: &Table,
    limits: Limits,
    node_budget: u64,
) -> BinaryRun {
    match options.engine {
        Engine::Dfpn => {
            let mut searcher = Dfpn::new(table, attacker, options.epsilon, limits);
            let numbers = searcher.solve(pos, node_budget);
            BinaryRun {
                numbers,
                nodes: searcher.nodes(),
                counters: searcher.counters(),
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
            let run = pn_dfpn::search(pos, attacker, &config, table, limits, node_budget);
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
fn principal_variation(root: &Position, searcher: &mut Dfpn) -> Vec<String> {
    let mut pv = Vec::new();
    let mut pos = *root;
    while pv.len() < MAX_PV_PLIES && !pos.is_over() {
        let may_search = pv.is_empty();
        let Some(mv) = best_move(&pos, searcher, may_search) else {
            break;
        };
        pv.push(mv.to_string());
        pos = pos.play(mv);
    }
    pv
}

/// The best move at a solved `pos` (see [`principal_variation`]); `None` if the table does not
/// know and `may_search` is false, or a limit stopped the re-search.
fn best_move(pos: &Position, searcher: &mut Dfpn, may_search: bool) -> Option<Move> {
    if let Some(mv) = immediate_win(pos) {
        return Some(mv);
    }
    let mut numbers = searcher.peek(pos);
    if !numbers.is_solved() && may_search {
        numbers = searcher.solve(pos, u64::MAX);
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
        if searcher.solve(&child, u64::MAX).delta == 0 {
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
