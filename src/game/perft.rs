//! Perft: counting the leaves of the game tree to a fixed depth, the standard check of a move
//! generator against published figures.

use super::moves::Move;
use super::position::{Player, Position};
use super::tables::{cells_of_boards, has_line, FULL_MASK};
use rayon::prelude::*;

/// Number of leaves at exactly `depth` plies below `pos` (a finished game has no moves, so it
/// counts only at depth 0). The last ply is counted in bulk: at depth 2 each move's reply
/// count comes from `replies_after` without building the child position.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.legal_moves().len() as u64,
        // The bulk count closes a board when it is won, as every rule set but `open` does
        // (CodinGame's rules move as the common rules do).
        2 if pos.rules().won_boards_close() => {
            pos.legal_moves().map(|mv| replies_after(pos, mv)).sum()
        }
        _ => pos
            .legal_moves()
            .map(|mv| perft(&pos.play(mv), depth - 1))
            .sum(),
    }
}

/// The number of legal replies after `mv`: `pos.play(mv).legal_moves().len()`, computed from
/// the masks alone (no hash update, no copy) because perft spends most of its time here.
fn replies_after(pos: &Position, mv: Move) -> u64 {
    let me = pos.side_to_move();
    let (board, cell) = (mv.board(), mv.cell());
    let won_board = has_line(pos.local_cells(me, board) | 1 << cell);
    if won_board && has_line(pos.won_boards(me) | 1 << board) {
        return 0;
    }
    let full_board = (pos.local_occupied(board) | 1 << cell) == FULL_MASK;
    let closed = pos.closed_boards() | u16::from(won_board || full_board) << board;
    if closed == FULL_MASK {
        return 0;
    }
    let empty = !(pos.cells(Player::X) | pos.cells(Player::O) | 1u128 << mv.square());
    let allowed = if closed & (1 << cell) == 0 {
        (FULL_MASK as u128) << (9 * cell)
    } else {
        cells_of_boards(!closed)
    };
    u64::from((empty & allowed).count_ones())
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
