//! Sound static rules: facts about a position that settle a binary question without search,
//! and the moves a search must still look at.
//!
//! Each rule is a plain consequence of the game's rules (the proofs are in the doc comments);
//! tests check each rule's own claim against the independent oracle on thousands of
//! positions, and the solver with the rules in use against the oracle's values.
//!
//! * **Finished game**: the outcome decides.
//! * **Immediate win**: if the side to move can complete a line of won boards with one legal
//!   move, it wins, which meets either player's goal (winning, or keeping the attacker from
//!   winning).
//! * **Dead attacker**: if no line of the big board can still become all the attacker's (every
//!   line holds a board won by the opponent, drawn, or with every local line blocked by an
//!   opponent stone), the attacker can never win. Under CodinGame's rules, where a game without
//!   a line goes to the player with more won boards, only when the attacker also cannot end
//!   with more won boards than the opponent has now ([`attacker_is_dead`]).
//! * **Too slow** (questions with a ply bound only): if every line of the big board needs
//!   more of the attacker's stones than it has moves left, it cannot win in time (under
//!   CodinGame's rules only when, as for the dead attacker, it cannot win on the board count
//!   either: [`attacker_is_too_slow`]).
//! * **Every move loses at once**: if each legal move lets the opponent complete a line of won
//!   boards on the next move, the opponent wins ([`safe_moves`] is empty).
//! * **Win in two**: a safe move after which every reply lets the side to move win at once
//!   ([`win_in_two`]); looked for with the attacker to move (the defender's is a kill in two).
//! * **Trapped**: if every safe move of the defender, to move, leaves the attacker a win in
//!   two, the attacker wins ([`trapped`]: the attacker's threats of the send rule, one ply
//!   deeper). Looked for only where the attacker has a winning board already.
//! * **Moves that lose at once are never searched**: with at least one safe move left, the
//!   others cannot change the node's value ([`safe_moves`]).
//! * **Kill in one**: if the defender, to move, can leave the attacker dead (or end the game
//!   without its win), it keeps the attacker from winning ([`kill_in_one`]).
//! * **Kill in two**: if the defender, to move, has a safe move after which every attacker
//!   move hands it a win at once or lets it kill, it keeps the attacker from winning
//!   ([`kill_in_two`]; this includes the defender's win in two). Looked for only where the
//!   attacker has a key board or the defender a winning board: elsewhere it is seldom found
//!   and costs more time than it saves (BENCHMARKS.md).
//! * **Moves that let the defender kill are never searched**: an attacker move after which
//!   the defender has a kill in one (or the attacker is dead) throws its chance away; with
//!   none of its safe moves left, the attacker fails ([`unkillable_moves`]).
//!
//! Questions with a ply bound ([`Question::deadline`]): each rule is used only while the win it
//! reasons about comes in time; [`evaluate`] says how.
//!
//! Rule sets: every rule holds under each rule set ([`crate::game::Rules`]); the dead attacker
//! and too slow need one more condition under CodinGame's rules. Each proof below is written
//! for the common rules and says what changes when won boards stay open: a board is then won
//! by its first line only (a line in a board already won adds nothing), stays open until full,
//! and closes only when full. CodinGame's rules change only the outcome of a game that ends
//! with every board closed and no line. Besides the dead attacker and too slow, only the last
//! ply of a bounded question reasons about that outcome (it plays each move out). The others
//! reason about lines of won boards completed on the next move or two, and count a move that
//! ends the game without such a line as ending it without the opponent's immediate win, which
//! holds whoever the board count favours.

mod kill_in_two;
mod kills;
mod lines;
mod trapped;
mod win_in_two;

pub use kill_in_two::kill_in_two;
pub use kills::{kill_in_one, unkillable_moves};
pub use lines::{attacker_is_dead, attacker_is_too_slow, can_still_win, live_lines, room_in_time};
pub use trapped::trapped;
pub use win_in_two::{may_win_in_two, win_in_two, win_in_two_returns};

use super::Question;
use crate::game::tables::{board_masks, completing_indices, has_line, lines_within, FULL_MASK};
use crate::game::{Move, MoveSet, Outcome, Player, Position};
use crate::table::numbers::Numbers;
use lines::{is_dead, is_too_slow};
use win_in_two::win_in_two_among;

