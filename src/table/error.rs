//! What can go wrong with a table: memory, the file, its lock, its contents.

use std::fmt;
use std::path::{Path, PathBuf};

/// Why a table could not be made, opened or written.
#[derive(Debug)]
pub enum TableError {
    /// The system refused the memory of an anonymous table.
    Memory {
        /// The table's size.
        bytes: u64,
        /// What the system said.
        source: std::io::Error,
    },
    /// An operation on a table file failed.
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done: open, lock, read, size, map, write.
        action: &'static str,
        /// What the system said.
        source: std::io::Error,
    },
    /// Another process holds the table file (it is locked while a table uses it).
    Locked {
        /// The file.
        path: PathBuf,
    },
    /// Reading a table file (its check as it opens, or a snapshot's load) was stopped: by the
    /// stop flag or the deadline.
    Stopped {
        /// The file.
        path: PathBuf,
    },
    /// The file is not a table file this build can read, or is damaged.
    BadFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it, as the rest of a sentence about the file.
        problem: String,
    },
}

impl TableError {
    pub(super) fn io(path: &Path, action: &'static str, source: std::io::Error) -> TableError {
        TableError::Io {
            path: path.to_path_buf(),
            action,
            source,
        }
    }
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The system's words are the error's source: `{:#}` of anyhow shows them after.
            TableError::Memory { bytes, .. } => write!(f, "cannot map a table of {bytes} bytes"),
            TableError::Io { path, action, .. } => {
                write!(f, "cannot {action} table file {}", path.display())
            }
            TableError::Locked { path } => write!(
                f,
                "table file {} is in use by another uttt process (it is locked); wait for it \
                 to finish or use another file",
                path.display()
            ),
            TableError::Stopped { path } => write!(
                f,
                "stopped while reading table file {} (the time limit ran out, or a signal \
                 came); nothing was searched",
                path.display()
            ),
            TableError::BadFile { path, problem } => {
                write!(f, "table file {} {problem}", path.display())
            }
        }
    }
}

impl std::error::Error for TableError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TableError::Memory { source, .. } | TableError::Io { source, .. } => Some(source),
            TableError::Locked { .. } | TableError::BadFile { .. } | TableError::Stopped { .. } => {
                None
            }
        }
    }
}
