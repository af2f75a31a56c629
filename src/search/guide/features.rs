//! What the learned guide sees of a position: a handful of rows of its pattern table, one for
//! each part of the position (an n-tuple network's inputs).
//!
//! Everything is seen from the side to move ("mine") against its opponent ("theirs"), so one
//! table serves both players, and the questions "does the side to move win?" and "does its
//! opponent win?" are two outputs of the same rows.
//!
//! The rows, in the order of [`Features::rows`]:
//! - **each small board's cells** (3^9 patterns), in a table of its own for each of the three
//!   ways a board may be played in: it is the board to play in, one of the boards a free move
//!   may go to, or neither;
//! - **each line of the big board** (4^3 patterns of its three boards, each open, mine, theirs,
//!   or closed with no winner), a table for each of the eight lines;
//! - **the moves worth searching**, counted (0 to 81);
//! - **the stones on the board** (0 to 81);
//! - **the live lines** of the big board each side could still complete (0 to 8 each, as a
//!   pair);
//! - **the context**: the rule set, whether the move is free, and which sides have a board
//!   that would win the game with one move;
//! - **the open boards**, counted, by rule set (how much game is left).
//!
//! The tables are small on purpose (under half a megabyte of the search's weights): the search
//! reads a position's rows at every new node, and a table that does not stay in the
//! processor's cache costs more time than its detail saves nodes (BENCHMARKS.md, "The learned
//! guide").

use crate::game::tables::{lines_within, FULL_MASK, LINES};
use crate::game::{Player, Position, Rules};
use crate::search::rules::{winning_boards, OpenNode};

/// Patterns of one small board: each of nine cells empty, mine or theirs.
const BOARD_PATTERNS: usize = 19_683;
/// Ways a small board may be played in: the board to play in, a board a free move may go to,
/// neither.
const BOARD_WAYS: usize = 3;
/// Patterns of one line of the big board: each of three boards open, mine, theirs or closed
/// with no winner.
const LINE_PATTERNS: usize = 64;

const LINES_OF_BOARDS_OFFSET: usize = BOARD_WAYS * BOARD_PATTERNS;
const MOVES_OFFSET: usize = LINES_OF_BOARDS_OFFSET + 8 * LINE_PATTERNS;
const STONES_OFFSET: usize = MOVES_OFFSET + 82;
const LINES_OFFSET: usize = STONES_OFFSET + 82;
const CONTEXT_OFFSET: usize = LINES_OFFSET + 81;
const OPEN_OFFSET: usize = CONTEXT_OFFSET + 3 * 2 * 4;

/// Rows in the pattern table (every row is an input that is either present or not).
pub const ROWS: usize = OPEN_OFFSET + 3 * 10;

/// Rows present in any one position: nine boards, eight lines, five counts.
pub const ACTIVE_ROWS: usize = 22;

/// The boards of each line of the big board, in reading order.
const LINE_BOARDS: [[usize; 3]; 8] = line_boards();

const fn line_boards() -> [[usize; 3]; 8] {
    let mut boards = [[0; 3]; 8];
    let mut line = 0;
    while line < 8 {
        let mut found = 0;
        let mut board = 0;
        while board < 9 {
            if LINES[line] & (1 << board) != 0 {
                boards[line][found] = board;
                found += 1;
            }
            board += 1;
        }
        line += 1;
    }
    boards
}

/// A 9-bit mask read as a base-`base` number whose digit `i` is bit `i` (the weight of each
/// set bit summed): `pattern = digits(mine) + 2 · digits(theirs)` for three symbols per cell.
const fn digit_table(base: u32) -> [u32; 512] {
    let mut table = [0u32; 512];
    let mut mask = 0;
    while mask < 512 {
        let mut value = 0;
        let mut weight = 1;
        let mut bit = 0;
        while bit < 9 {
            if mask & (1 << bit) != 0 {
                value += weight;
            }
            weight *= base;
            bit += 1;
        }
        table[mask] = value;
        mask += 1;
    }
    table
}

static BASE3: [u32; 512] = digit_table(3);