/// What the static rules say about a position, for one binary question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evaluation {
    /// Settled: the numbers for the side to move (proved or disproved).
    Solved(Numbers),
    /// Search is needed.
    Open(OpenNode),
}

/// A position the static rules leave open, for one binary question: the moves to search and
/// the features its initial numbers are estimated from (see
/// [`super::numbers::initial_numbers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenNode {
    /// The moves worth searching for this question (never empty): the safe moves, and with
    /// the attacker to move only those that leave the defender no kill. Not a three-valued
    /// move list: a move left out for the attacker may still draw.
    pub moves: MoveSet,
    /// Whether the attacker is the side to move.
    pub attacker_to_move: bool,
    /// How many lines of the big board the attacker could still complete (0 to 8, see
    /// [`live_lines`]); under a ply bound, those it could complete in time, each counted once
    /// for every move it leaves to spare and once more (see [`room_in_time`]).
    pub attacker_lines: u32,
    /// How many lines of the big board the defender could still complete (0 to 8): each is a
    /// way for it to win, which answers the question as surely as spoiling the attacker's lines.
    pub defender_lines: u32,
    /// Whether the defender has a winning board (see [`winning_boards`]): a board where one
    /// move of its would win the game, were it allowed to play there.
    pub defender_threatens: bool,
    /// Whether the attacker has a winning board.
    pub attacker_threatens: bool,
}

/// Whether the side to move reaches its goal in the question "does `attacker` win?": the
/// attacker's goal is to win, the defender's is to keep the attacker from winning.
fn goal_numbers(pos: &Position, attacker: Player, attacker_wins: bool) -> Numbers {
    if (pos.side_to_move() == attacker) == attacker_wins {
        Numbers::PROVED
    } else {
        Numbers::DISPROVED
    }
}

/// The numbers of `pos` (in play, no immediate win for its side to move) when one ply is left
/// for the attacker's win: each move ends the question, by the attacker's win or by the
/// deadline, so the side to move reaches its goal iff one of its moves does. Under CodinGame's
/// rules a move may end the game with a win on the board count, for either player.
fn last_ply(pos: &Position, attacker: Player) -> Numbers {
    let reaches_goal = |mv| {
        let attacker_wins = pos.play(mv).outcome() == Outcome::Won(attacker);
        attacker_wins == (pos.side_to_move() == attacker)
    };
    if pos.legal_moves().into_iter().any(reaches_goal) {
        Numbers::PROVED
    } else {
        Numbers::DISPROVED
    }
}

