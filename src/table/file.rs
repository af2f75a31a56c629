//! Table files: the header page that names the format, and reopening a file after a clean
//! shutdown or a crash.

use super::entry::{LOCKED, PARKED};
use super::{
    buckets_for_bytes, Table, TableError, BUCKET_BYTES, ENTRIES_PER_BUCKET, MAX_INDEX_BITS,
    MIN_BUCKETS,
};
use memmap2::MmapOptions;
use std::fs::{File, OpenOptions};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Reserves the blocks of the first `size` bytes of `file`, so that a filesystem without room
/// for them refuses now, with a message, rather than later: a sparse mapping whose first write
/// to a page finds no room kills the process with SIGBUS. A filesystem that cannot reserve
/// (the call is not supported there) keeps the file sparse, as before, and so does a system
/// without the call.
#[cfg(target_os = "linux")]
pub(super) fn reserve(file: &File, size: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let Ok(length) = libc::off_t::try_from(size) else {
        return Err(std::io::Error::from_raw_os_error(libc::EFBIG));
    };
    // SAFETY: the descriptor is open for writing and stays open for the call; the call reads
    // and writes no memory of this process.
    let result = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, length) };
    match result {
        0 | libc::EOPNOTSUPP | libc::EINVAL => Ok(()),
        error => Err(std::io::Error::from_raw_os_error(error)),
    }
}

#[cfg(not(target_os = "linux"))]
pub(super) fn reserve(_file: &File, _size: u64) -> std::io::Result<()> {
    Ok(())
}

/// Bytes of the header page at the start of a table file.
pub const FILE_HEADER_BYTES: usize = 4096;

const FILE_MAGIC: &[u8; 8] = b"UTTT-TT\0";
/// Version 2: the key of "does O win?" entries changed (see `crate::search::table_key`). Version 3:
/// keys became essential hashes (`Position::hash`).
const FILE_VERSION: u32 = 3;
/// Describes the entry layout in the header, so a file of another layout is refused.
const FILE_LAYOUT: u32 = (BUCKET_BYTES as u32) << 16 | (ENTRIES_PER_BUCKET as u32) << 8 | 16;

/// The table's fixed header fields, as stored at the start of a table file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct FileHeader {
    version: u32,
    layout: u32,
    key_seed: u64,
    buckets: u64,
    clean: bool,
}

impl FileHeader {
    /// The header of a table file of this build's format with `buckets` buckets.
    pub(super) fn current(buckets: u64, clean: bool) -> FileHeader {
        FileHeader {
            version: FILE_VERSION,
            layout: FILE_LAYOUT,
            key_seed: crate::game::tables::ZOBRIST_SEED,
            buckets,
            clean,
        }
    }

    pub(super) fn encode(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(FILE_MAGIC);
        out[8..12].copy_from_slice(&self.version.to_le_bytes());
        out[12..16].copy_from_slice(&self.layout.to_le_bytes());
        out[16..24].copy_from_slice(&self.key_seed.to_le_bytes());
        out[24..32].copy_from_slice(&self.buckets.to_le_bytes());
        out[32] = u8::from(self.clean);
    }

    fn decode(bytes: &[u8]) -> Option<FileHeader> {
        if bytes.len() < 33 || &bytes[..8] != FILE_MAGIC {
            return None;
        }
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
        let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap());
        Some(FileHeader {
            version: u32_at(8),
            layout: u32_at(12),
            key_seed: u64_at(16),
            buckets: u64_at(24),
            clean: bytes[32] == 1,
        })
    }
}

