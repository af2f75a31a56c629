//! What can go wrong with the database, as one typed error.

use super::Fact;
use std::fmt;
use std::path::PathBuf;

/// Why the database could not do what was asked.
#[derive(Debug)]
pub enum DbError {
    /// The file could not be opened or created.
    Open {
        /// The file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// The file is not a uttt database (another SQLite database, or not SQLite at all).
    NotADatabase {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// The file's directory is read-only: SQLite keeps its write-ahead log beside the file
    /// (`NAME-wal`, `NAME-shm`), so even reading needs to create files there.
    ReadOnlyDirectory {
        /// The file.
        path: PathBuf,
        /// Its directory.
        directory: PathBuf,
    },
    /// The file does not exist (for commands that read an existing database).
    Missing {
        /// The file.
        path: PathBuf,
    },
    /// A query failed.
    Query {
        /// The file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// A fact contradicts one already stored: one of them is wrong, which means a bug.
    Contradiction {
        /// The fact offered.
        offered: Box<Fact>,
    },
}

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DbError::Open { path, .. } => write!(f, "cannot open database {}", path.display()),
            DbError::NotADatabase { path, problem } => {
                write!(f, "{} is not a uttt database: {problem}", path.display())
            }
            DbError::Missing { path } => write!(f, "database {} does not exist", path.display()),
            DbError::ReadOnlyDirectory { path, directory } => write!(
                f,
                "cannot use database {}: its directory {} is read-only, and SQLite keeps its \
                 write-ahead log beside the file (copy it to a writable directory)",
                path.display(),
                directory.display()
            ),
            DbError::Query { path, .. } => write!(f, "database {}", path.display()),
            DbError::Contradiction { offered } => write!(
                f,
                "contradictory facts: \"does {} win?\" is answered {} in the database and {} \
                 here, in {} (a bug: please report it)",
                offered.attacker.letter(),
                if offered.wins { "no" } else { "yes" },
                if offered.wins { "yes" } else { "no" },
                offered.position
            ),
        }
    }
}

impl std::error::Error for DbError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DbError::Open { source, .. } | DbError::Query { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl DbError {
    /// The message followed by its causes (what SQLite said), for a report that keeps only
    /// text.
    pub fn with_causes(&self) -> String {
        let mut text = self.to_string();
        let mut cause = std::error::Error::source(self);
        while let Some(error) = cause {
            text += &format!(": {error}");
            cause = error.source();
        }
        text
    }
}
