//! The engines: the searches and the game knowledge they use. Knows the game core and the
//! table, nothing of the services above it or the command line; no global state.
//!
//! - Game knowledge: [`rules`] (static rules that settle or prune a position) and [`numbers`]
//!   (initial proof numbers and how a search chooses by them).
//! - The searches: [`dfpn`] (one searcher), [`shared_dfpn`] (several over one table), and
//!   PN-DFPN: the root tree [`pn_dfpn`] hands out [`job`]s through a transport
//!   ([`workers`]: local threads, a table per thread; MPI lives in `crate::distributed`), and
//!   a moved job takes its subtree's entries along ([`handover`]).
//! - How to search: [`options`]; a line of best play read from the table: [`pv`].
//!
//! The one entry point for a solve is `crate::services::Solver`.

pub mod dfpn;
pub mod handover;
pub mod job;
pub mod numbers;
pub mod options;
pub mod pn_dfpn;
pub mod pv;
pub mod rules;
pub mod shared_dfpn;
pub mod workers;

pub use dfpn::LiveStats;
pub use job::{Job, JobResult, JobTerms, WorkBudget};
pub use numbers::Numbers;
pub use options::{Engine, SolveOptions};
pub use workers::Workers;

use crate::game::tables::splitmix64;
use crate::game::{Player, Position};
use crate::table::MAX_INDEX_BITS;

/// Mixed into the key of every entry that answers "does O win?", so both questions share one
/// table without mixing up their answers. Its low [`MAX_INDEX_BITS`] bits are zero: the
/// bucket index comes from those bits, so both questions' entries for a position land in the
/// same bucket and a lookup of the other question reads the same cache line, while the tag
/// (which holds every higher bit) tells them apart.
const ATTACKER_O_KEY: u64 = splitmix64(0x6174_7461_636b_6572).0 & !((1 << MAX_INDEX_BITS) - 1); // "attacker"
const _: () = assert!(ATTACKER_O_KEY != 0);

/// The table key of `pos` for the question "does `attacker` win?".
pub fn table_key(pos: &Position, attacker: Player) -> u64 {
    match attacker {
        Player::X => pos.hash(),
        Player::O => pos.hash() ^ ATTACKER_O_KEY,
    }
}
