//! Unit tests of `table`.

use super::*;
use crate::table::numbers::INFINITY;
use std::sync::atomic::AtomicBool;

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
fn a_pair_lookup_finds_what_two_lookups_find_and_counts_as_they_would() {
    let table = Table::new(512 * 1024).unwrap();
    let mut stores = TableCounters::default();
    // Pairs of keys in one bucket (they differ above the index bits, as a position's two
    // keys do), some stored, some not, some solved: about as many stores as the table has
    // entries, so that replacement leaves some out.
    let pair = |i: u64| {
        let key = crate::game::tables::splitmix64(i).0;
        (key, key ^ 0x5A5A << 48)
    };
    for i in 0..20_000u64 {
        let (key, other) = pair(i);
        let numbers = |j: u64| match j % 3 {
            0 => Numbers::PROVED,
            1 => Numbers::DISPROVED,
            _ => Numbers {
                phi: 1 + j as u32 % 50,
                delta: 2 + j as u32 % 70,
            },
        };
        if i % 4 != 0 {
            table.store(key, numbers(i), 1 + i % 9, &mut stores);
        }
        if i % 5 != 0 {
            table.store(other, numbers(i / 2), 1 + i % 7, &mut stores);
        }
    }
    let (mut single, mut paired) = (TableCounters::default(), TableCounters::default());
    let mut both_found = 0;
    for i in 0..20_000u64 {
        let (key, other) = pair(i);
        let own = table.lookup(key, &mut single);
        let theirs = table.lookup(other, &mut TableCounters::default());
        if !own.is_some_and(|f| f.numbers.is_solved()) {
            table.lookup(other, &mut single);
        }
        assert_eq!(table.lookup_pair(key, other, &mut paired), (own, theirs));
        both_found += usize::from(own.is_some() && theirs.is_some());
    }
    assert_eq!(paired, single);
    assert!(both_found > 1_000, "only {both_found} pairs both found");
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
fn many_short_writers_grow_the_table_as_one_long_one_does() {
    let table = Table::new(64 << 20).unwrap();
    let initial_entries = INITIAL_ACTIVE_BYTES / BUCKET_BYTES as u64 * 4;
    let key = |i: u64| crate::game::tables::splitmix64(i).0;
    // Fewer stores per writer than a batch of reported fills, as a short PN-DFPN job or
    // the root tree's merge makes; together more than half of the initial part.
    let per_writer = FILL_REPORT_BATCH / 2;
    let writers = initial_entries * 3 / 4 / per_writer;
    for w in 0..writers {
        let mut writer = table.writer();
        for i in 0..per_writer {
            writer.store(key(w * per_writer + i), Numbers { phi: 1, delta: 1 }, 1);
        }
    }
    assert!(
        table.active_bytes() > INITIAL_ACTIVE_BYTES,
        "the fills of dropped writers were reported"
    );
}

#[test]
fn sizes_round_down_to_powers_of_two() {
    assert_eq!(buckets_for_bytes(1 << 30), (1 << 30) / 64);
    assert_eq!(buckets_for_bytes(1_000_000_000), (1 << 29) / 64);
    assert_eq!(buckets_for_bytes(10), MIN_BUCKETS);
}

/// A new directory of this test process's own for a test's files (`name` tells the tests
/// apart); the test removes it.
fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("uttt-table-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A fresh table file has its space reserved when it is created, so that a filesystem without
/// room refuses then, with a message, rather than killing the search with SIGBUS at its first
/// write to a page it cannot get. (Every common Linux filesystem can reserve.)
#[cfg(target_os = "linux")]
#[test]
fn a_fresh_table_file_has_its_space_reserved() {
    use std::os::unix::fs::MetadataExt;
    let dir = scratch_dir("reserve");
    let path = dir.join("t.tt");
    let table = Table::open_file(&path, 64 << 20, &AtomicBool::new(false), None).unwrap();
    let meta = std::fs::metadata(&path).unwrap();
    assert!(
        meta.blocks() * 512 >= meta.len(),
        "{} bytes reserved of {}",
        meta.blocks() * 512,
        meta.len()
    );
    drop(table);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What one process stores in a shared table, another finds: two mappings of one file (as two
/// processes have) are one table, and the file can go once both are mapped.
#[test]
fn two_mappings_of_a_shared_table_are_one_table() {
    let dir = scratch_dir("shared");
    let path = dir.join("shared");
    let first = Table::create_shared(&path, 1 << 20).unwrap();
    assert!(
        matches!(
            Table::create_shared(&path, 1 << 20),
            Err(TableError::Io {
                action: "create",
                ..
            })
        ),
        "an existing file is never taken over"
    );
    let second = Table::open_shared(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(first.bytes(), 1 << 20);
    assert_eq!(second.bytes(), 1 << 20);
    // Every bucket is in use from the start: no process could tell the others it grew.
    assert_eq!(first.active_bytes(), first.bytes());
    let mut c = TableCounters::default();
    let key = |i: u64| crate::game::tables::splitmix64(i).0;
    for i in 0..1000 {
        first.store(
            key(i),
            Numbers {
                phi: 3,
                delta: i as u32 + 1,
            },
            8,
            &mut c,
        );
    }
    for i in 0..1000 {
        let found = second
            .lookup(key(i), &mut c)
            .expect("stored through the other mapping");
        assert_eq!(found.numbers.delta, i as u32 + 1);
    }
    second.store(key(0), Numbers::PROVED, 1 << 20, &mut c);
    assert_eq!(
        first.lookup(key(0), &mut c).unwrap().numbers,
        Numbers::PROVED
    );
    // Nothing is written back anywhere: the table has no file of its own.
    assert_eq!(first.file(), None);
    drop((first, second));
    // A file that is not a whole power of two of buckets is refused, by name.
    std::fs::write(&path, vec![0u8; 1000 * BUCKET_BYTES]).unwrap();
    let error = Table::open_shared(&path).err().expect("1000 buckets");
    assert!(
        error.to_string().contains("is not a shared table"),
        "{error}"
    );
    assert!(matches!(
        Table::open_shared(&dir.join("missing")),
        Err(TableError::Io { action: "open", .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A writer that finds an entry held, and nobody to wake it (the holder is another process,
/// whose release cannot unpark a thread here), takes the entry once it is free.
#[test]
fn a_writer_parked_on_an_entry_released_without_a_wake_up_goes_on() {
    let entry: &'static entry::Entry = Box::leak(Box::new(entry::Entry {
        meta: AtomicU64::new(entry::LOCKED),
        numbers: AtomicU64::new(0),
    }));
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        entry.write(1 << WORK_SHIFT, 42);
        done_tx.send(()).unwrap();
    });
    // Long enough for the writer to spin out and park.
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert!(done_rx.try_recv().is_err(), "the entry was held");
    // Another process's release: the lock bit goes, and no thread here is unparked.
    entry.meta.store(0, Ordering::Release);
    assert!(
        done_rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .is_ok(),
        "the parked writer never took the entry"
    );
    assert_eq!(entry.numbers.load(Ordering::Relaxed), 42);
}

#[test]
fn the_fill_estimate_follows_the_share_of_entries_in_use() {
    // 1 MiB: 16,384 buckets, all active from the start (below the initial active size).
    let table = Table::new(1 << 20).unwrap();
    assert_eq!(table.fill(), 0.0);
    let exact = |table: &Table| {
        let entries = table.buckets().iter().flat_map(|bucket| &bucket.entries);
        let used = entries
            .clone()
            .filter(|entry| meta_work_log(entry.meta.load(Ordering::Relaxed)) != 0)
            .count();
        used as f64 / entries.count() as f64
    };
    let mut counters = TableCounters::default();
    for (stores, share) in [(3_000u64, 0.04), (20_000, 0.3), (60_000, 0.9)] {
        while counters.stores < stores {
            let key = crate::game::tables::splitmix64(counters.stores).0;
            table.store(key, Numbers::UNIT, 1, &mut counters);
        }
        let (estimate, truth) = (table.fill(), exact(&table));
        assert!(truth > share * 0.5, "{stores} stores fill {truth}");
        assert!(
            (estimate - truth).abs() < 0.03,
            "{stores}: {estimate} against {truth}"
        );
    }
}

/// A lock that nobody ever releases (bytes that only look like one, or a dead process's in a
/// shared table) cannot hang a writer: it gives its write up, as a cache may.
#[test]
fn a_writer_gives_up_on_a_lock_that_is_never_released() {
    let entry = entry::Entry {
        meta: AtomicU64::new(entry::LOCKED),
        numbers: AtomicU64::new(7),
    };
    let began = std::time::Instant::now();
    assert!(!entry.write(1 << WORK_SHIFT, 42), "the write is given up");
    assert!(began.elapsed() < std::time::Duration::from_secs(10));
    assert_eq!(entry.numbers.load(Ordering::Relaxed), 7, "nothing written");
    assert_eq!(
        entry.meta.load(Ordering::Relaxed) & entry::LOCKED,
        entry::LOCKED
    );
}

/// What the check of a reopened file calls sound is what the writers leave, and nothing a
/// crash or damage leaves is.
#[test]
fn sound_entries_are_those_the_writers_leave() {
    use super::file::entry_is_sound;
    let meta = |work: u64| 123 << TAG_SHIFT | work << WORK_SHIFT;
    let pack = |phi, delta| Numbers { phi, delta }.pack();
    assert!(entry_is_sound(0, 0), "an empty slot");
    assert!(entry_is_sound(meta(3), Numbers::PROVED.pack()));
    assert!(entry_is_sound(meta(3), Numbers::DISPROVED.pack()));
    assert!(entry_is_sound(meta(3) | 4, pack(5, 9)), "a write counter");
    assert!(
        !entry_is_sound(meta(3) | entry::LOCKED, pack(5, 9)),
        "a lock held"
    );
    assert!(
        !entry_is_sound(meta(3) | entry::PARKED, pack(5, 9)),
        "a writer parked"
    );
    assert!(
        !entry_is_sound(123 << TAG_SHIFT, 0),
        "an empty slot with a tag"
    );
    assert!(!entry_is_sound(0, pack(1, 1)), "an empty slot with numbers");
    for (phi, delta) in [(0, 5), (5, 0), (INFINITY, 5), (5, INFINITY), (0, 0)] {
        assert!(
            !entry_is_sound(meta(3), pack(phi, delta)),
            "({phi}, {delta})"
        );
    }
    // Every entry of a searched table is sound.
    let table = Table::new(1 << 20).unwrap();
    let mut counters = TableCounters::default();
    for i in 0..20_000u64 {
        let key = crate::game::tables::splitmix64(i).0;
        let numbers = match i % 3 {
            0 => Numbers::PROVED,
            1 => Numbers::DISPROVED,
            _ => pack_numbers(i),
        };
        table.store(key, numbers, i, &mut counters);
    }
    for bucket in table.buckets() {
        for entry in &bucket.entries {
            let (meta, numbers) = entry.read().unwrap();
            assert!(entry_is_sound(meta, numbers), "{meta:#x} {numbers:#x}");
        }
    }
}

fn pack_numbers(i: u64) -> Numbers {
    Numbers {
        phi: (i % 1000 + 1) as u32,
        delta: (i % 777 + 1) as u32,
    }
}

/// A file closed cleanly carries a checksum of its entries: reopened unchanged it keeps them
/// all; changed, it is refused; left as by a crash, its entries are checked one by one.
#[test]
fn a_table_file_checksum_catches_changes_made_while_it_was_closed() {
    let dir = scratch_dir("checksum");
    let path = dir.join("t.tt");
    let never = AtomicBool::new(false);
    let keys: Vec<u64> = (0..5_000u64)
        .map(|i| crate::game::tables::splitmix64(i).0)
        .collect();
    {
        let table = Table::open_file(&path, 1 << 20, &never, None).unwrap();
        let mut writer = table.writer();
        for (i, &key) in keys.iter().enumerate() {
            writer.store(key, pack_numbers(i as u64), 1);
        }
    }
    let found = |table: &Table| {
        let mut writer = table.writer();
        keys.iter()
            .filter(|&&key| writer.lookup(key).is_some())
            .count()
    };
    let stored = {
        let table = Table::open_file(&path, 1 << 20, &never, None).unwrap();
        assert_eq!(table.cleared_on_open(), 0);
        found(&table)
    };
    assert!(stored > 4_000, "{stored} found again");
    // One byte of one entry's numbers changed while the file was closed.
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes[4096..]
        .chunks(16)
        .position(|entry| entry.iter().any(|&b| b != 0))
        .unwrap();
    bytes[4096 + at * 16 + 8] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    let refused = Table::open_file(&path, 1 << 20, &never, None)
        .err()
        .unwrap();
    assert!(refused.to_string().contains("is damaged"), "{refused}");
    // Refused, it is left as it was: refused again.
    let again = Table::open_file(&path, 1 << 20, &never, None)
        .err()
        .unwrap();
    assert!(again.to_string().contains("is damaged"), "{again}");
    // Marked as left by a crash, with a lock held in one entry: that one is cleared, also
    // after a first scan that a raised stop flag stopped (which left the file as it was).
    bytes[32] = 0;
    bytes[4096 + at * 16] |= entry::LOCKED as u8;
    std::fs::write(&path, &bytes).unwrap();
    let stopped = Table::open_file(&path, 1 << 20, &AtomicBool::new(true), None);
    assert!(matches!(stopped, Err(TableError::Stopped { .. })));
    let table = Table::open_file(&path, 1 << 20, &never, None).unwrap();
    assert_eq!(table.cleared_on_open(), 1);
    assert_eq!(found(&table), stored - 1);
    drop(table);
    std::fs::remove_dir_all(&dir).unwrap();
}
