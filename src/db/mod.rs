//! The database of solved positions: facts that outlive a process ("does X win here? yes"),
//! kept in SQLite (`rusqlite`, bundled: no system library needed), keyed exactly by a
//! position's canonical image under the board's symmetries (see [`key`]), so that a stored
//! answer is found again from any of the eight images and can never answer another position.
//!
//! Knows the game core only; the search consults and fills it through
//! `crate::services::Solver::with_database`. The file is an ordinary SQLite database (`sqlite3`
//! reads it), with its write-ahead log: crash-safe, one writer and many readers at once.

mod bounded;
pub mod campaign;
mod error;
mod fact_rules;
pub mod key;
mod schema;
mod stats;

pub use bounded::Bounds;
pub use error::DbError;
pub use schema::SCHEMA_VERSION_1;
pub use stats::Stats;

use crate::game::{Move, Player, Position};
use rusqlite::{params, Connection, TransactionBehavior};
pub use schema::BUSY_TIMEOUT;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// Marks a SQLite file as a uttt database (`PRAGMA application_id`: "uttt").
const APPLICATION_ID: i32 = 0x7574_7474;
/// The schema's version (`PRAGMA user_version`): 1 had the facts alone, 2 added campaigns, 3
/// bounded facts, 4 campaigns' own guides, 5 campaigns' leases (an older file is brought up to
/// 5 when opened).
const SCHEMA_VERSION: i32 = 5;
/// What a fact was found by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// `uttt solve` (also in batches).
    Solve,
    /// `uttt analyze`.
    Analyze,
    /// `uttt review`.
    Review,
    /// A campaign.
    Campaign,
    /// `uttt serve` (its solves, analyses and reviews).
    Serve,
    /// `uttt db import` of a fact without a source.
    Import,
}

impl Source {
    fn name(self) -> &'static str {
        match self {
            Source::Solve => "solve",
            Source::Analyze => "analyze",
            Source::Review => "review",
            Source::Campaign => "campaign",
            Source::Serve => "serve",
            Source::Import => "import",
        }
    }

    fn from_name(name: &str) -> Option<Source> {
        [
            Source::Solve,
            Source::Analyze,
            Source::Review,
            Source::Campaign,
            Source::Serve,
            Source::Import,
        ]
        .into_iter()
        .find(|s| s.name() == name)
    }
}

/// One answer to one binary question: whether `attacker` wins `position` with best play, or,
/// for a bounded fact, within `within` plies (see [`Bounds`] for what each answer implies).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fact {
    /// The position (in any orientation: it is stored in its canonical one).
    pub position: Position,
    /// The question's player.
    pub attacker: Player,
    /// The answer: the attacker wins (proved) or does not (disproved).
    pub wins: bool,
    /// The question's bound: "within so many plies of `position`"; `None` for no bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<u32>,
    /// MID calls the answer took.
    pub work: u64,
    /// A best move for the side to move, when one is known.
    pub best_move: Option<Move>,
    /// What found it.
    pub source: Source,
    /// When it was first stored, in seconds since the Unix epoch.
    pub created: u64,
}

/// What the database knows of one binary question at a position, in that position's own
/// orientation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The attacker wins.
    pub wins: bool,
    /// MID calls it took.
    pub work: u64,
    /// A best move for the side to move, mapped to the position asked about.
    pub best_move: Option<Move>,
}

/// What the database knows of a position: the answer to each question, where stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Known {
    /// "Does X win?": the unbounded fact, or else a bounded win (a win within some bound is a
    /// win; a failure within one says nothing here).
    pub x: Option<Answer>,
    /// "Does O win?", as for `x`.
    pub o: Option<Answer>,
    /// X's bounded facts.
    pub x_within: Bounds,
    /// O's bounded facts.
    pub o_within: Bounds,
}

impl Known {
    /// The answer to "does `attacker` win?".
    pub fn of(&self, attacker: Player) -> Option<Answer> {
        match attacker {
            Player::X => self.x,
            Player::O => self.o,
        }
    }

