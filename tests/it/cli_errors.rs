//! Bad input on the command line: exit code 2, a message naming the problem, never a panic.
use std::process::Command;

fn uttt(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_uttt"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("the uttt binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const EMPTY: &str =
    "........./........./........./........./........./........./........./........./.........";

#[test]
fn malformed_positions_and_move_lists_are_refused_with_a_reason() {
    let two_parts = format!("X;.........{EMPTY}");
    let bad_side = format!("Z;.........;{EMPTY}");
    let short_boards = format!("X;........;{EMPTY}");
    let bad_char = format!("X;.........;Q{}", &EMPTY[1..]);
    let marked_without_line = format!("X;X........;{EMPTY}");
    let two_targets = format!("X;@@.......;{EMPTY}");
    let counts = format!("X;.........;X{}", &EMPTY[1..]);
    let line_unmarked = "O;.........;XXX....../OO......./........./........./........./........./........./........./.........";
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["show", &two_parts], "part"),
        (vec!["show", &bad_side], "side"),
        (vec!["show", &short_boards], "part 2"),
        (vec!["show", &bad_char], "column 1"),
        (vec!["show", &marked_without_line], "line"),
        (vec!["show", &two_targets], "@"),
        (vec!["show", &counts], "stone counts"),
        (vec!["show", line_unmarked], "marked open"),
        (vec!["show", "ee ee"], "move 2"),
        (vec!["show", "ee ea bb"], "move 3"),
        (vec!["show", "ee zz"], "move 2"),
        (vec!["show", "ee", "--moves", "ea,ae,ee"], "move 3"),
        (vec!["perft", "3", "ee,e"], "move 2"),
        (vec!["perft", "-1"], ""),
        (vec!["perft", "x"], ""),
        (vec!["show", ""], "empty position"),
    ];
    for (args, needle) in cases {
        let (code, _, stderr) = uttt(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(!stderr.trim().is_empty(), "{args:?}: no message");
        assert!(
            stderr.contains(needle),
            "{args:?}: {stderr} lacks `{needle}`"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn a_finished_game_is_a_valid_position_with_no_moves() {
    let won = "O;XXX......;XXX....../XXX....../XXX....../OO......./OO......./OO......./.O......./.O......./.........";
    let (code, stdout, stderr) = uttt(&["perft", "1", won, "--json"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("\"leaves\":0"), "{stdout}");
}

#[test]
fn show_prints_the_notation_and_legal_moves() {
    let (code, stdout, _) = uttt(&["show", "ee ea"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("X;@........;"), "{stdout}");
    assert!(
        !stdout.contains("\u{1b}["),
        "no colour when not on a terminal"
    );
}

#[test]
fn durations_past_ten_years_are_refused_naming_the_value() {
    // Once an overflow of the clock ("overflow when adding duration to instant", exit 134).
    let huge = "18000000000000000000s";
    let cases: [&[&str]; 5] = [
        &["solve", "start", "--time-limit", huge],
        &["serve", "--time-limit", huge],
        &["review", "ee ea", "--time-limit", huge],
        &["solve", "start", "--job-time", huge],
        &["solve", "start", "--time-limit", "87601h"],
    ];
    for args in cases {
        let (code, _, stderr) = uttt(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        let value = args[args.len() - 1];
        assert!(
            stderr.contains(&format!("duration `{value}` is more than 10 years")),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}
