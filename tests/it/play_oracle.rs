//! The player's search against the independent oracle: every bound the tree proves, at every
//! node, under each rule set, with one and two threads and with a tiny table; the move rules
//! on the proved values; determinism; and `uttt play` on the command line.
use crate::common::oracle::oracle_value_under;
use crate::common::{oracle_rules, parallel_rows, playout_positions_under, run_uttt};
use std::sync::atomic::AtomicBool;
use uttt::game::{format_position, parse_position_under, Position, Rules};
use uttt::search::dfpn::Limits;
use uttt::search::mcts::{Bounds, Mcts, MctsOptions, Score};
use uttt::services::{PlayOptions, TreePlayer};
use uttt::table::Table;

/// The oracle's value of `pos` as a score on X's scale.
fn oracle_score(pos: &Position) -> Score {
    match oracle_value_under(&format_position(pos), oracle_rules(pos.rules())) {
        "X" => Score::X_WINS,
        "O" => Score::O_WINS,
        _ => Score::DRAW,
    }
}

fn search_options(threads: usize, playouts: u64, seed: u64) -> MctsOptions {
    MctsOptions {
        threads,
        seed,
        playouts: Some(playouts),
        leaf_work: 200,
        search_within: 40,
        tree_bytes: 8 << 20,
        ..MctsOptions::default()
    }
}

