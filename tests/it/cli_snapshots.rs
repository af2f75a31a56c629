//! The command line's output, pinned: every JSON key and every line of text that `uttt solve`
//! prints, for wins, losses, draws, settled positions, limits and batches. What is a contract
//! is pinned: the keys, the answers, exit codes, the table's size, the solved root numbers and
//! the layout. What a better search may change is checked and then masked: the best move and
//! the principal variation must be legal moves from the position (checked here), and the node
//! counts, table traffic and fill, unsolved root numbers, times and rates are masked, so that
//! a change to the search does not churn these snapshots. Review a change with `cargo insta
//! review` (or delete the snapshot and rerun), never by editing the expectation to whatever
//! comes out.
use serde_json::Value;
use std::process::Command;
use uttt::game::{parse_move, parse_position, Position};

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

/// JSON keys whose values depend on how the search went (or on the machine), not on what
/// the command promises.
const SEARCH_FIGURES: [&str; 9] = [
    "time_ms",
    "nps",
    "nodes",
    "lookups",
    "hits",
    "stores",
    "replacements",
    "fill",
    "active_bytes",
];

/// Solved root numbers (0 and ∞) are answers; others are search figures.
fn is_solved_number(value: &Value) -> bool {
    matches!(value.as_u64(), Some(0) | Some(4_294_967_295))
}

/// Checks that `moves` is a line of legal moves from `position` and does not end a game
/// before its last move; panics naming the move otherwise.
fn assert_legal_line(position: &str, moves: &[&str]) {
    let mut pos: Position = parse_position(position).unwrap_or_else(|e| panic!("{position}: {e}"));
    for text in moves {
        let mv = parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!(pos.is_legal(mv), "{text} is not legal in {pos} ({moves:?})");
        pos = pos.play(mv);
    }
}

/// Checks that a result object's `best_move` and `pv` are legal from its `position` (the
/// best move first in the variation), then masks them with the other search figures.
fn mask_search_figures(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(position) = map.get("position").and_then(Value::as_str) {
                let pv: Vec<&str> = map
                    .get("pv")
                    .and_then(Value::as_array)
                    .map(|moves| moves.iter().map(|m| m.as_str().expect("a move")).collect())
                    .unwrap_or_default();
                assert_legal_line(position, &pv);
                if let Some(best) = map.get("best_move").and_then(Value::as_str) {
                    assert_eq!(pv.first(), Some(&best), "the pv starts with the best move");
                }
            }
            for (key, item) in map.iter_mut() {
                let masked = SEARCH_FIGURES.contains(&key.as_str())
                    || ((key == "root_phi" || key == "root_delta") && !is_solved_number(item));
                if masked {
                    *item = Value::from("<search>");
                } else if key == "best_move" && item.is_string() {
                    *item = Value::from("<legal move>");
                } else if key == "pv" && item.as_array().is_some_and(|pv| !pv.is_empty()) {
                    *item = Value::from(vec!["<legal moves>"]);
                } else {
                    mask_search_figures(item);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(mask_search_figures),
        _ => {}
    }
}

/// Every JSON line of `stdout`, search figures checked and masked, pretty-printed one after
/// another.
fn masked_json_lines(stdout: &str) -> String {
    stdout
        .lines()
        .map(|line| {
            let mut value: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            mask_search_figures(&mut value);
            serde_json::to_string_pretty(&value).unwrap()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Checks the `best move` and `pv` lines of a single solve's text output against its
/// `position` line.
fn assert_text_moves_legal(stdout: &str) {
    let field = |name: &str| {
        stdout
            .lines()
            .find_map(|line| line.strip_prefix(name).map(str::trim))
    };
    let Some(position) = field("position ") else {
        return;
    };
    let pv: Vec<&str> = field("pv ").map_or(Vec::new(), |pv| pv.split(' ').collect());
    assert_legal_line(position, &pv);
    if let Some(best) = field("best move ").filter(|best| *best != "-") {
        assert_eq!(pv.first(), Some(&best), "the pv starts with the best move");
    }
}

/// Runs `uttt solve --json ARGS` and snapshots the masked object and the exit code.
fn snapshot_json(name: &str, args: &[&str]) {
    let mut all = vec!["solve", "--json"];
    all.extend_from_slice(args);
    let (code, stdout) = uttt(&all);
    let text = format!("exit {code}\n{}", masked_json_lines(&stdout));
    insta::assert_snapshot!(name, text);
}

/// Runs `uttt ARGS` and snapshots its text output and exit code, its moves checked for
/// legality and its search figures masked (see the module documentation).
fn snapshot_text(name: &str, args: &[&str]) {
    let (code, stdout) = uttt(args);
    assert_text_moves_legal(&stdout);
    let text = format!("exit {code}\n{stdout}");
    insta::with_settings!({filters => vec![
        (r"\d+\.\d{3} s", "T s"),
        (r"\d+ nodes/s", "N nodes/s"),
        (r"nodes \d+", "nodes N"),
        (r"\s*\d+ nodes", " N nodes"),
        (r"\(\d+ [KMGT]?i?B in use\)", "(A in use)"),
        (r"\d+\.\d% full, \d+ lookups \(\d+\.\d% hits\), \d+ stores, \d+ replacements",
         "F% full, L lookups (H% hits), S stores, R replacements"),
        (r"([φδ])=[1-9]\d*", "${1}=n"),
        (r"(?m)^best move  [a-i]{2}$", "best move  <legal move>"),
        (r"(?m)^pv         .*$", "pv         <legal moves>"),
        // A batch row's move column (the row's legality is checked by the JSON batch).
        (r"(?m)^(\s+\d+  \S+\s+)[a-i]{2}( )", "${1}mv${2}"),
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
