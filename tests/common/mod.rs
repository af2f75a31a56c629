//! Shared test helpers: the oracle and the test data readers.
#![allow(dead_code)]

pub mod oracle;

/// Rows of a tab-separated data file in tests/data (comments and blank lines skipped).
pub fn data_rows(name: &str) -> Vec<Vec<String>> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split('\t').map(|s| s.trim().to_string()).collect())
        .collect()
}

/// Runs `check` on every item, spread over the machine's cores (work taken from a shared
/// counter so one slow item does not hold up a whole share). Panics propagate.
pub fn parallel_rows<T: Sync>(items: &[T], check: impl Fn(&T) + Sync) {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                match items.get(i) {
                    Some(item) => check(item),
                    None => break,
                }
            });
        }
    });
}
