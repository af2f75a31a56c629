//! Shared test helpers: the oracle and the test data readers.
#![allow(dead_code)]

#[cfg(feature = "mpi")]
pub mod mpi;
pub mod oracle;
pub mod serve;

/// The seventh position of `uttt gen --plies 28 --count 12 --seed 9`: an X win that takes two
/// threads about six seconds, long enough that a kill in the first two seconds of a campaign
/// falls inside its search on a fast machine too.
pub const SIX_SECOND_X_WIN: &str =
    "X;...X@....;X.OO..O../..O.O..../....XX.X./X.OX..X.X/...OX.O.O/...OO..../XX...XO../........O/.X.OX....";

/// Line 42 of `positions/reach.txt`: an X win that takes two threads a second or two (the
/// refit campaign's test runs it in parts).
pub const TWO_SECOND_X_WIN: &str = "X;.@.....X.;.....O.../..O....X./..XX.OOO./...XO.XOO/..O.X..../.O.X..X.X/.OXO.OX../XXX...O../.....X.O.";

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
    playout_positions_under(uttt::game::Rules::Common, 50, count, seed)
}

/// [`playout_positions`] under `rules`, of `first` to `first + 10` plies.
pub fn playout_positions_under(
    rules: uttt::game::Rules,
    first: usize,
    count: usize,
    seed: u64,
) -> Vec<String> {
    use uttt::game::{format_position, Position, Rng};
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let start = Position::start_under(rules);
    while out.len() < count {
        let plies = first + rng.below(11);
        let moves = rng.playout(&start, plies);
        let p = moves.iter().fold(start, |p, &m| p.play(m));
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

/// The built binary with `args`, started with its output captured.
pub fn spawn_uttt(args: &[&str]) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_uttt"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("uttt runs")
}

/// Waits for `child` at most `limit`: its exit code, stdout and stderr, and how long it took.
/// A child still running then is killed and the test fails: a hang is a failure here.
pub fn finish_within(
    mut child: std::process::Child,
    limit: std::time::Duration,
) -> (i32, String, String, std::time::Duration) {
    let began = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if began.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "still running after {limit:?}; stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let took = began.elapsed();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        took,
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
/// test process, removed with what it holds when the returned guard is dropped (at the end of
/// the test, passed or failed), so that test runs leave nothing behind.
pub fn temp_dir(name: &str) -> TempDir {
    let dir = std::env::temp_dir().join(format!("uttt-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

/// A directory of [`temp_dir`]'s, removed when dropped; it reads as its path.
pub struct TempDir(std::path::PathBuf);

impl std::ops::Deref for TempDir {
    type Target = std::path::Path;

    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for TempDir {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        // Nothing to report if it is gone already: a test may remove it itself.
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Sends `signal` (a name such as `INT` or `TERM`) to `child`.
pub fn send_signal(child: &std::process::Child, signal: &str) {
    let status = std::process::Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{signal} failed");
}

/// Reads `child`'s stderr (which must be piped) until a line for which `ready` holds, failing
/// the test if none comes within `limit` (generous: it only bounds a hung process); the rest
/// of stderr is drained in the background, so the child never blocks on it, and comes back
/// from the returned thread when the child closes it. The readiness signal for tests that
/// stop a search: a `--progress` line, which a search prints only once it runs.
pub fn wait_for_stderr(
    child: &mut std::process::Child,
    ready: impl Fn(&str) -> bool,
    limit: std::time::Duration,
) -> std::thread::JoinHandle<String> {
    use std::io::BufRead;
    let stderr = child.stderr.take().expect("stderr is piped");
    let (lines_tx, lines_rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in std::io::BufReader::new(stderr).lines() {
            let line = line.unwrap_or_default();
            all += &line;
            all.push('\n');
            let _ = lines_tx.send(line);
        }
        all
    });
    let deadline = std::time::Instant::now() + limit;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match lines_rx.recv_timeout(left) {
            Ok(line) if ready(&line) => return reader,
            Ok(_) => {}
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "no ready line on stderr within {limit:?}: {}",
                    reader.join().unwrap()
                );
            }
        }
    }
}

/// Whether `line` is a solve's `--progress` line that shows searched nodes.
pub fn shows_nodes(line: &str) -> bool {
    // progress 1.0 s  2471911 nodes  ...
    line.starts_with("progress ")
        && line
            .split_whitespace()
            .nth(3)
            .and_then(|n| n.parse::<u64>().ok())
            .is_some_and(|nodes| nodes > 0)
}

/// The bundled proof that X wins the whole game under won boards open
/// (`docs/proofs/open-game.cert`, claim `X wins within 43 plies`).
pub fn open_game_proof() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/proofs/open-game.cert")
}

/// The bytes of the bundled proof with its claim changed to `X wins within PLIES plies`, the
/// moves untouched (both bounds are written with two digits, so the file keeps its length).
pub fn open_game_proof_claiming(plies: u8) -> Vec<u8> {
    let mut bytes = std::fs::read(open_game_proof()).unwrap();
    let claim = b"claim X wins within 43 plies\n";
    let at = bytes
        .windows(claim.len())
        .position(|window| window == claim)
        .expect("the claim line");
    let new = format!("claim X wins within {plies} plies\n");
    assert_eq!(new.len(), claim.len(), "a two-digit bound");
    bytes[at..at + claim.len()].copy_from_slice(new.as_bytes());
    bytes
}

/// Checks an estimate in the JSON of `analyze` or `review`: X, O and draw probabilities that
/// make one, the number of playouts behind them, and the playouts' own shares beside them.
pub fn assert_search_estimate(estimate: &serde_json::Value) {
    let chances = |object: &serde_json::Value| -> f64 {
        let chances: Vec<f64> = ["x", "o", "draw"]
            .iter()
            .map(|key| {
                object[key]
                    .as_f64()
                    .unwrap_or_else(|| panic!("no {key}: {estimate}"))
            })
            .collect();
        assert!(
            chances.iter().all(|p| (0.0..=1.0).contains(p)),
            "{estimate}"
        );
        chances.iter().sum()
    };
    assert!((chances(estimate) - 1.0).abs() <= 0.002, "{estimate}");
    assert!(
        (chances(&estimate["shares"]) - 1.0).abs() <= 0.002,
        "{estimate}"
    );
    assert!(estimate["playouts"].as_u64().unwrap_or(0) > 0, "{estimate}");
}

/// The oracle's name of a rule set (the oracle itself knows nothing of the crate).
pub fn oracle_rules(rules: uttt::game::Rules) -> oracle::OracleRules {
    use uttt::game::Rules;
    match rules {
        Rules::Common => oracle::OracleRules::Common,
        Rules::WonBoardsOpen => oracle::OracleRules::WonBoardsOpen,
        Rules::CodinGame => oracle::OracleRules::CodinGame,
    }
}

/// The oracle's value of `pos`, under its rule set.
pub fn oracle_verdict(pos: &uttt::game::Position) -> uttt::services::Verdict {
    use uttt::game::Player;
    use uttt::services::Verdict;
    let notation = uttt::game::format_position(pos);
    match oracle::oracle_value_under(&notation, oracle_rules(pos.rules())) {
        "X" => Verdict::Wins(Player::X),
        "O" => Verdict::Wins(Player::O),
        _ => Verdict::Draw,
    }
}
