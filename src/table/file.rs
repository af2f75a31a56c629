//! Table files: the header page that names the format, and reopening a file after a clean
//! shutdown or a crash.
//!
//! What a table file can protect against: a clean close writes a checksum of every entry into
//! the header, and the next open reads the whole file again and refuses it if any entry
//! changed (a damaged disk, a stray write, a copy cut short). A file left by a crash has no
//! such checksum: its entries are scanned instead, and any that a crash could leave (a lock
//! held mid-write) or that no store writes (an empty slot with contents, proof numbers no
//! search makes) are cleared. Either pass heeds the stop flag. What it cannot protect against:
//! a file written on purpose with plausible entries and a matching checksum, which may mislead
//! a search as a tampered cache may; `--verify` checks an answer with no table at all.

use super::entry::{meta_work_log, Bucket, LOCKED, LOCK_MASK, PARKED};
use super::numbers::{Numbers, INFINITY};
use super::{
    buckets_for_bytes, Table, TableError, BUCKET_BYTES, ENTRIES_PER_BUCKET, MAX_INDEX_BITS,
    MIN_BUCKETS,
};
use memmap2::MmapOptions;
use rayon::prelude::*;
use std::fs::{File, OpenOptions};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

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
/// keys became essential hashes (`Position::hash`). Version 4: the entries' checksum at a clean
/// close (the same entries as version 3, which is still read, without a checksum: a build that
/// wrote version 3 would leave a version-4 checksum stale, so it must refuse version 4).
const FILE_VERSION: u32 = 4;
/// The oldest version read: its entries are this version's, checked one by one on opening.
const OLDEST_READ_VERSION: u32 = 3;
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
    /// The checksum of the entries ([`Table::entries_checksum`]) at a clean close; files of
    /// earlier builds (and snapshots, whose entries are checked as they are loaded) have none.
    checksum: Option<u64>,
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
            checksum: None,
        }
    }

    pub(super) fn encode(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(FILE_MAGIC);
        out[8..12].copy_from_slice(&self.version.to_le_bytes());
        out[12..16].copy_from_slice(&self.layout.to_le_bytes());
        out[16..24].copy_from_slice(&self.key_seed.to_le_bytes());
        out[24..32].copy_from_slice(&self.buckets.to_le_bytes());
        out[32] = u8::from(self.clean);
        out[33] = u8::from(self.checksum.is_some());
        out[40..48].copy_from_slice(&self.checksum.unwrap_or(0).to_le_bytes());
    }

    fn decode(bytes: &[u8]) -> Option<FileHeader> {
        if bytes.len() < 48 || &bytes[..8] != FILE_MAGIC {
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
            checksum: (bytes[33] == 1).then(|| u64_at(40)),
        })
    }
}

impl Table {
    /// A table backed by the file at `path`. An existing file is reopened (its size wins over
    /// `bytes`) after its header and its entries are checked (see the module documentation):
    /// a file whose entries changed since its clean close is refused; in a file left by a
    /// crash, entries that were being written or are damaged are cleared
    /// ([`Table::cleared_on_open`] counts them). The check of a large file stops, with
    /// [`TableError::Stopped`], once `stop` is raised or `deadline` passes.
    pub fn open_file(
        path: &Path,
        bytes: u64,
        stop: &AtomicBool,
        deadline: Option<Instant>,
    ) -> Result<Table, TableError> {
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
        let header = FileHeader::current(buckets as u64, false);
        let mut table = Table {
            map,
            offset: FILE_HEADER_BYTES,
            bucket_mask: buckets as u64 - 1,
            active_mask: AtomicU64::new(buckets as u64 - 1),
            filled: AtomicU64::new(0),
            file: Some(path.to_path_buf()),
            _lock: Some(file),
            cleared_on_open: 0,
            closed_clean: false,
        };
        if !fresh {
            let found = FileHeader::decode(table.header_bytes());
            let closed_with = found
                .filter(|h| h.clean && h.version == FILE_VERSION)
                .and_then(|h| h.checksum);
            let watch = Watch { stop, deadline };
            let checked = match closed_with {
                Some(checksum) => table.entries_checksum(&watch).and_then(|sum| {
                    if sum == checksum {
                        return Ok(());
                    }
                    Err(TableError::BadFile {
                        path: path.to_path_buf(),
                        problem: "is damaged: its entries changed since it was closed (the \
                                  checksum written then does not match); delete it to start \
                                  afresh"
                            .to_string(),
                    })
                }),
                None => table
                    .clear_unsound_entries(&watch)
                    .map(|cleared| table.cleared_on_open = cleared),
            };
            if let Err(error) = checked {
                // Left as it was found: dropping the table must not mark it clean, with a
                // checksum of what was refused or only partly cleared.
                table.closed_clean = true;
                return Err(error);
            }
        }
        // Marked in use: a crash from now on leaves it unclean, and without a checksum.
        header.encode(table.header_bytes());
        table
            .map
            .flush_range(0, FILE_HEADER_BYTES)
            .map_err(|e| TableError::io(path, "write", e))?;
        Ok(table)
    }

    /// Entries a crash or damage left, cleared when the file was opened (0 for a fresh
    /// file or one closed cleanly, and for anonymous tables).
    pub fn cleared_on_open(&self) -> u64 {
        self.cleared_on_open
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
        if self.closed_clean {
            return Ok(());
        }
        let failed = |e| TableError::io(&path, "write", e);
        self.map.flush().map_err(failed)?;
        if clean {
            // The header is written whole from what the table knows, never read back: the
            // file may have been changed under the mapping by another program.
            let never = AtomicBool::new(false);
            let watch = Watch {
                stop: &never,
                deadline: None,
            };
            let mut header = FileHeader::current(self.bucket_mask + 1, true);
            header.checksum = Some(self.entries_checksum(&watch)?);
            header.encode(self.header_bytes());
            self.map.flush_range(0, FILE_HEADER_BYTES).map_err(failed)?;
            self.closed_clean = true;
        }
        Ok(())
    }

