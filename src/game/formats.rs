//! The notations of the places players use, in both directions: uttt.ai's analysis board (a
//! 93-digit state string, `https://uttt.ai/init?state=…` and `…?actions=…` links, and move
//! lists such as `x40o38`) and CodinGame's Ultimate Tic-Tac-Toe (moves as `row col` pairs of
//! the 9×9 grid). Both number boards and cells 0–8 in reading order, as this project does.
//!
//! - uttt.ai state: digits 1–81 are the cells, square 9·board + cell (`0` empty, `1` X,
//!   `2` O); 82–90 the boards (`0` open, `1` won by X, `2` won by O, `3` full without a line);
//!   91 the side to move (`1` X, `2` O); 92 the board the side to move is sent to (`0`–`8`, or
//!   `9` for any); 93 the game's result (`0` in play, `1` X won, `2` O won, `3` draw). The board
//!   and result digits restate what the cells say, and must agree with them. uttt.ai writes the
//!   board of the last move's cell in a finished game too; nobody is to move there, so it is
//!   read as no board and written as `9`.
//! - uttt.ai move list: from the empty board, each move the mover's letter (`x` or `o`, either
//!   case, X first, alternating) then the square 9·board + cell (`0`–`80`).
//! - CodinGame: each move `row col`, 0–8 over the whole 9×9 grid (board 3·(row/3) + col/3,
//!   cell 3·(row%3) + col%3), one pair a line or pairs separated by commas, from the empty
//!   board.

use super::moves::Move;
use super::notation::{illegal_reason, parse_position_under, shown, Game, MoveErrorKind, Part};
use super::position::{Outcome, Player, Position};
use super::rules::Rules;
use super::tables::{has_line, FULL_MASK};
use std::fmt;

/// A notation of another program.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Notation {
    /// uttt.ai's 93-digit state string (alone or in an `init?state=` link).
    UtttAiState,
    /// uttt.ai's move list (alone or in an `init?actions=` link).
    UtttAiMoves,
    /// CodinGame's `row col` moves.
    CodinGame,
}

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Notation::UtttAiState => "uttt.ai state",
            Notation::UtttAiMoves => "uttt.ai move list",
            Notation::CodinGame => "CodinGame moves",
        })
    }
}

/// Text in another program's notation that is malformed or describes an impossible position or
/// an illegal move.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FormatError {
    /// The notation the text was read in.
    pub notation: Notation,
    /// 1-based character column in the whole text given where the problem is.
    pub column: usize,
    /// Why it is wrong.
    pub reason: String,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}, column {}: {}",
            self.notation, self.column, self.reason
        )
    }
}

impl FormatError {
    /// The error in `notation` at the 0-based character `index` of the whole text given.
    fn at(notation: Notation, index: usize, reason: String) -> FormatError {
        FormatError {
            notation,
            column: index + 1,
            reason,
        }
    }
}

impl std::error::Error for FormatError {}

/// The link uttt.ai's analysis board opens at a position.
const UTTT_AI_INIT: &str = "https://uttt.ai/init?";

/// Which of these notations `text` (trimmed, not empty) is written in, if any: a uttt.ai link,
/// 93 digits (or any run of digits alone), a letter `x`/`o` followed by a digit, or digits in
/// pairs separated by blanks, commas and line breaks. None of these can be this project's own
/// notation or move list (whose moves are letters `a`–`i`).
pub fn detect(text: &str) -> Option<Notation> {
    let mut chars = text.chars();
    let first = chars.next()?;
    let second = chars.next();
    if let Some(query) = uttt_ai_query(text) {
        Some(if query.starts_with("actions=") {
            Notation::UtttAiMoves
        } else {
            Notation::UtttAiState
        })
    } else if text.chars().all(|c| c.is_ascii_digit()) {
        Some(Notation::UtttAiState)
    } else if "xXoO".contains(first) && second.is_some_and(|c| c.is_ascii_digit()) {
        Some(Notation::UtttAiMoves)
    } else if text
        .chars()
        .all(|c| c.is_ascii_digit() || c.is_whitespace() || c == ',' || c == '-')
    {
        Some(Notation::CodinGame)
    } else {
        None
    }
}

/// The query of a uttt.ai link (what follows `init?`), if `text` is one: with or without the
/// scheme and host.
fn uttt_ai_query(text: &str) -> Option<&str> {
    let at = text.find("init?")?;
    let before = &text[..at];
    let is_link = before.is_empty()
        || before.ends_with("uttt.ai/")
        || before.ends_with('/') && before.contains("uttt.ai");
    is_link.then(|| &text[at + "init?".len()..])
}

