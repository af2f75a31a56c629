//! How soon a win comes (`win_in`): the distance the solver proves with bounded questions
//! against the oracle's plain minimax of the distance, on late positions under every rule set,
//! with each engine and with a tiny table that forces replacement.
use crate::common;
use crate::common::oracle::{oracle_win_distance, OracleRules};
use crate::common::{parallel_rows, playout_positions_under};
use uttt::game::{parse_position_under, Rules};
use uttt::search::{Engine, SolveOptions};
use uttt::services::{DistanceBudget, Solver, Verdict, WinIn};
use uttt::table::Table;

/// The rule sets, as the crate and the oracle name them.
const RULE_SETS: [(Rules, OracleRules); 3] = [
    (Rules::Common, OracleRules::Common),
    (Rules::WonBoardsOpen, OracleRules::WonBoardsOpen),
    (Rules::CodinGame, OracleRules::CodinGame),
];

/// Solves each position with `options` on a table of `table_bytes`, and for each win checks
/// its distance against the oracle's (given with it); the distances checked.
fn check_distances(
    positions: &[(String, Option<u32>)],
    rules: (Rules, OracleRules),
    options: &SolveOptions,
    table_bytes: u64,
) -> Vec<u32> {
    let distances = std::sync::Mutex::new(Vec::new());
    parallel_rows(positions, |(notation, expected)| {
        let pos = parse_position_under(notation, rules.0).unwrap();
        let table = Table::new(table_bytes).unwrap();
        let mut solver = Solver::new(options, &table);
        let report = solver.solve(&pos);
        let expected = *expected;
        match report.verdict {
            Verdict::Wins(winner) => {
                let distance = solver.distance_to_win(&pos, winner, DistanceBudget::default());
                let expected = expected.expect("the oracle finds the win");
                assert_eq!(
                    distance.win_in,
                    WinIn::Exact(expected),
                    "{notation} ({}): {winner} wins",
                    rules.1.name()
                );
                distances.lock().unwrap().push(expected);
            }
            Verdict::Draw => assert_eq!(expected, None, "{notation}"),
            other => panic!("{notation}: {other:?}"),
        }
    });
    distances.into_inner().unwrap()
}

#[test]
#[ignore = "heavy oracle sweep: .ci/run runs it with --ignored"]
fn distances_are_the_oracles_under_every_rule_set() {
    for (index, rules) in RULE_SETS.into_iter().enumerate() {
        let notations = playout_positions_under(rules.0, 48, 50, 900 + index as u64);
        let positions = std::sync::Mutex::new(Vec::new());
        parallel_rows(&notations, |notation| {
            let distance = oracle_win_distance(notation, rules.1);
            positions.lock().unwrap().push((notation.clone(), distance));
        });
        let positions = positions.into_inner().unwrap();
        for (engine, table_bytes) in [(Engine::Dfpn, 16 << 20), (Engine::PnDfpn, 64 << 10)] {
            let options = SolveOptions {
                engine,
                threads: 2,
                ..SolveOptions::default()
            };
            let distances = check_distances(&positions, rules, &options, table_bytes);
            // Not only wins at once: the check must meet wins some way off.
            let far = distances.iter().filter(|&&d| d >= 5).count();
            assert!(
                distances.len() >= 15 && far >= 3,
                "{}: distances {distances:?}",
                rules.1.name()
            );
        }
    }
}

