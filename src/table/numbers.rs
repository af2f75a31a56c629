//! Proof and disproof numbers in φ/δ form, with saturating arithmetic: what the table keeps
//! for each position and question.
//!
//! φ is the cost of proving that the side to move reaches its goal, δ the cost of disproving
//! it. A proved node is (0, ∞), a disproved one (∞, 0). Every sum saturates at
//! [`MAX_FINITE`], so an unsolved node never reads as solved, and ∞ stays far above any
//! number a search can build (searches stop long before 2³² expansions of one subtree).

use serde::{Deserialize, Serialize};

/// The proof number of a solved-against node.
pub const INFINITY: u32 = u32::MAX;
/// The largest finite proof number: sums saturate here rather than reach ∞.
pub const MAX_FINITE: u32 = u32::MAX - 1;

/// A node's proof and disproof numbers (φ, δ) for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Numbers {
    /// The cost of proving the side to move reaches its goal.
    pub phi: u32,
    /// The cost of disproving it.
    pub delta: u32,
}

impl Numbers {
    /// The side to move reaches its goal.
    pub const PROVED: Numbers = Numbers {
        phi: 0,
        delta: INFINITY,
    };
    /// The side to move cannot reach its goal.
    pub const DISPROVED: Numbers = Numbers {
        phi: INFINITY,
        delta: 0,
    };
    /// A leaf nothing is known about.
    pub const UNIT: Numbers = Numbers { phi: 1, delta: 1 };

    /// Whether the node is proved or disproved.
    pub fn is_solved(self) -> bool {
        self.phi == 0 || self.delta == 0
    }

    /// The numbers as seen from the parent (the side to move changes: φ and δ swap).
    pub fn flipped(self) -> Numbers {
        Numbers {
            phi: self.delta,
            delta: self.phi,
        }
    }

    /// Packs into one word (φ low, δ high) for the table.
    pub fn pack(self) -> u64 {
        u64::from(self.phi) | u64::from(self.delta) << 32
    }

    /// The inverse of [`Numbers::pack`].
    pub fn unpack(word: u64) -> Numbers {
        Numbers {
            phi: word as u32,
            delta: (word >> 32) as u32,
        }
    }
}

/// `a + b`, saturating at [`MAX_FINITE`] unless either is ∞.
pub fn add(a: u32, b: u32) -> u32 {
    if a == INFINITY || b == INFINITY {
        INFINITY
    } else {
        a.saturating_add(b).min(MAX_FINITE)
    }
}
