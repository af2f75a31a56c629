//! What a solve found out, as typed data: the verdict, the value for the side to move, and the
//! figures of its searches, table and tree. The command line renders these.

use crate::game::{Move, Player, Position};
use crate::search::numbers::Numbers;
use crate::search::options::Engine;
use crate::search::pn_dfpn::TreeReport;
use crate::table::{Table, TableCounters};
use serde::{Deserialize, Serialize};
use std::time::Duration;

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
    /// The root's numbers for its side to move at the end (∞ = [`crate::search::numbers::INFINITY`]).
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
    /// A single-question solve ([`super::SolveOptions::attacker`]) showed that this player cannot
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
    /// The bound of a depth-bounded question ([`crate::search::SolveOptions::max_plies`]):
    /// a `Wins` or `DoesNotWin` verdict is then about a win within this many plies.
    pub max_plies: Option<u32>,
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
    /// What the database of solved positions did, when the solve had one.
    pub database: Option<DatabaseReport>,
    /// How soon the win comes, when asked (see [`super::WinInMode`]).
    #[serde(default)]
    pub win_in: super::WinInAnswer,
    /// Why the search could not run, when it could not (the system refused its threads): the
    /// verdict is then unknown, and this is an error, not an answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

/// What the database of solved positions did for one solve.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatabaseReport {
    /// The answer came from the database: nothing was searched.
    pub answered: bool,
    /// Facts the solve added to the database.
    pub stored: u64,
    /// Leaves of the PN-DFPN tree the database answered (no job searched them).
    #[serde(default)]
    pub leaves: u64,
    /// Why the database could not be read or written, the last time it could not (the solve
    /// itself went on, and its answer stands).
    pub error: Option<String>,
    /// Stores that failed and were tried again later (another process held the file, say).
    #[serde(default)]
    pub failed_stores: u64,
    /// Facts (and campaign tree nodes) that could not be stored at all, even at the end.
    #[serde(default)]
    pub unstored: u64,
    /// What the search needed of it could not be read (a campaign's kept tree), so nothing
    /// was searched.
    #[serde(default)]
    pub unreadable: bool,
}

impl DatabaseReport {
    /// Adds what a later search of the same solve did (the first error stays).
    pub fn add(&mut self, later: DatabaseReport) {
        self.stored += later.stored;
        self.leaves += later.leaves;
        self.failed_stores += later.failed_stores;
        self.unstored += later.unstored;
        self.unreadable |= later.unreadable;
        self.error = self.error.take().or(later.error);
    }
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

/// Adds one search's tree figures to the solve's (percentages weighted by jobs).
pub(super) fn merge_tree(total: &mut TreeReport, one: &TreeReport) {
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