/// Reads `text` (trimmed) in `notation` (see [`detect`]); links are read in either of their
/// notations, whichever their query names.
pub fn parse(text: &str, notation: Notation) -> Result<Position, FormatError> {
    parse_game(text, notation).map(|game| game.position)
}

/// Reads `text` as [`parse`] does, keeping the moves of a move list.
pub fn parse_game(text: &str, notation: Notation) -> Result<Game, FormatError> {
    parse_game_under(text, notation, Rules::Common)
}

/// [`parse_game`] under `rules`.
pub fn parse_game_under(text: &str, notation: Notation, rules: Rules) -> Result<Game, FormatError> {
    let state = |position| Game {
        position,
        moves: None,
    };
    if let Some(query) = uttt_ai_query(text) {
        let offset = text.len() - query.len();
        return parse_uttt_ai_query(query, offset, rules);
    }
    match notation {
        Notation::UtttAiState => parse_uttt_ai_state(text, 0, rules).map(state),
        Notation::UtttAiMoves => parse_uttt_ai_moves(text, 0, rules),
        Notation::CodinGame => parse_codingame(text, rules),
    }
}

/// Reads a uttt.ai link's query, which starts `offset` characters into the text given: exactly
/// one parameter, `state` or `actions`, as uttt.ai requires.
fn parse_uttt_ai_query(query: &str, offset: usize, rules: Rules) -> Result<Game, FormatError> {
    let fail = |notation, column, reason: &str| FormatError {
        notation,
        column,
        reason: reason.to_string(),
    };
    if let Some(state) = query.strip_prefix("state=") {
        if state.contains('&') {
            return Err(fail(
                Notation::UtttAiState,
                offset + 1,
                "a uttt.ai link has exactly one parameter",
            ));
        }
        parse_uttt_ai_state(state, offset + "state=".len(), rules).map(|position| Game {
            position,
            moves: None,
        })
    } else if let Some(actions) = query.strip_prefix("actions=") {
        if actions.contains('&') {
            return Err(fail(
                Notation::UtttAiMoves,
                offset + 1,
                "a uttt.ai link has exactly one parameter",
            ));
        }
        parse_uttt_ai_moves(actions, offset + "actions=".len(), rules)
    } else {
        Err(fail(
            Notation::UtttAiState,
            offset + 1,
            "a uttt.ai link is `init?state=DIGITS` or `init?actions=MOVES`",
        ))
    }
}

/// What each digit of a uttt.ai state may be, by its 0-based index, and what it is.
fn state_digit_range(index: usize) -> (u32, &'static str) {
    match index {
        0..=80 => (2, "a cell (0 empty, 1 X, 2 O)"),
        81..=89 => (3, "a board (0 open, 1 won by X, 2 won by O, 3 full)"),
        90 => (2, "the side to move (1 X, 2 O)"),
        91 => (
            9,
            "the board the side to move is sent to (0-8, or 9 for any)",
        ),
        _ => (3, "the result (0 in play, 1 X won, 2 O won, 3 draw)"),
    }
}

