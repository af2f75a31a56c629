//! Rule sets: the variants of Ultimate Tic Tac Toe the game core plays.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A rule set. Every position carries one ([`super::Position::rules`]); the moves, the end of
/// the game and its outcome follow it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
pub enum Rules {
    /// The common rules: a board won or full is closed; a player sent to a closed board may
    /// play in any open board; when every board is closed and nobody has three won boards in
    /// a line, the game is drawn.
    #[default]
    #[serde(rename = "common")]
    Common = 0,
    /// Won boards stay open: a won board stays playable until it is full (and keeps its first
    /// winner, whatever lines are made in it later), so a player sent to a won board with an
    /// empty cell must play there; only a full board gives a free move. Three won boards in a
    /// line still win; all boards full without such a line is a draw.
    #[serde(rename = "open")]
    WonBoardsOpen = 1,
    /// CodinGame's rules: the common rules, except that a game ending with every board closed
    /// and no line of won boards is won by the player with more won boards (equal counts
    /// draw).
    #[serde(rename = "codingame")]
    CodinGame = 2,
}

impl Rules {
    /// Every rule set, the common rules first.
    pub const ALL: [Rules; 3] = [Rules::Common, Rules::WonBoardsOpen, Rules::CodinGame];

    /// The short name used on the command line and in JSON: `common`, `open`, `codingame`.
    pub fn name(self) -> &'static str {
        match self {
            Rules::Common => "common",
            Rules::WonBoardsOpen => "open",
            Rules::CodinGame => "codingame",
        }
    }

    /// The rule set of a short name (see [`Rules::name`]), ignoring case.
    pub fn from_name(name: &str) -> Option<Rules> {
        Rules::ALL
            .into_iter()
            .find(|rules| rules.name().eq_ignore_ascii_case(name))
    }

    /// The rule set of a short name, or an error that names the choices (for every front end's
    /// `rules` argument).
    pub fn parse(name: &str) -> Result<Rules, String> {
        Rules::from_name(name).ok_or_else(|| {
            format!(
                "unknown rule set `{name}`: expected common, open (won boards stay open) or \
                 codingame"
            )
        })
    }

    /// Whether a board is closed as soon as it is won (else only once it is full).
    #[inline(always)]
    pub fn won_boards_close(self) -> bool {
        self != Rules::WonBoardsOpen
    }

    /// Whether a game that ends without a line of won boards goes to the player with more
    /// won boards (else it is drawn).
    #[inline(always)]
    pub fn board_count_decides(self) -> bool {
        self == Rules::CodinGame
    }

    /// How far apart the plies are on which one player's win can end a game: 2 where only a
    /// line of boards wins (a line is completed by its owner's own move, so the win falls on
    /// that player's moves, every other ply), 1 where the count of boards can decide (the
    /// move that closes the last board, by either player, can end the game in either's
    /// favour).
    pub fn win_step(self) -> u32 {
        if self.board_count_decides() {
            1
        } else {
            2
        }
    }

    /// Whether these are the common rules (which JSON output leaves unnamed).
    pub fn is_common(&self) -> bool {
        *self == Rules::Common
    }

    /// The index of the rule set (0, 1, 2: the order of [`Rules::ALL`]).
    #[inline(always)]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The rule set of an index below 3 (see [`Rules::index`]).
    #[inline(always)]
    pub(super) fn from_index(index: u8) -> Rules {
        match index {
            1 => Rules::WonBoardsOpen,
            2 => Rules::CodinGame,
            _ => Rules::Common,
        }
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_indices_round_trip() {
        for rules in Rules::ALL {
            assert_eq!(Rules::from_name(rules.name()), Some(rules));
            assert_eq!(Rules::from_name(&rules.name().to_uppercase()), Some(rules));
            assert_eq!(Rules::from_index(rules.index() as u8), rules);
            let json = serde_json::to_string(&rules).unwrap();
            assert_eq!(json, format!("\"{}\"", rules.name()));
            assert_eq!(serde_json::from_str::<Rules>(&json).unwrap(), rules);
        }
        assert_eq!(Rules::from_name("standard"), None);
        assert_eq!(Rules::default(), Rules::Common);
    }
}