    /// The answer to "does `attacker` win?", or with `within`, "does `attacker` win within so
    /// many plies?":
    /// - unbounded: the attacker's own answer, else the opponent's win (a "no", with the
    ///   opponent's best move);
    /// - bounded: a bounded fact that reaches the bound, else an unbounded "no" as above,
    ///   which is a "no" within every bound.
    pub fn answer(&self, attacker: Player, within: Option<u32>) -> Option<Answer> {
        if let Some(plies) = within {
            let bounds = match attacker {
                Player::X => self.x_within,
                Player::O => self.o_within,
            };
            return bounds
                .within(plies)
                .or_else(|| self.answer(attacker, None).filter(|answer| !answer.wins));
        }
        match (self.of(attacker), self.of(attacker.opponent())) {
            (Some(answer), _) => Some(answer),
            (None, Some(other)) if other.wins => Some(Answer {
                wins: false,
                ..other
            }),
            _ => None,
        }
    }
}

/// A fact as the database holds it (see [`Database::stored_facts`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredFact {
    /// The fact, read from its row's notation.
    pub fact: Fact,
    /// Whether the row's key, by which lookups find it, is the key of the fact's position.
    pub filed_right: bool,
}

/// How a store went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stored {
    /// Facts new to the database.
    pub new: u64,
    /// Facts it held already (their work and best move updated where the new one says more).
    pub known: u64,
}

/// A fact as its row stores it: in its position's canonical orientation.
struct FactRow<'a> {
    /// The canonical key.
    key: &'a [u8],
    /// The canonical image, for people reading the file.
    notation: String,
    /// The best move in that orientation.
    best_move: Option<String>,
}

/// An open database. Usable from several threads (one connection, taken in turn).
pub struct Database {
    connection: Mutex<Connection>,
    path: PathBuf,
    /// The campaign leases this handle holds, with their tokens ([`campaign::lease`]): given
    /// back when it is dropped.
    leases: Mutex<Vec<(campaign::CampaignId, i64)>>,
}

impl Drop for Database {
    fn drop(&mut self) {
        self.release_all_leases();
    }
}

impl Database {
    /// Opens the database at `path`, creating it (and its schema) when the file is missing or
    /// empty; refuses a file that is not a uttt database.
    pub fn open(path: &Path) -> Result<Database, DbError> {
        // SQLite would make its journal and log files beside a device or a FIFO (in /dev for
        // `/dev/null`), and wait on a FIFO: only a regular file is a database.
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            return Err(DbError::NotADatabase {
                path: path.to_path_buf(),
                problem: "not a regular file (a directory, a device or a FIFO)".to_string(),
            });
        }
        let connection = Connection::open(path).map_err(|source| DbError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        let db = Database {
            connection: Mutex::new(connection),
            path: path.to_path_buf(),
            leases: Mutex::new(Vec::new()),
        };
        db.prepare()?;
        Ok(db)
    }

    /// Opens an existing database (for commands that only read, or check, one).
    pub fn open_existing(path: &Path) -> Result<Database, DbError> {
        if !path.exists() {
            return Err(DbError::Missing {
                path: path.to_path_buf(),
            });
        }
        Database::open(path)
    }

    fn query_error(&self, source: rusqlite::Error) -> DbError {
        DbError::Query {
            path: self.path.clone(),
            source,
        }
    }

    fn connection(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A thread that panicked while holding it left no transaction half done that SQLite
        // would not roll back, so the connection is still usable.
        self.connection
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The campaign leases this handle holds.
    fn held_leases(&self) -> std::sync::MutexGuard<'_, Vec<(campaign::CampaignId, i64)>> {
        self.leases
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The connection, waiting at most `wait` for other processes' locks until it is given
    /// back (the busy timeout is set back to its usual length then).
    fn connection_waiting(&self, wait: Duration) -> Result<Waiting<'_>, DbError> {
        let conn = self.connection();
        conn.busy_timeout(wait).map_err(|e| self.query_error(e))?;
        Ok(Waiting(conn))
    }