/// What the search already knows of a position when it asks the guide: the static rules'
/// findings ([`OpenNode`]), told from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Findings {
    /// The moves worth searching.
    pub moves: u32,
    /// Lines of the big board the side to move could still complete.
    pub my_lines: u32,
    /// Lines its opponent could still complete.
    pub their_lines: u32,
    /// Whether the side to move has a board that would win the game with one move.
    pub i_threaten: bool,
    /// Whether its opponent has one.
    pub they_threaten: bool,
}

impl Findings {
    /// The findings of an open node of an unbounded question (whose line counts are the live
    /// lines of each side), told from the side to move.
    pub fn of_node(node: &OpenNode) -> Findings {
        let (my_lines, their_lines, i_threaten, they_threaten) = if node.attacker_to_move {
            (
                node.attacker_lines,
                node.defender_lines,
                node.attacker_threatens,
                node.defender_threatens,
            )
        } else {
            (
                node.defender_lines,
                node.attacker_lines,
                node.defender_threatens,
                node.attacker_threatens,
            )
        };
        Findings {
            moves: node.moves.len() as u32,
            my_lines,
            their_lines,
            i_threaten,
            they_threaten,
        }
    }

    /// The same findings computed from the position alone, as [`crate::search::rules::evaluate`]
    /// finds them for an open node (`moves` the moves worth searching there).
    pub fn of_position(pos: &Position, moves: u32) -> Findings {
        let me = pos.side_to_move();
        let winnable = pos.winnable_boards_of_both();
        Findings {
            moves,
            my_lines: lines_within(winnable[me.index()]),
            their_lines: lines_within(winnable[me.opponent().index()]),
            i_threaten: winning_boards(pos, me) != 0,
            they_threaten: winning_boards(pos, me.opponent()) != 0,
        }
    }
}

/// The rows of the pattern table present in a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// Row indices, each below [`ROWS`].
    pub rows: [u32; ACTIVE_ROWS],
}

/// The ways a small board may be played in, each with a table of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// Neither the board to play in nor one a free move may go to.
    Neither = 0,
    /// The board to play in.
    Target = 1,
    /// One of the boards a free move may go to.
    Free = 2,
}

impl Way {
    /// How `board` may be played in at `pos`.
    pub fn of(pos: &Position, board: usize) -> Way {
        match pos.target_board() {
            Some(target) if target == board => Way::Target,
            None if pos.closed_boards() & 1 << board == 0 => Way::Free,
            _ => Way::Neither,
        }
    }
}

/// The row of a small board whose pattern is `pattern` ([`board_pattern`]), played in `way`.
pub fn board_row(way: Way, pattern: u32) -> u32 {
    (way as usize * BOARD_PATTERNS) as u32 + pattern
}

/// The pattern of small board `board` seen by `me`: each cell empty, mine or theirs, as a
/// base-3 number whose digit `i` is cell `i`.
pub fn board_pattern(pos: &Position, me: Player, board: usize) -> u32 {
    BASE3[usize::from(pos.local_cells(me, board))]
        + 2 * BASE3[usize::from(pos.local_cells(me.opponent(), board))]
}

/// The pattern `pattern` of a small board with `cell` (empty in it) taken by the opponent of
/// the one who sees it.
pub fn pattern_with_theirs(pattern: u32, cell: usize) -> u32 {
    pattern + 2 * BASE3[1 << cell]
}

impl Features {
    /// The rows of `pos` (a position in play) with what the static rules found there.
    pub fn of(pos: &Position, findings: &Findings) -> Features {
        let me = pos.side_to_move();
        let mut rows = [0u32; ACTIVE_ROWS];
        for (board, row) in rows.iter_mut().enumerate().take(9) {
            *row = board_row(Way::of(pos, board), board_pattern(pos, me, board));
        }
        rows[9..17].copy_from_slice(&line_rows(pos, me));
        rows[17..].copy_from_slice(&count_rows(pos, findings));
        Features { rows }
    }
}

