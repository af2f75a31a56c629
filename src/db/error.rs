//! What can go wrong with the database, as one typed error.

use super::campaign::lease::LeaseHolder;
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
    /// Another live process runs the campaign (holds its lease): one writer at a time.
    CampaignBusy {
        /// The file.
        path: PathBuf,
        /// The process that runs it.
        holder: LeaseHolder,
    },
    /// This run no longer holds its campaign's lease (another process took it over, taking
    /// this one for gone), so it writes nothing more.
    LeaseLost {
        /// The file.
        path: PathBuf,
        /// Who holds it now, if anyone.
        holder: Option<LeaseHolder>,
    },
    /// A campaign's kept tree cannot be taken whole by the search.
    DamagedTree {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        defect: String,
    },
}

/// "process 123 on host h (for 40 s)".
fn holder_words(holder: &LeaseHolder) -> String {
    format!(
        "process {} on host {} (for {} s)",
        holder.pid,
        if holder.host.is_empty() {
            "?"
        } else {
            &holder.host
        },
        super::now_seconds().saturating_sub(holder.taken)
    )
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
            DbError::CampaignBusy { path, holder } => write!(
                f,
                "the campaign is being run in database {} by {}: one run at a time writes a \
                 campaign's tree (wait for it to end, or stop it; a run that was killed leaves \
                 a lease the next run takes over)",
                path.display(),
                holder_words(holder)
            ),
            DbError::LeaseLost { path, holder } => match holder {
                Some(holder) => write!(
                    f,
                    "this run no longer holds the campaign's lease in database {} ({} took it \
                     over): it stopped writing its tree (what it committed is kept)",
                    path.display(),
                    holder_words(holder)
                ),
                None => write!(
                    f,
                    "this run does not hold the campaign's lease in database {} (another \
                     process took it over, or it never took it): it writes nothing to its tree",
                    path.display()
                ),
            },
            DbError::DamagedTree { path, defect } => write!(
                f,
                "the campaign's kept tree in database {} is damaged ({defect}): `uttt campaign \
                 reset` with the same position and --db drops the kept trees and starts them \
                 anew (the facts it settled are kept, and answer at once)",
                path.display()
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
