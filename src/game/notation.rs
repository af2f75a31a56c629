//! Position and move notation, in both directions, with strict validation.
//!
//! Position notation (compatible with the earlier public solver): `SIDE;BOARDS;CELLS` where
//! SIDE is `X`/`O`, BOARDS nine characters (`.` open, `X`/`O` won, `#` drawn, `@` the open board
//! the side to move is sent to) and CELLS nine `/`-separated groups of nine `.`/`X`/`O`.

use super::formats::{self, FormatError};
use super::moves::Move;
use super::position::{Outcome, Player, Position};
use super::rules::Rules;
use super::tables::{has_line, FULL_MASK};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// Which part of a position's notation an error is in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Part {
    /// The whole string (e.g. the number of parts).
    Whole,
    /// Part 1, the side to move.
    Side,
    /// Part 2, the local boards' states.
    Boards,
    /// Part 3, the cells.
    Cells,
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Part::Whole => "position",
            Part::Side => "part 1 (side to move)",
            Part::Boards => "part 2 (boards)",
            Part::Cells => "part 3 (cells)",
        })
    }
}

/// A position string that is malformed or describes an impossible position.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PositionError {
    /// The part the problem is in.
    pub part: Part,
    /// 1-based character column in the whole string where the problem is.
    pub column: usize,
    /// Why it is wrong.
    pub reason: String,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, column {}: {}", self.part, self.column, self.reason)
    }
}

impl std::error::Error for PositionError {}

/// Why a move of a move list cannot be played.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum MoveErrorKind {
    /// Not two letters `a`..`i`.
    Malformed(String),
    /// The side to move is sent to another board.
    WrongBoard {
        /// The board the side to move must play in.
        required: usize,
    },
    /// The cell is already taken.
    Occupied,
    /// The board is won or full.
    ClosedBoard,
    /// The game is already over.
    GameOver,
}

/// A move list with a move that is malformed or illegal.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MoveListError {
    /// 1-based index of the offending move in the list.
    pub index: usize,
    /// The move's text as given.
    pub text: String,
    /// What is wrong with it.
    pub kind: MoveErrorKind,
}

impl fmt::Display for MoveErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveErrorKind::Malformed(why) => write!(f, "{why}"),
            MoveErrorKind::WrongBoard { required } => write!(
                f,
                "illegal: the side to move must play in board {}",
                board_letter(*required)
            ),
            MoveErrorKind::Occupied => write!(f, "illegal: the cell is already taken"),
            MoveErrorKind::ClosedBoard => write!(f, "illegal: the board is closed (won or full)"),
            MoveErrorKind::GameOver => write!(f, "illegal: the game is already over"),
        }
    }
}

impl fmt::Display for MoveListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "move {} `{}`: {}", self.index, self.text, self.kind)
    }
}

impl std::error::Error for MoveListError {}

/// Any error reading a position argument (notation, `start` or a move list).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum NotationError {
    /// The position notation is wrong.
    Position(PositionError),
    /// A move list has a bad move.
    Moves(MoveListError),
    /// Text in another program's notation (uttt.ai, CodinGame) is wrong.
    Format(FormatError),
    /// Nothing was given (an empty move list must be written `start`).
    Empty,
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotationError::Position(e) => e.fmt(f),
            NotationError::Moves(e) => e.fmt(f),
            NotationError::Format(e) => e.fmt(f),
            NotationError::Empty => {
                write!(f, "empty position (write `start` for the initial position)")
            }
        }
    }
}

impl std::error::Error for NotationError {}

fn board_letter(index: usize) -> char {
    (b'a' + index as u8) as char
}

fn letter_index(c: char) -> Option<usize> {
    ('a'..='i').contains(&c).then(|| c as usize - 'a' as usize)
}

/// Parses a move such as `ae` (board letter, then cell letter).
pub fn parse_move(text: &str) -> Result<Move, String> {
    let mut chars = text.chars();
    match (chars.next(), chars.next(), chars.next()) {
        (Some(b), Some(c), None) => match (letter_index(b), letter_index(c)) {
            (Some(b), Some(c)) => Ok(Move::new(b, c)),
            _ => Err("a move is two letters a-i (board, then cell)".to_string()),
        },
        _ => Err("a move is exactly two letters (board, then cell), e.g. `ae`".to_string()),
    }
}

/// Why `mv` is illegal in `pos`, or `None` if it is legal.
pub fn illegal_reason(pos: &Position, mv: Move) -> Option<MoveErrorKind> {
    if pos.is_legal(mv) {
        None
    } else if pos.is_over() {
        Some(MoveErrorKind::GameOver)
    } else if pos.closed_boards() & (1 << mv.board()) != 0 {
        Some(MoveErrorKind::ClosedBoard)
    } else if pos.local_occupied(mv.board()) & (1 << mv.cell()) != 0 {
        Some(MoveErrorKind::Occupied)
    } else {
        let required = pos
            .target_board()
            .expect("only a target board makes a move illegal here");
        Some(MoveErrorKind::WrongBoard { required })
    }
}

/// Plays a list of moves (separated by spaces and/or commas) on top of `pos`.
pub fn play_move_list(pos: &Position, list: &str) -> Result<Position, MoveListError> {
    read_move_list(pos, list).map(|(position, _)| position)
}

