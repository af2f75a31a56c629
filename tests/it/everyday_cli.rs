//! Everyday use through the built binary: batches whose reader goes away, Ctrl-C in parallel
//! batches, bad bytes, table files shared by two processes or killed half-way, and limits.
use crate::common;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Never settles within these tests (a position three plies from the start).
const HARD: &str = "ee ea ae";
/// Quick positions (late in the game) with their values.
const QUICK: [&str; 4] = [
    "X;X.....O@O;X.XXX.X.O/.OOOXOOOX/.X..OXXOX/..OOXOXOX/OXOXXOOO./OO..X.X.X/OXXOO.XOO/.X.X.XX.X/OXOXO..OO X",
    "X;.XO.....X;.XOXX.X.O/XXXXO.O../OOXX..OOO/OO..XOOXO/.OXOOXX.O/O..X..OXO/XOXOXX.XO/O.O.OO.X./..XXXXX.. draw",
    "X;O..XOX.X.;XOOOOOXOX/..XXXO.OX/XOO...OXO/X.XOX.X../OX...XOOO/O.XXX.XX./XO..OO.XO/OOXOXOXOX/XX.XOO.XO O",
    "O;OO....XX.;...OOO.X./.X....OOO/X.O..X.O./OX.XO.O../.O.XX.OO./..XO.OXOO/XX..XXOXO/XXOX.XXO./..X..X.X. X",
];
/// A position that DFPN takes seconds to solve, so that a `--progress` line (one a second)
/// comes before it ends (an X win; line 42 of positions/reach.txt: about 3 million MID calls,
/// 2 to 3 seconds here).
const SECONDS: &str = "X;.@.....X.;.....O.../..O....X./..XX.OOO./...XO.XOO/..O.X..../.O.X..X.X/.OXO.OX../XXX...O../.....X.O.";

fn uttt() -> Command {
    Command::new(env!("CARGO_BIN_EXE_uttt"))
}

/// Waits for `child` at most `limit`; kills it and fails the test if it takes longer.
fn wait_within(child: &mut Child, limit: Duration, what: &str) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_batch_whose_reader_goes_away_stops_promptly_and_quietly() {
    // A bad first line gives an output line at once; then many positions of 3 s each.
    let mut input = String::from("not a position\n");
    for _ in 0..40 {
        input += HARD;
        input += "\n";
    }
    let mut child = common::spawn_fed(
        &[
            "solve",
            "--file",
            "-",
            "--jobs",
            "1",
            "--threads",
            "1",
            "--time-limit",
            "3s",
            "--table-mem",
            "16M",
        ],
        input.as_bytes(),
    );
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(!first.is_empty());
    drop(stdout); // like `| head -1`
    let status = wait_within(
        &mut child,
        Duration::from_secs(15),
        "batch after its reader left",
    );
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(
        stderr.is_empty(),
        "no message for a reader that left: {stderr}"
    );
}

/// Starts a `--json` batch of `input` on stdin with `args` and `--progress`, and waits until
/// its stderr shows a progress line starting with `ready`.
fn start_batch(
    args: &[&str],
    input: &str,
    ready: &str,
) -> (Child, std::thread::JoinHandle<String>) {
    let mut all = vec!["solve", "--file", "-", "--json", "--progress"];
    all.extend_from_slice(args);
    let mut child = common::spawn_fed(&all, input.as_bytes());
    let stderr = common::wait_for_stderr(
        &mut child,
        |line| line.starts_with(ready),
        Duration::from_secs(120),
    );
    (child, stderr)
}

