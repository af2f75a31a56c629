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

/// Positions from seeded random playouts of 50–60 plies that are still in play, in notation.
pub fn playout_positions(count: usize, seed: u64) -> Vec<String> {
    use uttt::game::{format_position, Position, Rng};
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let plies = 50 + rng.below(11);
        let moves = rng.playout(&Position::start(), plies);
        let p = moves.iter().fold(Position::start(), |p, &m| p.play(m));
        if !p.is_over() {
            out.push(format_position(&p));
        }
    }
    out
}

/// Runs the built `uttt` with `args`: exit code, stdout and stderr.
pub fn run_uttt(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_uttt"))
        .args(args)
        .output()
        .expect("uttt runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Starts the built `uttt` with `args` and `input` on its stdin (then closed), stdout and
/// stderr piped.
pub fn spawn_fed(args: &[&str], input: &[u8]) -> std::process::Child {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_uttt"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("uttt starts");
    child.stdin.take().unwrap().write_all(input).unwrap();
    child
}

/// A fresh directory under the system's temporary directory, named after `name` and this
/// test process.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("uttt-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
