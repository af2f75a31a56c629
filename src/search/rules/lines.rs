//! The rules about the lines of won boards a player can still complete: the dead attacker, the
//! attacker too slow for a ply bound, the room it has in time, and the live lines the initial
//! numbers weigh (see the module [`super`] for where each is used).

use crate::game::tables::{has_line, lines_within, LINES};
use crate::game::{Player, Position};

/// Whether `attacker` cannot win `pos` in the `plies_left` plies left: every line of won
/// boards needs more of its stones than it can place (see [`room_in_time`]) and, under
/// CodinGame's rules, it cannot win on the board count either (see `count_win_possible`).
pub fn attacker_is_too_slow(pos: &Position, attacker: Player, plies_left: u32) -> bool {
    let in_time = room_in_time(pos, attacker, plies_left);
    is_too_slow(pos, attacker, in_time, pos.winnable_boards_of_both())
}

/// [`attacker_is_too_slow`] given [`room_in_time`] and both players' winnable boards.
pub(super) fn is_too_slow(
    pos: &Position,
    attacker: Player,
    in_time: Option<u32>,
    winnable: [u16; 2],
) -> bool {
    in_time == Some(0) && !count_win_possible(pos, attacker, winnable)
}

/// The room `attacker` has to complete a line of the big board in the `plies_left` plies left:
/// over the lines that need no more of its stones than it has moves (on the plies of its turn:
/// half the plies left, rounded up when it is to move), the moves each leaves to spare, plus
/// one. So 0 exactly when no line can be completed in time, and a line that needs every move
/// left counts 1: the defender spoils it with one stone in the right place, where a line with
/// moves to spare takes more. `None` when the attacker has 9 moves or more, as many as any line
/// that can still be its needs (so for every unbounded question).
///
/// The initial numbers weigh the attacker's lines by this room (see
/// [`crate::search::numbers::initial_numbers`]; counting each line in time once instead searched more,
/// measured in BENCHMARKS.md).
///
/// Proof that a line left out cannot be completed in time: a move places one stone in one
/// board. The attacker wins a board only by three of its stones in a local line that holds
/// none of the defender's (a line in a board already won adds no board when won boards stay
/// open), so a board it has not won needs at least three less its stones on the best such
/// line, and a board won by the defender, drawn or full can never be its. A line of won boards
/// needs each of its three boards, with stones of their own, so at least the sum of their
/// needs. (Under CodinGame's rules the attacker may also win on the board count, which
/// [`attacker_is_too_slow`] rules out besides.)
pub fn room_in_time(pos: &Position, attacker: Player, plies_left: u32) -> Option<u32> {
    let moves_left = if pos.side_to_move() == attacker {
        plies_left.div_ceil(2)
    } else {
        plies_left / 2
    };
    if moves_left >= 9 {
        return None;
    }
    let need: [u32; 9] = std::array::from_fn(|board| stones_to_win_board(pos, attacker, board));
    let room = LINES.iter().map(|&line| {
        let line_need: u32 = (0..9)
            .filter(|board| line & 1 << board != 0)
            .map(|board| need[board])
            .sum();
        (moves_left + 1).saturating_sub(line_need)
    });
    Some(room.sum())
}

/// The fewest stones `player` must still place in `board` to win it (0 if it has; more than
/// any count of moves, 10, if it never can): see [`attacker_is_too_slow`].
fn stones_to_win_board(pos: &Position, player: Player, board: usize) -> u32 {
    const NEVER: u32 = 10;
    let bit = 1 << board;
    if pos.won_boards(player) & bit != 0 {
        return 0;
    }
    if (pos.owned_boards() | pos.closed_boards()) & bit != 0 {
        return NEVER;
    }
    let mine = pos.local_cells(player, board);
    let theirs = pos.local_cells(player.opponent(), board);
    LINES
        .iter()
        .filter(|&&line| line & theirs == 0)
        .map(|&line| 3 - (line & mine).count_ones())
        .min()
        .unwrap_or(NEVER)
}

/// Whether the attacker can never win `pos`: no line of won boards is left to it (see
/// [`live_lines`]) and, under CodinGame's rules, it cannot win on the board count either (see
/// `count_win_possible`).
pub fn attacker_is_dead(pos: &Position, attacker: Player) -> bool {
    is_dead(pos, attacker, pos.winnable_boards_of_both())
}

/// [`attacker_is_dead`] given both players' winnable boards.
pub(super) fn is_dead(pos: &Position, attacker: Player, winnable: [u16; 2]) -> bool {
    lines_within(winnable[attacker.index()]) == 0 && !count_win_possible(pos, attacker, winnable)
}

/// Whether the attacker might still win a game that ends without a line on the board count:
/// only under CodinGame's rules, and only while the boards it has won or could still win
/// (`winnable`, [`Position::winnable_boards_of_both`]) outnumber the boards its opponent has
/// won already.
///
/// Proof that `false` is right: at the end of such a game the attacker's won boards are among
/// its winnable boards now (no other board can ever become its own), and the opponent's won
/// boards include those it has won now (a won board stays won). So the attacker ends with at
/// most as many won boards as the opponent, and equal counts draw: it does not win.
fn count_win_possible(pos: &Position, attacker: Player, winnable: [u16; 2]) -> bool {
    pos.rules().board_count_decides()
        && winnable[attacker.index()].count_ones()
            > pos.won_boards(attacker.opponent()).count_ones()
}

/// Whether `player` could still complete a line of won boards, ignoring whose turn it is
/// (see [`live_lines`]).
pub fn can_still_win(pos: &Position, player: Player) -> bool {
    has_line(pos.winnable_boards(player))
}

/// How many lines of the big board `player` could still complete, ignoring whose turn it is:
/// lines that consist of [`Position::winnable_boards`] alone (whose doc comment proves that no
/// other board can ever become `player`'s, so no other line can be completed).
pub fn live_lines(pos: &Position, player: Player) -> u32 {
    lines_within(pos.winnable_boards(player))
}