#[test]
fn the_command_line_states_how_soon() {
    let notations = playout_positions_under(Rules::Common, 50, 30, 77);
    let mut wins = 0;
    let mut draws = 0;
    for notation in &notations {
        let expected = oracle_win_distance(notation, OracleRules::Common);
        if expected.is_some_and(|d| d < 3) || (expected.is_none() && draws >= 2) {
            continue;
        }
        let json = |mode: &str| -> serde_json::Value {
            let (code, out, err) =
                common::run_uttt(&["solve", notation, "--win-in", mode, "--json", "--quiet"]);
            assert_eq!(code, 0, "{err}");
            serde_json::from_str(&out).unwrap()
        };
        let exact = json("exact");
        let ranged = json("range");
        assert!(json("off").get("win_in").is_none(), "off prints no win_in");
        match expected {
            Some(distance) => {
                wins += 1;
                assert_eq!(exact["win_in"], distance, "{notation}");
                let within = match &ranged["win_in"] {
                    serde_json::Value::Number(n) => n.as_u64() == Some(u64::from(distance)),
                    range => {
                        range["min"].as_u64().unwrap() <= u64::from(distance)
                            && u64::from(distance) <= range["max"].as_u64().unwrap()
                    }
                };
                assert!(within, "{notation}: {} for {distance}", ranged["win_in"]);
                let (_, text, _) =
                    common::run_uttt(&["solve", notation, "--win-in", "exact", "--quiet"]);
                assert!(text.contains(&format!("wins in {distance}  (")), "{text}");
            }
            None => {
                draws += 1;
                assert_eq!(exact["win_in"], serde_json::Value::Null, "{notation}");
                assert_eq!(ranged["win_in"], serde_json::Value::Null, "{notation}");
            }
        }
        if wins >= 4 && draws >= 2 {
            break;
        }
    }
    assert!(wins >= 4, "only {wins} wins of 3 plies or more");
    let (code, _, err) =
        common::run_uttt(&["solve", "start", "--win-in", "exact", "--attacker", "X"]);
    assert_eq!(code, 2);
    assert!(err.contains("--win-in"), "{err}");
}

#[test]
fn an_analysis_gives_each_decisive_moves_distance_from_before_it() {
    use uttt::game::format_position;
    use uttt::services::{SolveValue, WinInAnswer, WinInMode};
    let notations = playout_positions_under(Rules::Common, 50, 12, 31);
    let options = SolveOptions {
        threads: 2,
        ..SolveOptions::default()
    };
    let mut checked = 0;
    for notation in &notations {
        let pos = parse_position_under(notation, Rules::Common).unwrap();
        let table = Table::new(16 << 20).unwrap();
        let analysis = Solver::new(&options, &table).analyze_win_in(&pos, WinInMode::Exact);
        for m in &analysis.moves {
            let child = format_position(&pos.play(m.mv));
            let expected = oracle_win_distance(&child, OracleRules::Common);
            match m.value {
                SolveValue::Win | SolveValue::Loss => {
                    let plies = expected.expect("a decisive move") + 1;
                    assert_eq!(
                        m.win_in,
                        WinInAnswer::Win(WinIn::Exact(plies)),
                        "{notation} {}",
                        m.mv
                    );
                    checked += 1;
                }
                SolveValue::Draw => assert_eq!(m.win_in, WinInAnswer::NoWin),
                SolveValue::Unknown => panic!("{notation} {}: unknown", m.mv),
            }
        }
    }
    assert!(checked >= 20, "only {checked} decisive moves");
}