    /// What the database knows of `pos` (found from any of its symmetric images).
    pub fn lookup(&self, pos: &Position) -> Result<Known, DbError> {
        let (key, _, sym) = key::canonical(pos);
        let conn = self.connection();
        // The unbounded facts (no plies) and the bounded ones in one pass.
        let mut statement = conn
            .prepare_cached(
                "SELECT attacker, NULL, wins, work, best_move FROM facts WHERE position = ?1
                 UNION ALL
                 SELECT attacker, plies, wins, work, best_move FROM bounded_facts
                 WHERE position = ?1",
            )
            .map_err(|e| self.query_error(e))?;
        let rows = statement
            .query_map(params![&key[..]], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, Option<i64>>(1)?,
                    row.get::<_, bool>(2)?,
                    row.get::<_, i64>(3)?,
                    row.get::<_, Option<String>>(4)?,
                ))
            })
            .map_err(|e| self.query_error(e))?;
        let mut known = Known::default();
        let mut bounded = Vec::new();
        for row in rows {
            let (attacker, plies, wins, work, best_move) = row.map_err(|e| self.query_error(e))?;
            let answer = Answer {
                wins,
                work: work.max(0) as u64,
                best_move: best_move
                    .and_then(|text| text.parse::<Move>().ok())
                    .and_then(|image_move| key::move_back(pos, sym, image_move)),
            };
            let attacker = bounded::player_of(&attacker);
            match (plies, attacker) {
                (Some(plies), _) => bounded.push((attacker, plies.max(0) as u32, answer)),
                (None, Player::X) => known.x = Some(answer),
                (None, Player::O) => known.o = Some(answer),
            }
        }
        let [x_within, o_within] = bounded::bounds_of(bounded);
        // A win within a bound is a win: it answers the unbounded question where nothing else
        // does (with the least bound's best move, a move that wins).
        known.x = known.x.or(x_within.wins_within.map(|(_, answer)| answer));
        known.o = known.o.or(o_within.wins_within.map(|(_, answer)| answer));
        known.x_within = x_within;
        known.o_within = o_within;
        Ok(known)
    }

    /// Stores `facts` in one transaction. A fact already known is kept, with the larger work
    /// and a best move if it had none (so storing the same facts twice changes nothing); a
    /// fact that contradicts a stored one stores nothing and is an error. Another process's
    /// write is waited for, up to a busy timeout of half a minute.
    pub fn store(&self, facts: &[Fact]) -> Result<Stored, DbError> {
        self.store_waiting(facts, BUSY_TIMEOUT)
    }

    /// [`Database::store`], waiting at most `wait` for another process's write: a search's
    /// own stores wait briefly and try again later, so that a busy file never holds the
    /// search up. The transaction takes the write lock as it begins (`BEGIN IMMEDIATE`): one
    /// that read first and then wanted to write would fail at once, without waiting, whenever
    /// another process wrote in between.
    pub fn store_waiting(&self, facts: &[Fact], wait: Duration) -> Result<Stored, DbError> {
        let mut conn = self.connection_waiting(wait)?;
        let transaction = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.query_error(e))?;
        let stored = self.store_in(&transaction, facts)?;
        transaction.commit().map_err(|e| self.query_error(e))?;
        Ok(stored)
    }

    /// [`Database::store`] within `transaction`, which the caller commits (or drops, after an
    /// error, so that nothing is stored).
    fn store_in(&self, transaction: &Connection, facts: &[Fact]) -> Result<Stored, DbError> {
        let mut stored = Stored::default();
        for fact in facts {
            let (key, image, sym) = key::canonical(&fact.position);
            if self.contradicts(transaction, &key, fact)? {
                return Err(DbError::Contradiction {
                    offered: Box::new(fact.clone()),
                });
            }
            let row = FactRow {
                key: &key,
                notation: image.to_string(),
                best_move: fact.best_move.map(|mv| mv.transform(sym).to_string()),
            };
            if self.put(transaction, fact, &row)? {
                stored.new += 1;
            } else {
                stored.known += 1;
            }
        }
        Ok(stored)
    }

    /// Stores `fact` as `row` says, in `facts` or, with its bound, in `bounded_facts`: the row
    /// already there for its question keeps its answer, takes the larger work and a best move
    /// if it had none; else a new row. Whether the row is new.
    fn put(&self, transaction: &Connection, fact: &Fact, row: &FactRow) -> Result<bool, DbError> {
        use rusqlite::types::Value;
        // The question's columns: the position, the attacker and, for a bounded fact, the plies.
        let mut question: Vec<Value> = vec![
            Value::Blob(row.key.to_vec()),
            Value::Text(fact.attacker.letter().to_string()),
        ];
        let (table, bound_column) = match fact.within {
            Some(plies) => {
                question.push(Value::Integer(plies.into()));
                ("bounded_facts", ", plies")
            }
            None => ("facts", ""),
        };
        let n = question.len();
        let matches = if n == 3 {
            "position = ?1 AND attacker = ?2 AND plies = ?3"
        } else {
            "position = ?1 AND attacker = ?2"
        };
        let work = Value::Integer(clamp(fact.work));
        let best_move = row.best_move.clone().map_or(Value::Null, Value::Text);
        let update = format!(
            "UPDATE {table} SET work = max(work, ?{}), best_move = coalesce(best_move, ?{})
             WHERE {matches}",
            n + 1,
            n + 2
        );
        let values = question
            .iter()
            .cloned()
            .chain([work.clone(), best_move.clone()]);
        let changed = transaction
            .prepare_cached(&update)
            .and_then(|mut statement| statement.execute(rusqlite::params_from_iter(values)))
            .map_err(|e| self.query_error(e))?;
        if changed > 0 {
            return Ok(false);
        }
        let places: Vec<String> = (1..=n + 6).map(|i| format!("?{i}")).collect();
        let insert = format!(
            "INSERT INTO {table} (position, attacker{bound_column}, wins, work, best_move,
                 source, created, notation)
             VALUES ({})",
            places.join(", ")
        );
        let values = question.into_iter().chain([
            Value::Integer(fact.wins.into()),
            work,
            best_move,
            Value::Text(fact.source.name().to_string()),
            Value::Integer(clamp(fact.created)),
            Value::Text(row.notation.clone()),
        ]);
        transaction
            .prepare_cached(&insert)
            .and_then(|mut statement| statement.execute(rusqlite::params_from_iter(values)))
            .map_err(|e| self.query_error(e))?;
        Ok(true)
    }

    /// Every fact, in its canonical orientation, in key order (a position's unbounded facts
    /// before its bounded ones, these by bound).
    pub fn facts(&self) -> Result<Vec<Fact>, DbError> {
        Ok(self
            .stored_facts()?
            .into_iter()
            .map(|stored| stored.fact)
            .collect())
    }

    /// [`Database::facts`], each with whether its row's key is its position's: lookups find a
    /// fact by the key alone, so a fact under another position's key (a damaged or tampered
    /// file) would answer that position.
    pub fn stored_facts(&self) -> Result<Vec<StoredFact>, DbError> {
        let conn = self.connection();
        let mut statement = conn
            .prepare(
                "SELECT notation, attacker, wins, work, best_move, source, created,
                     NULL AS plies, position FROM facts
                 UNION ALL
                 SELECT notation, attacker, wins, work, best_move, source, created, plies,
                     position FROM bounded_facts
                 ORDER BY position, attacker, plies",
            )
            .map_err(|e| self.query_error(e))?;
        let rows = statement
            .query_map([], |row| {
                Ok((
                    (
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, bool>(2)?,
                        row.get::<_, i64>(3)?,
                    ),
                    row.get::<_, Option<String>>(4)?,
                    row.get::<_, String>(5)?,
                    row.get::<_, i64>(6)?,
                    row.get::<_, Option<i64>>(7)?,
                    row.get::<_, Vec<u8>>(8)?,
                ))
            })
            .map_err(|e| self.query_error(e))?;
        let mut facts = Vec::new();
        for row in rows {
            let ((notation, attacker, wins, work), best_move, source, created, plies, stored_key) =
                row.map_err(|e| self.query_error(e))?;
            let damaged = |what: &str| DbError::NotADatabase {
                path: self.path.clone(),
                problem: format!("a fact with {what} ({notation})"),
            };
            let position: Position = notation.parse().map_err(|_| damaged("a bad position"))?;
            let filed_right = key::canonical(&position).0[..] == stored_key[..];
            let fact = Fact {
                position,
                attacker: bounded::player_of(&attacker),
                wins,
                within: plies.map(|plies| plies.max(0) as u32),
                work: work.max(0) as u64,
                best_move: match best_move {
                    Some(text) => Some(text.parse().map_err(|_| damaged("a bad move"))?),
                    None => None,
                },
                source: Source::from_name(&source).ok_or_else(|| damaged("a bad source"))?,
                created: created.max(0) as u64,
            };
            facts.push(StoredFact { fact, filed_right });
        }
        Ok(facts)
    }
}

/// The connection with a busy timeout of its own, set back to [`BUSY_TIMEOUT`] when dropped.
struct Waiting<'a>(std::sync::MutexGuard<'a, Connection>);

impl std::ops::Deref for Waiting<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        &self.0
    }
}

impl std::ops::DerefMut for Waiting<'_> {
    fn deref_mut(&mut self) -> &mut Connection {
        &mut self.0
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let _ = self.0.busy_timeout(BUSY_TIMEOUT);
    }
}

/// Now, in seconds since the Unix epoch (a fact's and a campaign's `created`).
pub fn now_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `n` as SQLite's signed integer (work and times never come near its limit).
fn clamp(n: u64) -> i64 {
    n.min(i64::MAX as u64) as i64
}

#[cfg(test)]
pub(super) mod tests;
