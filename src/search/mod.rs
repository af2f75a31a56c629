//! The engines: the searches and the game knowledge they use. Knows the game core and the
//! table, nothing of the services above it or the command line; no global state.
//!
//! - Game knowledge: [`rules`] (static rules that settle or prune a position), [`numbers`]
//!   (initial proof numbers and how a search chooses by them) and [`guide`] (where a new node's
//!   numbers come from: the hand-built estimate or a model learned from the solver's proofs).
//! - The searches: [`dfpn`] (one searcher), [`shared_dfpn`] (several over one table), and
//!   PN-DFPN: the root tree [`pn_dfpn`] hands out [`job`]s through a transport
//!   ([`workers`]: local threads, a table per thread; MPI lives in `crate::distributed`), and
//!   a moved job takes its subtree's entries along ([`handover`]).
//! - How to search: [`options`]; a line of best play read from the table: [`pv`]; what a
//!   running search shows a live display: [`live`].
//!
//! The one entry point for a solve is `crate::services::Solver`.

pub mod dfpn;
pub mod evaluations;
pub mod guide;
pub mod handover;
pub mod job;
pub mod limits;
pub mod live;
pub mod mcts;
pub mod numbers;
pub mod options;
pub mod pn_dfpn;
pub mod pv;
pub mod rules;
pub mod shared_dfpn;
pub mod threads;
pub mod workers;

pub use job::{Job, JobResult, JobTerms, WorkBudget};
pub use live::LiveStats;
pub use numbers::Numbers;
pub use options::{Engine, SolveOptions};
pub use workers::Workers;

use crate::game::tables::splitmix64;
use crate::game::{Player, Position};
use crate::table::MAX_INDEX_BITS;
use serde::{Deserialize, Serialize};

/// Mixed into the key of every entry that answers "does O win?", so both questions share one
/// table without mixing up their answers. Its low [`MAX_INDEX_BITS`] bits are zero: the
/// bucket index comes from those bits, so both questions' entries for a position land in the
/// same bucket and a lookup of the other question reads the same cache line, while the tag
/// (which holds every higher bit) tells them apart.
const ATTACKER_O_KEY: u64 = splitmix64(0x6174_7461_636b_6572).0 & !((1 << MAX_INDEX_BITS) - 1); // "attacker"
const _: () = assert!(ATTACKER_O_KEY != 0);

/// A binary question a search answers: "does `attacker` win?", or, with a deadline, "does
/// `attacker` win by the time the board holds `deadline` stones?" (within so many plies: every
/// ply adds one stone, so the plies left at a position are the deadline less its stones).
///
/// A bounded question is a different question of each position, so its entries never mix with
/// the unbounded question's nor with another deadline's (see [`table_key`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    /// The player whose win is asked about.
    pub attacker: Player,
    /// The most stones the board may hold when the attacker's win comes; `None` for no bound.
    /// At most 80: a deadline of 81 stones (every cell) is no bound, and
    /// [`Question::wins_within`] leaves it out so that such questions share the unbounded
    /// question's entries.
    #[serde(default)]
    pub deadline: Option<u8>,
}

impl Question {
    /// "Does `attacker` win?", with no bound.
    pub fn wins(attacker: Player) -> Question {
        Question {
            attacker,
            deadline: None,
        }
    }

    /// "Does `attacker` win within `plies` plies of `pos`?" (a bound that reaches the last
    /// cell is no bound at all, and is left out).
    pub fn wins_within(attacker: Player, pos: &Position, plies: u32) -> Question {
        let deadline = pos.stone_count().saturating_add(plies);
        Question {
            attacker,
            deadline: (deadline < 81).then_some(deadline as u8),
        }
    }

    /// The same question about the other player's win.
    pub fn other(self) -> Question {
        Question {
            attacker: self.attacker.opponent(),
            ..self
        }
    }

    /// The plies left at `pos` for the attacker's win (`None` without a bound).
    pub fn plies_left(self, pos: &Position) -> Option<u32> {
        self.deadline
            .map(|deadline| u32::from(deadline).saturating_sub(pos.stone_count()))
    }
}

/// Mixed into the keys of a bounded question, one value for each count of plies left: the
/// essential hash may give positions with different stone counts one key (a closed board's
/// cells do not matter to the game), and their bounded values differ.
fn plies_left_key(plies_left: u32) -> u64 {
    splitmix64(0x706c_6965_735f_6c65 ^ u64::from(plies_left)).0 // "plies_le"
}

/// The table key of `pos` for `question`. Both attackers' keys of one position (with the same
/// deadline) differ only in bits above the bucket index, so they share a bucket.
pub fn table_key(pos: &Position, question: Question) -> u64 {
    let hash = match question.plies_left(pos) {
        None => pos.hash(),
        Some(left) => pos.hash() ^ plies_left_key(left),
    };
    match question.attacker {
        Player::X => hash,
        Player::O => hash ^ ATTACKER_O_KEY,
    }
}
