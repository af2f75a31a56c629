//! The transposition table: a concurrent, lock-free-for-readers cache of proof numbers in an
//! anonymous or file-backed memory mapping.
//!
//! Layout: a power-of-two number of 64-byte buckets (one cache line each), four 16-byte
//! entries per bucket. An entry is two atomic words:
//!
//! * `meta`: bits 0..16 the lock word (bit 0 = a writer holds the entry, bit 1 = a writer is
//!   parked waiting for it, bits 2..16 a write counter), bits 16..58 a 42-bit tag from the key,
//!   bits 58..64 the log2 of the work spent on the entry (0 = empty slot).
//! * `numbers`: φ in the low 32 bits, δ in the high 32 bits.
//!
//! Readers never lock: they read `meta`, the numbers, and `meta` again, and retry if a write
//! was in progress or happened in between (a sequence lock). Writers take the lock bit with a
//! compare-and-swap, spin briefly when it is taken, then park through `parking_lot_core`.
//!
//! Growth: an anonymous table starts by using only its first [`INITIAL_ACTIVE_BYTES`] and
//! doubles the part in use (the *active* buckets) whenever half of the active entries have
//! been filled, up to the whole mapping. Memory is only touched (and zeroed by the kernel) as
//! the table grows, so a small solve with a large table costs what a small table would. When
//! the active part doubles, an entry whose key now selects the other half stays where it was
//! and is no longer found: lost cache, never a wrong answer (the tag comparison below holds
//! for every active size, which is never below [`MIN_BUCKETS`]). Table files do not grow: they
//! use all their buckets from the start, so a rerun finds every entry where it left it.
//!
//! A key is the position's 64-bit hash mixed with the question's attacker. The bucket index
//! uses the low bits and the tag the high 42 bits, so a lookup compares at least 52 key bits
//! (the smallest table has 1024 buckets) against four entries: a false match has probability
//! at most 4 · 2⁻⁵² ≈ 9 · 10⁻¹⁶ per lookup, about one in a thousand over 10¹² lookups.

use super::numbers::Numbers;
use anyhow::{bail, Context};
use memmap2::{MmapOptions, MmapRaw};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes per bucket: one cache line.
pub const BUCKET_BYTES: usize = 64;
/// Entries per bucket.
pub const ENTRIES_PER_BUCKET: usize = 4;
/// The smallest table: 1024 buckets (64 KiB).
pub const MIN_BUCKETS: usize = 1024;
/// The most index bits a table uses (2⁴⁰ buckets, 64 TiB). Key bits above them only reach
/// the tag, so keys that differ only there share a bucket but never a tag (see
/// `search::table_key`).
pub const MAX_INDEX_BITS: u32 = 40;
/// The part of an anonymous table in use at the start (see the module documentation).
pub const INITIAL_ACTIVE_BYTES: u64 = 4 << 20;
/// The default table size of the command line.
pub const DEFAULT_TABLE_BYTES: u64 = 1 << 30;
/// Stores into empty slots a searcher counts before reporting them to the table (so the
/// shared fill counter is touched once per this many, not on every store).
const FILL_REPORT_BATCH: u64 = 256;
/// Bytes of the header page at the start of a table file.
pub const FILE_HEADER_BYTES: usize = 4096;

const FILE_MAGIC: &[u8; 8] = b"UTTT-TT\0";
/// Version 2: the key of "does O win?" entries changed (see `search::table_key`). Version 3:
/// keys became essential hashes (`Position::hash`).
const FILE_VERSION: u32 = 3;
/// Describes the entry layout in the header, so a file of another layout is refused.
const FILE_LAYOUT: u32 = (BUCKET_BYTES as u32) << 16 | (ENTRIES_PER_BUCKET as u32) << 8 | 16;

