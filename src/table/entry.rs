//! The entry protocol: how one 16-byte entry is read and written by many threads at once,
//! and how its meta word packs the lock, the tag and the work.
//!
//! * `meta`: bits 0..16 the lock word (bit 0 = a writer holds the entry, bit 1 = a writer is
//!   parked waiting for it, bits 2..16 a write counter), bits 16..58 a 42-bit tag from the key,
//!   bits 58..64 the log2 of the work spent on the entry (0 = empty slot).
//! * `numbers`: φ in the low 32 bits, δ in the high 32 bits.
//!
//! Readers never lock: they read `meta`, the numbers, and `meta` again, and retry if a write
//! was in progress or happened in between (a sequence lock). Writers take the lock bit with a
//! compare-and-swap, spin briefly when it is taken, then park through `parking_lot_core`.
//! Parking is a process's own: a writer in another process that maps the same table (see
//! `shared.rs`) releases the entry without waking a parked thread here, so a parked writer
//! also wakes by itself after [`PARK_TIMEOUT`] and looks again.

use super::{BUCKET_BYTES, ENTRIES_PER_BUCKET, MAX_INDEX_BITS};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

pub(super) const LOCKED: u64 = 1;
pub(super) const PARKED: u64 = 2;
pub(super) const LOCK_MASK: u64 = 0xFFFF;
const COUNTER_STEP: u64 = 4;
pub(super) const TAG_SHIFT: u32 = 16;
pub(super) const TAG_BITS: u32 = 42;
pub(super) const TAG_MASK: u64 = (1 << TAG_BITS) - 1;
pub(super) const WORK_SHIFT: u32 = 58;
// Every key bit from MAX_INDEX_BITS up is part of the tag.
const _: () = assert!(MAX_INDEX_BITS >= 64 - TAG_BITS);
/// How much a solved entry outweighs an unsolved one of the same work when choosing a victim,
/// as a power of two.
pub(super) const SOLVED_BONUS_LOG: u64 = 64;
/// Spins before a writer parks.
const SPIN_LIMIT: u32 = 64;
/// The longest a parked writer sleeps before it looks at the entry again, when nobody wakes
/// it (see the module documentation). Writes hold an entry for a few instructions, so a
/// writer only parks when the holder was descheduled, and then waits for its time slice.
pub(super) const PARK_TIMEOUT: Duration = Duration::from_millis(1);
/// The most times a writer parks for one entry before it gives its write up: a lock held that
/// long was left by a process that died holding it (a shared table) or was never a lock (a
/// damaged table), and a cache may always drop a write. Bounds a store at about this many
/// park timeouts, so that no store can hang a search.
const PARK_LIMIT: u32 = 256;

/// One entry: two atomic words (see the module documentation).
#[repr(C)]
pub(super) struct Entry {
    pub(super) meta: AtomicU64,
    pub(super) numbers: AtomicU64,
}

/// One cache line of entries.
#[repr(C, align(64))]
pub(super) struct Bucket {
    pub(super) entries: [Entry; ENTRIES_PER_BUCKET],
}

const _: () = assert!(std::mem::size_of::<Bucket>() == BUCKET_BYTES);

pub(super) fn key_tag(key: u64) -> u64 {
    key >> (64 - TAG_BITS)
}

pub(super) fn meta_work_log(meta: u64) -> u64 {
    meta >> WORK_SHIFT
}

/// 1 + floor(log2(work)), capped to the 6 bits available; never 0 (0 marks an empty slot).
pub(super) fn work_log_of(work: u64) -> u64 {
    (64 - u64::from(work.max(1).leading_zeros())).min(63)
}

impl Entry {
    /// A consistent snapshot `(meta, numbers)`, or `None` if a writer holds the entry.
    pub(super) fn read(&self) -> Option<(u64, u64)> {
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

    /// Takes the lock, writes, and releases it with a new write count; gives the write up
    /// (and returns false) when the lock cannot be had (see [`PARK_LIMIT`]).
    pub(super) fn write(&self, new_meta: u64, numbers: u64) -> bool {
        let Some(old) = self.lock() else {
            return false;
        };
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
        true
    }

    /// Sets the lock bit; returns the meta word as it was before, or `None` after
    /// [`PARK_LIMIT`] parks without it.
    fn lock(&self) -> Option<u64> {
        let mut spins = 0;
        let mut parks = 0;
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
                    return Some(meta);
                }
                continue;
            }
            if spins < SPIN_LIMIT {
                spins += 1;
                std::hint::spin_loop();
                continue;
            }
            if parks == PARK_LIMIT {
                return None;
            }
            parks += 1;
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
                    Some(Instant::now() + PARK_TIMEOUT),
                );
            }
            spins = 0;
        }
    }
}
