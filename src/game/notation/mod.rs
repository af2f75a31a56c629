//! Position and move notation, in both directions, with strict validation.
//!
//! Position notation (compatible with the earlier public solver): `SIDE;BOARDS;CELLS` where
//! SIDE is `X`/`O`, BOARDS nine characters (`.` open, `X`/`O` won, `#` drawn, `@` the open board
//! the side to move is sent to) and CELLS nine `/`-separated groups of nine `.`/`X`/`O`.

mod position_text;

pub(super) use position_text::rules_named;
pub use position_text::{
    board_mark, cell_mark, format_position, parse_position, parse_position_under,
    split_rules_prefix,
};

use super::moves::Move;
use super::position::Position;
use position_text::parse_displayed_position;
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
        write!(
            f,
            "move {} `{}`: {}",
            self.index,
            shown(&self.text),
            self.kind
        )
    }
}

/// Characters of input text an error message shows at most: enough to recognise a token,
/// little enough that a megabyte-long token is not repeated to the terminal.
pub const SHOWN_CHARS: usize = 40;

/// Input text as an error message shows it: control characters (NUL, ESC, ...) and the
/// characters that reorder text on a terminal escaped, so that nothing from the input reaches
/// the terminal as a command, and text past [`SHOWN_CHARS`] characters cut, with how much was
/// left out.
pub fn shown(text: &str) -> String {
    let mut out = String::new();
    for (count, (at, c)) in text.char_indices().enumerate() {
        if count == SHOWN_CHARS {
            out += &format!("… ({} more bytes)", text.len() - at);
            break;
        }
        let reorders = matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if c.is_control() || reorders {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

impl std::error::Error for MoveListError {}

fn board_letter(index: usize) -> char {
    (b'a' + index as u8) as char
}

/// The index of a board or cell letter, in either case (`start` and uttt.ai's notation take
/// any case; so do moves).
fn letter_index(c: char) -> Option<usize> {
    let c = c.to_ascii_lowercase();
    ('a'..='i').contains(&c).then(|| c as usize - 'a' as usize)
}

/// Parses a move such as `ae` (board letter, then cell letter; `AE` and `Ae` too).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_are_read_in_either_case_and_other_letters_are_refused() {
        for text in ["ae", "AE", "Ae", "aE"] {
            assert_eq!(parse_move(text), Ok(Move::new(0, 4)), "{text}");
        }
        assert_eq!(parse_move("II"), Ok(Move::new(8, 8)));
        for bad in ["aj", "JA", "a1", "ä"] {
            assert!(parse_move(bad).is_err(), "{bad}");
        }
    }
}
