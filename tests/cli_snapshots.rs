//! The command line's output, pinned: every JSON key and every line of text that `uttt solve`
//! prints, for wins, losses, draws, settled positions, limits and batches. Times and rates
//! differ between runs, so they are masked; everything else is deterministic with the
//! single-threaded DFPN engine. Review a change with `cargo insta review` (or delete the
//! snapshot and rerun), never by editing the expectation to whatever comes out.
use serde_json::Value;
use std::process::Command;

/// X to move wins (19 nodes).
const X_WINS: &str = "X;X.....O@O;X.XXX.X.O/.OOOXOOOX/.X..OXXOX/..OOXOXOX/OXOXXOOO./OO..X.X.X/OXXOO.XOO/.X.X.XX.X/OXOXO..OO";
/// X to move loses (16 nodes).
const O_WINS: &str = "X;O..XOX.X.;XOOOOOXOX/..XXXO.OX/XOO...OXO/X.XOX.X../OX...XOOO/O.XXX.XX./XO..OO.XO/OOXOXOXOX/XX.XOO.XO";
/// A draw that needs both questions searched (224 nodes).
const DRAW: &str = "X;.XO.....X;.XOXX.X.O/XXXXO.O../OOXX..OOO/OO..XOOXO/.OXOOXX.O/O..X..OXO/XOXOXX.XO/O.O.OO.X./..XXXXX..";
/// O to move, and O loses (151 nodes).
const O_TO_MOVE_LOSES: &str = "O;OO....XX.;...OOO.X./.X....OOO/X.O..X.O./OX.XO.O../.O.XX.OO./..XO.OXOO/XX..XXOXO/XXOX.XXO./..X..X.X.";
/// A draw the rules settle without a search.
const SETTLED_DRAW: &str = "X;.@XOOXXOO;XOXOXXOX./OXXXOO.OX/XX..XO..X/OOOX...X./OX.OX.O../..OOXOXXX/XXXXOXOXO/..OXO.OOX/.OOOX.OOO";

/// Runs `uttt` with deterministic settings; returns the exit code and stdout.
fn uttt(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_uttt"))
        .args(args)
        .args(["--engine", "dfpn", "--table-mem", "16M", "--quiet"])
        .output()
        .expect("uttt runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "unexpected stderr: {stderr}");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("UTF-8 output"),
    )
}

/// Zeroes every `time_ms` and `nps` in a JSON value (they depend on the machine).
fn mask_times(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                if key == "time_ms" || key == "nps" {
                    *item = Value::from(0);
                } else {
                    mask_times(item);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(mask_times),
        _ => {}
    }
}

/// Every JSON line of `stdout`, times masked, pretty-printed one after another.
fn masked_json_lines(stdout: &str) -> String {
    stdout
        .lines()
        .map(|line| {
            let mut value: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            mask_times(&mut value);
            serde_json::to_string_pretty(&value).unwrap()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs `uttt solve --json ARGS` and snapshots the masked object and the exit code.
fn snapshot_json(name: &str, args: &[&str]) {
    let mut all = vec!["solve", "--json"];
    all.extend_from_slice(args);
    let (code, stdout) = uttt(&all);
    let text = format!("exit {code}\n{}", masked_json_lines(&stdout));
    insta::assert_snapshot!(name, text);
}

/// Runs `uttt ARGS` and snapshots its text output (times masked) and exit code.
fn snapshot_text(name: &str, args: &[&str]) {
    let (code, stdout) = uttt(args);
    let text = format!("exit {code}\n{stdout}");
    insta::with_settings!({filters => vec![
        (r"\d+\.\d{3} s", "T s"),
        (r"\d+ nodes/s", "N nodes/s"),
    ]}, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn solve_json_for_every_kind_of_answer() {
    snapshot_json("json_x_wins", &[X_WINS]);
    snapshot_json("json_o_wins", &[O_WINS]);
    snapshot_json("json_draw", &[DRAW]);
    snapshot_json("json_o_to_move_loses", &[O_TO_MOVE_LOSES]);
    snapshot_json("json_settled_draw", &[SETTLED_DRAW]);
    snapshot_json("json_attacker_disproved", &[O_WINS, "--attacker", "X"]);
    snapshot_json("json_attacker_proved", &[O_WINS, "--attacker", "O"]);
    snapshot_json("json_node_limit", &[DRAW, "--node-limit", "20"]);
}

#[test]
fn solve_text_for_every_kind_of_answer() {
    snapshot_text("text_x_wins", &["solve", X_WINS]);
    snapshot_text("text_draw", &["solve", DRAW]);
    snapshot_text("text_o_to_move_loses", &["solve", O_TO_MOVE_LOSES]);
    snapshot_text(
        "text_attacker_disproved",
        &["solve", O_WINS, "--attacker", "X"],
    );
    snapshot_text("text_node_limit", &["solve", DRAW, "--node-limit", "20"]);
}

#[test]
fn batch_output_in_json_and_text() {
    let file = format!(
        "{}/tests/data/snapshot-batch.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let (code, stdout) = uttt(&["solve", "--file", &file, "--jobs", "1", "--json"]);
    insta::assert_snapshot!(
        "batch_json",
        format!("exit {code}\n{}", masked_json_lines(&stdout))
    );
    snapshot_text("batch_text", &["solve", "--file", &file, "--jobs", "1"]);
}
