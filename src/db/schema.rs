//! The schema of a database file: what a file's marks say it is, and the creation of the
//! schema in a new file or its migration from an older version, step by step.

use super::{bounded, campaign, APPLICATION_ID, SCHEMA_VERSION};
use rusqlite::Connection;

/// The marks of a SQLite file that say what it is: its application, its schema's version and
/// whether it has any tables.
#[derive(Clone, Copy)]
pub(super) struct Marks {
    /// `PRAGMA application_id`: [`APPLICATION_ID`] for a uttt database, 0 for a new file.
    pub(super) application_id: i32,
    /// `PRAGMA user_version`: the schema's version.
    pub(super) version: i32,
    /// Objects (tables, indexes) in the file: none in a new file.
    pub(super) objects: i64,
}

impl Marks {
    pub(super) fn read(conn: &Connection) -> rusqlite::Result<Marks> {
        let pragma = |name: &str| conn.query_row(&format!("PRAGMA {name}"), [], |row| row.get(0));
        Ok(Marks {
            application_id: pragma("application_id")?,
            version: pragma("user_version")?,
            objects: conn.query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get(0))?,
        })
    }

    /// A new, empty file.
    pub(super) fn new_file(self) -> bool {
        self.application_id == 0 && self.objects == 0
    }

    /// Whether the schema must be created or brought up to date (a file of another
    /// application, or of a later uttt, is refused untouched).
    pub(super) fn need_schema(self) -> bool {
        self.new_file() || (self.application_id == APPLICATION_ID && self.version < SCHEMA_VERSION)
    }
}

/// The steps from each older schema version to the next: the SQL that brings a file of
/// version `from` to `from + 1`.
const UPGRADES: [(i32, &str); 2] = [(1, campaign::SCHEMA), (2, bounded::SCHEMA)];

/// A file as the first uttt with a database wrote it (schema version 1, the facts alone; later
/// versions added campaigns and bounded facts): the tests of the migration make old files
/// from it.
pub const SCHEMA_VERSION_1: &str = "PRAGMA application_id = 1970566260;
    PRAGMA user_version = 1;
    CREATE TABLE facts (
        position BLOB NOT NULL, attacker TEXT NOT NULL, wins INTEGER NOT NULL,
        work INTEGER NOT NULL, best_move TEXT, source TEXT NOT NULL,
        created INTEGER NOT NULL, notation TEXT NOT NULL,
        PRIMARY KEY (position, attacker)) WITHOUT ROWID;";

/// Creates the schema in a new file, or brings the schema of an older one up to date, as
/// `marks` (read within the caller's write transaction) say. Every statement creates only what
/// is missing (`IF NOT EXISTS`), so a step that another uttt began, or a file a person half
/// built, cannot fail on what is there already.
pub(super) fn build_schema(conn: &Connection, marks: Marks) -> rusqlite::Result<()> {
    let mut version = marks.version;
    if marks.new_file() {
        conn.execute_batch(&format!(
            "PRAGMA application_id = {APPLICATION_ID};
             CREATE TABLE IF NOT EXISTS facts (
                 position BLOB NOT NULL,
                 attacker TEXT NOT NULL CHECK (attacker IN ('X', 'O')),
                 wins INTEGER NOT NULL CHECK (wins IN (0, 1)),
                 work INTEGER NOT NULL,
                 best_move TEXT,
                 source TEXT NOT NULL,
                 created INTEGER NOT NULL,
                 notation TEXT NOT NULL,
                 PRIMARY KEY (position, attacker)
             ) WITHOUT ROWID;"
        ))?;
        version = 1;
    } else if marks.application_id != APPLICATION_ID {
        // Refused by the caller, untouched.
        return Ok(());
    }
    for (from, sql) in UPGRADES {
        if version == from {
            version = from + 1;
            conn.execute_batch(&format!("{sql} PRAGMA user_version = {version};"))?;
        }
    }
    Ok(())
}