const LOCKED: u64 = 1;
const PARKED: u64 = 2;
const LOCK_MASK: u64 = 0xFFFF;
const COUNTER_STEP: u64 = 4;
const TAG_SHIFT: u32 = 16;
const TAG_BITS: u32 = 42;
const TAG_MASK: u64 = (1 << TAG_BITS) - 1;
const WORK_SHIFT: u32 = 58;
// Every key bit from MAX_INDEX_BITS up is part of the tag.
const _: () = assert!(MAX_INDEX_BITS >= 64 - TAG_BITS);
/// How much a solved entry outweighs an unsolved one of the same work when choosing a victim,
/// as a power of two.
const SOLVED_BONUS_LOG: u64 = 64;
/// Spins before a writer parks.
const SPIN_LIMIT: u32 = 64;

#[repr(C)]
struct Entry {
    meta: AtomicU64,
    numbers: AtomicU64,
}

#[repr(C, align(64))]
struct Bucket {
    entries: [Entry; ENTRIES_PER_BUCKET],
}

const _: () = assert!(std::mem::size_of::<Bucket>() == BUCKET_BYTES);

/// Counters of one searcher's table traffic (kept per thread, summed at the end, so the hot
/// path never contends on shared counters).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableCounters {
    /// Lookups made.
    pub lookups: u64,
    /// Lookups that found the position.
    pub hits: u64,
    /// Stores made.
    pub stores: u64,
    /// Stores that evicted another position's entry.
    pub replacements: u64,
    /// Stores into empty slots (they drive the table's growth).
    #[serde(default)]
    pub fills: u64,
}

impl TableCounters {
    /// Adds another searcher's counters.
    pub fn add(&mut self, other: &TableCounters) {
        self.lookups += other.lookups;
        self.hits += other.hits;
        self.stores += other.stores;
        self.replacements += other.replacements;
        self.fills += other.fills;
    }
}

/// The table's fixed header fields, as stored at the start of a table file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileHeader {
    version: u32,
    layout: u32,
    key_seed: u64,
    buckets: u64,
    clean: bool,
}

impl FileHeader {
    fn encode(&self, out: &mut [u8]) {
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

/// What a lookup found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    /// The stored proof numbers.
    pub numbers: Numbers,
    /// The stored work (rounded down to a power of two).
    pub work: u64,
}

/// The concurrent transposition table.
pub struct Table {
    /// The mapping. A raw mapping, because every thread writes through shared references
    /// (the entries are atomics); a `MmapMut` only hands out writable memory through `&mut`.
    map: MmapRaw,
    /// Byte offset of the first bucket in the mapping (the header size for files, else 0).
    offset: usize,
    /// The mask of the whole mapping's bucket count.
    bucket_mask: u64,
    /// The mask of the buckets in use (see the module documentation); grows up to
    /// `bucket_mask`.
    active_mask: AtomicU64,
    /// Stores into empty slots reported so far (approximate: searchers report in batches).
    filled: AtomicU64,
    file: Option<PathBuf>,
    /// The open table file, holding an exclusive lock on it while the table lives.
    _lock: Option<File>,
}

/// Rounds a byte budget down to a power-of-two number of buckets (at least [`MIN_BUCKETS`]).
pub fn buckets_for_bytes(bytes: u64) -> usize {
    let buckets = (bytes / BUCKET_BYTES as u64).clamp(MIN_BUCKETS as u64, 1 << MAX_INDEX_BITS);
    1usize << (63 - buckets.leading_zeros())
}

impl Table {
    /// An anonymous table of at most `bytes` bytes (rounded down to a power of two of
    /// buckets). The kernel zeroes pages lazily on first touch, and zero is an empty entry,
    /// so no fill loop runs; transparent huge pages are requested where supported. The table
    /// starts small and grows (see the module documentation). A table larger than the memory
    /// the system has available is refused: the kernel would kill the process once it grew.
    pub fn new(bytes: u64) -> anyhow::Result<Table> {
        let buckets = buckets_for_bytes(bytes);
        let len = buckets * BUCKET_BYTES;
        if let Some(available) = available_memory() {
            if len as u64 > available {
                bail!(
                    "a table of {} does not fit in the {} of memory available",
                    show_bytes(len as u64),
                    show_bytes(available)
                );
            }
        }
        let map = MmapOptions::new()
            .len(len)
            .map_anon()
            .with_context(|| format!("cannot map a {} table", show_bytes(len as u64)))?;
        let map = MmapRaw::from(map);
        advise_huge_pages(&map);
        let initial = buckets_for_bytes(INITIAL_ACTIVE_BYTES).min(buckets);
        Ok(Table {
            map,
            offset: 0,
            bucket_mask: buckets as u64 - 1,
            active_mask: AtomicU64::new(initial as u64 - 1),
            filled: AtomicU64::new(0),
            file: None,
            _lock: None,
        })
    }