/// Applies every static rule to `pos` for `question`.
///
/// A finished game is settled by its outcome. Immediate win comes first among the rules: it
/// settles the node for the side to move whoever attacks. The dead-attacker test needs no move
/// generation. (Under a ply bound, none left fails the attacker before the rules, too slow comes
/// after the dead attacker, and one ply left is settled by playing each move out.) Then, if no
/// legal move is safe, the opponent
/// wins on its next move whatever the side to move does: winning is the opponent's goal both
/// as attacker and as defender (a defender that wins has kept the attacker from winning), so
/// the side to move fails its goal and the node is disproved for it. Last, the attacker's win in
/// two proves the node; it is only looked for when the attacker already has a winning board
/// it cannot reach this move, because looking everywhere costs more time than it saves (see
/// BENCHMARKS.md).
///
/// The kills (module `kills`) come around the safe moves: with the defender to move, a kill in
/// one proves the node for it, and after the safe moves so does a kill in two (which includes
/// the defender's win in two: with no winning board of the defender's there is none, and with
/// no key board of the attacker's either the kill in two is not looked for); with the attacker
/// to move, only its safe moves that leave the defender no kill are searched, and none left
/// disproves the node. The attacker's win in two is then looked for among the moves left: a
/// move that lets the defender kill is never one, since after the kill no reply of the
/// attacker's can win.
///
/// A bounded question ([`Question::deadline`]) fails the attacker once no ply is left, and
/// each rule holds as long as the win it reasons about comes in time:
/// - Immediate win and the dead attacker need no ply past the next; "too slow" counts the
///   attacker's moves in the plies left (under CodinGame's rules only where, as for the dead
///   attacker, it cannot win on the board count).
/// - With one ply left each move ends the question (by the attacker's win, or by the
///   deadline), so either side to move is settled by playing its moves out (see `last_ply`).
/// - "No safe move" and the moves it prunes reason about the opponent's win on the ply after
///   next. That is in time with two plies left, and an attacker's unsafe move is bad for it
///   whenever the defender's win would come (a defender's win or the deadline both fail the
///   attacker).
/// - A kill makes the attacker unable to win at all, so it holds under any bound; so does a
///   kill in two (the defender's win, or a kill, on the ply after next).
/// - The attacker's win in two comes three plies on: in time with three plies left.
pub fn evaluate(pos: &Position, question: Question) -> Evaluation {
    let attacker = question.attacker;
    match pos.outcome() {
        Outcome::Won(winner) => {
            return Evaluation::Solved(goal_numbers(pos, attacker, winner == attacker))
        }
        Outcome::Draw => return Evaluation::Solved(goal_numbers(pos, attacker, false)),
        Outcome::InPlay => {}
    }
    let plies_left = question.plies_left(pos).unwrap_or(u32::MAX);
    if plies_left == 0 {
        return Evaluation::Solved(goal_numbers(pos, attacker, false));
    }
    let me = pos.side_to_move();
    let my_winning_boards = winning_boards(pos, me);
    if my_winning_boards & playable_boards(pos) != 0 {
        // An immediate win (see `immediate_win`).
        return Evaluation::Solved(Numbers::PROVED);
    }
    let winnable = pos.winnable_boards_of_both();
    if is_dead(pos, attacker, winnable) {
        return Evaluation::Solved(goal_numbers(pos, attacker, false));
    }
    let in_time = room_in_time(pos, attacker, plies_left);
    if is_too_slow(pos, attacker, in_time, winnable) {
        return Evaluation::Solved(goal_numbers(pos, attacker, false));
    }
    let attacker_lines = in_time.unwrap_or_else(|| lines_within(winnable[attacker.index()]));
    if plies_left == 1 {
        return Evaluation::Solved(last_ply(pos, attacker));
    }
    if me != attacker && kills::kill_among(pos, attacker, winnable[attacker.index()]).is_some() {
        return Evaluation::Solved(Numbers::PROVED);
    }
    let threats = winning_boards(pos, me.opponent());
    let mut safe = safe_among(pos, pos.legal_moves(), threats);
    if safe.is_empty() {
        return Evaluation::Solved(Numbers::DISPROVED);
    }
    if me == attacker {
        safe = kills::unkillable_among(pos, attacker, winnable[attacker.index()], safe);
        if safe.is_empty() {
            return Evaluation::Solved(Numbers::DISPROVED);
        }
    } else if kills::key_boards(winnable[attacker.index()]) != 0 || my_winning_boards != 0 {
        // Elsewhere (most defender nodes) a kill in two is seldom found (BENCHMARKS.md).
        let kill = kill_in_two::kill_in_two_among(
            pos,
            attacker,
            winnable[attacker.index()],
            my_winning_boards,
            safe,
        );
        if kill.is_some() {
            return Evaluation::Solved(Numbers::PROVED);
        }
    }
    // Looked for only where the attacker has a winning board already (and so, the defender
    // adding no attacker stone or won board, where the attacker may still have one after the
    // defender's move): elsewhere a win in two needs the attacker's own move to make one.
    if me != attacker && threats != 0 && plies_left >= 4 && trapped(pos, safe) {
        return Evaluation::Solved(Numbers::DISPROVED);
    }
    let returns = my_winning_boards | pos.closed_boards();
    if me == attacker && plies_left >= 3 && win_in_two_among(pos, safe, returns).is_some() {
        return Evaluation::Solved(Numbers::PROVED);
    }
    let attacker_to_move = me == attacker;
    let (attacker_winning_boards, defender_winning_boards) = if attacker_to_move {
        (my_winning_boards, threats)
    } else {
        (threats, my_winning_boards)
    };
    Evaluation::Open(OpenNode {
        moves: safe,
        attacker_to_move,
        attacker_lines,
        defender_lines: lines_within(winnable[attacker.opponent().index()]),
        defender_threatens: defender_winning_boards != 0,
        attacker_threatens: attacker_winning_boards != 0,
    })
}

