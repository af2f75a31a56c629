//! The schema of a database file: what a file's marks say it is, the preparation of a file
//! when it is opened, and the creation of the schema in a new file or its migration from an
//! older version, step by step.

use super::{bounded, campaign, Database, DbError, APPLICATION_ID, SCHEMA_VERSION};
use rusqlite::Connection;
use std::time::{Duration, Instant};

/// How long a writer waits for another process's transaction before giving up (unless told
/// otherwise: see [`Database::store_waiting`]).
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Whether SQLite said the file is locked by another connection.
fn is_busy(error: &rusqlite::Error) -> bool {
    matches!(
        error,
        rusqlite::Error::SqliteFailure(failure, _)
            if failure.code == rusqlite::ErrorCode::DatabaseBusy
    )
}

impl Database {
    /// Checks the file's marks, creating the schema in a new file and bringing an older one
    /// up to [`SCHEMA_VERSION`].
    ///
    /// When two processes open one file together, SQLite now and then answers "database is
    /// locked" at once instead of waiting on its busy handler (while one connection switches
    /// the file to the write-ahead log, the other's read of it cannot wait). Every step here
    /// is safe to repeat once any transaction left open is rolled back, so the whole
    /// preparation is tried again then, until the busy timeout.
    pub(super) fn prepare(&self) -> Result<(), DbError> {
        let started = Instant::now();
        loop {
            match self.try_prepare() {
                Err(DbError::Query { source, .. })
                    if is_busy(&source) && started.elapsed() < BUSY_TIMEOUT =>
                {
                    // A COMMIT that found the file busy leaves its transaction open: it is
                    // rolled back, so that the next try starts from nothing.
                    let conn = self.connection();
                    if !conn.is_autocommit() {
                        let _ = conn.execute_batch("ROLLBACK");
                    }
                    drop(conn);
                    std::thread::sleep(Duration::from_millis(20));
                }
                done => return done,
            }
        }
    }

    /// One try of [`Database::prepare`].
    fn try_prepare(&self) -> Result<(), DbError> {
        let not_ours = |problem: String| DbError::NotADatabase {
            path: self.path.clone(),
            problem,
        };
        let conn = self.connection();
        // Before the first read: another process may be writing the file (a campaign beside a
        // solve), or creating or migrating it at this moment.
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| self.query_error(e))?;
        // The first read of a file that is not SQLite fails here ("file is not a database");
        // a file that is locked is SQLite, and is tried again; one whose directory does not
        // let SQLite make its log files beside it is named for that.
        let marks = Marks::read(&conn).map_err(|e| match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::NotADatabase) => not_ours(e.to_string()),
            Some(rusqlite::ErrorCode::CannotOpen | rusqlite::ErrorCode::ReadOnly)
                if self.directory_is_read_only() =>
            {
                DbError::ReadOnlyDirectory {
                    path: self.path.clone(),
                    directory: self.directory().to_path_buf(),
                }
            }
            _ => self.query_error(e),
        })?;
        if marks.need_schema() {
            // Two processes may open a new or old file at once (`uttt serve` and `uttt
            // campaign run`). The write lock is taken before the marks are read again, so one
            // of them builds the schema while the other waits (the busy timeout) and then
            // finds it built: no step runs twice, and none sees a half-built schema.
            conn.execute_batch("BEGIN IMMEDIATE")
                .map_err(|e| self.query_error(e))?;
            let built = Marks::read(&conn).and_then(|marks| build_schema(&conn, marks));
            let end = if built.is_ok() { "COMMIT" } else { "ROLLBACK" };
            let ended = conn.execute_batch(end);
            built.and(ended).map_err(|e| self.query_error(e))?;
        }
        let Marks {
            application_id,
            version,
            ..
        } = Marks::read(&conn).map_err(|e| self.query_error(e))?;
        if application_id != APPLICATION_ID {
            return Err(not_ours(format!(
                "a SQLite database of another application (application_id {application_id:#x})"
            )));
        }
        if version != SCHEMA_VERSION {
            return Err(not_ours(format!(
                "schema version {version}, this uttt reads version {SCHEMA_VERSION}"
            )));
        }
        conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .map_err(|e| self.query_error(e))?;
        // With the write-ahead log, NORMAL syncs at checkpoints only: a commit survives the
        // process being killed (the log is in the system's cache), and the file stays
        // consistent after a power cut, which may lose the last commits. FULL would sync every
        // commit: a campaign commits each merged job, and waited on the disk more than it
        // searched.
        conn.execute_batch("PRAGMA synchronous = NORMAL")
            .map_err(|e| self.query_error(e))?;
        Ok(())
    }
}

impl Database {
    /// The directory the file is in.
    fn directory(&self) -> &std::path::Path {
        match self.path.parent() {
            Some(directory) if !directory.as_os_str().is_empty() => directory,
            _ => std::path::Path::new("."),
        }
    }

    /// Whether this process may not create files in the file's directory.
    #[cfg(unix)]
    fn directory_is_read_only(&self) -> bool {
        use std::os::unix::ffi::OsStrExt;
        let Ok(name) = std::ffi::CString::new(self.directory().as_os_str().as_bytes()) else {
            return false;
        };
        // SAFETY: a valid C string; `access` reads nothing else.
        unsafe { libc::access(name.as_ptr(), libc::W_OK) != 0 }
    }

    #[cfg(not(unix))]
    fn directory_is_read_only(&self) -> bool {
        false
    }
}

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
const UPGRADES: [(i32, &str); 4] = [
    (1, campaign::SCHEMA),
    (2, bounded::SCHEMA),
    (3, campaign::guide::SCHEMA),
    (4, campaign::lease::SCHEMA),
];

/// A file as the first uttt with a database wrote it (schema version 1, the facts alone; later
/// versions added campaigns, bounded facts and campaigns' own guides): the tests of the
/// migration make old files from it.
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