/// Sends `signal` to a batch run with `--json`, checks that it stops with `code`, and returns
/// its JSON lines.
fn stopped_batch_lines(
    mut child: Child,
    stderr: std::thread::JoinHandle<String>,
    signal: &str,
    code: i32,
) -> Vec<Value> {
    common::send_signal(&child, signal);
    wait_within(
        &mut child,
        Duration::from_secs(10),
        "batch after the signal",
    );
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(code), "{}", stderr.join().unwrap());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn ctrl_c_in_a_parallel_batch_prints_every_finished_result() {
    // One worker is held by the hard line; the other finishes the quick ones behind it.
    let mut input = format!("{HARD}\n");
    for _ in 0..3 {
        for quick in QUICK {
            input += quick;
            input += "\n";
        }
    }
    // Ready once the twelve quick lines have finished (held back behind the first).
    let (child, stderr) = start_batch(
        &[
            "--jobs",
            "2",
            "--threads",
            "1",
            "--time-limit",
            "60s",
            "--table-mem",
            "64M",
        ],
        &input,
        "progress 12/13 ",
    );
    let lines = stopped_batch_lines(child, stderr, "INT", 130);
    let results: Vec<&Value> = lines.iter().filter(|l| l["type"] == "result").collect();
    assert_eq!(results.len(), 13, "every line has its result: {lines:?}");
    assert_eq!(results[0]["result"], "unknown");
    assert!(
        results[1..].iter().all(|r| r["matches"] == true),
        "{results:?}"
    );
    let lines_in_order: Vec<u64> = results
        .iter()
        .map(|r| r["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines_in_order, (1..=13).collect::<Vec<_>>());
    let summary = lines.last().unwrap();
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["interrupted"], true);
}

#[test]
fn a_line_that_is_not_utf8_is_a_bad_line_and_the_batch_goes_on() {
    let mut input = Vec::new();
    input.extend_from_slice(QUICK[0].as_bytes());
    input.extend_from_slice(b"\nX;\xff\xfe garbage\n");
    // A comment need not be UTF-8: it is skipped like any comment.
    input.extend_from_slice(b"# r\xe9sum\xe9 in Latin-1\n");
    input.extend_from_slice(QUICK[1].as_bytes());
    input.push(b'\n');
    let child = common::spawn_fed(
        &["solve", "--file", "-", "--json", "--table-mem", "16M"],
        &input,
    );
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "a bad line makes exit 1");
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(lines[0]["matches"], true);
    assert_eq!(lines[1]["type"], "error");
    assert_eq!(lines[1]["line"], 2);
    let message = lines[1]["message"].as_str().unwrap();
    assert!(
        message.contains("UTF-8") && message.contains("column 3"),
        "{message}"
    );
    assert_eq!(lines[2]["matches"], true);
    assert_eq!(lines[2]["line"], 4);
    assert_eq!(lines[3]["errors"], 1);
}

#[test]
fn the_text_batch_output_has_a_header_row() {
    let child = common::spawn_fed(
        &["solve", "--file", "-", "--table-mem", "16M"],
        QUICK[0].as_bytes(),
    );
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let header = text.lines().next().unwrap();
    for column in ["line", "result", "move", "time", "nodes", "check"] {
        assert!(header.contains(column), "{header}");
    }
}

