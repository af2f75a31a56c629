//! The position notation, `SIDE;BOARDS;CELLS` (see the module [`super`]), in both
//! directions: written from a position, and read with every mark checked against the rules.

use super::{board_letter, shown, Part, PositionError};
use crate::game::position::{Outcome, Player, Position};
use crate::game::rules::Rules;
use crate::game::tables::{has_line, FULL_MASK};
use std::fmt;

/// A cell as the notation writes it: `X`, `O`, or `.` while empty.
pub fn cell_mark(pos: &Position, board: usize, cell: usize) -> char {
    let bit = 1 << cell;
    if pos.local_cells(Player::X, board) & bit != 0 {
        'X'
    } else if pos.local_cells(Player::O, board) & bit != 0 {
        'O'
    } else {
        '.'
    }
}

/// A board as the notation writes it when it is not the one to play in: `X` or `O` won, `#`
/// closed without a winner, `.` open.
pub fn board_mark(pos: &Position, board: usize) -> char {
    let bit = 1 << board;
    if pos.won_boards(Player::X) & bit != 0 {
        'X'
    } else if pos.won_boards(Player::O) & bit != 0 {
        'O'
    } else if pos.closed_boards() & bit != 0 {
        '#'
    } else {
        '.'
    }
}

/// Renders a position in the notation (which does not name the rule set: see
/// [`parse_position_under`]).
pub fn format_position(pos: &Position) -> String {
    let mut out = String::with_capacity(3 + 9 + 90);
    out.push(pos.side_to_move().letter());
    out.push(';');
    for board in 0..9 {
        let mark = board_mark(pos, board);
        // The board to play in: a won one (open under some rule sets) in lower case, an open
        // one as `@`.
        out.push(match (pos.target_board() == Some(board), mark) {
            (true, 'X' | 'O') => mark.to_ascii_lowercase(),
            (true, '.') => '@',
            _ => mark,
        });
    }
    out.push(';');
    for board in 0..9 {
        if board > 0 {
            out.push('/');
        }
        for cell in 0..9 {
            out.push(cell_mark(pos, board, cell));
        }
    }
    out
}

/// Parses and validates the position notation under the common rules.
pub fn parse_position(text: &str) -> Result<Position, PositionError> {
    parse_position_under(text, Rules::Common)
}

/// Parses and validates the position notation under `rules`. The notation may name its rule
/// set before a colon (`open:X;...`, as positions print), which must then be `rules` or the
/// common rules are given way to. Under every rule set it reads as under the common rules,
/// except that when won boards stay open a won board is marked by its first winner (`X` or
/// `O`) whatever lines the other player made in it later, and `x` or `o` marks a won board
/// that the side to move is sent to (one with an empty cell).
pub fn parse_position_under(text: &str, rules: Rules) -> Result<Position, PositionError> {
    let (rules, notation) = rules_named(text, rules).map_err(|reason| PositionError {
        part: Part::Whole,
        column: 1,
        reason,
    })?;
    let shift = text.chars().count() - notation.chars().count();
    parse_bare_position(notation, rules).map_err(|error| PositionError {
        column: error.column + shift,
        ..error
    })
}

