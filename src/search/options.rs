//! How to solve: the engine, its tuning and the limits, as plain data, with the defaults users
//! get.

use super::guide::Guide;
use super::Question;
use crate::game::{Player, Position};
use serde::{Deserialize, Serialize};
use std::time::Duration;

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
    /// Ask whether the attacker wins within this many plies (a depth-bounded question; see
    /// [`super::Question`]). Only that one question is asked: the attacker's, or the side to
    /// move's when no attacker is named.
    #[serde(default)]
    pub max_plies: Option<u32>,
    /// For the full value: the player whose win is asked about first (default: the side to
    /// move). When the answer is "yes" the other question is not needed, so the likely winner
    /// first saves a search.
    #[serde(default)]
    pub first_question: Option<Player>,
    /// PN-DFPN: MID calls per job.
    pub job_work: u64,
    /// PN-DFPN: cumulative work after which a leaf is expanded into the tree.
    pub split_threshold: u64,
    /// PN-DFPN: bytes the tree may use.
    pub tree_bytes: u64,
    /// PN-DFPN: wall-clock time each job may take besides its MID calls, if bounded.
    #[serde(default)]
    pub job_time: Option<Duration>,
    /// Where new nodes' numbers come from: the hand-built estimate or the learned model. It
    /// changes the work, never the answer.
    #[serde(default)]
    pub guide: Guide,
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
            max_plies: None,
            first_question: None,
            job_work: DEFAULT_JOB_WORK,
            split_threshold: DEFAULT_SPLIT_THRESHOLD,
            tree_bytes: DEFAULT_TREE_BYTES,
            job_time: None,
            guide: Guide::default(),
        }
    }
}

impl SolveOptions {
    /// The binary question about `attacker`'s win at `root` that these options ask: bounded
    /// by [`SolveOptions::max_plies`] if they set it.
    pub fn question(&self, root: &Position, attacker: Player) -> Question {
        match self.max_plies {
            Some(plies) => Question::wins_within(attacker, root, plies),
            None => Question::wins(attacker),
        }
    }

    /// The threads that actually search: one for DFPN, `threads` (at least one) for PN-DFPN and
    /// shared-table DFPN.
    pub fn worker_threads(&self) -> usize {
        match self.engine {
            Engine::Dfpn => 1,
            Engine::PnDfpn | Engine::SharedDfpn => self.threads.max(1),
        }
    }
}

/// The tighter of two optional limits, where `None` is no limit.
pub fn tighter<T: Ord>(one: Option<T>, other: Option<T>) -> Option<T> {
    match (one, other) {
        (Some(one), Some(other)) => Some(one.min(other)),
        (one, other) => one.or(other),
    }
}

/// Default MID calls per PN-DFPN job (about ten milliseconds of work). Smaller jobs and an
/// earlier split let the root choose among more leaves of a deeper tree, so many threads
/// search fewer nodes; the measures behind these values are in BENCHMARKS.md ("Scaling", job
/// size).
pub const DEFAULT_JOB_WORK: u64 = 10_000;
/// Default work after which a PN-DFPN leaf is expanded (see [`DEFAULT_JOB_WORK`]).
pub const DEFAULT_SPLIT_THRESHOLD: u64 = 20_000;
/// Default PN-DFPN tree memory.
pub const DEFAULT_TREE_BYTES: u64 = 256 << 20;

/// The default ε of the 1+ε trick (chosen by measurement, see BENCHMARKS.md).
pub const DEFAULT_EPSILON: f64 = 0.25;