#[test]
fn a_table_file_in_use_is_refused_by_a_second_process() {
    let dir = common::temp_dir("lock");
    let file = dir.join("t.tt");
    let path = file.to_str().unwrap();
    let mut first = uttt()
        .args(["solve", HARD, "--table-file", path, "--table-mem", "16M"])
        .args(["--time-limit", "30s", "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the first process has created (and locked) the file.
    let start = Instant::now();
    while std::fs::metadata(&file).map_or(true, |m| m.len() == 0) {
        assert!(start.elapsed() < Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(20));
    }
    // The file is sized once it is locked, and the signal handlers come before the table.
    let second = uttt()
        .args(["solve", QUICK[0].split(' ').next().unwrap()])
        .args(["--table-file", path, "--table-mem", "16M"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("in use by another uttt process"),
        "{stderr}"
    );
    common::send_signal(&first, "INT");
    let status = wait_within(&mut first, Duration::from_secs(10), "first solve");
    assert_eq!(status.code(), Some(130));
    // Once the first process is gone, the file opens again (and was left clean).
    let third = uttt()
        .args(["solve", QUICK[0].split(' ').next().unwrap()])
        .args(["--table-file", path, "--table-mem", "16M"])
        .output()
        .unwrap();
    assert_eq!(third.status.code(), Some(0));
}

/// `(result, nodes)` of a DFPN solve of `SECONDS`, with `extra` arguments.
fn solve_seconds(extra: &[&str]) -> (String, u64) {
    let out = uttt()
        .args([
            "solve",
            SECONDS,
            "--json",
            "--engine",
            "dfpn",
            "--table-mem",
            "64M",
        ])
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    (
        json["result"].as_str().unwrap().to_string(),
        json["nodes"].as_u64().unwrap(),
    )
}

#[test]
fn a_solve_killed_half_way_resumes_from_its_table_file() {
    let dir = common::temp_dir("crash");
    let file = dir.join("t.tt");
    let path = file.to_str().unwrap();
    let (scratch_result, scratch_nodes) = solve_seconds(&[]);
    let mut doomed = uttt()
        .args(["solve", SECONDS, "--engine", "dfpn", "--table-mem", "64M"])
        .args(["--table-file", path, "--progress"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Killed once it has searched a while (if it finishes first, the file holds all of it).
    let _stderr =
        common::wait_for_stderr(&mut doomed, common::shows_nodes, Duration::from_secs(60));
    doomed.kill().unwrap(); // SIGKILL: no flush, no clean flag
    doomed.wait().unwrap();
    let (resumed_result, resumed_nodes) = solve_seconds(&["--table-file", path]);
    assert_eq!(resumed_result, scratch_result);
    assert!(
        resumed_nodes < scratch_nodes,
        "resumed {resumed_nodes} nodes, from scratch {scratch_nodes}"
    );
}

#[test]
fn a_table_larger_than_the_memory_available_is_refused() {
    let out = uttt()
        .args([
            "solve",
            QUICK[0].split(' ').next().unwrap(),
            "--table-mem",
            "60T",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("memory available"), "{stderr}");
}

/// Whether the table file at `path` is marked as shut down cleanly (the header's flag).
fn table_file_is_clean(path: &std::path::Path) -> bool {
    std::fs::read(path).unwrap()[32] == 1
}

/// Starts `uttt` with `args` and `--progress`, stdout and stderr piped, and waits until it
/// searches.
fn spawn_searching(args: &[&str]) -> (Child, std::thread::JoinHandle<String>) {
    let mut child = uttt()
        .args(args)
        .arg("--progress")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = common::wait_for_stderr(&mut child, common::shows_nodes, Duration::from_secs(60));
    (child, stderr)
}

/// Sends SIGTERM `signals` times in a row to a solve with a table file, and checks that it
/// stopped like Ctrl-C: exit 143, the partial answer, the table file written back.
fn solve_stopped_by_sigterm(signals: usize) {
    let dir = common::temp_dir(&format!("sigterm-{signals}"));
    let file = dir.join("t.tt");
    let path = file.to_str().unwrap();
    let (mut child, stderr) = spawn_searching(&[
        "solve",
        HARD,
        "--json",
        "--table-mem",
        "16M",
        "--table-file",
        path,
    ]);
    assert!(!table_file_is_clean(&file), "in use, the file is marked");
    for _ in 0..signals {
        common::send_signal(&child, "TERM");
    }
    wait_within(&mut child, Duration::from_secs(10), "solve after SIGTERM");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(143), "{}", stderr.join().unwrap());
    let json: Value = serde_json::from_slice(&out.stdout).expect("the partial answer");
    assert_eq!(json["result"], "unknown");
    assert!(json["nodes"].as_u64().unwrap() > 0);
    assert!(table_file_is_clean(&file), "written back and marked clean");
}

#[test]
fn sigterm_stops_a_solve_like_ctrl_c_with_exit_143_and_writes_the_table_file_back() {
    solve_stopped_by_sigterm(1);
}

#[test]
fn a_second_sigterm_as_gnu_timeout_sends_it_still_lets_the_solve_finish_its_output() {
    // `timeout` signals the command and then its process group, the command included.
    solve_stopped_by_sigterm(2);
}

#[test]
fn sigterm_stops_an_analysis_with_exit_143_and_what_it_knows() {
    let (mut child, stderr) = spawn_searching(&["analyze", HARD, "--json", "--table-mem", "16M"]);
    common::send_signal(&child, "TERM");
    wait_within(
        &mut child,
        Duration::from_secs(10),
        "analysis after SIGTERM",
    );
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(143), "{}", stderr.join().unwrap());
    let json: Value = serde_json::from_slice(&out.stdout).expect("the partial analysis");
    let moves = json["moves"].as_array().expect("every move listed");
    // O is sent to board e, where X took the centre and O a corner: seven moves, each listed.
    assert_eq!(moves.len(), 7, "{json}");
}

#[test]
fn sigterm_stops_a_batch_with_exit_143_and_its_summary() {
    // The bad first line finishes at once; the hard second line then runs until the signal,
    // and the quick third line never starts.
    let input = format!("not a position\n{HARD}\n{}\n", QUICK[0]);
    let (child, stderr) = start_batch(
        &["--jobs", "1", "--table-mem", "16M"],
        &input,
        "progress 1/3 ",
    );
    let lines = stopped_batch_lines(child, stderr, "TERM", 143);
    let results: Vec<&Value> = lines.iter().filter(|l| l["type"] == "result").collect();
    assert_eq!(results.len(), 1, "{lines:?}");
    assert_eq!(results[0]["result"], "unknown");
    let summary = lines.last().unwrap();
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["interrupted"], true);
    assert_eq!(summary["not_started"], 1);
}