    /// A checksum of every entry's two words: each piece of [`BUCKETS_PER_PIECE`] buckets
    /// summed in four lanes (so that the multiplications overlap), the pieces on every core at
    /// once, and their sums folded in order (so the checksum is the same on any machine).
    fn entries_checksum(&self, watch: &Watch) -> Result<u64, TableError> {
        let pieces = self.each_piece(watch, |piece| {
            let mut lanes = [0u64; ENTRIES_PER_BUCKET];
            for bucket in piece {
                for (lane, entry) in lanes.iter_mut().zip(&bucket.entries) {
                    for word in [&entry.meta, &entry.numbers] {
                        *lane = mix(*lane, word.load(Ordering::Relaxed));
                    }
                }
            }
            lanes.into_iter().fold(0, mix)
        })?;
        Ok(pieces.into_iter().fold(0, mix))
    }

    /// Empties every entry that is not sound (see [`entry_is_sound`]): after a crash, entries
    /// may hold a taken lock or half-written numbers, and a damaged file anything at all.
    /// Returns how many were emptied.
    fn clear_unsound_entries(&self, watch: &Watch) -> Result<u64, TableError> {
        let pieces = self.each_piece(watch, |piece| {
            let mut cleared = 0;
            for entry in piece.iter().flat_map(|bucket| &bucket.entries) {
                let meta = entry.meta.load(Ordering::Relaxed);
                if !entry_is_sound(meta, entry.numbers.load(Ordering::Relaxed)) {
                    entry.meta.store(0, Ordering::Relaxed);
                    entry.numbers.store(0, Ordering::Relaxed);
                    cleared += 1;
                }
            }
            cleared
        })?;
        Ok(pieces.into_iter().sum())
    }

    /// `each` of every piece of [`BUCKETS_PER_PIECE`] buckets, in order, run on every core
    /// (a pass over a large file is bound by memory and page faults, which cores share out);
    /// stopped, with [`TableError::Stopped`], once `watch` says so.
    fn each_piece<T: Send>(
        &self,
        watch: &Watch,
        each: impl Fn(&[Bucket]) -> T + Sync,
    ) -> Result<Vec<T>, TableError> {
        let results: Vec<Option<T>> = self
            .buckets()
            .par_chunks(BUCKETS_PER_PIECE)
            .enumerate()
            .map(|(index, piece)| {
                if watch.must_stop() {
                    return None;
                }
                self.populate(index * BUCKETS_PER_PIECE, piece.len());
                Some(each(piece))
            })
            .collect();
        match (results.iter().all(Option::is_some), &self.file) {
            (false, Some(path)) => Err(TableError::Stopped { path: path.clone() }),
            _ => Ok(results.into_iter().flatten().collect()),
        }
    }
}

impl Table {
    /// Maps the pages of `count` buckets from bucket `first` in one call, rather than a page
    /// fault at a time (about half a pass's time over a file in the page cache). Advisory: a
    /// system without the call faults them in as the pass reads them.
    #[cfg(target_os = "linux")]
    fn populate(&self, first: usize, count: usize) {
        let offset = self.offset + first * BUCKET_BYTES;
        let advice = memmap2::Advice::PopulateRead;
        let _ = self.map.advise_range(advice, offset, count * BUCKET_BYTES);
    }

    #[cfg(not(target_os = "linux"))]
    fn populate(&self, _first: usize, _count: usize) {}
}

/// One step of the checksum: `word` folded into `sum`.
fn mix(sum: u64, word: u64) -> u64 {
    (sum ^ word)
        .wrapping_mul(CHECKSUM_MULTIPLIER)
        .rotate_left(31)
}

/// An odd multiplier with well-spread bits (the golden ratio's fraction in 64 bits).
const CHECKSUM_MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;
/// Buckets in one piece of a pass over a file (4 MiB): the stop flag and the clock are looked
/// at before each.
const BUCKETS_PER_PIECE: usize = 1 << 16;

/// When a pass over a table file must stop.
struct Watch<'a> {
    stop: &'a AtomicBool,
    deadline: Option<Instant>,
}

impl Watch<'_> {
    /// Whether a pass must stop now.
    fn must_stop(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// Whether an entry's words are what the table's writers leave at rest: no lock taken or
/// writer parked, an empty slot all zero (no store ever empties a slot, and a write always
/// records its work), and proof numbers that a search makes: a solved node is exactly (0, ∞)
/// or (∞, 0), since every sum saturates below ∞ (see [`crate::table::numbers`]), and only a
/// solved node has a number of 0 or ∞.
pub(super) fn entry_is_sound(meta: u64, numbers: u64) -> bool {
    if meta & (LOCKED | PARKED) != 0 {
        return false;
    }
    if meta_work_log(meta) == 0 {
        return meta & !LOCK_MASK == 0 && numbers == 0;
    }
    let Numbers { phi, delta } = Numbers::unpack(numbers);
    let solved = phi == 0 || delta == 0 || phi == INFINITY || delta == INFINITY;
    !solved
        || Numbers::unpack(numbers) == Numbers::PROVED
        || Numbers::unpack(numbers) == Numbers::DISPROVED
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
    if !(OLDEST_READ_VERSION..=FILE_VERSION).contains(&header.version) {
        return bad(format!(
            "has format version {}, this uttt reads versions {OLDEST_READ_VERSION} to \
             {FILE_VERSION}",
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