/// The open boards in which `player` would win the game with one move by a line of won boards
/// if it were to move there: boards nobody has won that complete a line of its won boards and
/// hold an empty cell completing a local line of its stones.
///
/// Playing that cell wins the local board (three of its stones in a line), which adds the
/// board to its won boards and so completes the big line; nothing else can. (When won boards
/// stay open, a line in a board already won adds no won board: such boards are left out.
/// Under the other rule sets every won board is closed, so leaving them out changes nothing.)
pub fn winning_boards(pos: &Position, player: Player) -> u16 {
    winning_boards_with(pos, player, pos.won_boards(player))
}

/// The [`winning_boards`] of `player` were its won boards `won`, with every board's cells and
/// whether it is closed or owned as in `pos` (a board in `won` but not yet owned in `pos` is
/// the caller's to leave out).
fn winning_boards_with(pos: &Position, player: Player, won: u16) -> u16 {
    let owned = pos.owned_boards();
    let open = FULL_MASK & !pos.closed_boards() & !owned;
    boards_where(completing_indices(won) & open, |board| {
        winning_cells(pos.local_cells(player, board), pos.local_occupied(board)) != 0
    })
}

/// The empty cells of a local board (with `occupied` cells taken) that complete a local line
/// of the stones `mine`.
fn winning_cells(mine: u16, occupied: u16) -> u16 {
    completing_indices(mine) & !occupied & FULL_MASK
}

/// The boards the side to move may play in (none when the game is over).
fn playable_boards(pos: &Position) -> u16 {
    if pos.is_over() {
        return 0;
    }
    match pos.target_board() {
        Some(board) => 1 << board,
        None => FULL_MASK & !pos.closed_boards(),
    }
}

/// A move that wins the game at once for the side to move, if there is one: a winning cell
/// (see [`winning_boards`]) in a board it may play in.
pub fn immediate_win(pos: &Position) -> Option<Move> {
    let me = pos.side_to_move();
    let boards = winning_boards(pos, me) & playable_boards(pos);
    if boards == 0 {
        return None;
    }
    let board = boards.trailing_zeros() as usize;
    let cell = winning_cells(pos.local_cells(me, board), pos.local_occupied(board)).trailing_zeros()
        as usize;
    Some(Move::new(board, cell))
}

/// The legal moves after which the opponent cannot win the game with its next move by a line
/// of won boards (under CodinGame's rules a move may also end the game with a win on board
/// count: such a move counts as safe here, and is searched).
///
/// Proof that a move `m` in cell `c` of board `B` is classified exactly: the move changes only
/// board `B` (one more stone of the mover; `B` may become won by the mover or full, and then
/// closed). If it completes the mover's big line, or closes the last open board, the game ends
/// without an opponent win: safe. Otherwise the opponent wins at once iff it may play in one of
/// its winning boards after the move (see [`winning_boards`]). Those are the winning boards
/// before the move, except that `B` drops out if it closed, if the mover won it, or if `c` was
/// the opponent's only winning cell in it; no board is added, since the opponent's stones and
/// won boards are unchanged and empty cells only become fewer. The opponent is sent to board
/// `c`, or may play in every open board when `c` is closed after the move (which includes
/// `c = B` when `B` just closed). When won boards stay open, the move wins `B` only if nobody
/// had won it, and `B` closes only when full; the rest of the proof is unchanged.
pub fn safe_moves(pos: &Position) -> MoveSet {
    let (legal, threats) = legal_moves_and_threats(pos);
    safe_among(pos, legal, threats)
}

