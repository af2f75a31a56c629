//! Bounded facts: answers to "does the attacker win within N plies?", kept beside the
//! unbounded facts and keyed with their bound, so that later searches of any bound use them.
//!
//! What a bounded fact says, and what it does not:
//! - "A wins within N" is a win within every larger bound, and a win outright: it answers the
//!   unbounded question too (see [`super::Known`]).
//! - "A does not win within N" is a failure within every smaller bound, and nothing more: A may
//!   still win later. It never answers an unbounded question.
//! - An unbounded "A does not win" is a failure within every bound.

use super::{clamp, key, Answer, Database, DbError, Fact, Stored};
use crate::game::{Move, Player, Position};
use rusqlite::{params, Connection};

/// The table of bounded facts (schema version 3). `plies` counts from the position stored, so
/// it is the same in every symmetric image.
pub(super) const SCHEMA: &str = "
    CREATE TABLE bounded_facts (
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
    /// The bounded facts stored for the canonical `key` of `pos` (`sym` maps `pos` to the
    /// stored image), their best moves mapped back to `pos`.
    pub(super) fn bounded_rows(
        &self,
        conn: &Connection,
        key: &[u8],
        pos: &Position,
        sym: usize,
    ) -> Result<Vec<(Player, u32, Answer)>, DbError> {
        let mut statement = conn
            .prepare_cached(
                "SELECT attacker, plies, wins, work, best_move FROM bounded_facts
                 WHERE position = ?1",
            )
            .map_err(|e| self.query_error(e))?;
        let rows = statement
            .query_map(params![key], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, bool>(2)?,
                    row.get::<_, i64>(3)?,
                    row.get::<_, Option<String>>(4)?,
                ))
            })
            .map_err(|e| self.query_error(e))?;
        let mut found = Vec::new();
        for row in rows {
            let (attacker, plies, wins, work, best_move) = row.map_err(|e| self.query_error(e))?;
            let answer = Answer {
                wins,
                work: work.max(0) as u64,
                best_move: best_move
                    .and_then(|text| text.parse::<Move>().ok())
                    .and_then(|image_move| key::move_back(pos, sym, image_move)),
            };
            found.push((player_of(&attacker), plies.max(0) as u32, answer));
        }
        Ok(found)
    }

    /// Stores one bounded `fact` (its `within` set) in `transaction`, counting it in
    /// `stored`; a fact that contradicts a stored one, bounded or not, is an error.
    pub(super) fn store_bounded(
        &self,
        transaction: &Connection,
        fact: &Fact,
        plies: u32,
        stored: &mut Stored,
    ) -> Result<(), DbError> {
        let (key, image, sym) = key::canonical(&fact.position);
        let attacker = fact.attacker.letter().to_string();
        // A win within `plies` contradicts "no win within N ≥ plies" and "no win at all"; a
        // failure within `plies` contradicts "a win within N ≤ plies".
        let contradicting: i64 = transaction
            .prepare_cached(
                "SELECT (SELECT count(*) FROM bounded_facts WHERE position = ?1 AND attacker = ?2
                         AND wins != ?3 AND (CASE WHEN ?3 THEN plies >= ?4 ELSE plies <= ?4 END))
                      + (SELECT count(*) FROM facts WHERE position = ?1 AND attacker = ?2
                         AND ?3 AND wins = 0)",
            )
            .and_then(|mut statement| {
                statement.query_row(params![&key[..], attacker, fact.wins, plies], |row| {
                    row.get(0)
                })
            })
            .map_err(|e| self.query_error(e))?;
        if contradicting > 0 {
            return Err(DbError::Contradiction {
                offered: Box::new(fact.clone()),
            });
        }
        let best_move = fact.best_move.map(|mv| mv.transform(sym).to_string());
        let changed = transaction
            .prepare_cached(
                "UPDATE bounded_facts SET work = max(work, ?4), best_move = coalesce(best_move, ?5)
                 WHERE position = ?1 AND attacker = ?2 AND plies = ?3",
            )
            .and_then(|mut statement| {
                statement.execute(params![
                    &key[..],
                    attacker,
                    plies,
                    clamp(fact.work),
                    best_move
                ])
            })
            .map_err(|e| self.query_error(e))?;
        if changed > 0 {
            stored.known += 1;
            return Ok(());
        }
        transaction
            .prepare_cached(
                "INSERT INTO bounded_facts (position, attacker, plies, wins, work, best_move,
                     source, created, notation)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )
            .and_then(|mut statement| {
                statement.execute(params![
                    &key[..],
                    attacker,
                    plies,
                    fact.wins,
                    clamp(fact.work),
                    best_move,
                    fact.source.name(),
                    clamp(fact.created),
                    image.to_string()
                ])
            })
            .map_err(|e| self.query_error(e))?;
        stored.new += 1;
        Ok(())
    }

    /// Whether storing the unbounded "`attacker` does not win" at the canonical `key` would
    /// contradict a stored bounded win.
    pub(super) fn has_bounded_win(
        &self,
        transaction: &Connection,
        key: &[u8],
        attacker: Player,
    ) -> Result<bool, DbError> {
        transaction
            .prepare_cached(
                "SELECT count(*) FROM bounded_facts WHERE position = ?1 AND attacker = ?2
                 AND wins = 1",
            )
            .and_then(|mut statement| {
                statement.query_row(params![key, attacker.letter().to_string()], |row| {
                    row.get::<_, i64>(0)
                })
            })
            .map(|count| count > 0)
            .map_err(|e| self.query_error(e))
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