/// [`parse_position_under`] of the notation without a rule set's name.
fn parse_bare_position(text: &str, rules: Rules) -> Result<Position, PositionError> {
    let fail = |part, column, reason: String| PositionError {
        part,
        column,
        reason,
    };
    let parts: Vec<&str> = text.split(';').collect();
    if parts.len() != 3 {
        return Err(fail(
            Part::Whole,
            1,
            format!(
                "expected 3 parts separated by `;` (side;boards;cells), found {}",
                parts.len()
            ),
        ));
    }
    // Columns are counted in characters; parts start after their `;`.
    let side_col = 1;
    let boards_col = side_col + parts[0].chars().count() + 1;
    let cells_col = boards_col + parts[1].chars().count() + 1;

    let side = match parts[0] {
        "X" => Player::X,
        "O" => Player::O,
        other => {
            return Err(fail(
                Part::Side,
                side_col,
                format!("expected `X` or `O`, found `{}`", shown(other)),
            ))
        }
    };

    let board_chars: Vec<char> = parts[1].chars().collect();
    if board_chars.len() != 9 {
        return Err(fail(
            Part::Boards,
            boards_col,
            format!("expected 9 characters, found {}", board_chars.len()),
        ));
    }
    if let Some(i) = board_chars.iter().position(|c| !".XO#@xo".contains(*c)) {
        return Err(fail(
            Part::Boards,
            boards_col + i,
            format!(
                "unexpected character `{}` (expected one of . X O # @, or x o when won boards \
                 stay open)",
                shown(&board_chars[i].to_string())
            ),
        ));
    }

    let groups: Vec<&str> = parts[2].split('/').collect();
    if groups.len() != 9 {
        return Err(fail(
            Part::Cells,
            cells_col,
            format!("expected 9 groups separated by `/`, found {}", groups.len()),
        ));
    }
    let mut cells = [0u128; 2];
    let mut group_col = cells_col;
    let mut group_cols = [0usize; 9];
    for (board, group) in groups.iter().enumerate() {
        group_cols[board] = group_col;
        let chars: Vec<char> = group.chars().collect();
        if chars.len() != 9 {
            return Err(fail(
                Part::Cells,
                group_col,
                format!(
                    "board {} has {} cells, expected 9",
                    board_letter(board),
                    chars.len()
                ),
            ));
        }
        for (cell, ch) in chars.iter().enumerate() {
            let bit = 1u128 << (9 * board + cell);
            match ch {
                '.' => {}
                'X' => cells[0] |= bit,
                'O' => cells[1] |= bit,
                other => {
                    return Err(fail(
                        Part::Cells,
                        group_col + cell,
                        format!(
                            "unexpected character `{}` (expected . X O)",
                            shown(&other.to_string())
                        ),
                    ))
                }
            }
        }
        group_col += chars.len() + 1;
    }

    let local = |player: usize, board: usize| (cells[player] >> (9 * board)) as u16 & FULL_MASK;
    let mut target = None;
    let mut won = [0u16; 2];
    for (board, &mark) in board_chars.iter().enumerate() {
        let column = boards_col + board;
        let lines = [has_line(local(0, board)), has_line(local(1, board))];
        let full = (local(0, board) | local(1, board)) == FULL_MASK;
        let error = if rules.won_boards_close() {
            board_mark_error(mark, board, lines, full)
        } else {
            open_board_mark_error(mark, board, lines, full).map(|reason| (Part::Boards, reason))
        };
        if let Some((part, reason)) = error {
            let column = match part {
                Part::Cells => group_cols[board],
                _ => column,
            };
            return Err(fail(part, column, reason));
        }
        match mark {
            'X' | 'x' => won[0] |= 1 << board,
            'O' | 'o' => won[1] |= 1 << board,
            _ => {}
        }
        if matches!(mark, '@' | 'x' | 'o') {
            if target.is_some() {
                return Err(fail(
                    Part::Boards,
                    column,
                    "more than one board marked as the target (`@`, `x` or `o`)".to_string(),
                ));
            }
            target = Some(board);
        }
    }

    let x_count = cells[0].count_ones();
    let o_count = cells[1].count_ones();
    let counts_ok = match side {
        Player::X => x_count == o_count,
        Player::O => x_count == o_count + 1,
    };
    if !counts_ok {
        return Err(fail(
            Part::Cells,
            cells_col,
            format!(
                "impossible stone counts for {side} to move: X has {x_count}, O has {o_count} \
                 (X to move needs equal counts, O to move needs one more X)"
            ),
        ));
    }

    let pos = Position::from_cells(cells, won, side, target, rules);
    if has_line(pos.won_boards(Player::X)) && has_line(pos.won_boards(Player::O)) {
        return Err(fail(
            Part::Boards,
            boards_col,
            "both players have three boards in a line".to_string(),
        ));
    }
    if target.is_some() && pos.outcome() != Outcome::InPlay {
        return Err(fail(
            Part::Boards,
            boards_col + target.unwrap_or(0),
            "a target board in a finished game (nobody is to move)".to_string(),
        ));
    }
    Ok(pos)
}

