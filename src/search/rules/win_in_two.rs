//! Win in two: a safe move after which every reply lets the side to move win the game at once
//! ([`win_in_two`]), and the mask test that turns most moves away without playing them
//! ([`may_win_in_two`]).

use super::{has_safe_move, winning_boards, winning_boards_with, winning_cells};
use crate::game::tables::{completing_indices, has_line, FULL_MASK};
use crate::game::{Move, MoveSet, Position};

/// A move after which every reply lets the side to move win the game at once, if there is
/// one among `safe` (the side to move's [`super::safe_moves`]).
///
/// Proof: after such a move `m` the game is still in play (so the opponent must reply), the
/// opponent cannot win at once (`m` is safe), and [`super::safe_moves`] of the position after
/// `m` is empty: every legal reply hands the side to move a move that completes its line of
/// won boards. Whatever the opponent does, the side to move wins on its next move; a win meets
/// its goal as attacker or as defender.
///
/// Only the moves that [`may_win_in_two`] lets through are played out: it turns most of them
/// away by masks alone, without playing them.
pub fn win_in_two(pos: &Position, safe: MoveSet) -> Option<Move> {
    win_in_two_among(pos, safe, win_in_two_returns(pos))
}

/// [`win_in_two`] given [`win_in_two_returns`] of `pos` (which [`super::evaluate`] builds
/// from the winning boards it has already found).
pub(super) fn win_in_two_among(pos: &Position, safe: MoveSet, returns: u16) -> Option<Move> {
    let occupied = pos.all_local_occupied();
    MoveSet(safe.0 & win_in_two_candidates(pos, &occupied)).find(|&mv| {
        may_win_in_two_given(pos, &occupied, mv, returns) && {
            let after = pos.play(mv);
            !after.is_over() && !has_safe_move(&after)
        }
    })
}

/// The squares where a move of the side to move may be a win in two, as one board-wide mask
/// test of [`may_win_in_two`] tells: every square when some open board nobody has won
/// completes a line of its won boards, and otherwise only the cells that win their board (a
/// move that wins none then leaves the side to move no winning board, and [`may_win_in_two`]
/// turns it away).
fn win_in_two_candidates(pos: &Position, occupied: &[u16; 9]) -> u128 {
    let me = pos.side_to_move();
    let open = FULL_MASK & !pos.closed_boards() & !pos.owned_boards();
    if completing_indices(pos.won_boards(me)) & open != 0 {
        return u128::MAX;
    }
    let mine = pos.all_local_cells(me);
    (0..9).fold(0, |squares, board| {
        let cells = winning_cells(mine[board], occupied[board]);
        squares | (cells as u128) << (9 * board)
    })
}

/// The boards an opponent's reply may send the side to move to and still hand it a win at
/// once, as far as [`may_win_in_two`] can tell before any move: the side to move's winning
/// boards and the closed boards (which free it to play in a winning board, if it has one).
pub fn win_in_two_returns(pos: &Position) -> u16 {
    winning_boards(pos, pos.side_to_move()) | pos.closed_boards()
}

/// False only when the move `mv` of the side to move is certainly not a win in two (see
/// [`win_in_two`]), judged by masks without playing it; `returns` is
/// [`win_in_two_returns`] of `pos`.
///
/// Proof. Let `mv` be in cell `c` of board `B`. A win in two ends with the side to move
/// completing a line of won boards in one of its winning boards after the reply, and the
/// reply adds no stone or won board of the side to move, so that board is a winning board
/// already after `mv`. Those are, if `mv` wins `B`, the boards other than `B` that are winning
/// boards with `B` counted among the won boards (their cells are unchanged); otherwise the
/// winning boards before `mv` (those not in `returns`' closed boards), and `B` if it may have
/// become one. If there are none, `mv` is not a win in two. Otherwise the opponent replies in
/// a board `b'` it may play in after `mv` (board `c` if that is open, else any open board),
/// in any empty cell `c'`, and the reply sends the side to move to board `c'`. Take a `c'`
/// other than `b'` and `B` (those boards changed). Neither move touches board `c'`, so after
/// the reply it is closed exactly when it was before `mv`, and it is a winning board exactly
/// when it is one after `mv`. If `c'` is neither (in neither `returns` nor the winning boards
/// after `mv`), the side to move is sent to an open board where no move wins the game (or
/// the game is over without its win): it cannot win at once, so `mv` is not a win in two.
/// Hence `mv` can only be one when every such `c'` is in those boards. (When won boards stay
/// open, a line in a board already won wins nothing; counting `B` as won there is merely
/// cautious.)
pub fn may_win_in_two(pos: &Position, mv: Move, returns: u16) -> bool {
    may_win_in_two_given(pos, &pos.all_local_occupied(), mv, returns)
}

/// [`may_win_in_two`], given [`Position::all_local_occupied`] of `pos` (`occupied`: one read
/// of the boards for all the moves [`win_in_two_among`] judges).
fn may_win_in_two_given(pos: &Position, occupied: &[u16; 9], mv: Move, returns: u16) -> bool {
    let me = pos.side_to_move();
    let (board, cell) = (mv.board(), mv.cell());
    let board_bit = 1u16 << board;
    let wins_board = has_line(pos.local_cells(me, board) | 1 << cell);
    let occupied_after = |b: usize| occupied[b] | if b == board { 1 << cell } else { 0 };
    let mut closed_after = pos.closed_boards();
    if occupied_after(board) == FULL_MASK || (wins_board && pos.rules().won_boards_close()) {
        closed_after |= board_bit;
    }
    let winning_after = if wins_board {
        winning_boards_with(pos, me, pos.won_boards(me) | board_bit) & !board_bit
    } else {
        let mine_after = pos.local_cells(me, board) | 1 << cell;
        let board_becomes_winning = completing_indices(pos.won_boards(me)) & board_bit != 0
            && closed_after & board_bit == 0
            && pos.owned_boards() & board_bit == 0
            && winning_cells(mine_after, occupied_after(board)) != 0;
        (returns & !pos.closed_boards()) | if board_becomes_winning { board_bit } else { 0 }
    };
    if winning_after == 0 {
        return false;
    }
    let returns = returns | winning_after;
    let mut reply_boards = if closed_after & 1 << cell == 0 {
        1 << cell
    } else {
        FULL_MASK & !closed_after
    };
    let mut sends_to = 0u16;
    while reply_boards != 0 {
        let reply_board = reply_boards.trailing_zeros() as usize;
        reply_boards &= reply_boards - 1;
        sends_to |= FULL_MASK & !occupied_after(reply_board) & !(1 << reply_board);
    }
    sends_to & !board_bit & !returns == 0
}
