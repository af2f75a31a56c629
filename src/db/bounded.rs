//! Bounded facts: answers to "does the attacker win within N plies?", kept beside the
//! unbounded facts and keyed with their bound, so that later searches of any bound use them.
//!
//! What a bounded fact says, and what it does not:
//! - "A wins within N" is a win within every larger bound, and a win outright: it answers the
//!   unbounded question too (see [`super::Known`]).
//! - "A does not win within N" is a failure within every smaller bound, and nothing more: A may
//!   still win later. It never answers an unbounded question.
//! - An unbounded "A does not win" is a failure within every bound.
//!
//! So a fact of either kind can contradict one of the other, and the checks of both kinds
//! are here.

use super::{Answer, Database, DbError, Fact};
use crate::game::Player;
use rusqlite::{params, Connection};

/// The table of bounded facts (schema version 3). `plies` counts from the position stored, so
/// it is the same in every symmetric image.
pub(super) const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS bounded_facts (
        position BLOB NOT NULL,
        attacker TEXT NOT NULL CHECK (attacker IN ('X', 'O')),
        plies INTEGER NOT NULL CHECK (plies BETWEEN 0 AND 81),
        wins INTEGER NOT NULL CHECK (wins IN (0, 1)),
        work INTEGER NOT NULL,
        best_move TEXT,
        source TEXT NOT NULL,
        created INTEGER NOT NULL,
        notation TEXT NOT NULL,
        PRIMARY KEY (position, attacker, plies)
    ) WITHOUT ROWID;";

/// What the database knows of one attacker's bounded questions at a position: the tightest
/// fact each way, which answers every bound it reaches. "Wins within N" is a win within every
/// larger bound, and a win outright; "does not win within N" is a failure within every smaller
/// bound, and nothing more (the win may come later).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bounds {
    /// The least N with "the attacker wins within N plies" stored, and that answer.
    pub wins_within: Option<(u32, Answer)>,
    /// The largest N with "the attacker does not win within N plies" stored, and that answer.
    pub not_within: Option<(u32, Answer)>,
}

impl Bounds {
    /// The answer these facts give to "does the attacker win within `plies` plies?", if any.
    pub fn within(&self, plies: u32) -> Option<Answer> {
        match (self.wins_within, self.not_within) {
            (Some((least, answer)), _) if least <= plies => Some(answer),
            (_, Some((most, answer))) if most >= plies => Some(answer),
            _ => None,
        }
    }

    /// Takes in one stored fact (`plies`, `answer`), keeping the tightest each way.
    fn add(&mut self, plies: u32, answer: Answer) {
        let slot = if answer.wins {
            &mut self.wins_within
        } else {
            &mut self.not_within
        };
        let tighter = match slot {
            None => true,
            Some((kept, _)) if answer.wins => plies < *kept,
            Some((kept, _)) => plies > *kept,
        };
        if tighter {
            *slot = Some((plies, answer));
        }
    }
}

/// `(attacker, plies, answer)` rows as [`Bounds`] for X and for O.
pub(super) fn bounds_of(rows: impl IntoIterator<Item = (Player, u32, Answer)>) -> [Bounds; 2] {
    let mut bounds = [Bounds::default(); 2];
    for (attacker, plies, answer) in rows {
        bounds[attacker.index()].add(plies, answer);
    }
    bounds
}

impl Database {
    /// Whether `fact` (at the canonical `key`) contradicts a stored fact of its attacker:
    /// - unbounded, the opposite answer; and for "no win", a win within any bound;
    /// - "wins within N", an unbounded "no" or "no win within M ≥ N";
    /// - "no win within N", "a win within M ≤ N" (an unbounded win says nothing of when).
    pub(super) fn contradicts(
        &self,
        transaction: &Connection,
        key: &[u8],
        fact: &Fact,
    ) -> Result<bool, DbError> {
        let contradicting: i64 = transaction
            .prepare_cached(
                "SELECT (SELECT count(*) FROM facts WHERE position = ?1 AND attacker = ?2
                         AND wins != ?3 AND (?4 IS NULL OR ?3))
                      + (SELECT count(*) FROM bounded_facts WHERE position = ?1
                         AND attacker = ?2 AND wins != ?3
                         AND (CASE WHEN ?4 IS NULL THEN NOT ?3
                                   WHEN ?3 THEN plies >= ?4 ELSE plies <= ?4 END))",
            )
            .and_then(|mut statement| {
                let attacker = fact.attacker.letter().to_string();
                statement.query_row(params![key, attacker, fact.wins, fact.within], |row| {
                    row.get(0)
                })
            })
            .map_err(|e| self.query_error(e))?;
        Ok(contradicting > 0)
    }
}

/// The player a stored `attacker` column names (the schema admits only `X` and `O`).
pub(super) fn player_of(attacker: &str) -> Player {
    if attacker == "X" {
        Player::X
    } else {
        Player::O
    }
}