/// Plays a list of moves on top of `pos`: the position reached and the moves.
pub fn read_move_list(pos: &Position, list: &str) -> Result<(Position, Vec<Move>), MoveListError> {
    let mut current = *pos;
    let mut moves = Vec::new();
    for (i, text) in split_moves(list).enumerate() {
        let error = |kind| MoveListError {
            index: i + 1,
            text: text.to_string(),
            kind,
        };
        let mv = parse_move(text).map_err(|why| error(MoveErrorKind::Malformed(why)))?;
        if let Some(kind) = illegal_reason(&current, mv) {
            return Err(error(kind));
        }
        current = current.play(mv);
        moves.push(mv);
    }
    Ok((current, moves))
}

/// The moves of a list as written: the pieces between spaces, line breaks and commas.
pub fn split_moves(list: &str) -> impl Iterator<Item = &str> {
    list.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|s| !s.is_empty())
}

/// A count of plies in words: `1 ply`, `5 plies`.
pub fn plies_words(plies: u32) -> String {
    format!("{plies} pl{}", if plies == 1 { "y" } else { "ies" })
}

/// Formats a list of moves separated by spaces.
pub fn format_moves(moves: &[Move]) -> String {
    moves
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A position as given: where it stands and, when it was given as a game (moves from the
/// empty board), the moves.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Game {
    /// The position.
    pub position: Position,
    /// The moves from the empty board that reach it, when it was given as moves (`start` is
    /// the game of no moves).
    pub moves: Option<Vec<Move>>,
}

/// Reads a position under the common rules given in any accepted form: `start`, the position
/// notation, a move list played from the start, or another program's notation
/// ([`formats::detect`] tells which).
pub fn parse_position_arg(text: &str) -> Result<Position, NotationError> {
    parse_game_arg(text).map(|game| game.position)
}

/// Reads a position as [`parse_position_arg`] does, keeping the moves of one given as a game.
pub fn parse_game_arg(text: &str) -> Result<Game, NotationError> {
    parse_game_arg_under(text, Rules::Common)
}

/// [`parse_game_arg`] under `rules`, unless the text names another rule set before a colon
/// (`open:start`, `open:X;...`, `codingame:ee ea`), which is then used (see
/// [`parse_position_under`] for how the two must agree).
pub fn parse_game_arg_under(text: &str, rules: Rules) -> Result<Game, NotationError> {
    let trimmed = text.trim();
    let (rules, rest) = rules_named(trimmed, rules).map_err(|reason| {
        NotationError::Position(PositionError {
            part: Part::Whole,
            column: 1,
            reason,
        })
    })?;
    if rest.is_empty() {
        Err(NotationError::Empty)
    } else if rest.eq_ignore_ascii_case("start") {
        Ok(Game {
            position: Position::start_under(rules),
            moves: Some(Vec::new()),
        })
    } else if rest.contains(';') {
        let position = parse_position_under(trimmed, rules).map_err(NotationError::Position)?;
        Ok(Game {
            position,
            moves: None,
        })
    } else if let Some(notation) = formats::detect(rest) {
        formats::parse_game_under(rest, notation, rules).map_err(NotationError::Format)
    } else {
        let (position, moves) =
            read_move_list(&Position::start_under(rules), rest).map_err(NotationError::Moves)?;
        Ok(Game {
            position,
            moves: Some(moves),
        })
    }
}

/// Renders a position in the notation (which does not name the rule set: see
/// [`parse_position_under`]).
pub fn format_position(pos: &Position) -> String {
    let mut out = String::with_capacity(3 + 9 + 90);
    out.push(pos.side_to_move().letter());
    out.push(';');
    for board in 0..9 {
        let bit = 1 << board;
        let target = pos.target_board() == Some(board);
        out.push(if pos.won_boards(Player::X) & bit != 0 {
            if target {
                'x'
            } else {
                'X'
            }
        } else if pos.won_boards(Player::O) & bit != 0 {
            if target {
                'o'
            } else {
                'O'
            }
        } else if pos.closed_boards() & bit != 0 {
            '#'
        } else if pos.target_board() == Some(board) {
            '@'
        } else {
            '.'
        });
    }
    out.push(';');
    for board in 0..9 {
        if board > 0 {
            out.push('/');
        }
        for cell in 0..9 {
            let bit = 1 << cell;
            out.push(if pos.local_cells(Player::X, board) & bit != 0 {
                'X'
            } else if pos.local_cells(Player::O, board) & bit != 0 {
                'O'
            } else {
                '.'
            });
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
                format!("expected `X` or `O`, found `{other}`"),
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
                board_chars[i]
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
                        format!("unexpected character `{other}` (expected . X O)"),
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
fn rules_named(text: &str, rules: Rules) -> Result<(Rules, &str), String> {
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
fn parse_displayed_position(text: &str) -> Result<Position, PositionError> {
    parse_position_under(text, Rules::Common)
}

impl FromStr for Position {
    type Err = NotationError;

    /// Any accepted form: `start`, the notation, or a move list (see [`parse_position_arg`]).
    fn from_str(text: &str) -> Result<Position, NotationError> {
        parse_position_arg(text)
    }
}

impl FromStr for Move {
    type Err = String;

    /// Two letters, board then cell (see [`parse_move`]).
    fn from_str(text: &str) -> Result<Move, String> {
        parse_move(text)
    }
}

/// Serde as text: `$type` serialises as its `Display` form and deserialises through
/// `$parse`, so positions and moves read naturally in JSON.
macro_rules! serde_as_text {
    ($type:ty, $parse:path) => {
        impl Serialize for $type {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $type {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<$type, D::Error> {
                let text = String::deserialize(deserializer)?;
                $parse(&text).map_err(serde::de::Error::custom)
            }
        }
    };
}

serde_as_text!(Position, parse_displayed_position);
serde_as_text!(Move, parse_move);