    /// A table backed by the file at `path`. An existing file is reopened (its size wins over
    /// `bytes`) after its header is checked; a missing or empty file is created with `bytes`.
    /// A file left by a crash is accepted, but entries that were being written are cleared.
    pub fn open_file(path: &Path, bytes: u64) -> anyhow::Result<Table> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .with_context(|| format!("cannot open table file {}", path.display()))?;
        // An OS lock: a second process on the same file would mix two searches' writes and
        // make the clean-shutdown flag meaningless. It is released when the file is closed,
        // also when the process dies.
        file.try_lock().map_err(|e| match e {
            std::fs::TryLockError::WouldBlock => anyhow::anyhow!(
                "table file {} is in use by another uttt process (it is locked); wait for it \
                 to finish or use another file",
                path.display()
            ),
            std::fs::TryLockError::Error(e) => {
                anyhow::Error::new(e).context(format!("cannot lock table file {}", path.display()))
            }
        })?;
        let len = file.metadata()?.len();
        let fresh = len == 0;
        let buckets = if fresh {
            let buckets = buckets_for_bytes(bytes);
            file.set_len((FILE_HEADER_BYTES + buckets * BUCKET_BYTES) as u64)
                .with_context(|| format!("cannot size table file {}", path.display()))?;
            buckets
        } else {
            check_file(path, &file, len)?
        };
        // A raw mapping hands out pointers only; every access goes through the atomics of
        // `Bucket` or, for the header, through `header_bytes` while no other thread runs.
        let map = MmapOptions::new()
            .map_raw(&file)
            .with_context(|| format!("cannot map table file {}", path.display()))?;
        let mut header = FileHeader {
            version: FILE_VERSION,
            layout: FILE_LAYOUT,
            key_seed: crate::game::tables::ZOBRIST_SEED,
            buckets: buckets as u64,
            clean: false,
        };
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
        table.map.flush_range(0, FILE_HEADER_BYTES)?;
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

    /// The number of entries.
    pub fn entries(&self) -> u64 {
        (self.bucket_mask + 1) * ENTRIES_PER_BUCKET as u64
    }

    /// The table's size in bytes (without a file header).
    pub fn bytes(&self) -> u64 {
        (self.bucket_mask + 1) * BUCKET_BYTES as u64
    }

    /// The bytes of the part in use now (see the module documentation).
    pub fn active_bytes(&self) -> u64 {
        (self.active_mask.load(Ordering::Relaxed) + 1) * BUCKET_BYTES as u64
    }

    /// The backing file, if any.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    fn buckets(&self) -> &[Bucket] {
        let len = (self.bucket_mask + 1) as usize;
        // SAFETY: the mapping is page aligned, `offset` is a multiple of 64 and the mapping
        // holds `len` buckets after it; `Bucket` is plain atomics, valid for any bit pattern,
        // so threads may write through shared references to it. The pointer comes from a raw
        // mapping, which is writable (`as_mut_ptr`), and the slice lives no longer than it.
        unsafe { std::slice::from_raw_parts(self.map.as_mut_ptr().add(self.offset).cast(), len) }
    }

