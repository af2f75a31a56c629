//! `uttt review` as users run it: a game in any notation, inline, from a file or stdin; the
//! table of plies and the JSON Lines agree with each other and hold together; the database
//! answers a second review; bad input and signals. Values and marks are checked against the
//! oracle and `analyze` in tests/it/review.rs.
use crate::common;
use serde_json::Value;
use std::time::{Duration, Instant};
use uttt::game::formats::{format_codingame, format_uttt_ai_moves};
use uttt::game::{format_moves, Move, Position, Rng};

/// A whole game of a seeded random playout.
fn random_game(seed: u64) -> Vec<Move> {
    Rng::new(seed).playout(&Position::start(), 81)
}

/// Deterministic, quick search settings: one-threaded DFPN with a node limit per position.
const QUICK: [&str; 10] = [
    "--engine",
    "dfpn",
    "--node-limit",
    "300000",
    "--estimate-playouts",
    "2000",
    "--table-mem",
    "16M",
    "--quiet",
    "--json",
];

/// Runs `uttt review` with `args` and the quick settings; exit code and JSON lines.
fn review_json(args: &[&str]) -> (i32, Vec<Value>) {
    let mut all = vec!["review"];
    all.extend_from_slice(args);
    all.extend_from_slice(&QUICK);
    let (code, out, err) = common::run_uttt(&all);
    assert!(code == 0 || code == 1, "exit {code}: {err}");
    let lines = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    (code, lines)
}

/// The plies' values and marks, for comparing two reviews of one game.
fn values_and_marks(lines: &[Value]) -> Vec<(Value, Value, Value)> {
    lines
        .iter()
        .filter(|l| l["type"] == "ply")
        .map(|l| (l["value"].clone(), l["mark"].clone(), l["move"].clone()))
        .collect()
}

