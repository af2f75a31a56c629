//! Bounded questions everywhere: answers to "does A win within N plies?" stored in the
//! database as facts keyed with their bound and used by later searches (of any bound, and as
//! wins by unbounded ones), checked against the oracle under every rule set; and `--max-plies`
//! in batches and in `uttt analyze`.
use crate::common;
use crate::common::oracle::{
    oracle_value_under, oracle_win_distance, oracle_wins_within, OracleRules,
};
use crate::common::{parallel_rows, playout_positions_under};
use std::sync::atomic::{AtomicU32, Ordering};
use uttt::db::{Database, Source};
use uttt::game::{parse_position_under, Player, Rules};
use uttt::search::{Engine, SolveOptions};
use uttt::services::{
    verdict_label, SolveReport, Solver, StorePolicy, Verdict, WinIn, WinInAnswer, WinInMode,
};
use uttt::table::Table;

/// The rule sets, as the crate and the oracle name them.
const RULE_SETS: [(Rules, OracleRules); 3] = [
    (Rules::Common, OracleRules::Common),
    (Rules::WonBoardsOpen, OracleRules::WonBoardsOpen),
    (Rules::CodinGame, OracleRules::CodinGame),
];

/// Every answer stored, however cheap, so that the tests meet many facts.
const STORE_ALL: StorePolicy = StorePolicy {
    min_work: 0,
    source: Source::Solve,
};

/// PN-DFPN with jobs small enough to grow a tree, whose solved leaves are stored too (bounded
/// ones with the plies left at the leaf).
fn small_jobs() -> SolveOptions {
    SolveOptions {
        engine: Engine::PnDfpn,
        threads: 2,
        job_work: 50,
        split_threshold: 30,
        ..SolveOptions::default()
    }
}

/// A fresh database file in the temporary directory.
fn fresh_database(name: &str) -> (Database, common::TempDir) {
    let dir = common::temp_dir(name);
    let path = dir.join("facts.sqlite");
    let _ = std::fs::remove_file(&path);
    (Database::open(&path).unwrap(), dir)
}

/// `pos` solved with `options` against a fresh table and `database`.
fn solve_with_database(
    notation: &str,
    rules: Rules,
    options: &SolveOptions,
    database: &Database,
    mode: WinInMode,
) -> SolveReport {
    let pos = parse_position_under(notation, rules).unwrap();
    let table = Table::new(16 << 20).unwrap();
    Solver::new(options, &table)
        .with_database(database, STORE_ALL)
        .solve_win_in(&pos, mode)
}

#[test]
#[ignore = "heavy oracle sweep: .ci/run runs it with --ignored"]
fn distances_come_back_from_the_bounded_facts_of_an_earlier_solve_under_every_rule_set() {
    for (index, rules) in RULE_SETS.into_iter().enumerate() {
        let (database, _dir) = fresh_database(&format!("distances-{index}"));
        let notations = playout_positions_under(rules.0, 48, 24, 4100 + index as u64);
        let options = small_jobs();
        let far = AtomicU32::new(0);
        parallel_rows(&notations, |notation| {
            let expected = oracle_win_distance(notation, rules.1).map(WinIn::Exact);
            let expected = expected.map_or(WinInAnswer::NoWin, WinInAnswer::Win);
            let first =
                solve_with_database(notation, rules.0, &options, &database, WinInMode::Exact);
            assert_eq!(first.win_in, expected, "{notation} ({})", rules.1.name());
            // A fresh table: what the second solve knows is the database's.
            let again =
                solve_with_database(notation, rules.0, &options, &database, WinInMode::Exact);
            assert_eq!(again.win_in, expected, "{notation}: again");
            assert_eq!(again.verdict, first.verdict, "{notation}");
            if matches!(expected, WinInAnswer::Win(WinIn::Exact(d)) if d >= 5) {
                far.fetch_add(1, Ordering::Relaxed);
                // Every question of the distance, bounded or not, answered from the facts.
                assert_eq!(again.nodes, 0, "{notation}: searched again");
            }
        });
        let far = far.into_inner();
        assert!(
            far >= 2,
            "{}: only {far} wins of 5 plies or more",
            rules.1.name()
        );
        let stats = database.stats().unwrap();
        assert!(stats.bounded_facts >= 20, "{stats:?}");
    }
}

