//! A small deterministic random number generator (splitmix64) for seeded playouts: `uttt gen`,
//! benchmarks and tests. Deterministic for a given seed and version, with no global state.

use super::moves::Move;
use super::position::Position;
use super::tables::splitmix64;

/// A splitmix64 generator.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let (value, state) = splitmix64(self.state);
        self.state = state;
        value
    }

    /// A number in `0..bound` (`bound` > 0), by multiply-shift (bias below 2^-32 for small bounds).
    pub fn below(&mut self, bound: usize) -> usize {
        (((self.next_u64() >> 32) * bound as u64) >> 32) as usize
    }

    /// A uniformly chosen legal move, or `None` if the game is over.
    pub fn legal_move(&mut self, pos: &Position) -> Option<Move> {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        let index = self.below(moves.len());
        moves.into_iter().nth(index)
    }

    /// Plays up to `plies` random legal moves from `pos` (stopping early if the game ends) and
    /// returns the moves played.
    pub fn playout(&mut self, pos: &Position, plies: usize) -> Vec<Move> {
        let mut current = *pos;
        let mut moves = Vec::with_capacity(plies);
        while moves.len() < plies {
            let Some(mv) = self.legal_move(&current) else {
                break;
            };
            current = current.play(mv);
            moves.push(mv);
        }
        moves
    }
}