/// The moves of `legal` that do not hand the opponent an immediate win, given the opponent's
/// winning boards `threats` (see [`safe_moves`]).
///
/// Board by board, with masks: a move that neither wins, fills nor blocks inside its board
/// (nor completes the mover's big line) leaves the opponent's winning boards as they were
/// (`safe_moves`' proof), so it is safe exactly when it sends the opponent to an open board
/// that is not one of them (a closed board would let the opponent play in any open board,
/// and `threats` is not empty). Only the few moves that win, fill or block go through
/// [`hands_over_a_win`] one by one.
fn safe_among(pos: &Position, legal: MoveSet, threats: u16) -> MoveSet {
    if threats == 0 {
        return legal;
    }
    let me = pos.side_to_move();
    // Cells whose index names a board the opponent would win from, or may leave for one.
    let sends_to_a_win = threats | pos.closed_boards();
    let mut safe = 0u128;
    let mut boards = boards_of(legal);
    while boards != 0 {
        let board = boards.trailing_zeros() as usize;
        boards &= boards - 1;
        let shift = 9 * board;
        let cells = (legal.0 >> shift) as u16 & FULL_MASK;
        let occupied = pos.local_occupied(board);
        let mut special = winning_cells(pos.local_cells(me, board), occupied);
        let empty = FULL_MASK & !occupied;
        special |= filling_cell(empty);
        if threats & (1 << board) != 0 {
            special |= winning_cells(pos.local_cells(me.opponent(), board), occupied);
        }
        let mut board_safe = cells & !special & !sends_to_a_win;
        let mut checked = cells & special;
        while checked != 0 {
            let cell = checked.trailing_zeros() as usize;
            checked &= checked - 1;
            if !hands_over_a_win(pos, Move::new(board, cell), threats) {
                board_safe |= 1 << cell;
            }
        }
        safe |= u128::from(board_safe) << shift;
    }
    MoveSet(safe)
}

/// The cell whose stone fills a local board with the empty cells `empty` (a 9-bit mask): the
/// last empty one, or none (0) while two or more are empty.
fn filling_cell(empty: u16) -> u16 {
    if empty.count_ones() == 1 {
        empty
    } else {
        0
    }
}

/// The boards (9-bit mask) that hold at least one move of `moves`.
fn boards_of(moves: MoveSet) -> u16 {
    let masks = board_masks(moves.0);
    let mut boards = 0;
    for (board, cells) in masks.into_iter().enumerate() {
        if cells != 0 {
            boards |= 1 << board;
        }
    }
    boards
}

/// The boards of `boards` (a 9-bit mask) for which `test` holds, visiting only those.
fn boards_where(mut boards: u16, test: impl Fn(usize) -> bool) -> u16 {
    let mut found = 0;
    while boards != 0 {
        let board = boards.trailing_zeros() as usize;
        boards &= boards - 1;
        if test(board) {
            found |= 1 << board;
        }
    }
    found
}

/// Whether [`safe_moves`] is non-empty, stopping at the first safe move.
fn has_safe_move(pos: &Position) -> bool {
    let (legal, threats) = legal_moves_and_threats(pos);
    if threats == 0 {
        return !legal.is_empty();
    }
    legal
        .into_iter()
        .any(|mv| !hands_over_a_win(pos, mv, threats))
}

/// The legal moves and the opponent's winning boards: what [`hands_over_a_win`] needs.
fn legal_moves_and_threats(pos: &Position) -> (MoveSet, u16) {
    (
        pos.legal_moves(),
        winning_boards(pos, pos.side_to_move().opponent()),
    )
}

/// Whether the opponent can win at once after the side to move plays `mv`, given the
/// opponent's winning boards before the move (`threats`). See [`safe_moves`] for the proof.
fn hands_over_a_win(pos: &Position, mv: Move, threats: u16) -> bool {
    let me = pos.side_to_move();
    let (board, cell) = (mv.board(), mv.cell());
    let board_bit = 1u16 << board;
    let mine = pos.local_cells(me, board) | 1 << cell;
    let occupied = pos.local_occupied(board) | 1 << cell;
    let owned = pos.owned_boards();
    let wins_board = owned & board_bit == 0 && has_line(mine);
    if wins_board && has_line(pos.won_boards(me) | board_bit) {
        return false;
    }
    let closes = (wins_board && pos.rules().won_boards_close()) || occupied == FULL_MASK;
    let closed = pos.closed_boards() | if closes { board_bit } else { 0 };
    if closed == FULL_MASK {
        return false;
    }
    let mut threats_after = threats;
    let opponent_cells = pos.local_cells(me.opponent(), board);
    if threats & board_bit != 0
        && (closes || wins_board || winning_cells(opponent_cells, occupied) == 0)
    {
        threats_after &= !board_bit;
    }
    if closed & (1 << cell) != 0 {
        threats_after != 0
    } else {
        threats_after & (1 << cell) != 0
    }
}

#[cfg(test)]
mod tests;
