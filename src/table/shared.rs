//! Tables shared by the processes of one machine: a file in memory (a tmpfs such as
//! `/dev/shm`) that each process maps, so that every search thread of every process reads and
//! writes the same entries. The worker ranks of an MPI run on one machine share their table
//! this way (see `crate::distributed`).
//!
//! Why this is sound: an entry is two atomic words, read and written by the protocol of
//! `entry.rs`, and the processor's atomics act on memory, not on a process's addresses, so the
//! protocol holds between processes as between threads. The one process-local part is the
//! parking of a writer that waits for an entry: a process cannot wake a thread of another, so
//! a parked writer also wakes by itself after a short while (see `entry.rs`).
//!
//! Unlike a table file (`file.rs`), a shared table has no header and is never reopened: it
//! lives while some process maps it, and is deleted from the file system as soon as every
//! process has mapped it. It uses all its buckets from the start, as a table file does, since
//! its processes could not agree on growing it.

use super::file::reserve;
use super::{
    advise_huge_pages, buckets_for_bytes, Table, TableError, BUCKET_BYTES, MAX_INDEX_BITS,
    MIN_BUCKETS,
};
use memmap2::MmapOptions;
use std::fs::{File, OpenOptions};
use std::path::Path;
use std::sync::atomic::AtomicU64;

impl Table {
    /// Creates a table of at most `bytes` bytes (rounded down as [`Table::new`] rounds) in a
    /// new file at `path`, which must not exist, for other processes of this machine to map
    /// with [`Table::open_shared`]. The space is reserved now, so that a file system without
    /// room for it refuses here rather than with a SIGBUS later. The caller deletes the file
    /// once every process has mapped it; the table lives on in the mappings.
    pub fn create_shared(path: &Path, bytes: u64) -> Result<Table, TableError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| TableError::io(path, "create", e))?;
        let size = (buckets_for_bytes(bytes) * BUCKET_BYTES) as u64;
        let sized = file
            .set_len(size)
            .map_err(|e| TableError::io(path, "size", e))
            .and_then(|()| {
                reserve(&file, size).map_err(|e| TableError::io(path, "reserve the space of", e))
            });
        if let Err(error) = sized {
            let _ = std::fs::remove_file(path);
            return Err(error);
        }
        map_shared(path, &file, size)
    }

    /// Maps the table another process of this machine made with [`Table::create_shared`] at
    /// `path`.
    pub fn open_shared(path: &Path) -> Result<Table, TableError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| TableError::io(path, "open", e))?;
        let size = file
            .metadata()
            .map_err(|e| TableError::io(path, "read", e))?
            .len();
        map_shared(path, &file, size)
    }
}

/// Maps `file`, of `size` bytes, as a shared table.
fn map_shared(path: &Path, file: &File, size: u64) -> Result<Table, TableError> {
    let buckets = size / BUCKET_BYTES as u64;
    let whole_buckets = size.is_multiple_of(BUCKET_BYTES as u64);
    if !whole_buckets
        || !buckets.is_power_of_two()
        || buckets < MIN_BUCKETS as u64
        || buckets > 1 << MAX_INDEX_BITS
    {
        return Err(TableError::BadFile {
            path: path.to_path_buf(),
            problem: format!(
                "is not a shared table: {size} bytes is not a power of two of {BUCKET_BYTES}-byte \
                 buckets, from {MIN_BUCKETS} to 2^{MAX_INDEX_BITS} of them"
            ),
        });
    }
    // A raw mapping hands out pointers only; every access goes through the atomics of
    // `Bucket`.
    let map = MmapOptions::new()
        .map_raw(file)
        .map_err(|e| TableError::io(path, "map", e))?;
    advise_huge_pages(&map);
    Ok(Table {
        map,
        offset: 0,
        bucket_mask: buckets - 1,
        active_mask: AtomicU64::new(buckets - 1),
        filled: AtomicU64::new(0),
        file: None,
        _lock: None,
        cleared_on_open: 0,
        closed_clean: false,
    })
}