/// The rows of the eight lines of the big board at `pos`, seen by `me` (its side to move, or
/// the side to move of a child that wins or fills no board).
pub fn line_rows(pos: &Position, me: Player) -> [u32; 8] {
    let mine = pos.won_boards(me);
    let theirs = pos.won_boards(me.opponent());
    let drawn = pos.closed_boards() & !mine & !theirs;
    // Each board's state: 0 open, 1 mine, 2 theirs, 3 closed with no winner.
    let state: [u32; 9] = std::array::from_fn(|board| {
        let bit = |mask: u16| u32::from(mask >> board & 1);
        bit(mine) + 2 * bit(theirs) + 3 * bit(drawn)
    });
    std::array::from_fn(|line| {
        let boards = LINE_BOARDS[line];
        let pattern = state[boards[0]] + 4 * state[boards[1]] + 16 * state[boards[2]];
        (LINES_OF_BOARDS_OFFSET + line * LINE_PATTERNS) as u32 + pattern
    })
}

/// The rows of the counts at `pos`: moves worth searching, stones, live lines, the context,
/// open boards.
pub fn count_rows(pos: &Position, findings: &Findings) -> [u32; 5] {
    let rules = rules_index(pos.rules());
    let threats = u32::from(findings.i_threaten) * 2 + u32::from(findings.they_threaten);
    let free = u32::from(pos.target_board().is_none());
    let open = 9 - (pos.closed_boards() & FULL_MASK).count_ones();
    [
        (MOVES_OFFSET as u32) + findings.moves.min(81),
        (STONES_OFFSET as u32) + pos.stone_count().min(81),
        (LINES_OFFSET as u32) + findings.my_lines.min(8) * 9 + findings.their_lines.min(8),
        CONTEXT_OFFSET as u32 + (rules * 2 + free) * 4 + threats,
        OPEN_OFFSET as u32 + rules * 10 + open,
    ]
}

fn rules_index(rules: Rules) -> u32 {
    match rules {
        Rules::Common => 0,
        Rules::WonBoardsOpen => 1,
        Rules::CodinGame => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Player, Rng};
    use crate::search::rules::{evaluate, Evaluation};
    use crate::search::Question;

    #[test]
    fn every_row_lies_in_its_own_part_of_the_table_and_node_and_position_agree() {
        let mut rng = Rng::new(0x6665_6174);
        let mut seen = 0;
        for game in 0..400 {
            let rules = Rules::ALL[game % 3];
            let start = Position::start_under(rules);
            let moves = rng.playout(&start, 10 + game % 60);
            let pos = moves.iter().fold(start, |p, &m| p.play(m));
            for attacker in [Player::X, Player::O] {
                let Evaluation::Open(node) = evaluate(&pos, Question::wins(attacker)) else {
                    continue;
                };
                let findings = Findings::of_node(&node);
                assert_eq!(
                    findings,
                    Findings::of_position(&pos, node.moves.len() as u32)
                );
                let features = Features::of(&pos, &findings);
                // Nine rows of boards, eight of lines, then one for each count.
                let mut parts = vec![(0, LINES_OF_BOARDS_OFFSET); 9];
                parts.extend((0..8).map(|line| {
                    let low = LINES_OF_BOARDS_OFFSET + line * LINE_PATTERNS;
                    (low, low + LINE_PATTERNS)
                }));
                parts.extend([
                    (MOVES_OFFSET, STONES_OFFSET),
                    (STONES_OFFSET, LINES_OFFSET),
                    (LINES_OFFSET, CONTEXT_OFFSET),
                    (CONTEXT_OFFSET, OPEN_OFFSET),
                    (OPEN_OFFSET, ROWS),
                ]);
                for (i, (&row, (low, high))) in features.rows.iter().zip(parts).enumerate() {
                    assert!((low..high).contains(&(row as usize)), "row {i}: {row}");
                }
                seen += 1;
            }
        }
        assert!(seen > 300, "{seen}");
    }

    #[test]
    fn a_board_pattern_counts_each_cell_once_in_base_three_and_lines_name_their_boards() {
        assert_eq!(BASE3[0b1], 1);
        assert_eq!(BASE3[0b10], 3);
        // The last pattern (every cell theirs) is the last row of its table.
        assert_eq!(2 * BASE3[0x1FF] as usize, BOARD_PATTERNS - 1);
        assert_eq!(LINE_BOARDS[0], [0, 1, 2]);
        assert_eq!(LINE_BOARDS[6], [0, 4, 8]);
        assert_eq!(LINE_BOARDS[7], [2, 4, 6]);
    }
}
