//! The transposition table: a concurrent, lock-free-for-readers cache of proof numbers in an
//! anonymous or file-backed memory mapping.
//!
//! Layout: a power-of-two number of 64-byte buckets (one cache line each), four 16-byte
//! entries per bucket; how an entry is read and written concurrently is in `entry.rs`, table
//! files in `file.rs`, tables the processes of one machine share in `shared.rs`. Searchers read and write through a [`TableWriter`], which counts their
//! traffic and reports the slots they filled, which drive growth.
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

mod entry;
mod error;
mod file;
pub mod numbers;
mod shared;
mod snapshot;

pub use error::TableError;
pub use snapshot::SnapshotFigures;

use entry::{
    key_tag, meta_work_log, work_log_of, Bucket, SOLVED_BONUS_LOG, TAG_MASK, TAG_SHIFT, WORK_SHIFT,
};
use memmap2::{MmapOptions, MmapRaw};
use numbers::Numbers;
use serde::{Deserialize, Serialize};
use std::fs::File;
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
/// `crate::search::table_key`).
pub const MAX_INDEX_BITS: u32 = 40;
/// The part of an anonymous table in use at the start (see the module documentation).
pub const INITIAL_ACTIVE_BYTES: u64 = 4 << 20;
/// Stores into empty slots a searcher counts before reporting them to the table (so the
/// shared fill counter is touched once per this many, not on every store).
const FILL_REPORT_BATCH: u64 = 256;
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
    /// Entries cleared when the file was opened ([`Table::cleared_on_open`]).
    cleared_on_open: u64,
    /// Whether a file-backed table was written back with its clean mark and checksum, after
    /// which no thread uses it (so dropping it need not do it again).
    closed_clean: bool,
}

/// Asks the processor to start loading the cache line of `item`, so that a read of it a
/// little later does not wait on memory. It changes nothing (on other architectures it does
/// nothing at all).
#[inline(always)]
pub fn prefetch<T>(item: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let address: *const T = item;
        // SAFETY: a prefetch never faults and changes no memory; the address is a reference's.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(address.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
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
    /// starts small and grows (see the module documentation). The mapping reserves address
    /// space only, so a table larger than the memory available may be granted here and fail
    /// only once it grows into it: callers that take sizes from users check them first.
    pub fn new(bytes: u64) -> Result<Table, TableError> {
        let buckets = buckets_for_bytes(bytes);
        let len = buckets * BUCKET_BYTES;
        let map = MmapOptions::new()
            .len(len)
            .map_anon()
            .map_err(|source| TableError::Memory {
                bytes: len as u64,
                source,
            })?;
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
            cleared_on_open: 0,
            closed_clean: false,
        })
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

    /// The table's memory: its first address and its length in bytes (for a handler of a
    /// fault within a file's mapping: see the command line's `bus_error`).
    pub fn mapped_range(&self) -> (usize, usize) {
        (self.map.as_ptr() as usize, self.map.len())
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

    /// A writer of its own for one searcher (see [`TableWriter`]).
    pub fn writer(&self) -> TableWriter<'_> {
        TableWriter {
            table: self,
            counters: TableCounters::default(),
        }
    }

    /// Reports the fills in `counters` that [`Table::store`] has not reported yet (it reports
    /// them in batches); a [`TableWriter`] does when it is dropped.
    fn report_remaining_fills(&self, counters: &TableCounters) {
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

    /// [`TableWriter::prefetch`].
    #[inline(always)]
    fn prefetch(&self, key: u64) {
        prefetch(self.bucket(key));
    }

    /// Looks `key` up.
    fn lookup(&self, key: u64, counters: &mut TableCounters) -> Option<Found> {
        counters.lookups += 1;
        let tag = key_tag(key);
        let found = self.bucket(key).entries.iter().find_map(|entry| {
            holds_tag(entry.meta.load(Ordering::Relaxed), tag)
                .then(|| read_held(entry, tag))
                .flatten()
        });
        counters.hits += u64::from(found.is_some());
        found
    }

    /// [`TableWriter::lookup_pair`], counting into `counters`.
    fn lookup_pair(
        &self,
        key: u64,
        other: u64,
        counters: &mut TableCounters,
    ) -> (Option<Found>, Option<Found>) {
        debug_assert_eq!(
            key & self.bucket_mask,
            other & self.bucket_mask,
            "a pair of keys shares a bucket"
        );
        let (tag, other_tag) = (key_tag(key), key_tag(other));
        let (mut own, mut theirs) = (None, None);
        for entry in &self.bucket(key).entries {
            let meta = entry.meta.load(Ordering::Relaxed);
            if own.is_none() && holds_tag(meta, tag) {
                own = read_held(entry, tag);
            } else if theirs.is_none() && holds_tag(meta, other_tag) {
                theirs = read_held(entry, other_tag);
            }
        }
        // Counted as the lookups they replace: the other key is only needed when the first
        // entry is not solved.
        counters.lookups += 1;
        counters.hits += u64::from(own.is_some());
        if !own.is_some_and(|f| f.numbers.is_solved()) {
            counters.lookups += 1;
            counters.hits += u64::from(theirs.is_some());
        }
        (own, theirs)
    }

    /// [`TableWriter::store`], counting into `counters`.
    fn store(&self, key: u64, numbers: Numbers, work: u64, counters: &mut TableCounters) {
        counters.stores += 1;
        let tag = key_tag(key);
        let bucket = self.bucket(key);
        let mut victim = 0;
        let mut victim_rank = u64::MAX;
        for (i, entry) in bucket.entries.iter().enumerate() {
            let meta = entry.meta.load(Ordering::Relaxed);
            if holds_tag(meta, tag) {
                victim = i;
                victim_rank = 0;
                break;
            }
            let rank = keep_rank(meta, entry.numbers.load(Ordering::Relaxed));
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
        // A write given up (a lock nobody releases) loses a cache entry, never an answer.
        let _ = bucket.entries[victim].write(new_meta, numbers.pack());
    }

    /// The fraction of the active part's entries in use, estimated from a sample of up to
    /// 4096 buckets: 64 runs of 64 neighbouring buckets (a 4 KiB page each), spread evenly
    /// over the active part. Keys are hashes, so any run is a fair sample of its stretch, and
    /// spreading the runs samples each half a growth left behind. Runs of whole pages keep a
    /// fresh table's report cheap: one bucket on each of 4,096 pages touched a page apiece
    /// (about 0.2 ms for a solve that never searched, as in `uttt.solve` of a finished game).
    pub fn fill(&self) -> f64 {
        const RUNS: usize = 64;
        const RUN: usize = 4096 / BUCKET_BYTES;
        let active = (self.active_mask.load(Ordering::Relaxed) + 1) as usize;
        let buckets = &self.buckets()[..active];
        let stride = (buckets.len() / RUNS).max(RUN);
        let mut used = 0usize;
        let mut seen = 0usize;
        for start in (0..buckets.len()).step_by(stride) {
            for bucket in &buckets[start..(start + RUN).min(buckets.len())] {
                for entry in &bucket.entries {
                    seen += 1;
                    used += usize::from(meta_work_log(entry.meta.load(Ordering::Relaxed)) != 0);
                }
            }
        }
        used as f64 / seen as f64
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        // Best effort: a table that cannot be flushed stays marked unclean, and the next open
        // clears any entry caught mid-write.
        let _ = self.flush(true);
    }
}

/// One searcher's access to a table: lookups and stores, with its traffic counted in its own
/// [`TableCounters`] (so that the hot path never contends on shared counters). Stores into
/// empty slots drive the table's growth; they are reported to the table in batches, and what
/// is left of them when the writer is dropped, so that no writer (however short-lived, such
/// as a PN-DFPN job's) can forget to report them.
pub struct TableWriter<'t> {
    table: &'t Table,
    counters: TableCounters,
}

