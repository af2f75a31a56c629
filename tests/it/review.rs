//! Game review against independent answers: every value a review gives is the oracle's (where
//! the oracle is quick) and a fresh solve's, and every mark is what `analyze` of the position
//! says of the move played; for each engine, with a normal and a tiny table.
use crate::common;
use crate::common::oracle_verdict;
use std::sync::atomic::{AtomicUsize, Ordering};
use uttt::game::{Move, Position, Rng};
use uttt::search::{Engine, SolveOptions};
use uttt::services::review::{review, Mark, Review, ReviewEvent, ReviewLimits, WalkEnd};
use uttt::services::{SolveValue, Solver, Verdict};
use uttt::table::Table;

/// Positions with at least this many stones are left to the oracle (it is exhaustive).
const ORACLE_MIN_STONES: u32 = 46;

/// Whole games of seeded random playouts, to their end.
fn random_games(count: usize, seed: u64) -> Vec<Vec<Move>> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| rng.playout(&Position::start(), 81))
        .collect()
}

/// The engines reviews are run with: DFPN, and PN-DFPN on two threads with small jobs.
fn engines() -> Vec<SolveOptions> {
    vec![
        SolveOptions {
            engine: Engine::Dfpn,
            node_limit: Some(150_000),
            ..SolveOptions::default()
        },
        SolveOptions {
            engine: Engine::PnDfpn,
            threads: 2,
            job_work: 300,
            split_threshold: 200,
            node_limit: Some(150_000),
            ..SolveOptions::default()
        },
    ]
}

/// Reviews `moves` with `options` against a fresh table of `table_bytes`, walking back until
/// two positions in a row are unknown; checks that the events name every ply it solved.
fn reviewed(moves: &[Move], options: &SolveOptions, table_bytes: u64) -> Review {
    let table = Table::new(table_bytes).unwrap();
    let mut solver = Solver::new(options, &table);
    let mut solved = Vec::new();
    let limits = ReviewLimits {
        unknowns_in_a_row: Some(2),
    };
    let review = review(&Position::start(), moves, &mut solver, limits, |event| {
        if let ReviewEvent::Solved { ply, .. } = event {
            solved.push(ply);
        }
    })
    .expect("the solves agree");
    let expected: Vec<usize> = review
        .plies
        .iter()
        .rev()
        .filter(|p| p.reviewed)
        .map(|p| p.ply)
        .collect();
    assert_eq!(
        solved, expected,
        "one event per solved ply, from the end back"
    );
    review
}

/// The value of `pos` by a fresh solve of up to `nodes` nodes (DFPN, its own table).
fn fresh_value(pos: &Position, nodes: u64) -> Verdict {
    let options = SolveOptions {
        engine: Engine::Dfpn,
        node_limit: Some(nodes),
        ..SolveOptions::default()
    };
    let table = Table::new(16 << 20).unwrap();
    Solver::new(&options, &table).solve(pos).verdict
}

/// How many of each check ran, so that the test can tell it checked something.
#[derive(Default)]
struct Checked {
    oracle: AtomicUsize,
    marks: AtomicUsize,
    errors: AtomicUsize,
    deduced: AtomicUsize,
}

/// Checks every value and mark of `review` against the oracle, fresh solves and `analyze`.
fn check(review: &Review, game: usize, checked: &Checked) {
    let last = review.plies.len() - 1;
    assert!(
        review.plies[last].reviewed,
        "game {game}: the end is reviewed"
    );
    assert!(
        review.plies[last].value != Verdict::Unknown,
        "game {game}: a finished game has its result"
    );
    for p in review.plies.iter().filter(|p| p.value != Verdict::Unknown) {
        assert!(
            p.reviewed,
            "game {game} ply {}: a value from a solve",
            p.ply
        );
        if p.deduced {
            assert_eq!(
                p.nodes, 0,
                "game {game} ply {}: deduced, not searched",
                p.ply
            );
            checked.deduced.fetch_add(1, Ordering::Relaxed);
        }
        if p.position.stone_count() >= ORACLE_MIN_STONES {
            assert_eq!(
                p.value,
                oracle_verdict(&p.position),
                "game {game} ply {}: {}",
                p.ply,
                p.position
            );
            checked.oracle.fetch_add(1, Ordering::Relaxed);
        }
        let fresh = fresh_value(&p.position, 2_000_000);
        if fresh != Verdict::Unknown {
            assert_eq!(p.value, fresh, "game {game} ply {}: a fresh solve", p.ply);
        }
        if let Some(best) = p.best_move {
            assert_eq!(
                fresh_value(&p.position.play(best), 2_000_000),
                p.value,
                "game {game} ply {}: the best move {best} keeps the value",
                p.ply
            );
        }
    }
    for p in &review.plies[..last] {
        let mark = p.mark.expect("every move is marked");
        let after = review.plies[p.ply + 1].value;
        if p.value == Verdict::Unknown || after == Verdict::Unknown {
            assert_eq!(mark, Mark::Unknown, "game {game} ply {}", p.ply);
            continue;
        }
        let options = SolveOptions {
            node_limit: Some(4_000_000),
            ..SolveOptions::default()
        };
        let table = Table::new(32 << 20).unwrap();
        let analysis = Solver::new(&options, &table).analyze(&p.position);
        let value_of = |mv: Move| {
            analysis
                .moves
                .iter()
                .find(|m| m.mv == mv)
                .map_or(SolveValue::Unknown, |m| m.value)
        };
        let mover = p.to_move();
        let played = p.played.expect("a move at every ply before the last");
        let position_value = analysis.value();
        let played_value = value_of(played);
        if position_value == SolveValue::Unknown || played_value == SolveValue::Unknown {
            continue;
        }
        assert_eq!(
            position_value,
            p.value.value_for(mover),
            "game {game} ply {}",
            p.ply
        );
        assert_eq!(
            played_value,
            after.value_for(mover),
            "game {game} ply {}",
            p.ply
        );
        let rank = |v: SolveValue| match v {
            SolveValue::Win => 2,
            SolveValue::Draw => 1,
            _ => 0,
        };
        let expected = match rank(position_value) - rank(played_value) {
            0 => Mark::Best,
            2 => Mark::Blunder,
            _ => Mark::Mistake,
        };
        assert_eq!(mark, expected, "game {game} ply {}: analyze's mark", p.ply);
        checked.marks.fetch_add(1, Ordering::Relaxed);
        if mark != Mark::Best {
            checked.errors.fetch_add(1, Ordering::Relaxed);
        }
        match (mark, p.better_move) {
            (Mark::Best, better) => assert_eq!(better, None),
            // The analysis shares one node limit over all moves (and PN-DFPN's counts vary
            // from run to run), so it may leave the better move open; the better move is the
            // best move, checked against a fresh solve above.
            (_, Some(better)) if value_of(better) != SolveValue::Unknown => {
                assert_eq!(
                    value_of(better),
                    position_value,
                    "game {game} ply {}",
                    p.ply
                )
            }
            (_, Some(better)) => assert_eq!(Some(better), p.best_move),
            (_, None) => {}
        }
    }
}

