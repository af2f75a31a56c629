//! Kills: the defender's threats of the send rule. A defender move after which the attacker
//! has no line of boards left it could complete (a dead attacker, [`super::attacker_is_dead`])
//! meets the defender's goal at once ([`kill_in_one`]); an attacker move that sends the
//! defender where it can make such a move throws the attacker's chance away
//! ([`unkillable_moves`]). Both are plain consequences of the game's rules, proved below, and
//! hold under every rule set and for questions with a ply bound (a dead attacker never wins,
//! so it does not win in time either).
//!
//! Both turn most moves away by masks, from one fact. **Only the board a move is played in
//! changes.** A move in board `B` adds a stone there, and may win `B` for the mover or fill it
//! (closing it). No other board changes its cells, its winner or whether it is closed. The
//! attacker's winnable boards ([`Position::winnable_boards`]) can therefore change only at
//! `B`, and only by dropping out. A defender stone, a board the defender wins and a board that
//! fills all take something from the attacker and give it nothing. An attacker stone in `B`
//! drops `B` only by filling it without a line of the attacker's.
//!
//! So the attacker's live lines after the move (see [`super::live_lines`]) are those before,
//! less those through `B` if `B` dropped out. If a move leaves no live line, every live line
//! passed through `B`. The attacker's **key boards** are the boards on every live line; only
//! a move in one of them can kill.

use super::lines::is_dead;
use crate::game::tables::{completing_indices, on_every_line_within, FULL_MASK};
use crate::game::{Move, MoveSet, Outcome, Player, Position};

/// The boards on every line of the big board that the attacker, whose winnable boards are
/// `winnable`, could still complete. All nine when no line is left (every board is on every
/// one of no lines).
pub(super) fn key_boards(winnable: u16) -> u16 {
    on_every_line_within(winnable)
}

/// An empty cell of `board` (open, not the attacker's) where a defender stone takes the board
/// from the attacker for good: the last empty cell (the board fills and closes), a cell that
/// completes a local line of the defender's (it wins the board, which nobody had), or a cell
/// on every local line that holds no defender stone (the attacker can no longer make a line
/// there). `extra` is an attacker stone to count in the board first (the attacker's move just
/// played there), or 0.
///
/// These are exactly the defender moves after which the board is no longer among the
/// attacker's winnable boards ([`Position::winnable_boards`]): a board leaves them only by
/// closing, by being won by the other player, or by every local line holding an opponent
/// stone. (When won boards stay open, a board nobody has won still closes only when full, and
/// the defender's line wins it.)
fn spoiling_cell(pos: &Position, attacker: Player, board: usize, extra: u16) -> Option<usize> {
    let cells = spoiling_cells(pos, attacker, board, extra);
    (cells != 0).then(|| cells.trailing_zeros() as usize)
}

/// Every cell that `spoiling_cell` could name, as a 9-bit mask.
pub(super) fn spoiling_cells(pos: &Position, attacker: Player, board: usize, extra: u16) -> u16 {
    let theirs = pos.local_cells(attacker.opponent(), board);
    spoiling_cells_of(theirs, pos.local_occupied(board) | extra)
}

/// The cells of a local board (the defender's stones `theirs`, every stone `occupied`) where
/// a defender stone takes it from the attacker (see `spoiling_cell`).
pub(super) fn spoiling_cells_of(theirs: u16, occupied: u16) -> u16 {
    let empty = FULL_MASK & !occupied;
    if empty.count_ones() == 1 {
        return empty;
    }
    // A local line free of the defender's stones lies within the cells it does not hold.
    (completing_indices(theirs) | on_every_line_within(!theirs)) & empty
}

/// Whether `pos`, in which the defender is to move or has just moved, shows that the attacker
/// cannot win: the game is over without its win, or it is dead.
pub(super) fn attacker_done_for(pos: &Position, attacker: Player) -> bool {
    match pos.outcome() {
        Outcome::Won(winner) => winner != attacker,
        Outcome::Draw => true,
        Outcome::InPlay => is_dead(pos, attacker, pos.winnable_boards_of_both()),
    }
}

