//! Depth-bounded questions (`uttt solve --max-plies N`): "does the attacker win within N
//! plies?" against the oracle's plain minimax to that depth, under every rule set, for both
//! attackers and every bound up to a few plies, with every engine and a tiny table.
mod common;
use common::oracle::{oracle_wins_within, OracleRules};
use common::{parallel_rows, playout_positions_under};
use uttt::game::{format_position, parse_position_under, Player, Position, Rules};
use uttt::search::rules::{attacker_is_too_slow, evaluate, Evaluation};
use uttt::search::{Engine, Question, SolveOptions};
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
/// against `table`; panics on `unknown`. When it does and the attacker is to move, its best
/// move must win in time by the oracle, and its principal variation must end within the bound.
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
        Verdict::DoesNotWin(_) => false,
        Verdict::Draw => {
            // Only a finished game is settled as a draw without a search.
            assert!(pos.is_over(), "{pos}: a draw answers a bounded question");
            false
        }
        Verdict::Unknown => panic!("{pos}: unknown within {plies} plies for {attacker}"),
    };
    if wins && pos.side_to_move() == attacker {
        let best = report.best_move.expect("a win has a best move");
        let child = format_position(&pos.play(best));
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
fn a_bound_at_the_last_cell_is_the_unbounded_question_and_one_short_of_it_agrees_with_it() {
    let rules = RULE_SETS[0];
    let mut bounded_wins = 0;
    for notation in late_positions(rules.0, 30, 0x6e6f_626f) {
        let pos = parse_position_under(&notation, rules.0).unwrap();
        let to_last_cell = 81 - pos.stone_count();
        for attacker in [Player::X, Player::O] {
            let verdict = |max_plies| {
                let options = SolveOptions {
                    max_plies,
                    ..SolveOptions::default()
                };
                let table = Table::new(1 << 20).unwrap();
                Solver::new(&options, &table)
                    .solve_question(&pos, attacker)
                    .verdict
            };
            let unbounded = verdict(None);
            assert_eq!(
                verdict(Some(to_last_cell)),
                unbounded,
                "{notation}: {attacker}"
            );
            // One ply short of the last cell: a bounded search that may only lose wins that
            // come on the last ply.
            let short = verdict(Some(to_last_cell - 1));
            assert_ne!(short, Verdict::Unknown);
            if short == Verdict::Wins(attacker) {
                bounded_wins += 1;
                assert_eq!(
                    unbounded, short,
                    "{notation}: {attacker} wins only when bounded"
                );
            } else if unbounded != Verdict::Wins(attacker) {
                assert_ne!(short, Verdict::Wins(attacker), "{notation}: {attacker}");
            }
        }
    }
    assert!(
        bounded_wins > 5,
        "only {bounded_wins} wins one ply short of the last cell"
    );
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
fn the_command_line_refuses_a_bound_with_a_batch_a_certificate_or_a_database() {
    let refusals: [&[&str]; 5] = [
        &["--max-plies", "9", "--file", "-"],
        &["start", "--max-plies", "9", "--certificate", "x.cert"],
        &["start", "--max-plies", "9", "--verify"],
        &["start", "--max-plies", "9", "--db", "x.db"],
        &["start", "--max-plies", "82"],
    ];
    for extra in refusals {
        let mut args = vec!["solve"];
        args.extend_from_slice(extra);
        let (code, _, stderr) = common::run_uttt(&args);
        assert_eq!(code, 2, "{extra:?}: {stderr}");
        assert!(stderr.contains("--max-plies"), "{extra:?}: {stderr}");
    }
}

#[test]
fn too_slow_claims_hold_against_the_oracle() {
    let mut claims = 0;
    let mut with_moves_left = 0;
    for (rules, oracle_rules) in RULE_SETS {
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

#[test]
fn every_static_rule_holds_under_a_ply_bound() {
    // A node the rules settle must have the oracle's value, and every move they leave out must
    // fail the side to move's goal, for each bound from 0 to 4 plies.
    let (mut settled, mut pruned) = (0, 0);
    for (index, (rules, oracle_rules)) in RULE_SETS.into_iter().enumerate() {
        for notation in playout_positions_under(rules, 45, 300, 0x7275_6c65 + index as u64) {
            let pos = parse_position_under(&notation, rules).unwrap();
            for attacker in [Player::X, Player::O] {
                let x = attacker == Player::X;
                let attacker_to_move = pos.side_to_move() == attacker;
                for plies in 0..=4 {
                    let question = Question::wins_within(attacker, &pos, plies);
                    match evaluate(&pos, question) {
                        Evaluation::Solved(numbers) => {
                            settled += 1;
                            let attacker_wins =
                                oracle_wins_within(&notation, oracle_rules, x, plies);
                            assert_eq!(
                                numbers.phi == 0,
                                attacker_wins == attacker_to_move,
                                "{notation} ({}): settled wrongly for {attacker} within {plies}",
                                oracle_rules.name()
                            );
                        }
                        Evaluation::Open(node) => {
                            for mv in pos
                                .legal_moves()
                                .into_iter()
                                .filter(|&m| !node.moves.contains(m))
                            {
                                pruned += 1;
                                let child = format_position(&pos.play(mv));
                                let attacker_wins =
                                    oracle_wins_within(&child, oracle_rules, x, plies - 1);
                                assert_eq!(
                                    attacker_wins,
                                    !attacker_to_move,
                                    "{notation} ({}): the pruned move {mv} reaches the goal \
                                     of the side to move ({attacker} within {plies})",
                                    oracle_rules.name()
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(
        settled > 2_000 && pruned > 200,
        "{settled} settled, {pruned} pruned"
    );
}