#[test]
#[ignore = "heavy oracle sweep: .ci/run runs it with --ignored"]
fn review_values_are_the_oracles_and_its_marks_are_analyzes() {
    let games = random_games(12, 0x5eed_0001);
    let cases: Vec<(usize, SolveOptions, u64)> = engines()
        .into_iter()
        .flat_map(|options| [(16u64 << 20), (64 << 10)].map(move |bytes| (options.clone(), bytes)))
        .enumerate()
        .flat_map(|(k, (options, bytes))| {
            // Each engine and table size reviews three of the games.
            (0..3).map(move |i| (3 * k + i, options.clone(), bytes))
        })
        .collect();
    let checked = Checked::default();
    common::parallel_rows(&cases, |(game, options, bytes)| {
        let review = reviewed(&games[*game], options, *bytes);
        check(&review, *game, &checked);
    });
    let count = |n: &AtomicUsize| n.load(Ordering::Relaxed);
    let (oracle, marks, errors) = (
        count(&checked.oracle),
        count(&checked.marks),
        count(&checked.errors),
    );
    let deduced = count(&checked.deduced);
    eprintln!(
        "{oracle} values checked by the oracle, {marks} marks by analyze ({errors} errors), \
         {deduced} values deduced"
    );
    assert!(
        deduced >= 10,
        "only {deduced} values deduced from the next position"
    );
    assert!(oracle >= 100, "only {oracle} values checked by the oracle");
    assert!(marks >= 100, "only {marks} marks checked");
    assert!(errors >= 10, "only {errors} mistakes and blunders checked");
}

#[test]
fn a_review_with_no_stop_rule_walks_to_the_start() {
    let game = &random_games(1, 0x5eed_0002)[0];
    let options = SolveOptions {
        engine: Engine::Dfpn,
        node_limit: Some(2_000),
        ..SolveOptions::default()
    };
    let table = Table::new(16 << 20).unwrap();
    let mut solver = Solver::new(&options, &table);
    let limits = ReviewLimits {
        unknowns_in_a_row: None,
    };
    let review =
        review(&Position::start(), game, &mut solver, limits, |_| {}).expect("the solves agree");
    assert_eq!(review.end, WalkEnd::Start);
    assert!(review.plies.iter().all(|p| p.reviewed));
    assert_eq!(review.plies.len(), game.len() + 1);
    assert_eq!(
        review.plies[0].value,
        Verdict::Unknown,
        "2,000 nodes do not solve the start"
    );
}

#[test]
fn a_stopped_solver_ends_the_walk_at_once() {
    let game = &random_games(1, 0x5eed_0003)[0];
    let options = SolveOptions::default();
    let table = Table::new(16 << 20).unwrap();
    let stop = std::sync::atomic::AtomicBool::new(true);
    let mut solver = Solver::new(&options, &table).stopped_by(&stop);
    let limits = ReviewLimits {
        unknowns_in_a_row: Some(2),
    };
    let review =
        review(&Position::start(), game, &mut solver, limits, |_| {}).expect("the solves agree");
    assert_eq!(review.end, WalkEnd::Stopped);
    assert_eq!(review.positions_reviewed(), 1, "only the final position");
}
