//! The solvers: proof numbers, static rules, the transposition table, DFPN, and the
//! three-valued driver. Knows the game core, nothing of the command line; no global state.

pub mod analyze;
pub mod certify;
pub mod dfpn;
pub mod numbers;
pub mod placement;
pub mod player;
pub mod pn_dfpn;
pub mod private_tables;
pub mod rules;
pub mod shared_dfpn;
pub mod solve;
pub mod table;

pub use analyze::{analyze, Analysis, MoveAnalysis};
pub use certify::{certify, claims_for, Certificate, CertifyError};
pub use dfpn::LiveStats;
pub use numbers::Numbers;
pub use player::SearchPlayer;
pub use pn_dfpn::Workers;
pub use solve::{
    solve, solve_on, solve_watched, BinaryOutcome, Engine, SearchReport, SolveOptions, SolveReport,
    SolveValue, TableReport, Verdict,
};
pub use table::{Table, TableCounters};

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
