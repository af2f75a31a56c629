//! `--rules` through the built binary: positions, perft, solves, batches, certificates and the
//! database under each rule set, and refusals.
use crate::common;
use crate::common::oracle::{oracle_value_under, OracleRules};
use crate::common::run_uttt;
use serde_json::Value;
use uttt::game::{format_position, Position, Rng, Rules};

/// O won board a first (X's line there came later); X is sent to a, which has three empty
/// cells.
const OPEN_POSITION: &str =
    "X;o........;XXXOOO.../........./........./........./........./........./........./........./.........";

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// A late position whose value under CodinGame's rules differs from its value under the
/// common rules (a board count decides what was a draw), found by seeded playouts.
fn position_where_codingame_differs() -> (String, &'static str, &'static str) {
    let mut rng = Rng::new(5);
    loop {
        let plies = 60 + rng.below(10);
        let start = Position::start_under(Rules::CodinGame);
        let pos = rng
            .playout(&start, plies)
            .into_iter()
            .fold(start, |p, m| p.play(m));
        if pos.is_over() {
            continue;
        }
        let text = format_position(&pos);
        let common = oracle_value_under(&text, OracleRules::Common);
        let codingame = oracle_value_under(&text, OracleRules::CodinGame);
        if common != codingame {
            return (text, common, codingame);
        }
    }
}

#[test]
fn show_and_perft_follow_the_rule_set() {
    let (code, out, err) = run_uttt(&["show", OPEN_POSITION, "--rules", "open", "--json"]);
    assert_eq!(code, 0, "{err}");
    let shown = json(&out);
    assert_eq!(shown["rules"], "open");
    assert_eq!(shown["legal_moves"].as_array().unwrap().len(), 3, "{out}");
    // The same notation is not a position under the common rules (a won board is closed).
    let (code, _, err) = run_uttt(&["show", OPEN_POSITION]);
    assert_eq!(code, 2);
    assert!(err.contains("won boards stay open"), "{err}");
    let (code, out, _) = run_uttt(&["show", "start", "--json"]);
    assert_eq!(code, 0);
    assert!(
        json(&out).get("rules").is_none(),
        "common rules stay unnamed"
    );
    let leaves = |rules: &str| {
        let (code, out, err) = run_uttt(&["perft", "5", "ee", "--rules", rules, "--json"]);
        assert_eq!(code, 0, "{err}");
        json(&out)["leaves"].as_u64().unwrap()
    };
    assert_eq!(leaves("common"), leaves("codingame"));
    assert!(leaves("open") > 0);
    let (code, _, err) = run_uttt(&["perft", "2", "--rules", "standard"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown rule set `standard`"), "{err}");
}

#[test]
fn solves_certificates_and_the_database_keep_rule_sets_apart() {
    let (position, common_value, codingame_value) = position_where_codingame_differs();
    let dir = common::temp_dir("rules-cli");
    let db = dir.join("facts.db");
    let db = db.to_str().unwrap();
    let cert = dir.join("codingame.cert");
    let solve = |rules: &str, extra: &[&str]| {
        let mut args = vec![
            "solve",
            position.as_str(),
            "--rules",
            rules,
            "--json",
            "--db",
            db,
            "--db-min-work",
            "0",
            "--table-mem",
            "64M",
        ];
        args.extend_from_slice(extra);
        let (code, out, err) = run_uttt(&args);
        assert!(code == 0 || code == 1, "{err}");
        json(&out)
    };
    let first = solve("common", &[]);
    assert_eq!(first["result"], common_value, "{position}");
    assert!(first.get("rules").is_none());
    // The common rules' fact is no answer under CodinGame's rules.
    let cert_path = cert.to_str().unwrap();
    let second = solve("codingame", &["--certificate", cert_path, "--verify"]);
    assert_eq!(second["result"], codingame_value, "{position}");
    assert_eq!(second["rules"], "codingame");
    assert_eq!(second["database"]["answered"], false);
    assert_eq!(second["certified"], true);
    let again = solve("codingame", &[]);
    assert_eq!(again["database"]["answered"], true);
    assert_eq!(again["result"], codingame_value);
    let (code, out, err) = run_uttt(&["verify", cert_path, "--json"]);
    assert_eq!(code, 0, "{err}");
    let verified = json(&out);
    assert_eq!(verified["blocks"][0]["rules"], "codingame");
}

#[test]
fn a_batch_file_names_its_rule_set_and_a_bad_name_is_one_bad_line() {
    let dir = common::temp_dir("rules-batch");
    let file = dir.join("positions.txt");
    let (position, common_value, codingame_value) = position_where_codingame_differs();
    let late_open = common::playout_positions_under(Rules::WonBoardsOpen, 62, 1, 9).remove(0);
    std::fs::write(
        &file,
        format!(
            "{position} {common_value}\nrules codingame\n{position} {codingame_value}\n\
             rules chess\n{OPEN_POSITION}\nrules open\n{late_open}\n"
        ),
    )
    .unwrap();
    let (code, out, err) = run_uttt(&[
        "solve",
        "--file",
        file.to_str().unwrap(),
        "--json",
        "--table-mem",
        "64M",
    ]);
    let lines: Vec<Value> = out.lines().map(json).collect();
    let line = |n: u64| {
        lines
            .iter()
            .find(|l| l["line"] == n)
            .unwrap_or_else(|| panic!("{out}"))
    };
    assert_eq!(line(1)["matches"], true, "{out}");
    assert_eq!(line(3)["matches"], true, "{out}");
    assert_eq!(line(3)["rules"], "codingame");
    assert!(
        line(4)["message"].as_str().unwrap().contains("chess"),
        "{out}"
    );
    // Still under CodinGame's rules after the bad line: the open rules' notation is refused.
    assert_eq!(line(5)["type"], "error", "{out}");
    assert_eq!(line(7)["rules"], "open", "{out}");
    assert_eq!(line(7)["type"], "result", "{out}");
    assert_ne!(code, 0, "{err}");
}

#[test]
fn uttt_ai_and_codingame_notations_are_refused_when_won_boards_stay_open() {
    for notation in ["uttt-ai", "codingame"] {
        let (code, stdout, stderr) =
            run_uttt(&["show", "ee ea", "--rules", "open", "--as", notation]);
        assert_eq!(code, 2, "{stdout}");
        assert!(stderr.contains("`open`"), "{stderr}");
    }
    let (code, stdout, _) = run_uttt(&["show", "ee ea", "--rules", "open", "--json"]);
    assert_eq!(code, 0);
    assert!(json(&stdout).get("notations").is_none(), "{stdout}");
    let (code, stdout, _) =
        run_uttt(&["show", "ee ea", "--rules", "codingame", "--as", "codingame"]);
    assert_eq!(code, 0);
    assert_eq!(stdout.trim(), "moves     4 4, 3 3");
}
