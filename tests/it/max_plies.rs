//! Depth-bounded questions (`uttt solve --max-plies N`): "does the attacker win within N
//! plies?" against the oracle's plain minimax to that depth, under every rule set, for both
//! attackers and every bound up to a few plies, with every engine and a tiny table; and the
//! certificates of bounded answers, whose claims and leaves are checked against it too.
use crate::common;
use crate::common::oracle::{oracle_value_under, oracle_wins_within, OracleRules};
use crate::common::{parallel_rows, playout_positions_under};
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use uttt::certificate::{
    check_file, leaf, read_blocks, verify_block, verify_blocks, write_block, Block, Claim,
    ClaimKind, Failure, Goal, Proven, Statement,
};
use uttt::game::{
    format_position, parse_game_arg_under, parse_position_under, Outcome, Player, Position, Rules,
};
use uttt::search::rules::{attacker_is_too_slow, evaluate, Evaluation};
use uttt::search::{Engine, Question, SolveOptions};
use uttt::services::{certify, Solver, Verdict};
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
fn the_command_line_refuses_a_bound_past_the_board_or_beside_a_distance() {
    let refusals: [&[&str]; 2] = [
        &["start", "--max-plies", "82"],
        &["start", "--max-plies", "9", "--win-in", "exact"],
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

// ---- Certificates of bounded answers ----

/// The claim that proves the answer "`attacker` wins within `plies`" (`wins`) or its failure.
fn bounded_claim(attacker: Player, plies: u32, wins: bool) -> Claim {
    let within = Some(plies as u8);
    if wins {
        Claim {
            prover: attacker,
            kind: ClaimKind::Wins,
            within,
        }
    } else {
        Claim {
            prover: attacker.opponent(),
            kind: ClaimKind::Holds,
            within,
        }
    }
}

/// Whether `claim` (bounded) is true of `notation` by the oracle (by its game value when the
/// bound reaches the last cell: the same answer, found faster).
fn bounded_claim_true(notation: &str, rules: OracleRules, claim: Claim) -> bool {
    let plies = u32::from(claim.within.expect("a bounded claim"));
    let pos = parse_position_under(notation, Rules::from_name(rules.name()).unwrap()).unwrap();
    if pos.stone_count() + plies >= 81 {
        let value = oracle_value_under(notation, rules);
        let prover = claim.prover.letter().to_string();
        return match claim.kind {
            ClaimKind::Wins => value == prover,
            ClaimKind::Holds => value == prover || value == "draw",
        };
    }
    match claim.kind {
        ClaimKind::Wins => oracle_wins_within(notation, rules, claim.prover == Player::X, plies),
        ClaimKind::Holds => !oracle_wins_within(notation, rules, claim.prover == Player::O, plies),
    }
}

/// The leaf rules of bounded claims, against the oracle: a leaf that meets a claim is a
/// position where the claim is true, and one that fails it a position where it is false. Every
/// rule must fire many times under every rule set (too slow with two plies or more left, too).
#[test]
fn bounded_leaves_meet_claims_exactly_when_the_oracle_says_so() {
    for (index, (rules, oracle_rules)) in RULE_SETS.into_iter().enumerate() {
        // Game over, bound reached, win now, too slow (two plies or more left), fails.
        let fired = Mutex::new([0usize; 5]);
        // Playouts of 30 to 79 plies, finished games included.
        let mut rng = uttt::game::Rng::new(0x6c65_6166 + index as u64);
        let start = Position::start_under(rules);
        let positions: Vec<String> = (0..2_000)
            .map(|_| {
                let plies = 30 + rng.below(50);
                let moves = rng.playout(&start, plies);
                format_position(&moves.iter().fold(start, |p, &m| p.play(m)))
            })
            .collect();
        parallel_rows(&positions, |notation| {
            let pos = parse_position_under(notation, rules).unwrap();
            for prover in [Player::X, Player::O] {
                for kind in [ClaimKind::Wins, ClaimKind::Holds] {
                    for plies in 0..=MAX_BOUND {
                        let claim = Claim {
                            prover,
                            kind,
                            within: Some(plies as u8),
                        };
                        let Some(meets) = leaf(&pos, Goal::at(claim, &pos)) else {
                            continue;
                        };
                        assert_eq!(
                            meets,
                            bounded_claim_true(notation, oracle_rules, claim),
                            "{notation} ({}): {claim}",
                            oracle_rules.name()
                        );
                        let rule = if !meets {
                            4
                        } else if pos.is_over() {
                            0
                        } else if plies == 0 {
                            1
                        } else if pos.side_to_move() == prover
                            && pos
                                .legal_moves()
                                .any(|m| pos.play(m).outcome() == Outcome::Won(prover))
                        {
                            2
                        } else {
                            assert_eq!(kind, ClaimKind::Holds, "{notation}: {claim}");
                            if plies < 2 {
                                continue;
                            }
                            3
                        };
                        fired.lock().unwrap()[rule] += 1;
                    }
                }
            }
        });
        let fired = fired.into_inner().unwrap();
        assert!(
            fired.iter().all(|&n| n > 100),
            "{}: {fired:?}",
            oracle_rules.name()
        );
    }
}

/// Solves "does `attacker` win within `plies`?" at `pos` with `options` and a table of
/// `table_bytes`, and writes the answer's certificate: the answer and the blocks.
fn certified_answer(
    pos: &Position,
    attacker: Player,
    plies: u32,
    options: &SolveOptions,
    table_bytes: u64,
) -> (Verdict, Vec<Block>) {
    let options = SolveOptions {
        max_plies: Some(plies),
        ..options.clone()
    };
    let table = Table::new(table_bytes).unwrap();
    let report = Solver::new(&options, &table).solve_question(pos, attacker);
    let stop = AtomicBool::new(false);
    let certificate = certify(
        pos,
        report.verdict,
        Some(plies),
        &table,
        options.epsilon,
        &stop,
    )
    .unwrap_or_else(|e| panic!("{pos}: {attacker} within {plies}: {e}"));
    (report.verdict, certificate.blocks)
}

/// Certificates of bounded answers under every rule set, both attackers and bounds 0 to
/// [`MAX_BOUND`]: one block whose claim is the answer (true by the oracle), which verifies;
/// and the same moves under a claim one ply tighter (a win one ply sooner, or a defence one ply
/// longer) fail wherever the oracle says that claim is false.
#[test]
fn certificates_of_bounded_answers_verify_and_a_tighter_claim_fails_where_false() {
    let engines = [
        (
            SolveOptions {
                engine: Engine::Dfpn,
                ..SolveOptions::default()
            },
            1 << 20,
        ),
        (
            SolveOptions {
                engine: Engine::Dfpn,
                ..SolveOptions::default()
            },
            64 << 10,
        ),
        (
            SolveOptions {
                engine: Engine::PnDfpn,
                threads: 2,
                job_work: 30,
                split_threshold: 20,
                ..SolveOptions::default()
            },
            1 << 20,
        ),
    ];
    let counts = Mutex::new([0usize; 3]); // wins, holds, tighter claims refused
    for (index, (rules, oracle_rules)) in RULE_SETS.into_iter().enumerate() {
        let positions: Vec<(usize, String)> =
            late_positions(rules, 120, 0x6365_7274 + index as u64)
                .into_iter()
                .enumerate()
                .collect();
        parallel_rows(&positions, |(row, notation)| {
            let pos = parse_position_under(notation, rules).unwrap();
            let (options, table_bytes) = &engines[row % engines.len()];
            // The bounds asked, and on every eighth position two that reach the last cell (the
            // search is then the unbounded one, the claim still bounded).
            let to_last_cell = 81 - pos.stone_count();
            let last_cell = if row % 8 == 0 {
                vec![to_last_cell, 81]
            } else {
                vec![]
            };
            let bounds: Vec<u32> = (0..=MAX_BOUND).chain(last_cell).collect();
            for attacker in [Player::X, Player::O] {
                for &plies in &bounds {
                    let (verdict, blocks) =
                        certified_answer(&pos, attacker, plies, options, *table_bytes);
                    let wins = verdict == Verdict::Wins(attacker);
                    // A win of the defender within the bound (the side to move winning at
                    // once) answers the question too, and is certified as such.
                    let expected = match verdict {
                        Verdict::Wins(defender) if defender != attacker => Claim {
                            prover: defender,
                            kind: ClaimKind::Wins,
                            within: Some(plies as u8),
                        },
                        _ => bounded_claim(attacker, plies, wins),
                    };
                    assert_eq!(blocks.len(), 1, "{notation}");
                    assert_eq!(blocks[0].claim, expected, "{notation}");
                    assert!(
                        bounded_claim_true(notation, oracle_rules, expected),
                        "{notation} ({}): {expected} is false",
                        oracle_rules.name()
                    );
                    if let Err(failure) = verify_block(&blocks[0]) {
                        panic!(
                            "{notation} ({}): {expected}: {failure}",
                            oracle_rules.name()
                        );
                    }
                    counts.lock().unwrap()[usize::from(expected.kind == ClaimKind::Holds)] += 1;
                    if plies > MAX_BOUND {
                        continue;
                    }
                    let tighter = match (expected.kind, plies) {
                        (ClaimKind::Wins, 0) => continue,
                        (ClaimKind::Wins, _) => plies - 1,
                        (ClaimKind::Holds, _) => plies + 1,
                    };
                    let claim = Claim {
                        within: Some(tighter as u8),
                        ..expected
                    };
                    if !bounded_claim_true(notation, oracle_rules, claim) {
                        let block = Block {
                            claim,
                            ..blocks[0].clone()
                        };
                        let result = verify_block(&block);
                        assert!(
                            result.is_err(),
                            "{notation} ({}): the false claim {claim} verifies",
                            oracle_rules.name()
                        );
                        // A win claimed one ply sooner first breaks where the bound now
                        // leaves the game in play: every earlier step is as before.
                        if claim.kind == ClaimKind::Wins {
                            assert!(
                                matches!(result, Err(Failure::OutOfPlies { .. })),
                                "{notation}: {claim}: {result:?}"
                            );
                        }
                        counts.lock().unwrap()[2] += 1;
                    }
                }
            }
        });
    }
    let counts = counts.into_inner().unwrap();
    assert!(
        counts[0] > 300 && counts[1] > 300 && counts[2] > 100,
        "{counts:?}"
    );
}

/// A position whose side to move wins in exactly `plies` plies (by the oracle), under the
/// common rules.
fn shortest_win_in(plies: u32, seed: u64) -> (String, Position) {
    let notation = late_positions(Rules::Common, 300, seed)
        .into_iter()
        .find(|notation| {
            let x = notation.starts_with('X');
            oracle_wins_within(notation, OracleRules::Common, x, plies)
                && !oracle_wins_within(notation, OracleRules::Common, x, plies - 1)
        })
        .expect("a playout position with a win in exactly that many plies");
    let pos = parse_position_under(&notation, Rules::Common).unwrap();
    (notation, pos)
}

#[test]
fn bounded_claims_are_written_read_and_refused_with_the_line_named() {
    let (_, pos) = shortest_win_in(3, 0x6669_6c65);
    let (_, blocks) = certified_answer(
        &pos,
        pos.side_to_move(),
        3,
        &SolveOptions::default(),
        1 << 20,
    );
    let mut bytes = Vec::new();
    write_block(&mut bytes, &blocks[0]).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    let line = format!("claim {} wins within 3 plies\n", pos.side_to_move());
    assert!(text.contains(&line), "{text}");
    assert_eq!(read_blocks(&mut &bytes[..]).unwrap(), blocks);
    // One ply is written in the singular; either form reads back.
    let one = Claim {
        prover: Player::O,
        kind: ClaimKind::Holds,
        within: Some(1),
    };
    assert_eq!(one.to_string(), "O holds for 1 ply");
    for (claim_line, within) in [
        ("O holds for 1 plies", 1),
        ("X wins within 81 plies", 81),
        ("X wins within 0 plies", 0),
    ] {
        let file = format!("uttt-certificate 1\nclaim {claim_line}\nposition {pos}\nmoves 0\n");
        let read = read_blocks(&mut file.as_bytes()).unwrap();
        assert_eq!(read[0].claim.within, Some(within), "{claim_line}");
    }
    for bad in [
        "X wins within 82 plies",
        "X wins for 3 plies",
        "O holds within 3 plies",
        "X wins within three plies",
        "X wins within 3",
        "X wins within 3 plies more",
        "X wins within +3 plies",
        "X wins within 03 plies",
        "X wins  within 3 plies",
        "X wins within 300 plies",
    ] {
        let file = format!("uttt-certificate 1\nclaim {bad}\nposition {pos}\nmoves 0\n");
        let error = read_blocks(&mut file.as_bytes()).unwrap_err();
        assert_eq!((error.block, error.line), (1, 2), "{bad}: {error}");
        assert!(error.reason.contains(bad), "{bad}: {error}");
    }
}

#[test]
fn a_finished_game_is_certified_under_a_bound_by_its_outcome() {
    // Playouts to the end: a drawn game is proved by both `holds` blocks, a won one by the
    // winner's `wins` block, each with the bound.
    let mut rng = uttt::game::Rng::new(0x656e_6473);
    let start = Position::start_under(Rules::Common);
    let (mut draws, mut wins) = (0, 0);
    while draws < 3 || wins < 3 {
        let moves = rng.playout(&start, 81);
        let end = moves.iter().fold(start, |p, &m| p.play(m));
        let (verdict, blocks) =
            certified_answer(&end, Player::X, 3, &SolveOptions::default(), 1 << 20);
        let claims: Vec<Claim> = blocks.iter().map(|b| b.claim).collect();
        let bounded = |prover, kind| Claim {
            prover,
            kind,
            within: Some(3),
        };
        match end.outcome() {
            Outcome::Draw => {
                draws += 1;
                assert_eq!(verdict, Verdict::Draw, "{end}");
                assert_eq!(
                    claims,
                    [
                        bounded(Player::X, ClaimKind::Holds),
                        bounded(Player::O, ClaimKind::Holds)
                    ],
                    "{end}"
                );
            }
            Outcome::Won(winner) => {
                wins += 1;
                assert_eq!(claims, [bounded(winner, ClaimKind::Wins)], "{end}");
            }
            Outcome::InPlay => panic!("{end}: a playout of 81 plies ends the game"),
        }
        let (results, _) = verify_blocks(&blocks);
        assert!(results.iter().all(Result::is_ok), "{end}: {results:?}");
    }
}

#[test]
fn a_bounded_block_neither_refers_to_another_block_nor_stands_in_for_one() {
    let (notation, pos) = shortest_win_in(3, 0x7265_6673);
    let prover = pos.side_to_move();
    let (_, blocks) = certified_answer(&pos, prover, 3, &SolveOptions::default(), 1 << 20);
    let proof = blocks[0].clone();
    assert!(verify_block(&proof).is_ok(), "{notation}");
    let empty = |claim| Block {
        version: 2,
        claim,
        position: pos,
        moves: Vec::new(),
    };
    let unbounded = Claim::unbounded(prover, ClaimKind::Wins);
    // Each first block has no moves and would be a leaf only by referring to the proof after
    // it; the oracle says each claim is true, so only rule 4's limits make it fail.
    let bounded_wins_in_4 = Claim {
        within: Some(4),
        ..proof.claim
    };
    assert!(bounded_claim_true(
        &notation,
        OracleRules::Common,
        bounded_wins_in_4
    ));
    let unbounded_proof = Block {
        version: 2,
        ..certify_unbounded(&pos)
    };
    for file in [
        vec![empty(unbounded), proof.clone()],
        vec![empty(bounded_wins_in_4), proof.clone()],
        vec![empty(bounded_wins_in_4), unbounded_proof],
    ] {
        let (results, referenced) = verify_blocks(&file);
        assert!(
            matches!(results[0], Err(Failure::MissingBytes { .. })),
            "{notation}: {} then {}: {:?}",
            file[0].claim,
            file[1].claim,
            results[0]
        );
        assert!(results[1].is_ok(), "{notation}: {:?}", results[1]);
        assert_eq!(referenced, [false, false]);
    }
}

/// The unbounded certificate block of the side to move's win at `pos`.
fn certify_unbounded(pos: &Position) -> Block {
    let table = Table::new(1 << 20).unwrap();
    let report = Solver::new(&SolveOptions::default(), &table).solve(pos);
    assert_eq!(report.verdict, Verdict::Wins(pos.side_to_move()), "{pos}");
    let stop = AtomicBool::new(false);
    let mut blocks = certify(pos, report.verdict, None, &table, 0.25, &stop)
        .unwrap()
        .blocks;
    blocks.remove(0)
}

#[test]
fn the_command_line_certifies_a_bounded_answer_and_verify_states_it() {
    let (notation, pos) = shortest_win_in(3, 0x636c_6963);
    let side = pos.side_to_move();
    let dir = common::temp_dir("max-plies-certificates");
    // A win within the bound is also stated as the win it is; a bounded defence says
    // nothing of the plies after its bound.
    for (plies, statements) in [
        (
            3,
            vec![
                format!("{side} wins"),
                format!("{side} wins within 3 plies"),
            ],
        ),
        (2, vec![format!("{side} does not win within 2 plies")]),
    ] {
        let path = dir.join(format!("within-{plies}.cert"));
        let path_text = path.display().to_string();
        let bound = plies.to_string();
        let (code, stdout, stderr) = common::run_uttt(&[
            "solve",
            &notation,
            "--max-plies",
            &bound,
            "--certificate",
            &path_text,
            "--verify",
            "--json",
        ]);
        assert_eq!(code, 0, "{stdout} {stderr}");
        let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(json["certificate"]["certified"], true, "{json}");
        let (code, stdout, stderr) = common::run_uttt(&["verify", &path_text]);
        assert_eq!(code, 0, "{stdout} {stderr}");
        let proves: Vec<String> = statements
            .iter()
            .map(|statement| format!("{statement} in {notation}"))
            .collect();
        let stated: Vec<&str> = stdout
            .lines()
            .filter_map(|line| line.strip_prefix("proves   "))
            .collect();
        assert_eq!(stated, proves, "{stdout}");
        let (code, stdout, stderr) = common::run_uttt(&["verify", &path_text, "--json"]);
        assert_eq!(code, 0, "{stdout} {stderr}");
        let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(json["proves"], serde_json::json!(proves), "{json}");
    }
}

/// The proof that the first player wins the whole game when won boards stay open
/// (`docs/proofs/open-game.cert`, written by `scripts/open-game.sh`) verifies and says so; the
/// same moves under a claim two plies tighter run out of plies, as the answer that X cannot
/// win within 25 plies after the opening it follows says they must.
#[test]
fn the_bundled_proof_of_the_whole_game_under_won_boards_open_verifies() {
    let check = check_file(&common::open_game_proof()).unwrap();
    assert!(check.all_verified(), "{check}");
    let start = parse_game_arg_under("start", Rules::WonBoardsOpen)
        .unwrap()
        .position;
    let proven = |statement| Proven {
        position: start,
        statement,
    };
    assert_eq!(
        check.proves(),
        [
            proven(Statement::Wins(Player::X)),
            proven(Statement::WinsWithin(Player::X, 43)),
        ]
    );

    let tighter = common::open_game_proof_claiming(41);
    let blocks = read_blocks(&mut &tighter[..]).unwrap();
    let result = verify_block(&blocks[0]);
    assert!(
        matches!(result, Err(Failure::OutOfPlies { .. })),
        "{result:?}"
    );
}