#[test]
fn a_review_gives_each_won_positions_distance_and_flags_slower_wins() {
    use uttt::game::{format_position, Position, Rng};
    use uttt::services::review::{review_win_in, Mark, ReviewLimits};
    use uttt::services::{WinInAnswer, WinInMode};
    let options = SolveOptions {
        threads: 2,
        time_limit: Some(std::time::Duration::from_millis(500)),
        ..SolveOptions::default()
    };
    let mut checked = 0;
    for seed in 1..=6 {
        let moves = Rng::new(seed).playout(&Position::start(), 81);
        let table = Table::new(16 << 20).unwrap();
        let mut solver = Solver::new(&options, &table);
        let limits = ReviewLimits {
            unknowns_in_a_row: Some(1),
        };
        // Only the last positions: the oracle is exhaustive.
        let from = moves.len().saturating_sub(moves.len().min(81) - 46);
        let start = moves[..from]
            .iter()
            .fold(Position::start(), |p, &m| p.play(m));
        let tail = &moves[from..];
        let played = {
            // A review needs the game from the start: review it whole, with a limit that
            // leaves the early positions unknown.
            let _ = (start, tail);
            &moves[..]
        };
        let review = review_win_in(
            &Position::start(),
            played,
            &mut solver,
            limits,
            WinInMode::Exact,
            |_| {},
        )
        .expect("the solves agree");
        for (ply, p) in review.plies.iter().enumerate() {
            if !p.reviewed || p.position.stone_count() < 46 {
                continue;
            }
            let expected = oracle_win_distance(&format_position(&p.position), OracleRules::Common);
            let exact = |answer: WinInAnswer| matches!(answer, WinInAnswer::Win(WinIn::Exact(_)));
            match p.value {
                Verdict::Wins(_) => {
                    let distance = expected.expect("the oracle finds the win");
                    match p.win_in {
                        // The time limit of a loaded machine may leave a range: it must hold
                        // the distance.
                        WinInAnswer::Win(WinIn::Range { min, max }) => {
                            assert!(min <= distance && distance <= max, "seed {seed} ply {ply}")
                        }
                        answer => {
                            assert_eq!(answer, WinInAnswer::Win(WinIn::Exact(distance)));
                            checked += 1;
                        }
                    }
                }
                Verdict::Draw => assert_eq!((p.win_in, expected), (WinInAnswer::NoWin, None)),
                _ => continue,
            }
            // A winning move is slower when it makes the win further off.
            if let (Some(next), Some(Mark::Best)) = (review.plies.get(ply + 1), p.mark) {
                let slower = p.value == Verdict::Wins(p.to_move())
                    && next.position.stone_count() >= 46
                    && oracle_win_distance(&format_position(&next.position), OracleRules::Common)
                        .is_some_and(|after| Some(after + 1) > expected);
                if next.reviewed && exact(p.win_in) && exact(next.win_in) {
                    assert_eq!(p.slower_win, slower, "seed {seed} ply {ply}");
                }
            }
        }
    }
    assert!(checked >= 10, "only {checked} won positions");
}

/// `--win-in exact --verify` writes both halves of each distance into the certificate, and
/// `uttt verify` states the distance from them, under every rule set.
#[test]
#[ignore = "heavy oracle sweep: .ci/run runs it with --ignored"]
fn a_certificate_carries_both_halves_of_the_distance_and_verify_states_it() {
    for (index, rules) in RULE_SETS.into_iter().enumerate() {
        let dir = common::temp_dir(&format!("distance-cert-{index}"));
        let mut stated = 0;
        for (i, notation) in playout_positions_under(rules.0, 48, 40, 960 + index as u64)
            .iter()
            .enumerate()
        {
            let Some(distance) = oracle_win_distance(notation, rules.1).filter(|&d| d >= 3) else {
                continue;
            };
            let cert = dir.join(format!("p{i}.cert"));
            let cert = cert.to_str().unwrap();
            let rules_name = rules.1.name();
            let (code, out, err) = common::run_uttt(&[
                "solve",
                notation,
                "--rules",
                rules_name,
                "--win-in",
                "exact",
                "--certificate",
                cert,
                "--verify",
                "--json",
                "--quiet",
            ]);
            assert_eq!(code, 0, "{err}");
            let json: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(json["win_in"], distance, "{notation}");
            assert_eq!(json["certificate"]["certified"], true, "{json}");
            let (code, out, err) = common::run_uttt(&["verify", cert, "--json"]);
            assert_eq!(code, 0, "{err}");
            let check: serde_json::Value = serde_json::from_str(&out).unwrap();
            let winner = json["result"].as_str().unwrap();
            let statement = format!("{winner} wins in exactly {distance} plies in ");
            let proves = check["proves"].as_array().unwrap();
            assert!(
                proves
                    .iter()
                    .any(|p| p.as_str().unwrap().starts_with(&statement)),
                "{notation} ({rules_name}): {statement}: {proves:?}"
            );
            stated += 1;
        }
        assert!(stated >= 3, "{}: {stated} distances stated", rules.1.name());
    }
}