/// A move of the defender (the side to move, `attacker`'s opponent) after which the attacker
/// can never win: it is dead, or the game is over without its win. The defender then meets its
/// goal (keeping the attacker from winning) whatever follows, in time for any ply bound.
///
/// Every such move is found, except one that completes the defender's own line of boards (an
/// immediate win, which [`super::evaluate`] settles first). Proof (with the module's fact): let
/// the move be in board `B`.
/// - If the game goes on, the attacker is dead after it, so no live line is left: every live
///   line passed through `B`, which is a key board.
/// - If the move ends the game without completing the defender's line, it closed the last
///   open board `B`. Every live line then held only boards the attacker has won and `B` (its
///   other boards are closed and not the attacker's). A line of three won boards would have
///   ended the game already, so every live line holds `B`: again a key board.
/// - A board the attacker has won never drops out, so it is no candidate.
///
/// Only the key boards the defender may play in are tried. Without the board count, a move
/// there kills exactly when it takes its board from the attacker (no live line is left then),
/// which the masks tell (see `spoiling_cell`). Under CodinGame's rules a dead attacker needs
/// the count too, so each such move is played out and checked; and an attacker with no line
/// left may still win on the count (it is not dead, see [`super::attacker_is_dead`]), so then
/// every legal move is tried. Under the other rule sets an attacker with no line left is dead
/// already: there is nothing to kill, and the answer is `None`.
pub fn kill_in_one(pos: &Position, attacker: Player) -> Option<Move> {
    kill_among(pos, attacker, pos.winnable_boards(attacker))
}

/// [`kill_in_one`], given the attacker's winnable boards (which [`super::evaluate`] has).
pub(super) fn kill_among(pos: &Position, attacker: Player, winnable: u16) -> Option<Move> {
    let keys = key_boards(winnable);
    let mut boards = if keys != FULL_MASK {
        keys & !pos.won_boards(attacker)
    } else if pos.rules().board_count_decides() {
        // No line is left, yet the board count may still give the attacker the game.
        FULL_MASK
    } else {
        return None;
    };
    boards &= super::playable_boards(pos);
    if !pos.rules().board_count_decides() {
        // Without the board count, a move in a key board kills exactly when it takes that
        // board from the attacker (then no live line is left), which the masks tell.
        let spoiled = (0..9)
            .filter(|&board| boards & 1 << board != 0)
            .find_map(|board| spoiling_cell(pos, attacker, board, 0).map(|cell| (board, cell)));
        return spoiled.map(|(board, cell)| Move::new(board, cell));
    }
    let legal = pos.legal_moves();
    while boards != 0 {
        let board = boards.trailing_zeros() as usize;
        boards &= boards - 1;
        let mut cells = (legal.0 >> (9 * board)) as u16 & FULL_MASK;
        while cells != 0 {
            let cell = cells.trailing_zeros() as usize;
            cells &= cells - 1;
            let mv = Move::new(board, cell);
            if attacker_done_for(&pos.play(mv), attacker) {
                return Some(mv);
            }
        }
    }
    None
}

/// The moves of `moves` (the attacker's, the attacker to move, each safe: see
/// [`super::safe_moves`]) after which the defender has no kill in one, the attacker is not
/// dead, and the game goes on.
///
/// The others lose the attacker's point: after each, the attacker can never win (dead, or the
/// game over without its win) or the defender can make it so at once ([`kill_in_one`]). Like
/// the moves that lose at once, they cannot change the node's value while another move is
/// left; with none left, the attacker fails. So [`super::evaluate`] searches only these.
///
/// Proof that a move passed over without playing it keeps the attacker's chance (the module's
/// fact): let it be in cell `c` of board `B`, neither winning nor filling `B`. Then the game
/// goes on, nothing closes, and the attacker's winnable boards, live lines and key boards are
/// as before; the attacker was not dead (the caller has settled that), so it is not now. The
/// defender is sent to board `c`, which is open. If `c` is not a key board, no move there can
/// kill (see [`kill_in_one`]) except one completing the defender's line. That would be an
/// immediate win after the attacker's move, which a safe move does not allow. (With no line
/// left, every board is a key board: under CodinGame's rules, where such an attacker may still
/// win on the board count, every move is played out.)
///
/// A move that wins `B` keeps the attacker's winnable boards (a won board stays among them),
/// so the same holds for it when it sends the defender to an open board that is not a key
/// board (when `B` closes and `c` is `B`, the defender is free: it is checked).
///
/// Of the others, a move that wins or fills `B` is played out and checked, and so is every
/// move under CodinGame's rules. Otherwise the defender may play in board `c` (or in any open
/// board, if `c` is closed), and without the board count a defender move there kills exactly
/// when it is in a key board and takes that board from the attacker (it then leaves no live
/// line: [`kill_in_one`]). Which key boards a defender stone can take is read from the masks
/// (see `spoiling_cell`), counting the attacker's new stone in `B`.
pub fn unkillable_moves(pos: &Position, attacker: Player, moves: MoveSet) -> MoveSet {
    unkillable_among(pos, attacker, pos.winnable_boards(attacker), moves)
}