/// Reads a uttt.ai state string that starts `offset` characters into the text given.
fn parse_uttt_ai_state(state: &str, offset: usize, rules: Rules) -> Result<Position, FormatError> {
    let fail = |index: usize, reason: String| {
        FormatError::at(Notation::UtttAiState, offset + index, reason)
    };
    let chars: Vec<char> = state.chars().collect();
    if chars.len() != 93 {
        return Err(fail(
            0,
            format!("expected 93 digits, found {} characters", chars.len()),
        ));
    }
    let mut digits = [0u32; 93];
    for (index, &c) in chars.iter().enumerate() {
        let (most, what) = state_digit_range(index);
        match c.to_digit(10) {
            Some(d) if d <= most && (index != 90 || d >= 1) => digits[index] = d,
            _ => {
                return Err(fail(
                    index,
                    format!("`{}` is not {what}", shown(&c.to_string())),
                ))
            }
        }
    }
    let mut cells = [0u128; 2];
    for (square, &d) in digits[..81].iter().enumerate() {
        if d > 0 {
            cells[d as usize - 1] |= 1 << square;
        }
    }
    let local = |player: usize, board: usize| (cells[player] >> (9 * board)) as u16 & FULL_MASK;
    for board in 0..9 {
        let said = digits[81 + board];
        let x_line = has_line(local(0, board));
        let o_line = has_line(local(1, board));
        let full = local(0, board) | local(1, board) == FULL_MASK;
        let cells_say = match (x_line, o_line, full) {
            (true, false, _) => 1,
            (false, true, _) => 2,
            (false, false, true) => 3,
            (false, false, false) => 0,
            (true, true, _) => {
                return Err(fail(
                    9 * board,
                    format!("board {board} has a line for both X and O"),
                ))
            }
        };
        if said != cells_say {
            return Err(fail(
                81 + board,
                format!("board {board} is given as `{said}` but its cells say `{cells_say}`"),
            ));
        }
    }
    let side = if digits[90] == 1 {
        Player::X
    } else {
        Player::O
    };
    let boards: String = (0..9)
        .map(|board| match digits[81 + board] {
            1 => 'X',
            2 => 'O',
            3 => '#',
            _ if digits[91] as usize == board => '@',
            _ => '.',
        })
        .collect();
    // A finished game has nobody to move, so no board one is sent to (uttt.ai writes one).
    let won = |player: u32| {
        has_line((0..9).fold(0u16, |w, b| w | (u16::from(digits[81 + b] == player) << b)))
    };
    let over = won(1) || won(2) || digits[81..90].iter().all(|&d| d != 0);
    let boards = if over {
        boards.replace('@', ".")
    } else {
        if digits[91] < 9 && digits[81 + digits[91] as usize] != 0 {
            return Err(fail(
                91,
                format!(
                    "the side to move is sent to board {}, which is closed",
                    digits[91]
                ),
            ));
        }
        boards
    };
    let cells_text: Vec<String> = (0..9)
        .map(|board| {
            (0..9)
                .map(|cell| match digits[9 * board + cell] {
                    1 => 'X',
                    2 => 'O',
                    _ => '.',
                })
                .collect()
        })
        .collect();
    let text = format!("{};{};{}", side.letter(), boards, cells_text.join("/"));
    let pos = parse_position_under(&text, rules).map_err(|e| {
        let index = match e.part {
            Part::Side => 90,
            Part::Boards => 81,
            Part::Whole | Part::Cells => 0,
        };
        fail(index, e.reason)
    })?;
    let result = match pos.outcome() {
        Outcome::InPlay => 0,
        Outcome::Won(Player::X) => 1,
        Outcome::Won(Player::O) => 2,
        Outcome::Draw => 3,
    };
    if digits[92] != result {
        return Err(fail(
            92,
            format!(
                "the result is given as `{}` but the boards say `{result}`",
                digits[92]
            ),
        ));
    }
    Ok(pos)
}

/// Reads a uttt.ai move list that starts `offset` characters into the text given.
fn parse_uttt_ai_moves(list: &str, offset: usize, rules: Rules) -> Result<Game, FormatError> {
    let fail = |index: usize, reason: String| {
        FormatError::at(Notation::UtttAiMoves, offset + index, reason)
    };
    let chars: Vec<char> = list.chars().collect();
    if chars.is_empty() {
        return Err(fail(0, "no moves".to_string()));
    }
    let mut pos = Position::start_under(rules);
    let mut moves = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let mover = match chars[at].to_ascii_lowercase() {
            'x' => Player::X,
            'o' => Player::O,
            other => {
                return Err(fail(
                    at,
                    format!(
                        "expected `x` or `o` (the mover), found `{}`",
                        shown(&other.to_string())
                    ),
                ))
            }
        };
        if pos.is_over() {
            return Err(fail(at, "the game is already over".to_string()));
        }
        if mover != pos.side_to_move() {
            return Err(fail(
                at,
                format!("{} is to move, not {mover}", pos.side_to_move()),
            ));
        }
        let digits = chars[at + 1..]
            .iter()
            .take(2)
            .take_while(|c| c.is_ascii_digit())
            .count();
        if digits == 0 {
            return Err(fail(
                at + 1,
                "expected the square (0-80) after the mover".to_string(),
            ));
        }
        let square: usize = chars[at + 1..at + 1 + digits]
            .iter()
            .collect::<String>()
            .parse()
            .expect("one or two digits");
        if square > 80 {
            return Err(fail(at + 1, format!("square {square} is not 0-80")));
        }
        let mv = Move::from_square(square);
        if let Some(kind) = illegal_reason(&pos, mv) {
            return Err(fail(at + 1, format!("square {square}: {}", illegal(&kind))));
        }
        pos = pos.play(mv);
        moves.push(mv);
        at += 1 + digits;
    }
    Ok(Game {
        position: pos,
        moves: Some(moves),
    })
}