/// Searches each position of 50–60 plies under `rules` (with DFPN looks of `leaf_work` MID
/// calls; with none, every proof above the static rules and the table is the tree's own
/// backing up) and checks the bounds of its nodes against the oracle's value; returns how
/// many roots were proved and how many bounds were checked, so that a caller can see the
/// check was not empty.
fn check_tree_bounds(
    rules: Rules,
    threads: usize,
    table_bytes: u64,
    leaf_work: u64,
    seed: u64,
) -> (usize, usize) {
    let positions = playout_positions_under(rules, 50, 24, seed);
    let proved_roots = std::sync::atomic::AtomicUsize::new(0);
    let checked = std::sync::atomic::AtomicUsize::new(0);
    parallel_rows(&positions, |text| {
        let pos = parse_position_under(text, rules).unwrap();
        let table = Table::new(table_bytes).unwrap();
        let mut mcts = Mcts::new(pos, 8 << 20);
        let stop = AtomicBool::new(false);
        let options = MctsOptions {
            leaf_work,
            ..search_options(threads, 4_000, seed)
        };
        let report = mcts
            .search(&table, &options, Limits::stop_only(&stop), &[])
            .unwrap();
        if report.bounds.is_exact() {
            proved_roots.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        // The nodes with a bound (a sample of at most 60 of them, the root first).
        let nodes = mcts.proved_nodes();
        let step = nodes.len().div_ceil(60).max(1);
        for (at, bounds) in nodes.iter().step_by(step) {
            let value = oracle_score(at);
            assert!(
                bounds.low <= value && value <= bounds.high,
                "{}: {bounds:?} excludes the oracle's {value:?} (from root {text})",
                format_position(at)
            );
            checked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    });
    (proved_roots.into_inner(), checked.into_inner())
}

#[test]
fn every_bound_backed_up_in_the_tree_agrees_with_the_oracle_under_each_rule_set() {
    for (i, rules) in Rules::ALL.into_iter().enumerate() {
        let (proved, checked) = check_tree_bounds(rules, 1, 16 << 20, 0, 40 + i as u64);
        assert!(proved >= 6, "{rules:?}: only {proved} of 24 roots proved");
        assert!(checked >= 300, "{rules:?}: only {checked} bounds checked");
    }
}

#[test]
fn two_threads_dfpn_looks_and_a_tiny_table_prove_only_what_the_oracle_says() {
    for (i, rules) in Rules::ALL.into_iter().enumerate() {
        let (proved, checked) = check_tree_bounds(rules, 2, 64 << 10, 200, 50 + i as u64);
        assert!(proved >= 6, "{rules:?}: only {proved} of 24 roots proved");
        assert!(checked >= 24, "{rules:?}: only {checked} bounds checked");
    }
}

/// The move rules on proved values, against the oracle: a proved value is the oracle's, and
/// is played by a move of that value; a move proved to lose is never played while another
/// move is not proved to lose.
#[test]
fn the_player_keeps_its_move_rules_under_each_rule_set() {
    for (i, rules) in Rules::ALL.into_iter().enumerate() {
        let positions = playout_positions_under(rules, 50, 24, 60 + i as u64);
        parallel_rows(&positions, |text| {
            let pos = parse_position_under(text, rules).unwrap();
            let table = Table::new(16 << 20).unwrap();
            let options = PlayOptions {
                search: search_options(1, 3_000, 9),
                temperature: None,
            };
            let report = TreePlayer::new()
                .choose(
                    &pos,
                    &table,
                    None,
                    &options,
                    Limits::stop_only(&AtomicBool::new(false)),
                )
                .unwrap();
            let chosen = report.chosen.expect("a game in play gets a move");
            assert!(pos.is_legal(chosen));
            let mover = pos.side_to_move();
            let after = oracle_score(&pos.play(chosen));
            if let Some(value) = report.bounds.value() {
                assert_eq!(value, oracle_score(&pos), "{text}: a wrong proved value");
                assert_eq!(
                    after, value,
                    "{text}: {chosen} does not keep the proved value"
                );
            }
            let loss = Score::win_for(mover.opponent());
            let chosen_bounds = report
                .moves
                .iter()
                .find(|m| m.mv == chosen)
                .map(|m| m.bounds);
            let any_not_lost = report.moves.iter().any(|m| m.bounds.value() != Some(loss));
            if any_not_lost {
                assert_ne!(
                    chosen_bounds.and_then(Bounds::value),
                    Some(loss),
                    "{text}: {chosen} was proved to lose and another move was not"
                );
            }
        });
    }
}

#[test]
fn one_thread_one_seed_and_a_budget_give_the_same_search() {
    let pos = Position::start().play(uttt::game::Move::new(4, 4));
    let run = |seed| {
        let table = Table::new(16 << 20).unwrap();
        let mut mcts = Mcts::new(pos, 64 << 20);
        let stop = AtomicBool::new(false);
        let options = search_options(1, 20_000, seed);
        let report = mcts
            .search(&table, &options, Limits::stop_only(&stop), &[])
            .unwrap();
        (report.results, report.children, report.pv)
    };
    let first = run(3);
    assert_eq!(first, run(3));
    assert_ne!(first.0, run(4).0, "another seed gave the same results");
}

#[test]
fn play_on_the_command_line_is_deterministic_with_one_thread() {
    let args = [
        "play",
        "ee ea",
        "--threads",
        "1",
        "--playouts",
        "20000",
        "--seed",
        "5",
        "--json",
    ];
    let strip = |out: &str| {
        let mut json: serde_json::Value = serde_json::from_str(out).unwrap();
        json.as_object_mut().unwrap().remove("time_ms");
        json
    };
    let (code, first, _) = run_uttt(&args);
    assert_eq!(code, 0);
    let (_, second, _) = run_uttt(&args);
    let json = strip(&first);
    assert_eq!(json, strip(&second));
    assert_eq!(json["result"], "unknown");
    assert_eq!(json["proved"], false);
    // The search may stop early, once the move most visited can no longer change.
    let playouts = json["playouts"].as_u64().unwrap();
    assert!((10_000..=20_000).contains(&playouts), "{playouts}");
    let estimate = &json["estimate"];
    let total = |of: &serde_json::Value| -> f64 {
        ["x", "o", "draw"]
            .iter()
            .map(|k| of[k].as_f64().unwrap())
            .sum()
    };
    assert!((total(estimate) - 1.0).abs() < 1e-9, "{estimate}");
    // The playouts' own shares, before calibration, beside the calibrated probabilities.
    assert!(
        (total(&estimate["shares"]) - 1.0).abs() < 1e-9,
        "{estimate}"
    );
    assert!(
        estimate["playouts"].as_u64().unwrap() + 1 >= playouts,
        "{estimate}"
    );
    let mv = json["move"].as_str().unwrap();
    assert!(
        mv.starts_with('a'),
        "after `ee ea` X is sent to board a, not {mv}"
    );
}

#[test]
fn play_names_a_proved_win_and_a_finished_game_has_no_move() {
    // X has won boards a and b and may play anywhere: cc wins at once.
    let win = "X;XX.......;XXX....../XXX....../XX......./O..O...../.O..O..../..O..O.../O.......O/........./.........";
    let (code, out, _) = run_uttt(&["play", win, "--json"]);
    assert_eq!(code, 0);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["result"], "X");
    assert_eq!(json["value"], "win");
    assert_eq!(json["proved"], true);
    assert!(json["estimate"].is_null());
    let after = parse_position_under(win, Rules::Common)
        .unwrap()
        .play(uttt::game::parse_move(json["move"].as_str().unwrap()).unwrap());
    assert!(after.is_over(), "{} does not win at once", json["move"]);
    let finished = format_position(&after);
    let (code, out, _) = run_uttt(&["play", &finished]);
    assert_eq!(code, 0);
    assert!(out.contains("result     X"), "{out}");
    assert!(out.contains("move       -"), "{out}");
}

#[test]
fn play_refuses_bad_input_with_exit_2() {
    for args in [
        vec!["play", "X;nonsense"],
        vec!["play", "ee", "--temperature", "-1"],
        vec!["play", "ee", "--playouts", "0"],
        vec!["play", "ee", "--rules", "chess"],
    ] {
        let (code, out, err) = run_uttt(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(out.is_empty() && !err.is_empty(), "{args:?}");
    }
}

#[test]
fn an_estimate_is_shown_only_beside_an_unknown_value() {
    let (_, out, _) = run_uttt(&[
        "play",
        "ee",
        "--playouts",
        "2000",
        "--threads",
        "1",
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["value"], "unknown");
    for m in json["moves"].as_array().unwrap() {
        if m["value"] == "unknown" {
            assert!(m["estimate"].is_object() || m["playouts"] == 0, "{m}");
        } else {
            assert!(
                m["estimate"].is_null(),
                "a proved move with an estimate: {m}"
            );
        }
    }
}