impl TableWriter<'_> {
    /// Looks `key` up.
    pub fn lookup(&mut self, key: u64) -> Option<Found> {
        self.table.lookup(key, &mut self.counters)
    }

    /// Looks up two keys that share a bucket (a position's keys for both questions, see
    /// `crate::search::table_key`) in one pass over it.
    pub fn lookup_pair(&mut self, key: u64, other: u64) -> (Option<Found>, Option<Found>) {
        self.table.lookup_pair(key, other, &mut self.counters)
    }

    /// Stores numbers for `key`, with the work spent on them. Replaces, in order of
    /// preference: the entry of the same key, an empty slot, the unsolved entry with least
    /// work, and only when all four are solved, the solved entry with least work.
    pub fn store(&mut self, key: u64, numbers: Numbers, work: u64) {
        self.table.store(key, numbers, work, &mut self.counters);
    }

    /// Asks the processor to start loading `key`'s bucket into the cache, so that a lookup
    /// made a little later does not wait for memory. A hint only: nothing is read or written.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        self.table.prefetch(key);
    }

    /// This writer's traffic so far.
    pub fn counters(&self) -> TableCounters {
        self.counters
    }
}

impl Drop for TableWriter<'_> {
    fn drop(&mut self) {
        self.table.report_remaining_fills(&self.counters);
    }
}

/// Whether an entry whose meta word is `meta` is in use and holds the key whose tag is `tag`.
/// Lookups test it on the meta word alone before reading an entry whole (see [`read_held`]), so
/// the other entries of a bucket cost one load each.
#[inline(always)]
fn holds_tag(meta: u64, tag: u64) -> bool {
    meta_work_log(meta) != 0 && meta >> TAG_SHIFT & TAG_MASK == tag
}

/// The contents of an entry whose meta word showed the tag `tag`, read whole by the readers'
/// protocol; `None` if a writer holds it or it now holds another key.
#[inline(always)]
fn read_held(entry: &entry::Entry, tag: u64) -> Option<Found> {
    let (meta, numbers) = entry.read()?;
    holds_tag(meta, tag).then(|| Found {
        numbers: Numbers::unpack(numbers),
        work: 1 << (meta_work_log(meta) - 1),
    })
}

/// How much an entry is worth keeping when a store (or a snapshot folded into a smaller table)
/// needs its slot, from its meta and numbers words: empty slots (1) first, then by work, a
/// solved entry counting as if its work were 2^SOLVED_BONUS_LOG times larger.
#[inline(always)]
fn keep_rank(meta: u64, numbers: u64) -> u64 {
    let work_log = meta_work_log(meta);
    if work_log == 0 {
        1
    } else {
        2 + u64::from(Numbers::unpack(numbers).is_solved()) * SOLVED_BONUS_LOG + work_log
    }
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(map: &MmapRaw) {
    // Fewer TLB misses on random probes; purely advisory, so a refusal is ignored.
    let _ = map.advise(memmap2::Advice::HugePage);
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_map: &MmapRaw) {}

#[cfg(test)]
mod tests;