/// [`unkillable_moves`], given the attacker's winnable boards (which [`super::evaluate`] has).
pub(super) fn unkillable_among(
    pos: &Position,
    attacker: Player,
    winnable: u16,
    moves: MoveSet,
) -> MoveSet {
    let keys = key_boards(winnable);
    let sends_to_a_kill = keys | pos.closed_boards();
    let by_masks = !pos.rules().board_count_decides() && keys != FULL_MASK;
    let candidates = keys & !pos.won_boards(attacker) & !pos.closed_boards();
    let closed = pos.closed_boards();
    // The open key boards a defender stone could take from the attacker, were it sent there.
    let spoilable = if by_masks {
        super::boards_where(candidates, |board| {
            spoiling_cell(pos, attacker, board, 0).is_some()
        })
    } else {
        0
    };
    let play_out = |mv: Move| {
        let after = pos.play(mv);
        attacker_done_for(&after, attacker) || kill_in_one(&after, attacker).is_some()
    };
    let mut kept = 0u128;
    let mut move_boards = super::boards_of(moves);
    while move_boards != 0 {
        let board = move_boards.trailing_zeros() as usize;
        move_boards &= move_boards - 1;
        let cells = (moves.0 >> (9 * board)) as u16 & FULL_MASK;
        let empty = FULL_MASK & !pos.local_occupied(board);
        let fills = super::filling_cell(empty);
        let wins = completing_indices(pos.local_cells(attacker, board)) & empty;
        // Cells whose move is judged one by one: played out, or (sending the defender to its
        // own board, or freeing it) judged with the attacker's new stone counted.
        let mut one_by_one = cells & (fills | wins);
        let mut killable = 0u16;
        if by_masks {
            let plain = cells & !fills & !wins & sends_to_a_kill;
            // Sent to another open board: a kill exactly when that board can be taken.
            killable |= plain & !closed & !(1 << board) & spoilable;
            one_by_one |= plain & (closed | 1 << board);
        } else {
            one_by_one |= cells & sends_to_a_kill;
        }
        while one_by_one != 0 {
            let cell = one_by_one.trailing_zeros() as usize;
            one_by_one &= one_by_one - 1;
            let bit = 1 << cell;
            let judged = if fills & bit != 0 || !by_masks {
                play_out(Move::new(board, cell))
            } else if wins & bit != 0 {
                // Its winnable boards are as before (the board it won stays among them), and
                // the defender is sent to board `cell` unless that board closed: the one won.
                (sends_to_a_kill & bit != 0 || cell == board) && play_out(Move::new(board, cell))
            } else {
                // The defender may play in board `cell` (this board), or anywhere open.
                let reachable = if closed & bit != 0 {
                    FULL_MASK & !closed
                } else {
                    bit
                };
                let mut boards = spoilable;
                // The attacker's stone may take the spoiling cell of its own board.
                if candidates & 1 << board != 0
                    && spoiling_cell(pos, attacker, board, bit).is_none()
                {
                    boards &= !(1 << board);
                }
                boards & reachable != 0
            };
            if judged {
                killable |= bit;
            }
        }
        kept |= u128::from(cells & !killable) << (9 * board);
    }
    MoveSet(kept)
}
