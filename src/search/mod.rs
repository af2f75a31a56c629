//! The solvers. Knows the game core, nothing of the command line; no global state.
//!
//! - Game knowledge: [`rules`] (static rules that settle or prune a position) and [`numbers`]
//!   (proof numbers and their initial estimates).
//! - The transposition table: [`table`].
//! - The searches: [`dfpn`] (one searcher), [`shared_dfpn`] (several over one table), and
//!   PN-DFPN: the root tree [`pn_dfpn`] hands out [`job`]s through a transport
//!   ([`workers`]: local threads, a table per thread; MPI lives in `crate::distributed`).
//! - The one entry point: [`Solver`] ([`solve`]), with its [`options`] and what it returns
//!   ([`report`], [`analyze`], the principal variation in [`pv`]).
//! - The database of solved positions from the search's side: [`known`]; where a campaign
//!   (a solve whose trees the database keeps) stands: [`campaign`].
//! - After a solve: [`certify`](mod@certify) writes proof certificates; [`player`] plays
//!   games by search.

pub mod analyze;
pub mod campaign;
pub mod certify;
pub mod dfpn;
pub mod handover;
pub mod job;
pub mod known;
pub mod numbers;
pub mod options;
pub mod player;
pub mod pn_dfpn;
pub mod pv;
pub mod report;
pub mod rules;
pub mod shared_dfpn;
pub mod solve;
pub mod table;
pub mod workers;

pub use analyze::{Analysis, MoveAnalysis};
pub use certify::{certify, claims_for, Certificate, CertifyError};
pub use dfpn::LiveStats;
pub use job::{Job, JobResult, JobTerms, WorkBudget};
pub use known::StorePolicy;
pub use numbers::Numbers;
pub use options::{Engine, SolveOptions};
pub use player::SearchPlayer;
pub use report::{
    BinaryOutcome, DatabaseReport, SearchReport, SolveReport, SolveValue, TableReport, Verdict,
};
pub use solve::Solver;
pub use table::{Table, TableCounters};
pub use workers::Workers;

use crate::game::tables::splitmix64;
use crate::game::{Player, Position};

/// Mixed into the key of every entry that answers "does O win?", so both questions share one
/// table without mixing up their answers. Its low [`table::MAX_INDEX_BITS`] bits are zero: the
/// bucket index comes from those bits, so both questions' entries for a position land in the
/// same bucket and a lookup of the other question reads the same cache line, while the tag
/// (which holds every higher bit) tells them apart.
const ATTACKER_O_KEY: u64 =
    splitmix64(0x6174_7461_636b_6572).0 & !((1 << table::MAX_INDEX_BITS) - 1); // "attacker"
const _: () = assert!(ATTACKER_O_KEY != 0);

/// The table key of `pos` for the question "does `attacker` win?".
pub fn table_key(pos: &Position, attacker: Player) -> u64 {
    match attacker {
        Player::X => pos.hash(),
        Player::O => pos.hash() ^ ATTACKER_O_KEY,
    }
}
