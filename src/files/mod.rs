//! The files a command reads and writes, kept from hurting one another: no output may be one
//! of the run's inputs ([`check_distinct`]), every output is written beside its target and
//! renamed over it ([`Replacement`]), what a killed process left half written is removed by the
//! next run ([`remove_stale_parts`]), and input is read in bounded pieces ([`lines`]).
//!
//! A leaf of the house: it knows the file system only, so that the table, the certificate
//! checker, the services and the command line can all use it.

pub mod lines;
mod replace;

pub use replace::{
    check_writable, part_of, remove_files_of_gone_processes, remove_stale_parts, Replacement,
};

use std::fmt;
use std::path::{Path, PathBuf};

/// One path a command was given, with what it is for.
#[derive(Clone, Copy, Debug)]
pub struct NamedPath<'a> {
    /// How the user named it: the option (`--db`) or argument (`FILE`).
    pub name: &'static str,
    /// The path as given.
    pub path: &'a Path,
    /// Whether the run writes (or may create, replace or change) the file.
    pub written: bool,
}

impl<'a> NamedPath<'a> {
    /// A file the run only reads.
    pub fn read(name: &'static str, path: &'a Path) -> NamedPath<'a> {
        NamedPath {
            name,
            path,
            written: false,
        }
    }

    /// A file the run writes (it may read it too).
    pub fn written(name: &'static str, path: &'a Path) -> NamedPath<'a> {
        NamedPath {
            name,
            path,
            written: true,
        }
    }
}

/// Two of a command's paths name one file, and the run would write it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SameFile {
    /// The first path's name and spelling.
    pub first: (&'static str, PathBuf),
    /// The second path's name and spelling.
    pub second: (&'static str, PathBuf),
}

impl fmt::Display for SameFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ((first, first_path), (second, second_path)) = (&self.first, &self.second);
        write!(
            f,
            "{first} {} and {second} {} are the same file: writing one would destroy the other; \
             name another file",
            first_path.display(),
            second_path.display()
        )
    }
}

impl std::error::Error for SameFile {}

/// Where a path leads, compared by what it is rather than by how it is spelled: an existing
/// file by its device and inode (so that links, `./x` and `../dir/x` all match), a file yet to
/// be created by its directory's identity and its name.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Identity {
    Existing {
        device: u64,
        inode: u64,
    },
    New {
        directory: Box<Identity>,
        name: std::ffi::OsString,
    },
    /// A path whose directory cannot be looked at: compared by its spelling.
    Spelled(PathBuf),
}

fn identity(path: &Path) -> Identity {
    if let Ok(metadata) = std::fs::metadata(path) {
        return existing(&metadata);
    }
    let (Some(name), parent) = (path.file_name(), path.parent()) else {
        return Identity::Spelled(path.to_path_buf());
    };
    let directory = match parent {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    match std::fs::metadata(directory) {
        Ok(metadata) => Identity::New {
            directory: Box::new(existing(&metadata)),
            name: name.to_os_string(),
        },
        Err(_) => Identity::Spelled(path.to_path_buf()),
    }
}

#[cfg(unix)]
fn existing(metadata: &std::fs::Metadata) -> Identity {
    use std::os::unix::fs::MetadataExt;
    Identity::Existing {
        device: metadata.dev(),
        inode: metadata.ino(),
    }
}

#[cfg(not(unix))]
fn existing(_metadata: &std::fs::Metadata) -> Identity {
    // Without inode numbers every existing file is its own; canonical spellings would be next.
    Identity::Spelled(PathBuf::new())
}

/// Refuses a run in which a file it writes is also another of its files (an input, or a
/// second output), by file identity: `--certificate x.db` beside `--db x.db` would otherwise
/// replace the database with a certificate. Call it before anything is opened for writing.
/// Two paths that are only read may name one file.
pub fn check_distinct(paths: &[NamedPath]) -> Result<(), SameFile> {
    let identities: Vec<Identity> = paths.iter().map(|named| identity(named.path)).collect();
    for (i, first) in paths.iter().enumerate() {
        for (j, second) in paths.iter().enumerate().skip(i + 1) {
            if (first.written || second.written) && identities[i] == identities[j] {
                return Err(SameFile {
                    first: (first.name, first.path.to_path_buf()),
                    second: (second.name, second.path.to_path_buf()),
                });
            }
        }
    }
    Ok(())
}

/// Whether `path` is the file `name` in the directory `directory` (both by identity), for
/// outputs whose names are made inside a directory (a batch's `line-N.cert`).
pub fn is_in_directory(path: &Path, directory: &Path, name: impl Fn(&str) -> bool) -> bool {
    // An existing file where its links lead; one yet to be made where it will be.
    let real = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let Some(file) = real.file_name() else {
        return false;
    };
    let parent = match real.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    file.to_str().is_some_and(name) && identity(parent) == identity(directory)
}

#[cfg(test)]
pub(crate) mod scratch;
#[cfg(test)]
mod tests;
