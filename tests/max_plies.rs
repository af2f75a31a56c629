//! Depth-bounded questions (`uttt solve --max-plies N`): "does the attacker win within N
//! plies?" against the oracle's plain minimax to that depth, under every rule set, for both
//! attackers and every bound up to a few plies, with every engine and a tiny table.
mod common;
use common::oracle::{oracle_wins_within, OracleRules};
use common::{parallel_rows, playout_positions_under};
use uttt::game::{parse_position_under, Player, Position, Rules};
use uttt::search::rules::attacker_is_too_slow;
use uttt::search::{Engine, SolveOptions};
use uttt::services::{Solver, Verdict};
use uttt::table::Table;

/// The largest bound asked about.
const MAX_BOUND: u32 = 5;

/// The rule sets, as the crate and the oracle name them.
const RULE_SETS: [(Rules, OracleRules); 3] = [
    (Rules::Common, OracleRules::Common),
    (Rules::WonBoardsOpen, OracleRules::WonBoardsOpen),
    (Rules::CodinGame, OracleRules::CodinGame),
];

/// Whether the solver answers that `attacker` wins `pos` within `plies` plies, searching
/// against `table`; panics on `unknown`. When it does and the attacker is to move, its best move must win in time by the
/// oracle, and its principal variation must end within the bound.
fn solver_wins_within(
    pos: &Position,
    oracle_rules: OracleRules,
    attacker: Player,
    plies: u32,
    options: &SolveOptions,
    table: &Table,
) -> bool {
    let options = SolveOptions {
        max_plies: Some(plies),
        ..options.clone()
    };
    let report = Solver::new(&options, table).solve_question(pos, attacker);
    assert!(report.pv.len() <= plies as usize, "{pos}: {:?}", report.pv);
    let wins = match report.verdict {
        Verdict::Wins(winner) => winner == attacker,
        Verdict::DoesNotWin(_) | Verdict::Draw => false,
        Verdict::Unknown => panic!("{pos}: unknown within {plies} plies for {attacker}"),
    };
    if wins && pos.side_to_move() == attacker {
        let best = report.best_move.expect("a win has a best move");
        let child = uttt::game::format_position(&pos.play(best));
        assert!(
            oracle_wins_within(&child, oracle_rules, attacker == Player::X, plies - 1),
            "{pos}: the best move {best} does not win within {plies} plies"
        );
    }
    wins
}

/// Checks every bound from 0 to [`MAX_BOUND`] and both attackers of the positions `notations`
/// with `options` against the oracle. All questions of a position search one table, first
/// unbounded: entries of different bounds, and of no bound, must never answer for each other.
fn check_against_oracle(
    notations: &[String],
    rules: (Rules, OracleRules),
    options: &SolveOptions,
    table_bytes: u64,
) {
    parallel_rows(notations, |notation| {
        let pos = parse_position_under(notation, rules.0).unwrap();
        let table = Table::new(table_bytes).unwrap();
        Solver::new(options, &table).solve(&pos);
        for attacker in [Player::X, Player::O] {
            for plies in (0..=MAX_BOUND).rev() {
                let expected = oracle_wins_within(notation, rules.1, attacker == Player::X, plies);
                let found = solver_wins_within(&pos, rules.1, attacker, plies, options, &table);
                assert_eq!(
                    found,
                    expected,
                    "{notation} ({}): does {attacker} win within {plies} plies?",
                    rules.1.name()
                );
            }
        }
    });
}

/// Late positions, where wins within a few plies are common: the bounds then decide many
/// answers both ways.
fn late_positions(rules: Rules, count: usize, seed: u64) -> Vec<String> {
    playout_positions_under(rules, 50, count, seed)
}

#[test]
fn dfpn_answers_bounded_questions_as_the_oracle_under_every_rule_set() {
    let options = SolveOptions {
        engine: Engine::Dfpn,
        ..SolveOptions::default()
    };
    for (index, rules) in RULE_SETS.into_iter().enumerate() {
        let positions = late_positions(rules.0, 150, 0x6d61_7870 + index as u64);
        check_against_oracle(&positions, rules, &options, 1 << 20);
    }
}

