//! Every engine and thread count against independent values: the shared reference file and
//! the oracle on seeded random playouts; with a normal table and with a tiny one that forces
//! replacement.
mod common;
use std::sync::atomic::AtomicBool;
use uttt::game::{format_position, parse_position, Position, Rng};
use uttt::search::{solve, Engine, SolveOptions, SolveValue, Table};

/// The engines under test: DFPN, and PN-DFPN with 1, 2 and 4 workers and small jobs and
/// split threshold, so that even these quick positions grow a root tree.
fn engines() -> Vec<SolveOptions> {
    let mut all = vec![SolveOptions {
        engine: Engine::Dfpn,
        ..SolveOptions::default()
    }];
    for threads in [1, 2, 4] {
        all.push(SolveOptions {
            engine: Engine::PnDfpn,
            threads,
            job_work: 300,
            split_threshold: 200,
            ..SolveOptions::default()
        });
    }
    all
}

/// The value of `notation` in the reference-file form (`X`, `O`, `draw`) by the solver.
/// With `check_move`, the best move is also checked with the oracle.
fn solver_value(
    notation: &str,
    options: &SolveOptions,
    table_bytes: u64,
    check_move: bool,
) -> String {
    let pos = parse_position(notation).unwrap();
    let table = Table::new(table_bytes).unwrap();
    let report = solve(&pos, options, &table, &AtomicBool::new(false));
    assert_ne!(report.value, SolveValue::Unknown, "{notation} {options:?}");
    if check_move {
        check_best_move(&pos, &report.best_move, &report.result);
    }
    report.result
}

/// The best move must be legal, and after it the position must keep the claimed value
/// (checked by the oracle, which is independent of the solver).
fn check_best_move(pos: &Position, best: &Option<String>, result: &str) {
    if pos.is_over() {
        assert!(best.is_none());
        return;
    }
    let best = best.as_deref().expect("a best move");
    let after = uttt::game::play_move_list(pos, best).expect("a legal best move");
    let side = pos.side_to_move();
    let keeps = common::oracle::oracle_value(&format_position(&after));
    match result {
        "draw" => assert_eq!(keeps, "draw", "{pos} {best}"),
        r if r == side.letter().to_string() => assert_eq!(keeps, r, "{pos} {best}"),
        _ => {} // every move of a lost position loses
    }
}

/// Positions from seeded random playouts of 50–60 plies that are still in play.
pub fn playout_positions(count: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let plies = 50 + rng.below(11);
        let moves = rng.playout(&Position::start(), plies);
        let p = moves.iter().fold(Position::start(), |p, &m| p.play(m));
        if !p.is_over() {
            out.push(format_position(&p));
        }
    }
    out
}

/// Every engine gives every reference value with a table of `table_bytes`.
fn check_reference_values(table_bytes: u64) {
    let rows = common::data_rows("late-positions.tsv");
    let engines = engines();
    common::parallel_rows(&rows, |row| {
        for options in &engines {
            let got = solver_value(&row[0], options, table_bytes, false);
            assert_eq!(got, row[1], "{} {options:?} table {table_bytes}", row[0]);
        }
    });
}

#[test]
fn every_engine_matches_reference_values() {
    check_reference_values(16 << 20);
}

#[test]
fn every_engine_matches_reference_values_with_a_tiny_table() {
    check_reference_values(64 << 10);
}

#[test]
fn every_engine_matches_the_oracle_on_random_playouts() {
    let positions = playout_positions(200, 2026);
    let engines = engines();
    common::parallel_rows(&positions, |p| {
        let expected = common::oracle::oracle_value(p);
        for (i, options) in engines.iter().enumerate() {
            // The best move is checked once per position (with the first engine) and the
            // tiny table once per engine.
            assert_eq!(
                solver_value(p, options, 16 << 20, i == 0),
                expected,
                "{p} {options:?}"
            );
            assert_eq!(
                solver_value(p, options, 64 << 10, i == 2),
                expected,
                "tiny table: {p} {options:?}"
            );
        }
    });
}

#[test]
fn every_engine_finds_the_draw_the_earlier_solver_calls_a_win() {
    // The earlier public solver's unsound rule calls this an X win; exhaustive search says draw.
    let text =
        "X;X.X.X@OXO;OXXOXOXOO/XOXOXO..O/X..X.OXO./O.OXOO.OX/X...XX.OX/OXOXOX..X/O...O...O/X.XX..X../X.OXOOO.X";
    assert_eq!(common::oracle::oracle_value(text), "draw");
    for options in engines() {
        for table_bytes in [16 << 20, 64 << 10] {
            assert_eq!(
                solver_value(text, &options, table_bytes, true),
                "draw",
                "{options:?}"
            );
        }
    }
}

#[test]
fn a_limit_gives_unknown_or_the_true_value_never_another() {
    let positions = playout_positions(24, 77);
    let engines = engines();
    let seen = std::sync::Mutex::new((0usize, 0usize));
    common::parallel_rows(&positions, |p| {
        let expected = common::oracle::oracle_value(p);
        let pos = parse_position(p).unwrap();
        for options in &engines {
            for node_limit in [1, 5, 40, 300, 2_000] {
                let limited = SolveOptions {
                    node_limit: Some(node_limit),
                    ..options.clone()
                };
                let table = Table::new(1 << 20).unwrap();
                let report = solve(&pos, &limited, &table, &AtomicBool::new(false));
                let mut counts = seen.lock().unwrap();
                if report.value == SolveValue::Unknown {
                    counts.0 += 1;
                } else {
                    counts.1 += 1;
                    assert_eq!(report.result, expected, "{p} {limited:?}");
                }
            }
        }
    });
    let (unknown, settled) = *seen.lock().unwrap();
    // Both kinds of answer must occur, or the check says nothing.
    assert!(
        unknown > 20 && settled > 20,
        "{unknown} unknown, {settled} settled"
    );
}
