//! Several threads hammer a tiny table; no reader may ever see a torn entry. Every stored
//! φ is a checksum of the key and δ, so an entry mixing two writes is caught. The same with the
//! threads split between two mappings of one shared table, as the processes that share a
//! table see it.
use uttt::search::numbers::Numbers;
use uttt::table::Table;

fn checksum(key: u64, delta: u32) -> u32 {
    let mixed = (key ^ u64::from(delta).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_mul(0xD6E8_FEB8_6659_FD93);
    (mixed >> 40) as u32 | 1
}

/// Four threads, thread `t` reading and writing through `mappings[t % mappings.len()]` (each
/// a mapping of the same tiny table); asserts that every hit is whole and that the table was
/// small enough to force replacement.
fn hammer(mappings: &[&Table]) {
    let threads = 4;
    let ops = 1_000_000u64;
    let totals: Vec<(u64, u64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let table = mappings[t % mappings.len()];
                scope.spawn(move || {
                    let mut writer = table.writer();
                    let mut state = 0x1234_5678 + t as u64;
                    let mut checked = 0;
                    for i in 0..ops {
                        state = state
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        // Few distinct keys, so threads keep writing the same entries.
                        let key = (state >> 33) % 20_000 * 0x9E37_79B9_7F4A_7C15;
                        if i % 3 == 0 {
                            let delta = (state >> 7) as u32 & 0xFFFF;
                            let numbers = Numbers {
                                phi: checksum(key, delta),
                                delta,
                            };
                            writer.store(key, numbers, state >> 50);
                        } else if let Some(found) = writer.lookup(key) {
                            let n = found.numbers;
                            assert_eq!(
                                n.phi,
                                checksum(key, n.delta),
                                "torn entry for key {key:#x}"
                            );
                            checked += 1;
                        }
                    }
                    (checked, writer.counters().replacements)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let checked: u64 = totals.iter().map(|t| t.0).sum();
    let replaced: u64 = totals.iter().map(|t| t.1).sum();
    assert!(checked > 10_000, "only {checked} hits were checked");
    assert!(
        replaced > 10_000,
        "the tiny table should force replacement, saw {replaced}"
    );
}

#[test]
fn concurrent_readers_never_see_torn_entries() {
    let table = Table::new(64 << 10).unwrap();
    hammer(&[&table]);
}

/// Two mappings of one file have two addresses for each entry, so a writer parked at one is
/// never woken by a release through the other: it must wake by itself, or this test hangs.
#[test]
fn readers_of_two_mappings_of_one_shared_table_never_see_torn_entries() {
    let path = std::env::temp_dir().join(format!("uttt-shared-stress-{}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let first = Table::create_shared(&path, 64 << 10).unwrap();
    let second = Table::open_shared(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    hammer(&[&first, &second]);
}
