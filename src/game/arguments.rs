//! What a position or game given to a command may be: `start`, the position notation, a move
//! list played from the start, or another program's notation (uttt.ai, CodinGame; see
//! [`super::formats`]), after an optional rule set's name (`open:start`).

use super::formats::{self, FormatError};
use super::notation::{
    parse_position_under, read_move_list, rules_named, Game, MoveListError, Part, PositionError,
};
use super::position::Position;
use super::rules::Rules;
use std::fmt;
use std::str::FromStr;

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

impl FromStr for Position {
    type Err = NotationError;

    /// Any accepted form: `start`, the notation, or a move list (see [`parse_position_arg`]).
    fn from_str(text: &str) -> Result<Position, NotationError> {
        parse_position_arg(text)
    }
}