/// Why board `board`'s mark disagrees with its cells when won boards close (the common and
/// CodinGame rules), given whether X and O have a line there and whether it is full, and which
/// part of the notation is wrong (the cells, when both players have a line there).
fn board_mark_error(
    mark: char,
    board: usize,
    lines: [bool; 2],
    full: bool,
) -> Option<(Part, String)> {
    let name = board_letter(board);
    if matches!(mark, 'x' | 'o') {
        let reason = format!(
            "`{mark}` on board {name} marks a won board the side to move is sent to, which only \
             the rule set where won boards stay open has"
        );
        return Some((Part::Boards, reason));
    }
    if lines[0] && lines[1] {
        return Some((
            Part::Cells,
            format!("board {name} has a line for both X and O"),
        ));
    }
    let expected = if lines[0] {
        'X'
    } else if lines[1] {
        'O'
    } else if full {
        '#'
    } else {
        '.'
    };
    let agrees = mark == expected || (mark == '@' && expected == '.');
    let reason = match mark {
        '@' => format!("`@` on board {name}, which is closed (`{expected}`)"),
        'X' | 'O' => format!("board {name} is marked won by {mark} but {mark} has no line there"),
        '#' => format!("board {name} is marked drawn (`#`) but it is not full without a line"),
        _ => format!("board {name} is marked open but its cells say `{expected}`"),
    };
    (!agrees).then_some((Part::Boards, reason))
}

/// Why board `board`'s mark disagrees with its cells when won boards stay open: a board with a
/// line is marked by its first winner (`x` or `o` when it is the target, which a full board
/// cannot be), a full board without a line `#`, any other `.` or `@`.
fn open_board_mark_error(mark: char, board: usize, lines: [bool; 2], full: bool) -> Option<String> {
    let name = board_letter(board);
    let winner = match mark {
        'X' | 'x' => Some(0),
        'O' | 'o' => Some(1),
        _ => None,
    };
    match winner {
        Some(player) if !lines[player] => Some(format!(
            "board {name} is marked won by {} but {} has no line there",
            mark.to_ascii_uppercase(),
            mark.to_ascii_uppercase()
        )),
        Some(_) if full && mark.is_ascii_lowercase() => Some(format!(
            "`{mark}` on board {name}, which is full: nobody is sent to a full board"
        )),
        Some(_) => None,
        None if lines[0] || lines[1] => Some(format!(
            "board {name} holds a line: mark it by its first winner (`X` or `O`; `x` or `o` when \
             the side to move is sent there)"
        )),
        None if full && mark != '#' => {
            Some(format!("board {name} is full without a line: mark it `#`"))
        }
        None if !full && mark == '#' => Some(format!(
            "board {name} is marked drawn (`#`) but it is not full"
        )),
        None => None,
    }
}

impl fmt::Display for Position {
    /// The position notation (`X;...;...`), after its rule set's name and a colon when that
    /// is not the common rules (`open:X;...;...`): what is printed reads back as the same
    /// position, whatever the rule set.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.rules().is_common() {
            write!(f, "{}:", self.rules())?;
        }
        f.write_str(&format_position(self))
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A leading `NAME:` that names a rule set (`open:X;...`), split off `text`; the text as it
/// is when it has none (a link's `https:` names none).
pub fn split_rules_prefix(text: &str) -> (Option<Rules>, &str) {
    match text.split_once(':') {
        Some((name, rest)) => match Rules::from_name(name) {
            Some(rules) => (Some(rules), rest),
            None => (None, text),
        },
        None => (None, text),
    }
}

/// The rule set a text names by its prefix, if it names one, checked against `rules`, which
/// a caller was given: a prefix wins over the common rules (the default), and must agree with
/// any other.
pub(in crate::game) fn rules_named(text: &str, rules: Rules) -> Result<(Rules, &str), String> {
    match split_rules_prefix(text) {
        (Some(named), rest) if named == rules || rules.is_common() => Ok((named, rest)),
        (Some(named), _) => Err(format!(
            "the position names the {named} rule set, but the {rules} rule set was asked for"
        )),
        (None, rest) => Ok((rules, rest)),
    }
}

/// Reads a position as [`Position`]'s `Display` writes it: the notation, after a rule set's
/// name when that is not the common rules.
pub(super) fn parse_displayed_position(text: &str) -> Result<Position, PositionError> {
    parse_position_under(text, Rules::Common)
}
