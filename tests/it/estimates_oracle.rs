//! The estimates beside the values that `analyze` and `review` leave unknown, under each rule
//! set: a value that an estimate's search proves instead is the oracle's, an estimate is
//! one (probabilities, shares, playouts), and no value a solve proved is changed.
use crate::common::{oracle_verdict, parallel_rows, playout_positions_under};
use std::sync::atomic::{AtomicUsize, Ordering};
use uttt::game::{parse_position_under, Position, Rng, Rules};
use uttt::search::{Engine, SolveOptions};
use uttt::services::review::{review, ReviewLimits};
use uttt::services::{Estimate, SolveValue, Solver, Verdict};
use uttt::table::Table;

/// Solves that a tiny node limit leaves mostly unknown, deterministic (one-threaded DFPN).
fn tiny_solves() -> SolveOptions {
    SolveOptions {
        engine: Engine::Dfpn,
        threads: 1,
        node_limit: Some(60),
        ..SolveOptions::default()
    }
}

/// What the checks saw, so that a test can tell they were not empty.
#[derive(Default)]
struct Seen {
    /// Values left unknown by the solves and proved by an estimate's search.
    proved: AtomicUsize,
    /// Estimates checked.
    estimates: AtomicUsize,
}

/// Checks `estimate` of `pos`: probabilities that make one, the playouts' shares beside them
/// and the playouts behind them. (That an outcome proved impossible gets nothing is the
/// calibration's unit tests', and the bounds it reads are checked against the oracle in
/// play_oracle.rs.)
fn check_estimate(estimate: &Estimate, pos: &Position, seen: &Seen) {
    let total = estimate.x + estimate.o + estimate.draw;
    assert!((total - 1.0).abs() < 1e-9, "{estimate:?} at {pos}");
    assert!(estimate.playouts > 0, "{estimate:?} at {pos}");
    let shares = estimate.shares.x + estimate.shares.o + estimate.shares.draw;
    assert!((shares - 1.0).abs() < 1e-9, "{estimate:?} at {pos}");
    seen.estimates.fetch_add(1, Ordering::Relaxed);
}

/// Stones from which the oracle answers quickly.
const ORACLE_MIN_STONES: u32 = 46;

/// Analyses `pos` with tiny solves, its estimates' searches `playouts` long, and checks it
/// against the same analysis without estimates: a value a solve proved stays; a value left
/// unknown gets an estimate or is proved (then, from [`ORACLE_MIN_STONES`] on, the oracle's).
fn check_analysis(pos: &Position, playouts: u64, seen: &Seen) {
    let options = tiny_solves();
    let solved = Solver::new(&options, &Table::new(1 << 20).unwrap())
        .estimating_with(Some(0))
        .analyze(pos);
    let table = Table::new(1 << 20).unwrap();
    let analysis = Solver::new(&options, &table)
        .estimating_with(Some(playouts))
        .analyze(pos);
    let mover = pos.side_to_move();
    let oracle = pos.stone_count() + 1 >= ORACLE_MIN_STONES;
    for m in &analysis.moves {
        let after = pos.play(m.mv);
        let solve = solved.moves.iter().find(|s| s.mv == m.mv).unwrap();
        if solve.value != SolveValue::Unknown {
            assert_eq!(m.value, solve.value, "{pos} {}", m.mv);
            assert!(m.estimate.is_none(), "{pos} {}", m.mv);
            continue;
        }
        match &m.estimate {
            Some(estimate) => {
                assert_eq!(m.value, SolveValue::Unknown, "{pos} {}", m.mv);
                check_estimate(estimate, &after, seen);
            }
            None => {
                assert_ne!(m.value, SolveValue::Unknown, "{pos} {}: no estimate", m.mv);
                if oracle {
                    let value = oracle_verdict(&after);
                    assert_eq!(m.value, value.value_for(mover), "{pos} {}", m.mv);
                    let reply = m.best_reply.expect("a proved value has its reply");
                    assert_eq!(oracle_verdict(&after.play(reply)), value, "{pos} {}", m.mv);
                    seen.proved.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }
}

#[test]
fn analyze_estimates_prove_only_the_oracles_values_and_keep_the_solves() {
    for (i, rules) in Rules::ALL.into_iter().enumerate() {
        let seen = Seen::default();
        // Late positions, whose estimates' searches prove most values; early ones, whose
        // estimates stay estimates.
        let late = playout_positions_under(rules, 46, 5, 70 + i as u64);
        let early = playout_positions_under(rules, 16, 2, 75 + i as u64);
        let cases: Vec<(&String, u64)> = late
            .iter()
            .map(|text| (text, 300))
            .chain(early.iter().map(|text| (text, 300)))
            .collect();
        parallel_rows(&cases, |(text, playouts)| {
            let pos = parse_position_under(text, rules).unwrap();
            check_analysis(&pos, *playouts, &seen);
        });
        let count = |n: &AtomicUsize| n.load(Ordering::Relaxed);
        let (proved, estimates) = (count(&seen.proved), count(&seen.estimates));
        eprintln!(
            "{rules:?}: {proved} values proved by estimates' searches, {estimates} estimates"
        );
        assert!(
            proved >= 10,
            "{rules:?}: only {proved} values proved by estimates"
        );
        assert!(estimates >= 10, "{rules:?}: only {estimates} estimates");
    }
}

#[test]
fn review_estimates_prove_only_the_oracles_values() {
    for (i, rules) in Rules::ALL.into_iter().enumerate() {
        let seen = Seen::default();
        let mut rng = Rng::new(80 + i as u64);
        let start = Position::start_under(rules);
        let games: Vec<Vec<_>> = (0..2).map(|_| rng.playout(&start, 81)).collect();
        parallel_rows(&games, |moves| {
            let options = tiny_solves();
            let table = Table::new(1 << 20).unwrap();
            let mut solver = Solver::new(&options, &table).estimating_with(Some(200));
            let limits = ReviewLimits {
                unknowns_in_a_row: None,
            };
            let reviewed = review(&start, moves, &mut solver, limits, |_| {}).unwrap();
            for p in reviewed.plies.iter().filter(|p| p.reviewed) {
                if p.value != Verdict::Unknown {
                    assert!(p.estimate.is_none(), "a value needs no estimate");
                    if p.position.stone_count() >= ORACLE_MIN_STONES {
                        assert_eq!(p.value, oracle_verdict(&p.position), "{}", p.position);
                    }
                } else if !p.position.is_over() {
                    let estimate = p.estimate.as_ref().expect("an unknown value has one");
                    check_estimate(estimate, &p.position, &seen);
                }
            }
        });
        let estimates = seen.estimates.load(Ordering::Relaxed);
        eprintln!("{rules:?}: {estimates} review estimates");
        assert!(estimates >= 3, "{rules:?}: only {estimates} estimates");
    }
}