#[test]
fn json_lines_give_every_ply_then_a_summary_that_agrees_with_them() {
    let game = random_game(11);
    let (code, lines) = review_json(&[&format_moves(&game)]);
    assert_eq!(
        lines.len(),
        game.len() + 2,
        "a line per position and a summary"
    );
    let (plies, summary) = lines.split_at(game.len() + 1);
    let summary = &summary[0];
    assert_eq!(summary["type"], "summary");
    for (ply, line) in plies.iter().enumerate() {
        assert_eq!(line["type"], "ply");
        assert_eq!(line["ply"], ply);
        let expected_move = game.get(ply).map(|m| m.to_string());
        assert_eq!(line["move"].as_str(), expected_move.as_deref(), "{line}");
        assert!(["X", "O", "draw", "unknown"].contains(&line["value"].as_str().unwrap()));
        let mark = line["mark"].as_str();
        if ply == game.len() {
            assert_eq!(mark, None, "no move, no mark: {line}");
        } else {
            assert!(["best", "mistake", "blunder", "unknown"].contains(&mark.unwrap()));
        }
        if line["better_move"].is_string() {
            assert!(mark == Some("mistake") || mark == Some("blunder"), "{line}");
        }
        // A position the walk left unknown comes with the search's estimate beside it; a known
        // value never does.
        if line["value"] == "unknown" {
            if line["reviewed"] == true {
                common::assert_search_estimate(&line["estimate"]);
            }
        } else {
            assert!(line.get("estimate").is_none(), "{line}");
        }
    }
    assert!(
        plies
            .iter()
            .any(|l| l["value"] == "unknown" && l["reviewed"] == true),
        "the walk ends at unknown positions"
    );
    let last = &plies[game.len()];
    assert_eq!(summary["result"], last["value"]);
    assert_eq!(summary["game_over"], true);
    assert_ne!(last["value"], "unknown", "a finished game has its result");
    // The decision: a mistake or blunder (or an unknown value before it), and every later
    // move kept the value.
    let decided_at = summary["decided_at"].as_u64().unwrap() as usize;
    let later_marks = &plies[decided_at + 1..game.len()];
    assert!(later_marks.iter().all(|l| l["mark"] == "best"), "{summary}");
    match summary["decision"].as_str().unwrap() {
        "at" => {
            let mark = plies[decided_at]["mark"].as_str().unwrap();
            assert!(mark == "mistake" || mark == "blunder", "{summary}");
            let text = summary["text"].as_str().unwrap();
            let played = plies[decided_at]["move"].as_str().unwrap();
            assert!(
                text.starts_with(&format!("decided at ply {decided_at}: ")),
                "{text}"
            );
            assert!(text.contains(&format!("played `{played}`")), "{text}");
        }
        "at_or_before" => assert_eq!(plies[decided_at - 1]["mark"], "unknown"),
        other => panic!("a random game is not decided {other}: {summary}"),
    }
    let errors = |mark: &str| -> Vec<u64> {
        plies
            .iter()
            .filter(|l| l["mark"] == mark)
            .map(|l| l["ply"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(summary["mistakes"], serde_json::json!(errors("mistake")));
    assert_eq!(summary["blunders"], serde_json::json!(errors("blunder")));
    let unreviewed = plies.iter().filter(|l| l["reviewed"] == false).count();
    assert_eq!(
        summary["earliest_reviewed"].as_u64().unwrap() as usize,
        unreviewed
    );
    assert_eq!(
        summary["walk_end"], "unknowns",
        "a random game's opening is out of reach"
    );
    assert_eq!(
        code, 1,
        "some positions are unknown: {}",
        summary["positions_reviewed"]
    );
}

#[test]
fn every_notation_inline_from_a_file_or_stdin_gives_the_same_review() {
    let game = random_game(12);
    let (_, ours) = review_json(&[&format_moves(&game)]);
    let expected = values_and_marks(&ours);
    let (_, uttt_ai) = review_json(&[&format_uttt_ai_moves(&game)]);
    assert_eq!(values_and_marks(&uttt_ai), expected, "uttt.ai moves");
    // CodinGame's moves, one pair a line, with comments.
    let dir = common::temp_dir("review-file");
    let file = dir.join("game.txt");
    let codingame = format_codingame(&game).replace(", ", "\n");
    std::fs::write(&file, format!("# a game\n{codingame}  # the last move\n")).unwrap();
    let (_, from_file) = review_json(&["--file", file.to_str().unwrap()]);
    assert_eq!(
        values_and_marks(&from_file),
        expected,
        "CodinGame moves in a file"
    );
    let mut all = vec!["review", "-"];
    all.extend_from_slice(&QUICK);
    let child = common::spawn_fed(&all, codingame.as_bytes());
    let out = child.wait_with_output().unwrap();
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        values_and_marks(&lines),
        expected,
        "CodinGame moves on stdin"
    );
}

#[test]
fn the_text_table_has_a_row_per_reviewed_ply_and_the_summary_in_words() {
    let game = random_game(11);
    let moves = format_moves(&game);
    let (_, lines) = review_json(&[&moves]);
    let summary = lines.last().unwrap();
    let args = [
        "review",
        &moves,
        "--engine",
        "dfpn",
        "--node-limit",
        "300000",
    ];
    let (_, text, err) = common::run_uttt(&[&args[..], &["--table-mem", "16M"]].concat());
    assert!(text.starts_with("ply  to move  value"), "{text}{err}");
    let earliest = summary["earliest_reviewed"].as_u64().unwrap();
    assert!(
        text.contains(&format!("\n0-{}  not reviewed\n", earliest - 1)),
        "{text}"
    );
    let rows = text
        .lines()
        .filter(|l| {
            l.split_whitespace()
                .next()
                .is_some_and(|w| w.parse::<u64>().is_ok())
        })
        .count();
    assert_eq!(rows as u64, summary["positions_reviewed"].as_u64().unwrap());
    let decision = format!("decision   {}\n", summary["text"].as_str().unwrap());
    assert!(text.contains(&decision), "{text}");
    assert!(text.contains("\nwalk       plies "), "{text}");
    assert!(text.contains("--all walks on to the start"), "{text}");
    assert!(!err.contains("positions"), "no progress when piped: {err}");
}

#[test]
fn a_second_review_with_the_database_answers_from_it() {
    let game = random_game(13);
    let moves = format_moves(&game);
    let dir = common::temp_dir("review-db");
    let db = dir.join("solved.db");
    let db = db.to_str().unwrap();
    let args = [moves.as_str(), "--db", db, "--db-min-work", "0"];
    let (_, first) = review_json(&args);
    let (_, second) = review_json(&args);
    assert_eq!(values_and_marks(&first), values_and_marks(&second));
    let answered = second.iter().filter(|l| l["from_database"] == true).count();
    let known = second
        .iter()
        .filter(|l| l["type"] == "ply" && l["value"] != "unknown")
        .filter(|l| l["position"].as_str().is_some_and(|p| !game_over(p)))
        .count();
    assert!(answered > 0, "the database answers some positions");
    assert!(answered <= known, "it answers only what was settled");
}

/// Whether the position in notation `text` is a finished game.
fn game_over(text: &str) -> bool {
    uttt::game::parse_position(text).unwrap().is_over()
}

#[test]
fn a_position_without_its_moves_or_a_bad_game_is_refused_with_where() {
    let (code, _, err) = common::run_uttt(&["review", "X;.........;.../.../..."]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = common::run_uttt(&["review", "start", "--moves", "ee"]);
    assert_eq!(code, 2, "--moves is not an option of review: {err}");
    let (code, _, err) = common::run_uttt(&["review", "ee ea", "--all", "--stop-after", "3"]);
    assert_eq!(
        code, 2,
        "--all walks to the start, --stop-after stops before: {err}"
    );
    let position = "O;....@....;........./........./........./........./....X..../........./........./........./.........";
    let (code, _, err) = common::run_uttt(&["review", position]);
    assert_eq!(code, 2);
    assert!(err.contains("a review needs a game"), "{err}");
    let (code, _, err) = common::run_uttt(&["review", "ee ea zz"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("invalid game `ee ea zz`: move 3 `zz`"),
        "{err}"
    );
    let dir = common::temp_dir("review-bad");
    let file = dir.join("bad.txt");
    std::fs::write(&file, "# CodinGame\n4 4\n3 3\n4 9\n").unwrap();
    let (code, _, err) = common::run_uttt(&["review", "--file", file.to_str().unwrap()]);
    assert_eq!(code, 2);
    let expected = format!(
        "invalid game in {}, line 4, column 3: CodinGame moves: `9` is not a row or column",
        file.display()
    );
    assert!(err.contains(&expected), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let (code, _, err) = common::run_uttt(&["review", "--file", "/nonexistent/game.txt"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot read the game file /nonexistent/game.txt"),
        "{err}"
    );
}

#[test]
fn a_signal_prints_what_is_known_and_exits_130() {
    // A random game's opening takes far longer than 60 s a position.
    let game = random_game(14);
    let moves = format_moves(&game);
    let args = [
        "review",
        &moves,
        "--time-limit",
        "60s",
        "--table-mem",
        "16M",
        "--json",
        "--progress",
        "--all",
    ];
    let mut child = common::spawn_fed(&args, b"");
    let stderr = common::wait_for_stderr(
        &mut child,
        |line| line.starts_with("progress ") && line.contains(" positions  ply "),
        Duration::from_secs(120),
    );
    common::send_signal(&child, "INT");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "review after Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr.join().unwrap());
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let summary = lines.last().unwrap();
    assert_eq!(summary["walk_end"], "stopped", "{summary}");
    assert_eq!(lines.len(), game.len() + 2);
    assert_ne!(
        lines[game.len()]["value"],
        "unknown",
        "the end was settled first"
    );
}