    fn bucket(&self, key: u64) -> &Bucket {
        &self.buckets()[(key & self.active_mask.load(Ordering::Relaxed)) as usize]
    }

    /// Reports the fills in `counters` that [`Table::store`] has not reported yet (it reports
    /// them in batches). A searcher calls this when it ends, so that many short searchers
    /// (PN-DFPN jobs) still grow the table.
    pub fn report_remaining_fills(&self, counters: &TableCounters) {
        let unreported = counters.fills % FILL_REPORT_BATCH;
        if unreported > 0 {
            self.report_fills(unreported);
        }
    }

    /// Counts `count` more filled slots and doubles the active part when half of it is
    /// filled. Any thread may grow it; a lost race just leaves the other's growth in place.
    fn report_fills(&self, count: u64) {
        let filled = self.filled.fetch_add(count, Ordering::Relaxed) + count;
        let mask = self.active_mask.load(Ordering::Relaxed);
        let active_entries = (mask + 1) * ENTRIES_PER_BUCKET as u64;
        if mask < self.bucket_mask && filled * 2 >= active_entries {
            let _ = self.active_mask.compare_exchange(
                mask,
                mask << 1 | 1,
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
        }
    }

    /// Asks the processor to start loading `key`'s bucket into the cache, so that a lookup
    /// made a little later does not wait for memory. A hint only: nothing is read or written.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let bucket: *const Bucket = self.bucket(key);
            // SAFETY: a prefetch never faults and changes no memory; the pointer is in bounds.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket.cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Looks `key` up.
    pub fn lookup(&self, key: u64, counters: &mut TableCounters) -> Option<Found> {
        counters.lookups += 1;
        let tag = key_tag(key);
        for entry in &self.bucket(key).entries {
            if let Some((meta, numbers)) = entry.read() {
                if meta_work_log(meta) != 0 && meta >> TAG_SHIFT & TAG_MASK == tag {
                    counters.hits += 1;
                    return Some(Found {
                        numbers: Numbers::unpack(numbers),
                        work: 1 << (meta_work_log(meta) - 1),
                    });
                }
            }
        }
        None
    }

    /// Stores numbers for `key`, with the work spent on them. Replaces, in order of
    /// preference: the entry of the same key, an empty slot, the unsolved entry with least
    /// work, and only when all four are solved, the solved entry with least work.
    pub fn store(&self, key: u64, numbers: Numbers, work: u64, counters: &mut TableCounters) {
        counters.stores += 1;
        let tag = key_tag(key);
        let bucket = self.bucket(key);
        let mut victim = 0;
        let mut victim_rank = u64::MAX;
        for (i, entry) in bucket.entries.iter().enumerate() {
            let meta = entry.meta.load(Ordering::Relaxed);
            let work_log = meta_work_log(meta);
            if work_log != 0 && meta >> TAG_SHIFT & TAG_MASK == tag {
                victim = i;
                victim_rank = 0;
                break;
            }
            let solved = Numbers::unpack(entry.numbers.load(Ordering::Relaxed)).is_solved();
            // Rank: empty slots first, then by work, a solved entry counting as if its work
            // were 2^SOLVED_BONUS_LOG times larger.
            let rank = if work_log == 0 {
                1
            } else {
                2 + u64::from(solved) * SOLVED_BONUS_LOG + work_log
            };
            if rank < victim_rank {
                victim = i;
                victim_rank = rank;
            }
        }
        if victim_rank >= 2 {
            counters.replacements += 1;
        } else if victim_rank == 1 {
            counters.fills += 1;
            if counters.fills.is_multiple_of(FILL_REPORT_BATCH) {
                self.report_fills(FILL_REPORT_BATCH);
            }
        }
        let new_meta = tag << TAG_SHIFT | work_log_of(work) << WORK_SHIFT;
        bucket.entries[victim].write(new_meta, numbers.pack());
    }

    /// The fraction of the active part's entries in use, estimated from a sample of up to
    /// 4096 buckets spread over it.
    pub fn fill(&self) -> f64 {
        let active = (self.active_mask.load(Ordering::Relaxed) + 1) as usize;
        let buckets = &self.buckets()[..active];
        let step = (buckets.len() / 4096).max(1);
        let mut used = 0usize;
        let mut seen = 0usize;
        for bucket in buckets.iter().step_by(step) {
            for entry in &bucket.entries {
                seen += 1;
                used += usize::from(meta_work_log(entry.meta.load(Ordering::Relaxed)) != 0);
            }
        }
        used as f64 / seen as f64
    }

    /// Writes a file-backed table to disk. With `clean`, the header then records a clean
    /// shutdown (only when no thread will use the table again). Nothing for anonymous tables.
    pub fn flush(&mut self, clean: bool) -> anyhow::Result<()> {
        let Some(path) = &self.file else {
            return Ok(());
        };
        let shown = path.display().to_string();
        self.map
            .flush()
            .with_context(|| format!("cannot write table file {shown}"))?;
        if clean {
            let mut header = FileHeader::decode(self.header_bytes()).expect("header");
            header.clean = true;
            header.encode(self.header_bytes());
            self.map.flush_range(0, FILE_HEADER_BYTES)?;
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

impl Drop for Table {
    fn drop(&mut self) {
        // Best effort: a table that cannot be flushed stays marked unclean, and the next open
        // clears any entry caught mid-write.
        let _ = self.flush(true);
    }
}

/// Checks an existing table file's header and size; returns its bucket count.
fn check_file(path: &Path, file: &File, len: u64) -> anyhow::Result<usize> {
    let shown = path.display();
    if len < FILE_HEADER_BYTES as u64 {
        bail!("table file {shown} is truncated ({len} bytes, not even a header)");
    }
    let mut bytes = vec![0u8; 64];
    use std::io::Read;
    (&*file).read_exact(&mut bytes)?;
    let Some(header) = FileHeader::decode(&bytes) else {
        bail!("{shown} is not a uttt table file (bad magic)");
    };
    if header.version != FILE_VERSION {
        bail!(
            "table file {shown} has format version {}, this uttt reads version {FILE_VERSION}",
            header.version
        );
    }
    if header.layout != FILE_LAYOUT {
        bail!(
            "table file {shown} has another entry layout ({:#x}, expected {FILE_LAYOUT:#x})",
            header.layout
        );
    }
    if header.key_seed != crate::game::tables::ZOBRIST_SEED {
        bail!(
            "table file {shown} was written with other hash keys (seed {:#x})",
            header.key_seed
        );
    }
    let buckets = header.buckets;
    if buckets < MIN_BUCKETS as u64 || buckets > 1 << MAX_INDEX_BITS || !buckets.is_power_of_two() {
        bail!("table file {shown} is damaged: bucket count {buckets} is not a power of two from {MIN_BUCKETS} to 2^{MAX_INDEX_BITS}");
    }
    let expected = FILE_HEADER_BYTES as u64 + buckets * BUCKET_BYTES as u64;
    if len != expected {
        bail!(
            "table file {shown} is truncated or damaged: {len} bytes, the header says {expected}"
        );
    }
    Ok(buckets as usize)
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(map: &MmapRaw) {
    // Fewer TLB misses on random probes; purely advisory, so a refusal is ignored.
    let _ = map.advise(memmap2::Advice::HugePage);
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_map: &MmapRaw) {}

/// The memory the system can give without swapping (`MemAvailable` of `/proc/meminfo`), where
/// the system says.
pub fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Bytes for people, in binary units: `512 MiB`, `1.5 GiB`.
pub fn show_bytes(bytes: u64) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    if bytes >= 1 << 30 {
        format!("{:.1} GiB", bytes as f64 / GIB)
    } else {
        format!("{} MiB", bytes >> 20)
    }
}

fn key_tag(key: u64) -> u64 {
    key >> (64 - TAG_BITS)
}

fn meta_work_log(meta: u64) -> u64 {
    meta >> WORK_SHIFT
}

/// 1 + floor(log2(work)), capped to the 6 bits available; never 0 (0 marks an empty slot).
fn work_log_of(work: u64) -> u64 {
    (64 - u64::from(work.max(1).leading_zeros())).min(63)
}

impl Entry {
    /// A consistent snapshot `(meta, numbers)`, or `None` if a writer holds the entry.
    fn read(&self) -> Option<(u64, u64)> {
        for _ in 0..SPIN_LIMIT {
            let before = self.meta.load(Ordering::Acquire);
            if before & LOCKED != 0 {
                std::hint::spin_loop();
                continue;
            }
            let numbers = self.numbers.load(Ordering::Acquire);
            // Orders the numbers load before the second meta load (sequence-lock read side).
            std::sync::atomic::fence(Ordering::Acquire);
            if self.meta.load(Ordering::Relaxed) == before {
                return Some((before, numbers));
            }
        }
        // A cache may miss: treating a busy entry as absent costs time, never correctness.
        None
    }

    /// Takes the lock, writes, and releases it with a new write count.
    fn write(&self, new_meta: u64, numbers: u64) {
        let old = self.lock();
        self.numbers.store(numbers, Ordering::Relaxed);
        let counter = (old & LOCK_MASK & !(LOCKED | PARKED)).wrapping_add(COUNTER_STEP) & LOCK_MASK;
        let released = self.meta.swap(new_meta | counter, Ordering::Release);
        if released & PARKED != 0 {
            let address = self as *const Entry as usize;
            // SAFETY: no callbacks that panic or take locks.
            unsafe {
                parking_lot_core::unpark_all(address, parking_lot_core::DEFAULT_UNPARK_TOKEN);
            }
        }
    }

    /// Sets the lock bit; returns the meta word as it was before.
    fn lock(&self) -> u64 {
        let mut spins = 0;
        loop {
            let meta = self.meta.load(Ordering::Relaxed);
            if meta & LOCKED == 0 {
                if self
                    .meta
                    .compare_exchange_weak(
                        meta,
                        meta | LOCKED,
                        Ordering::Acquire,
                        Ordering::Relaxed,
                    )
                    .is_ok()
                {
                    // Order the lock before the numbers store that follows.
                    std::sync::atomic::fence(Ordering::Release);
                    return meta;
                }
                continue;
            }
            if spins < SPIN_LIMIT {
                spins += 1;
                std::hint::spin_loop();
                continue;
            }
            // Announce a parked waiter so the holder unparks us, then sleep until it does.
            if meta & PARKED == 0
                && self
                    .meta
                    .compare_exchange_weak(
                        meta,
                        meta | PARKED,
                        Ordering::Relaxed,
                        Ordering::Relaxed,
                    )
                    .is_err()
            {
                continue;
            }
            let address = self as *const Entry as usize;
            // SAFETY: the validate callback only reads an atomic; nothing panics inside.
            unsafe {
                parking_lot_core::park(
                    address,
                    || self.meta.load(Ordering::Relaxed) & (LOCKED | PARKED) == LOCKED | PARKED,
                    || {},
                    |_, _| {},
                    parking_lot_core::DEFAULT_PARK_TOKEN,
                    None,
                );
            }
            spins = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::numbers::INFINITY;

    #[test]
    fn store_then_lookup_round_trips_and_keys_differ() {
        let table = Table::new(64 * 1024).unwrap();
        let mut c = TableCounters::default();
        let n = Numbers {
            phi: 7,
            delta: INFINITY,
        };
        table.store(0xDEAD_BEEF_1234_5678, n, 100, &mut c);
        let found = table.lookup(0xDEAD_BEEF_1234_5678, &mut c).unwrap();
        assert_eq!(found.numbers, n);
        assert_eq!(found.work, 64);
        assert_eq!(table.lookup(0xDEAD_BEEF_1234_5679, &mut c), None);
        assert_eq!(c.lookups, 2);
        assert_eq!(c.hits, 1);
    }

    #[test]
    fn replacement_keeps_solved_entries_and_entries_with_more_work() {
        let table = Table::new(64 * 1024).unwrap();
        let mut c = TableCounters::default();
        let bucket_mates = |i: u64| (i << 40) | 5; // same bucket, different tags
        table.store(
            bucket_mates(1),
            Numbers {
                phi: 0,
                delta: INFINITY,
            },
            1,
            &mut c,
        );
        table.store(bucket_mates(2), Numbers { phi: 3, delta: 3 }, 1000, &mut c);
        table.store(bucket_mates(3), Numbers { phi: 3, delta: 3 }, 2, &mut c);
        table.store(bucket_mates(4), Numbers { phi: 3, delta: 3 }, 500, &mut c);
        table.store(bucket_mates(5), Numbers { phi: 3, delta: 3 }, 10, &mut c);
        assert_eq!(c.replacements, 1);
        assert!(
            table.lookup(bucket_mates(1), &mut c).is_some(),
            "solved entry kept"
        );
        assert!(
            table.lookup(bucket_mates(2), &mut c).is_some(),
            "most work kept"
        );
        assert!(
            table.lookup(bucket_mates(3), &mut c).is_none(),
            "least work evicted"
        );
        assert!(table.lookup(bucket_mates(5), &mut c).is_some());
    }

    #[test]
    fn an_anonymous_table_grows_as_it_fills_and_keeps_answering() {
        let table = Table::new(64 << 20).unwrap();
        assert_eq!(table.active_bytes(), INITIAL_ACTIVE_BYTES);
        let mut c = TableCounters::default();
        let key = |i: u64| crate::game::tables::splitmix64(i).0;
        let numbers = |i: u64| Numbers {
            phi: (i % 1000) as u32 + 1,
            delta: 7,
        };
        let initial_entries = INITIAL_ACTIVE_BYTES / BUCKET_BYTES as u64 * 4;
        let stored = 3 * initial_entries;
        for i in 0..stored {
            table.store(key(i), numbers(i), 1, &mut c);
        }
        assert!(
            table.active_bytes() >= 4 * INITIAL_ACTIVE_BYTES,
            "{}",
            table.active_bytes()
        );
        assert!(table.active_bytes() <= table.bytes());
        // Whatever is found is what was stored for that key.
        let mut found = 0;
        for i in 0..stored {
            if let Some(f) = table.lookup(key(i), &mut c) {
                assert_eq!(f.numbers, numbers(i));
                found += 1;
            }
        }
        // More is kept than the initial part could hold (entries stranded by a doubling are
        // the only loss).
        assert!(found > initial_entries, "{found} of {stored}");
        // The latest stores are found, but for the odd one a full bucket evicted.
        let recent = (stored - 1000..stored)
            .filter(|&i| table.lookup(key(i), &mut c).is_some())
            .count();
        assert!(recent >= 990, "{recent} of the last 1000");
        // Keys never stored are not found.
        assert!((stored..stored + 10_000).all(|i| table.lookup(key(i), &mut c).is_none()));
    }

    #[test]
    fn a_table_larger_than_the_available_memory_is_refused() {
        let Some(available) = available_memory() else {
            return;
        };
        let too_big = (available + 1).next_power_of_two() * 2;
        let error = Table::new(too_big).err().expect("refused").to_string();
        assert!(error.contains("memory available"), "{error}");
    }

    #[test]
    fn sizes_round_down_to_powers_of_two() {
        assert_eq!(buckets_for_bytes(1 << 30), (1 << 30) / 64);
        assert_eq!(buckets_for_bytes(1_000_000_000), (1 << 29) / 64);
        assert_eq!(buckets_for_bytes(10), MIN_BUCKETS);
    }
}
