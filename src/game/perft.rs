//! Perft: counting the leaves of the game tree to a fixed depth, the standard check of a move
//! generator against published figures.

use super::moves::Move;
use super::position::Position;
use rayon::prelude::*;

/// Number of leaves at exactly `depth` plies below `pos` (a finished game has no moves, so it
/// counts only at depth 0). The last ply is counted in bulk from the size of the move set.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.legal_moves().len() as u64,
        _ => pos
            .legal_moves()
            .map(|mv| perft(&pos.play(mv), depth - 1))
            .sum(),
    }
}

/// The leaf count below each root move at `depth` (which must be at least 1), computed in
/// parallel over root moves on the current rayon pool.
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    assert!(depth >= 1, "divide needs depth >= 1");
    let moves: Vec<Move> = pos.legal_moves().collect();
    moves
        .into_par_iter()
        .map(|mv| (mv, perft(&pos.play(mv), depth - 1)))
        .collect()
}