impl Table {
    /// A table backed by the file at `path`. An existing file is reopened (its size wins over
    /// `bytes`) after its header is checked; a missing or empty file is created with `bytes`.
    /// A file left by a crash is accepted, but entries that were being written are cleared.
    pub fn open_file(path: &Path, bytes: u64) -> Result<Table, TableError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| TableError::io(path, "open", e))?;
        // An OS lock: a second process on the same file would mix two searches' writes and
        // make the clean-shutdown flag meaningless. It is released when the file is closed,
        // also when the process dies.
        file.try_lock().map_err(|e| match e {
            std::fs::TryLockError::WouldBlock => TableError::Locked {
                path: path.to_path_buf(),
            },
            std::fs::TryLockError::Error(e) => TableError::io(path, "lock", e),
        })?;
        let len = file
            .metadata()
            .map_err(|e| TableError::io(path, "read", e))?
            .len();
        let fresh = len == 0;
        let buckets = if fresh {
            let buckets = buckets_for_bytes(bytes);
            let size = (FILE_HEADER_BYTES + buckets * BUCKET_BYTES) as u64;
            file.set_len(size)
                .map_err(|e| TableError::io(path, "size", e))?;
            reserve(&file, size).map_err(|e| {
                // Left empty, as it was found (or as it was created).
                let _ = file.set_len(0);
                TableError::io(path, "reserve the space of", e)
            })?;
            buckets
        } else {
            check_file(path, &file, len)?
        };
        // A raw mapping hands out pointers only; every access goes through the atomics of
        // `Bucket` or, for the header, through `header_bytes` while no other thread runs.
        let map = MmapOptions::new()
            .map_raw(&file)
            .map_err(|e| TableError::io(path, "map", e))?;
        let mut header = FileHeader::current(buckets as u64, false);
        let mut table = Table {
            map,
            offset: FILE_HEADER_BYTES,
            bucket_mask: buckets as u64 - 1,
            active_mask: AtomicU64::new(buckets as u64 - 1),
            filled: AtomicU64::new(0),
            file: Some(path.to_path_buf()),
            _lock: Some(file),
        };
        let was_clean = fresh || FileHeader::decode(table.header_bytes()).is_some_and(|h| h.clean);
        header.clean = false;
        header.encode(table.header_bytes());
        table
            .map
            .flush_range(0, FILE_HEADER_BYTES)
            .map_err(|e| TableError::io(path, "write", e))?;
        if !was_clean {
            table.clear_interrupted_writes();
        }
        Ok(table)
    }

    /// The header page of a table file, for this thread alone (`&mut self`).
    fn header_bytes(&mut self) -> &mut [u8] {
        debug_assert!(self.file.is_some() && self.map.len() >= FILE_HEADER_BYTES);
        // SAFETY: a file mapping starts with the header page; `&mut self` means no other
        // reference into the mapping is in use, and the slice lives no longer than `self`.
        unsafe { std::slice::from_raw_parts_mut(self.map.as_mut_ptr(), FILE_HEADER_BYTES) }
    }

    /// Writes a file-backed table to disk. With `clean`, the header then records a clean
    /// shutdown (only when no thread will use the table again). Nothing for anonymous tables.
    pub fn flush(&mut self, clean: bool) -> Result<(), TableError> {
        let Some(path) = self.file.clone() else {
            return Ok(());
        };
        let failed = |e| TableError::io(&path, "write", e);
        self.map.flush().map_err(failed)?;
        if clean {
            let mut header = FileHeader::decode(self.header_bytes()).expect("header");
            header.clean = true;
            header.encode(self.header_bytes());
            self.map.flush_range(0, FILE_HEADER_BYTES).map_err(failed)?;
        }
        Ok(())
    }

    /// After a crash, entries may hold a taken lock or half-written numbers: empty them.
    fn clear_interrupted_writes(&self) {
        for bucket in self.buckets() {
            for entry in &bucket.entries {
                if entry.meta.load(Ordering::Relaxed) & (LOCKED | PARKED) != 0 {
                    entry.meta.store(0, Ordering::Relaxed);
                    entry.numbers.store(0, Ordering::Relaxed);
                }
            }
        }
    }
}

/// Checks an existing table file's header and size; returns its bucket count.
pub(super) fn check_file(path: &Path, file: &File, len: u64) -> Result<usize, TableError> {
    let bad = |problem: String| {
        Err(TableError::BadFile {
            path: path.to_path_buf(),
            problem,
        })
    };
    if len < FILE_HEADER_BYTES as u64 {
        return bad(format!("is truncated ({len} bytes, not even a header)"));
    }
    let mut bytes = vec![0u8; 64];
    use std::io::Read;
    (&*file)
        .read_exact(&mut bytes)
        .map_err(|e| TableError::io(path, "read", e))?;
    let Some(header) = FileHeader::decode(&bytes) else {
        return bad("is not a uttt table file (bad magic)".to_string());
    };
    if header.version != FILE_VERSION {
        return bad(format!(
            "has format version {}, this uttt reads version {FILE_VERSION}",
            header.version
        ));
    }
    if header.layout != FILE_LAYOUT {
        return bad(format!(
            "has another entry layout ({:#x}, expected {FILE_LAYOUT:#x})",
            header.layout
        ));
    }
    if header.key_seed != crate::game::tables::ZOBRIST_SEED {
        return bad(format!(
            "was written with other hash keys (seed {:#x})",
            header.key_seed
        ));
    }
    let buckets = header.buckets;
    if buckets < MIN_BUCKETS as u64 || buckets > 1 << MAX_INDEX_BITS || !buckets.is_power_of_two() {
        return bad(format!("is damaged: bucket count {buckets} is not a power of two from {MIN_BUCKETS} to 2^{MAX_INDEX_BITS}"));
    }
    let expected = FILE_HEADER_BYTES as u64 + buckets * BUCKET_BYTES as u64;
    if len != expected {
        return bad(format!(
            "is truncated or damaged: {len} bytes, the header says {expected}"
        ));
    }
    Ok(buckets as usize)
}
