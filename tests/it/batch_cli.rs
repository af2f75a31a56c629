//! Batch solving and interruption, through the built binary.
use crate::common;
use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn data(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs `uttt solve --file ... --json` with `stdin` fed to it; returns the exit code and the
/// parsed JSON lines.
fn batch(args: &[&str], stdin: &str) -> (i32, Vec<Value>) {
    let mut all = vec!["solve", "--json", "--table-mem", "64M"];
    all.extend_from_slice(args);
    let child = common::spawn_fed(&all, stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    (out.status.code().unwrap_or(-1), lines)
}

#[test]
fn a_file_solves_every_position_and_matches_expected_values() {
    let (code, lines) = batch(&["--file", &data("demo.txt")], "");
    assert_eq!(code, 0);
    let results: Vec<&Value> = lines.iter().filter(|l| l["type"] == "result").collect();
    assert!(results.len() >= 5);
    for r in &results {
        for key in [
            "line",
            "position",
            "result",
            "value",
            "best_move",
            "nodes",
            "searches",
            "table",
        ] {
            assert!(r.get(key).is_some(), "missing {key} in {r}");
        }
        assert_eq!(r["matches"], true, "{r}");
    }
    let summary = lines.last().unwrap();
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["positions"], results.len() as u64);
    assert_eq!(summary["mismatches"], 0);
}

#[test]
fn a_bad_line_is_reported_and_the_rest_still_solved_from_stdin() {
    let demo = std::fs::read_to_string(data("demo.txt")).unwrap();
    let good: Vec<&str> = demo
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(3)
        .collect();
    let input = format!(
        "{}\n\n# a comment\nX;nonsense\n{}\n{} O\n",
        good[0],
        good[1],
        good[2].rsplit_once(' ').unwrap().0
    );
    let (code, lines) = batch(&["--file", "-"], &input);
    assert_eq!(code, 1, "a bad line or a mismatch makes the exit code 1");
    let error = lines
        .iter()
        .find(|l| l["type"] == "error")
        .expect("an error line");
    assert_eq!(error["line"], 4);
    assert!(error["message"].as_str().unwrap().contains("part"));
    let results: Vec<&Value> = lines.iter().filter(|l| l["type"] == "result").collect();
    assert_eq!(results.len(), 3);
    assert_eq!(
        results
            .iter()
            .map(|r| r["line"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        [1, 5, 6]
    );
    assert_eq!(lines.last().unwrap()["errors"], 1);
}

#[test]
fn a_drawn_board_mark_is_not_a_comment() {
    let input = "X;XX..#OXO.;O..XXX.O./.XO.X.XX./OOX.OXOX./XO.OOXO.X/XOOOXXOXO/.OOOO.O.O/.XXXX.XO./OOXXOXOXO/OXXXO..X. X  # trailing comment\n";
    let (code, lines) = batch(&["--file", "-"], input);
    assert_eq!(code, 0, "{lines:?}");
    assert_eq!(lines[0]["matches"], true);
}

#[test]
fn parallel_jobs_give_the_same_values_as_sequential() {
    let values = |jobs: &str| -> Vec<(Value, Value)> {
        let (_, lines) = batch(&["--file", &data("demo.txt"), "--jobs", jobs], "");
        lines
            .iter()
            .filter(|l| l["type"] == "result")
            .map(|l| (l["line"].clone(), l["result"].clone()))
            .collect()
    };
    assert_eq!(values("1"), values("3"));
}

#[test]
fn ctrl_c_stops_with_exit_130_and_a_partial_answer() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_uttt"))
        .args([
            "solve",
            "ee ea ae",
            "--json",
            "--table-mem",
            "64M",
            "--progress",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = common::wait_for_stderr(&mut child, common::shows_nodes, Duration::from_secs(60));
    let sent = Instant::now();
    common::send_signal(&child, "INT");
    let out = child.wait_with_output().unwrap();
    // Generous: it only catches a solve that does not stop (each check comes within
    // milliseconds of search).
    assert!(
        sent.elapsed() < Duration::from_secs(10),
        "took {:?} to stop",
        sent.elapsed()
    );
    assert_eq!(out.status.code(), Some(130), "{}", stderr.join().unwrap());
    let json: Value = serde_json::from_slice(&out.stdout).expect("a complete JSON object");
    assert_eq!(json["result"], "unknown");
    assert!(json["nodes"].as_u64().unwrap() > 0);
}