/// Why a move is illegal, with boards numbered 0–8 as these notations number them.
fn illegal(kind: &MoveErrorKind) -> String {
    match kind {
        MoveErrorKind::WrongBoard { required } => {
            format!("illegal: the side to move must play in board {required}")
        }
        other => other.to_string(),
    }
}

/// Reads CodinGame moves from the empty board.
fn parse_codingame(text: &str, rules: Rules) -> Result<Game, FormatError> {
    let fail = |index: usize, reason: String| FormatError::at(Notation::CodinGame, index, reason);
    let mut pos = Position::start_under(rules);
    let mut moves = Vec::new();
    let mut start = 0;
    for chunk in text.split([',', '\n']) {
        let chunk_start = start;
        start += chunk.len() + 1;
        if chunk.trim().is_empty() {
            continue;
        }
        let column_of =
            |token: &str| chunk_start + (token.as_ptr() as usize - chunk.as_ptr() as usize);
        let tokens: Vec<&str> = chunk.split_whitespace().collect();
        if tokens.len() != 2 {
            return Err(fail(
                column_of(tokens[0]),
                format!(
                    "expected one move `row col`, found {} number{}",
                    tokens.len(),
                    if tokens.len() == 1 { "" } else { "s" }
                ),
            ));
        }
        let mut coordinates = [0usize; 2];
        for (k, token) in tokens.iter().enumerate() {
            coordinates[k] = match token.parse::<usize>() {
                Ok(n) if n <= 8 => n,
                _ => {
                    return Err(fail(
                        column_of(token),
                        format!("`{}` is not a row or column (0-8)", shown(token)),
                    ))
                }
            };
        }
        let [row, col] = coordinates;
        let mv = Move::new(3 * (row / 3) + col / 3, 3 * (row % 3) + col % 3);
        if let Some(kind) = illegal_reason(&pos, mv) {
            return Err(fail(
                column_of(tokens[0]),
                format!("`{row} {col}`: {}", illegal(&kind)),
            ));
        }
        pos = pos.play(mv);
        moves.push(mv);
    }
    Ok(Game {
        position: pos,
        moves: Some(moves),
    })
}

/// `pos` as a uttt.ai state string (a finished game with `9` as its board, see the module
/// documentation).
pub fn format_uttt_ai_state(pos: &Position) -> String {
    let mut out = String::with_capacity(93);
    for square in 0..81 {
        let bit = 1u128 << square;
        out.push(if pos.cells(Player::X) & bit != 0 {
            '1'
        } else if pos.cells(Player::O) & bit != 0 {
            '2'
        } else {
            '0'
        });
    }
    for board in 0..9 {
        let bit = 1 << board;
        out.push(if pos.won_boards(Player::X) & bit != 0 {
            '1'
        } else if pos.won_boards(Player::O) & bit != 0 {
            '2'
        } else if pos.closed_boards() & bit != 0 {
            '3'
        } else {
            '0'
        });
    }
    out.push(if pos.side_to_move() == Player::X {
        '1'
    } else {
        '2'
    });
    out.push(pos.target_board().map_or('9', |b| (b'0' + b as u8) as char));
    out.push(match pos.outcome() {
        Outcome::InPlay => '0',
        Outcome::Won(Player::X) => '1',
        Outcome::Won(Player::O) => '2',
        Outcome::Draw => '3',
    });
    out
}

/// The uttt.ai link that opens `pos` on its analysis board.
pub fn uttt_ai_state_link(pos: &Position) -> String {
    format!("{UTTT_AI_INIT}state={}", format_uttt_ai_state(pos))
}

/// `moves` (a game from the empty board) as a uttt.ai move list, as uttt.ai writes it
/// (lower case).
pub fn format_uttt_ai_moves(moves: &[Move]) -> String {
    let mut side = Player::X;
    let mut out = String::new();
    for mv in moves {
        out.push(side.letter().to_ascii_lowercase());
        out.push_str(&mv.square().to_string());
        side = side.opponent();
    }
    out
}

/// The uttt.ai link that replays `moves` (a game from the empty board).
pub fn uttt_ai_moves_link(moves: &[Move]) -> String {
    format!("{UTTT_AI_INIT}actions={}", format_uttt_ai_moves(moves))
}

/// `moves` as CodinGame moves, `row col` pairs separated by `, `.
pub fn format_codingame(moves: &[Move]) -> String {
    moves
        .iter()
        .map(|mv| {
            let (board, cell) = (mv.board(), mv.cell());
            format!(
                "{} {}",
                3 * (board / 3) + cell / 3,
                3 * (board % 3) + cell % 3
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests;