#[test]
fn every_engine_and_a_tiny_table_answer_bounded_questions_as_the_oracle() {
    let mut engines = vec![SolveOptions {
        engine: Engine::SharedDfpn,
        threads: 2,
        ..SolveOptions::default()
    }];
    for threads in [1, 2, 4] {
        engines.push(SolveOptions {
            engine: Engine::PnDfpn,
            threads,
            job_work: 30,
            split_threshold: 20,
            ..SolveOptions::default()
        });
    }
    for (index, rules) in RULE_SETS.into_iter().enumerate() {
        let positions = late_positions(rules.0, 20, 0x7469_6e79 + index as u64);
        for options in &engines {
            check_against_oracle(&positions, rules, options, 1 << 20);
        }
        let dfpn = SolveOptions {
            engine: Engine::Dfpn,
            ..SolveOptions::default()
        };
        check_against_oracle(&positions, rules, &dfpn, 64 << 10);
    }
}

#[test]
fn a_bound_past_the_last_empty_cell_answers_the_unbounded_question() {
    let rules = RULE_SETS[0];
    for notation in late_positions(rules.0, 30, 0x6e6f_626f) {
        let pos = parse_position_under(&notation, rules.0).unwrap();
        for attacker in [Player::X, Player::O] {
            let table = Table::new(1 << 20).unwrap();
            let unbounded = Solver::new(&SolveOptions::default(), &table)
                .solve_question(&pos, attacker)
                .verdict;
            let bounded = SolveOptions {
                max_plies: Some(81),
                ..SolveOptions::default()
            };
            let table = Table::new(1 << 20).unwrap();
            let verdict = Solver::new(&bounded, &table)
                .solve_question(&pos, attacker)
                .verdict;
            assert_eq!(verdict, unbounded, "{notation}: does {attacker} win?");
        }
    }
}

#[test]
fn the_command_line_answers_within_the_bound_and_not_below_it() {
    let rules = RULE_SETS[0];
    let (notation, plies) = late_positions(rules.0, 200, 0x636c_6921)
        .into_iter()
        .find_map(|notation| {
            let x = notation.starts_with('X');
            let shortest = (1..=MAX_BOUND).find(|&n| oracle_wins_within(&notation, rules.1, x, n));
            shortest.filter(|&n| n >= 3).map(|n| (notation, n))
        })
        .expect("a playout position whose side to move wins in 3 to 5 plies");
    let side = &notation[..1];
    let ask = |bound: u32, json: bool| {
        let bound = bound.to_string();
        let mut args = vec![
            "solve",
            &notation,
            "--max-plies",
            &bound,
            "--table-mem",
            "16M",
        ];
        if json {
            args.push("--json");
        }
        let (code, stdout, stderr) = common::run_uttt(&args);
        assert_eq!(code, 0, "{stdout} {stderr}");
        stdout
    };
    let json: serde_json::Value = serde_json::from_str(&ask(plies, true)).unwrap();
    assert_eq!(json["result"], side, "{notation} within {plies}: {json}");
    assert_eq!(json["max_plies"], plies);
    let json: serde_json::Value = serde_json::from_str(&ask(plies - 1, true)).unwrap();
    assert_eq!(json["result"], format!("not {side}"), "{notation}: {json}");
    let text = ask(plies, false);
    assert!(
        text.contains(&format!("{side} wins within {plies} plies")),
        "{text}"
    );
}

#[test]
fn the_command_line_refuses_a_bound_with_a_batch_or_a_certificate() {
    for extra in [["--file", "-"], ["--certificate", "x.cert"]] {
        let mut args = vec!["solve", "--max-plies", "9"];
        if extra[0] != "--file" {
            args.push("start");
        }
        args.extend_from_slice(&extra);
        let (code, _, stderr) = common::run_uttt(&args);
        assert_ne!(code, 0);
        assert!(stderr.contains("--max-plies"), "{stderr}");
    }
}

#[test]
fn too_slow_claims_hold_against_the_oracle() {
    let mut claims = 0;
    let mut with_moves_left = 0;
    for (rules, oracle_rules) in [RULE_SETS[0], RULE_SETS[1]] {
        for first in [20, 35, 50] {
            for notation in playout_positions_under(rules, first, 400, 0x736c_6f77 + first as u64) {
                let pos = parse_position_under(&notation, rules).unwrap();
                for attacker in [Player::X, Player::O] {
                    for plies in 0..=5 {
                        if !attacker_is_too_slow(&pos, attacker, plies) {
                            continue;
                        }
                        claims += 1;
                        with_moves_left += usize::from(plies >= 2);
                        assert!(
                            !oracle_wins_within(
                                &notation,
                                oracle_rules,
                                attacker == Player::X,
                                plies
                            ),
                            "{notation} ({}): {attacker} wins within {plies} plies",
                            oracle_rules.name()
                        );
                    }
                }
            }
        }
    }
    assert!(
        claims > 5_000 && with_moves_left > 2_000,
        "{claims} claims, {with_moves_left} with moves left"
    );
}
