//! The notations players use (uttt.ai, CodinGame) through the built binary: every command reads
//! them as it reads this project's own, `show` writes them, and bad input names the notation
//! and the column.
use crate::common;

use crate::common::run_uttt as uttt;
use serde_json::Value;
use uttt::game::{format_moves, Position, Rng};

/// X wins (about 190,000 nodes).
const MEDIUM: &str = "X;......@O.;O...XX.X./.....O.XX/XOOXX..../O.....O.O/OXO....OX/.OO....X./....O.XX./..XX..OOO/..X.XXO.O";

fn json(args: &[&str]) -> Value {
    let (code, stdout, stderr) = uttt(args);
    assert_eq!(code, 0, "{args:?}: {stderr}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// `uttt show --json` of `position`.
fn shown(position: &str) -> Value {
    json(&["show", position, "--json"])
}

#[test]
fn solve_reads_a_position_as_a_uttt_ai_state_or_link_as_it_reads_the_notation() {
    let notations = &shown(MEDIUM)["notations"];
    let plain = json(&["solve", MEDIUM, "--json", "--table-mem", "64M"]);
    for form in ["uttt_ai_state", "uttt_ai_link"] {
        let text = notations[form].as_str().unwrap();
        let solved = json(&["solve", text, "--json", "--table-mem", "64M"]);
        assert_eq!(solved["position"], MEDIUM, "{form}");
        assert_eq!(solved["result"], plain["result"], "{form}");
        assert_eq!(solved["best_move"], plain["best_move"], "{form}");
    }
}

#[test]
fn a_game_in_any_notation_is_the_same_game_to_every_command() {
    // A game of 20 moves from a seeded playout, in this project's notation.
    let moves = Rng::new(39).playout(&Position::start(), 20);
    assert_eq!(moves.len(), 20);
    let ours = format_moves(&moves);
    let shown_ours = shown(&ours);
    let notations = &shown_ours["notations"];
    let forms = [
        notations["uttt_ai_moves"].as_str().unwrap().to_uppercase(),
        notations["uttt_ai_moves_link"]
            .as_str()
            .unwrap()
            .to_string(),
        notations["codingame"].as_str().unwrap().to_string(),
        notations["codingame"].as_str().unwrap().replace(", ", "\n"),
    ];
    let perft = json(&["perft", "2", &ours, "--json"]);
    for text in &forms {
        let again = shown(text);
        assert_eq!(again["position"], shown_ours["position"], "{text}");
        assert_eq!(again["moves"], shown_ours["moves"], "{text}");
        assert_eq!(
            json(&["perft", "2", text, "--json"])["leaves"],
            perft["leaves"],
            "{text}"
        );
    }
    // `--moves` after a game in another notation extends the game.
    let first = shown("x40")["legal_moves"][0].as_str().unwrap().to_string();
    let extended = json(&["show", "x40", "--moves", &first, "--json"]);
    assert_eq!(extended["moves"], serde_json::json!(["ee", first]));
}

#[test]
fn show_writes_each_notation_and_reads_it_back() {
    let (code, stdout, _) = uttt(&["show", "ee ea ae", "--as", "uttt-ai"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    let expected = shown("ee ea ae");
    for line in &lines {
        let (_, text) = line.split_once(char::is_whitespace).unwrap();
        assert_eq!(
            shown(text.trim())["position"],
            expected["position"],
            "{line}"
        );
    }
    let (code, stdout, _) = uttt(&["show", "x40o36x4", "--as", "codingame"]);
    assert_eq!((code, stdout.as_str()), (0, "moves     4 4, 3 3, 1 1\n"));
    let (code, stdout, _) = uttt(&["show", "4 4, 3 3, 1 1", "--as", "uttt"]);
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        format!(
            "position  {}\nmoves     ee ea ae\n",
            expected["position"].as_str().unwrap()
        )
    );
    // The empty board is the game of no moves.
    let (code, stdout, _) = uttt(&["show", "start", "--as", "codingame"]);
    assert_eq!((code, stdout.as_str()), (0, "moves     start\n"));
    // A position not given as a game has no CodinGame form, and no moves in JSON.
    let (code, _, stderr) = uttt(&["show", MEDIUM, "--as", "codingame"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("CodinGame writes games"), "{stderr}");
    let data = shown(MEDIUM);
    assert!(data.get("moves").is_none(), "{data}");
    assert!(data["notations"].get("codingame").is_none(), "{data}");
    assert_eq!(data["to_move"], "X");
    assert_eq!(data["legal_moves"].as_array().unwrap().len(), 6);
}

#[test]
fn bad_input_in_each_notation_exits_2_naming_the_notation_and_the_column() {
    let empty_state = format!("{}190", "0".repeat(90));
    let bad_board = format!("{}1{}", &empty_state[..81], &empty_state[82..]);
    let cases = [
        ("0".repeat(92), "uttt.ai state, column 1"),
        (bad_board, "uttt.ai state, column 82"),
        (
            format!("https://uttt.ai/init?state={}", &empty_state[..90]),
            "uttt.ai state, column 28",
        ),
        ("x40x41".to_string(), "uttt.ai move list, column 4"),
        (
            "https://uttt.ai/init?actions=x40o99".to_string(),
            "uttt.ai move list, column 34",
        ),
        ("4 4, 3 3, 9 1".to_string(), "CodinGame moves, column 11"),
        ("4 4\n4 4".to_string(), "CodinGame moves, column 5"),
    ];
    for (text, expected) in &cases {
        for command in [
            vec!["show", text],
            vec!["solve", text],
            vec!["perft", "1", text],
        ] {
            let (code, _, stderr) = uttt(&command);
            assert_eq!(code, 2, "{command:?}: {stderr}");
            assert!(stderr.contains(expected), "{command:?}: {stderr}");
            assert!(!stderr.contains("panicked"), "{command:?}: {stderr}");
        }
    }
}

#[test]
fn a_batch_file_takes_lines_in_every_notation() {
    let dir = common::temp_dir("notations-batch");
    let notations = &shown(MEDIUM)["notations"];
    let file = dir.join("mixed.txt");
    std::fs::write(
        &file,
        format!(
            "{} X\n{} X\nx40o36x4\n4 4, 3 3, 1 1\nx40x41\n",
            notations["uttt_ai_state"].as_str().unwrap(),
            notations["uttt_ai_link"].as_str().unwrap(),
        ),
    )
    .unwrap();
    let (code, stdout, _) = uttt(&[
        "solve",
        "--file",
        file.to_str().unwrap(),
        "--json",
        "--node-limit",
        "300000",
        "--table-mem",
        "64M",
    ]);
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let results: Vec<&Value> = lines.iter().filter(|v| v["type"] == "result").collect();
    assert_eq!(results.len(), 4, "{stdout}");
    assert_eq!(results[0]["result"], "X");
    assert_eq!(results[1]["result"], "X");
    assert_eq!(results[2]["position"], results[3]["position"]);
    let errors: Vec<&Value> = lines.iter().filter(|v| v["type"] == "error").collect();
    assert_eq!(errors.len(), 1, "{stdout}");
    assert_eq!(errors[0]["line"], 5);
    assert!(
        errors[0]["message"]
            .as_str()
            .unwrap()
            .contains("uttt.ai move list"),
        "{}",
        errors[0]
    );
    assert_ne!(code, 0, "a bad line makes the batch's exit code non-zero");
}