/// Whether `attacker` wins `notation` within `plies` plies, asked with `database` (from its
/// facts, or searched and then stored); checked against the oracle.
fn wins_within_as_the_oracle(
    notation: &str,
    rules: (Rules, OracleRules),
    attacker: Player,
    plies: u32,
    database: &Database,
) -> bool {
    let bounded = SolveOptions {
        attacker: Some(attacker),
        max_plies: Some(plies),
        ..small_jobs()
    };
    let report = solve_with_database(notation, rules.0, &bounded, database, WinInMode::Off);
    let wins = report.verdict == Verdict::Wins(attacker);
    let x = attacker == Player::X;
    assert_eq!(
        wins,
        oracle_wins_within(notation, rules.1, x, plies),
        "{notation} ({}): {attacker} within {plies}",
        rules.1.name()
    );
    wins
}

#[test]
#[ignore = "heavy oracle sweep: .ci/run runs it with --ignored"]
fn bounded_facts_answer_every_bound_they_reach_and_never_change_an_unbounded_answer() {
    let mut answered_total = 0;
    for (index, rules) in RULE_SETS.into_iter().enumerate() {
        let (database, _dir) = fresh_database(&format!("never-{index}"));
        let notations = playout_positions_under(rules.0, 50, 24, 4200 + index as u64);
        let options = small_jobs();
        // Filled with bounded answers only: odd bounds up to 7, both attackers.
        let failures_of_winners = AtomicU32::new(0);
        parallel_rows(&notations, |notation| {
            let value = oracle_value_under(notation, rules.1);
            for attacker in [Player::X, Player::O] {
                for plies in [1, 3, 5, 7] {
                    let wins =
                        wins_within_as_the_oracle(notation, rules, attacker, plies, &database);
                    if !wins && value == attacker.letter().to_string() {
                        failures_of_winners.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        });
        let stats = database.stats().unwrap();
        assert_eq!(
            stats.facts, 0,
            "only bounded questions were asked: {stats:?}"
        );
        // "Not within N" stored for players who do win later: read as "does not win", they
        // would turn these wins into draws.
        let failures = failures_of_winners.into_inner();
        assert!(failures >= 5, "{}: {failures} such facts", rules.1.name());

        let answered_by_facts = AtomicU32::new(0);
        parallel_rows(&notations, |notation| {
            // Every bound from 0 to 8, even ones none was asked with: each answered by the
            // facts that reach it, or searched, and right either way.
            for attacker in [Player::X, Player::O] {
                for plies in 0..=8 {
                    wins_within_as_the_oracle(notation, rules, attacker, plies, &database);
                }
            }
            // The unbounded value, with the bounded facts and without any database.
            let report =
                solve_with_database(notation, rules.0, &options, &database, WinInMode::Off);
            let pos = parse_position_under(notation, rules.0).unwrap();
            let table = Table::new(16 << 20).unwrap();
            let alone = Solver::new(&options, &table).solve(&pos);
            let expected = oracle_value_under(notation, rules.1);
            assert_eq!(verdict_label(report.verdict), expected, "{notation}");
            assert_eq!(report.verdict, alone.verdict, "{notation}");
            if report.database.as_ref().is_some_and(|d| d.answered) {
                answered_by_facts.fetch_add(1, Ordering::Relaxed);
            }
        });
        answered_total += answered_by_facts.into_inner();
    }
    // A bounded win answers the unbounded question: some values came from the facts.
    assert!(
        answered_total >= 5,
        "{answered_total} answered by the facts"
    );
}

/// Late common-rules positions, each with the oracle's value.
fn late_common_positions(count: usize, seed: u64) -> Vec<String> {
    playout_positions_under(Rules::Common, 50, count, seed)
}

/// The JSON `uttt ARGS` prints, which must exit with `code`.
fn json_of(args: &[&str], code: i32) -> serde_json::Value {
    let (got, out, err) = common::run_uttt(args);
    assert_eq!(got, code, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

#[test]
fn analyze_asks_each_move_whether_it_wins_within_the_bound() {
    let rules = OracleRules::Common;
    let mut checked_wins = 0;
    for notation in late_common_positions(12, 4300) {
        let x = notation.starts_with('X');
        for bound in [3u32, 5] {
            let json = json_of(
                &[
                    "analyze",
                    &notation,
                    "--max-plies",
                    &bound.to_string(),
                    "--json",
                    "--quiet",
                ],
                0,
            );
            assert_eq!(json["max_plies"], bound, "{json}");
            let pos = parse_position_under(&notation, Rules::Common).unwrap();
            for m in json["moves"].as_array().unwrap() {
                let mv: uttt::game::Move = m["move"].as_str().unwrap().parse().unwrap();
                let child = uttt::game::format_position(&pos.play(mv));
                let expected = oracle_wins_within(&child, rules, x, bound - 1);
                assert_eq!(
                    m["wins_within"], expected,
                    "{notation} {mv} within {bound}: {m}"
                );
                // A move that wins within the bound wins; one that does not has an unknown
                // value, unless the rules settle the position after it (a finished game, a
                // win at once for the opponent).
                let value = m["value"].as_str().unwrap();
                if expected {
                    assert_eq!(value, "win", "{notation} {mv}");
                } else if value != "unknown" {
                    let (mover, winner) = (&notation[..1], oracle_value_under(&child, rules));
                    let true_value = match winner {
                        "draw" => "draw",
                        w if w == mover => "win",
                        _ => "loss",
                    };
                    assert_eq!(value, true_value, "{notation} {mv}");
                }
                checked_wins += usize::from(expected);
            }
        }
    }
    assert!(checked_wins >= 5, "only {checked_wins} winning moves met");
    let notation = &late_common_positions(1, 4300)[0];
    let (code, text, _) = common::run_uttt(&["analyze", notation, "--max-plies", "5"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("wins within 5 plies") && text.contains("within 5"),
        "{text}"
    );
    let (code, _, err) =
        common::run_uttt(&["analyze", notation, "--max-plies", "5", "--win-in", "exact"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn a_batch_asks_every_line_the_bound_and_a_no_within_it_contradicts_no_expected_value() {
    let rules = OracleRules::Common;
    let dir = common::temp_dir("bounded-batch");
    let file = dir.join("late.txt");
    let notations = late_common_positions(10, 4400);
    let lines: Vec<String> = notations
        .iter()
        .map(|n| format!("{n} {}", oracle_value_under(n, rules)))
        .collect();
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let db = dir.join("facts.sqlite");
    let _ = std::fs::remove_file(&db);
    let run = |plies: &str| {
        let args = [
            "solve",
            "--file",
            file.to_str().unwrap(),
            "--max-plies",
            plies,
            "--db",
            db.to_str().unwrap(),
            "--db-min-work",
            "0",
            "--json",
            "--quiet",
        ];
        let (code, out, err) = common::run_uttt(&args);
        assert_eq!(code, 0, "no line contradicts its value: {err}\n{out}");
        out.lines()
            .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
            .filter(|json| json["type"] == "result")
            .collect::<Vec<_>>()
    };
    let (mut answers, mut searched) = ((0, 0), 0);
    for plies in [3u32, 5] {
        let results = run(&plies.to_string());
        assert_eq!(results.len(), notations.len());
        for (json, notation) in results.iter().zip(&notations) {
            let side = &notation[..1];
            let wins = oracle_wins_within(notation, rules, side == "X", plies);
            let expected = if wins {
                side.to_string()
            } else {
                format!("not {side}")
            };
            assert_eq!(
                json["result"],
                expected.as_str(),
                "{notation} within {plies}"
            );
            assert_eq!(json["max_plies"], plies);
            if wins {
                answers.0 += 1;
            } else {
                answers.1 += 1;
            }
        }
        // Asked again, every line that was searched is answered by the facts the first run
        // stored (what the rules settle at once is not stored, nor looked up).
        for (json, first) in run(&plies.to_string()).iter().zip(&results) {
            if !first["searches"].as_array().unwrap().is_empty() {
                assert_eq!(json["database"]["answered"], true, "{json}");
                searched += 1;
            }
        }
    }
    assert!(
        answers.0 >= 2 && answers.1 >= 2,
        "wins and failures: {answers:?}"
    );
    assert!(searched >= 3, "{searched} lines searched");
}
