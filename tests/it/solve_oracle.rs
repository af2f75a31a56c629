//! Every engine and thread count against independent values: the shared reference file and
//! the oracle on seeded random playouts; with a normal table and with a tiny one that forces
//! replacement.
use crate::common;
use crate::common::oracle::{oracle_value_under, OracleRules};
use uttt::game::{format_position, parse_position, parse_position_under, Move, Position, Rules};
use uttt::search::guide::Guide;
use uttt::search::workers::private::with_private_tables;
use uttt::search::{Engine, SolveOptions};
use uttt::services::{SolveReport, SolveValue, Solver, Verdict};
use uttt::table::Table;

/// The engines under test: DFPN, shared-table DFPN with 2 and 4 searchers, and PN-DFPN with
/// 1, 2, 4, 8 and 16 workers and small jobs and split threshold, so that even these quick
/// positions grow a root tree; then DFPN, shared-table DFPN with 2 searchers and PN-DFPN with
/// 4 workers steered by the learned guide, and DFPN and PN-DFPN with 4 workers by the
/// calibrated one (a guide may change the work, never the answer).
fn engines() -> Vec<SolveOptions> {
    let mut all = engines_with_the_hand_built_estimate();
    let guided: Vec<SolveOptions> = [
        (0, Guide::Learned),
        (1, Guide::Learned),
        (5, Guide::Learned),
    ]
    .into_iter()
    .chain([(0, Guide::Calibrated), (5, Guide::Calibrated)])
    .map(|(i, guide)| SolveOptions {
        guide,
        ..all[i].clone()
    })
    .collect();
    all.extend(guided);
    all
}

/// The engines of [`engines`] with the hand-built estimate.
fn engines_with_the_hand_built_estimate() -> Vec<SolveOptions> {
    let mut all = vec![SolveOptions {
        engine: Engine::Dfpn,
        ..SolveOptions::default()
    }];
    for threads in [2, 4] {
        all.push(SolveOptions {
            engine: Engine::SharedDfpn,
            threads,
            ..SolveOptions::default()
        });
    }
    for threads in [1, 2, 4, 8, 16] {
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
    solver_value_under(
        OracleRules::Common,
        notation,
        options,
        table_bytes,
        check_move,
    )
}

/// [`solver_value`] of a position under `rules`.
fn solver_value_under(
    rules: OracleRules,
    notation: &str,
    options: &SolveOptions,
    table_bytes: u64,
    check_move: bool,
) -> String {
    solved_value(rules, notation, table_bytes, check_move, |pos, table| {
        Solver::new(options, table).solve(pos)
    })
}

/// [`solver_value`] for PN-DFPN with `workers` workers that each search against a table of
/// their own of `table_bytes` (`uttt solve --private-tables`, as MPI's worker ranks do: jobs
/// held for a busy worker, solved subtrees shared).
fn private_tables_value(
    notation: &str,
    workers: usize,
    table_bytes: u64,
    check_move: bool,
) -> String {
    solved_value(
        OracleRules::Common,
        notation,
        table_bytes,
        check_move,
        |pos, table| {
            private_tables_solve(pos, &SolveOptions::default(), workers, table_bytes, table)
        },
    )
}

/// Solves `pos` with `options` (made PN-DFPN with small jobs) on `workers` workers with tables
/// of their own of `table_bytes`, the root's table being `table`.
fn private_tables_solve(
    pos: &Position,
    options: &SolveOptions,
    workers: usize,
    table_bytes: u64,
    table: &Table,
) -> SolveReport {
    let options = SolveOptions {
        engine: Engine::PnDfpn,
        threads: workers,
        job_work: 300,
        split_threshold: 200,
        ..options.clone()
    };
    let private: Vec<Table> = (0..workers)
        .map(|_| Table::new(table_bytes).unwrap())
        .collect();
    with_private_tables(&private, None, |transport| {
        Solver::new(&options, table).jobs_on(transport).solve(pos)
    })
    .expect("two threads start")
}

/// The value `solve` finds for `notation` (under `rules`) with a table of `table_bytes`, in the
/// reference-file form; with `check_move`, the best move is also checked with the oracle.
fn solved_value(
    rules: OracleRules,
    notation: &str,
    table_bytes: u64,
    check_move: bool,
    solve: impl FnOnce(&Position, &Table) -> SolveReport,
) -> String {
    let pos = parse_position_under(notation, crate_rules(rules)).unwrap();
    let table = Table::new(table_bytes).unwrap();
    let report = solve(&pos, &table);
    assert_ne!(report.value(), SolveValue::Unknown, "{notation}");
    let result = reference_form(report.verdict);
    if check_move {
        check_best_move(rules, &pos, report.best_move, &result);
    }
    result
}

/// The crate's name for an oracle rule set.
fn crate_rules(rules: OracleRules) -> Rules {
    Rules::from_name(rules.name()).unwrap()
}

/// A verdict as the reference files write values: `X`, `O`, `draw` (else `unknown`).
fn reference_form(verdict: Verdict) -> String {
    match verdict {
        Verdict::Wins(player) => player.letter().to_string(),
        Verdict::Draw => "draw".into(),
        Verdict::DoesNotWin(_) | Verdict::Unknown => "unknown".into(),
    }
}

/// The best move must be legal, and after it the position must keep the claimed value
/// (checked by the oracle, which is independent of the solver).
fn check_best_move(rules: OracleRules, pos: &Position, best: Option<Move>, result: &str) {
    if pos.is_over() {
        assert!(best.is_none());
        return;
    }
    let best = best.expect("a best move");
    assert!(pos.is_legal(best), "{pos} {best}");
    let after = pos.play(best);
    let side = pos.side_to_move();
    let keeps = oracle_value_under(&format_position(&after), rules);
    match result {
        "draw" => assert_eq!(keeps, "draw", "{pos} {best}"),
        r if r == side.letter().to_string() => assert_eq!(keeps, r, "{pos} {best}"),
        _ => {} // every move of a lost position loses
    }
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

/// A calibration of the caller's (a campaign's refit, `Solver::calibrated_by`) changes the
/// work and never a value: DFPN and PN-DFPN with four workers, steered by two tables skewed
/// as far as either way, give every reference value, with a normal and a tiny table; and the
/// skew does change the work, so the tables are read.
#[test]
fn a_calibration_of_the_callers_changes_the_work_and_no_value() {
    use uttt::search::guide::calibration::{Calibration, CELLS};
    let skewed = |proof: f64| {
        let log2: Vec<f64> = (0..CELLS)
            .map(|cell| if cell < CELLS / 2 { proof } else { -proof })
            .collect();
        Calibration::of_log2(&log2)
    };
    let tables = [skewed(8.0), skewed(-8.0)];
    let all = engines_with_the_hand_built_estimate();
    // DFPN and PN-DFPN with one worker are deterministic, so their work tells the tables
    // apart; PN-DFPN with four workers checks the values too.
    let engines = [all[0].clone(), all[3].clone(), all[5].clone()].map(|options| SolveOptions {
        guide: Guide::Calibrated,
        ..options
    });
    let rows = common::data_rows("late-positions.tsv");
    // The work of the first two engines: skewed up, down, and with the built-in table.
    let work = std::sync::Mutex::new([[0u64; 3]; 2]);
    let solved_report =
        |notation: &str, table_bytes: u64, solve: &dyn Fn(&Position, &Table) -> SolveReport| {
            let table = Table::new(table_bytes).unwrap();
            solve(&parse_position(notation).unwrap(), &table)
        };
    common::parallel_rows(&rows, |row| {
        for (engine, options) in engines.iter().enumerate() {
            for table_bytes in [16 << 20, 64 << 10] {
                for (i, calibration) in tables.iter().enumerate() {
                    let report = solved_report(&row[0], table_bytes, &|pos, table| {
                        Solver::new(options, table)
                            .calibrated_by(calibration)
                            .solve(pos)
                    });
                    assert_eq!(
                        reference_form(report.verdict),
                        row[1],
                        "{} {options:?} table {table_bytes} skew {i}",
                        row[0]
                    );
                    if engine < 2 && table_bytes == 16 << 20 {
                        work.lock().unwrap()[engine][i] += report.nodes;
                    }
                }
            }
        }
        for (engine, options) in engines[..2].iter().enumerate() {
            let report = solved_report(&row[0], 16 << 20, &|pos, table| {
                Solver::new(options, table).solve(pos)
            });
            work.lock().unwrap()[engine][2] += report.nodes;
        }
    });
    for [up, down, built_in] in *work.lock().unwrap() {
        assert!(
            up != built_in && down != built_in && up != down,
            "{up} {down} {built_in}"
        );
    }
}

#[test]
#[ignore = "heavy oracle sweep: .ci/run runs it with --ignored, and again with debug assertions"]
fn every_engine_matches_the_oracle_on_random_playouts() {
    let positions = common::playout_positions(200, 2026);
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
#[ignore = "heavy oracle sweep: .ci/run runs it with --ignored, and again with debug assertions"]
fn every_engine_matches_the_oracle_under_the_other_rule_sets() {
    let engines = engines();
    for (rules, first_ply) in [
        (OracleRules::WonBoardsOpen, 58),
        (OracleRules::CodinGame, 50),
    ] {
        let positions = common::playout_positions_under(crate_rules(rules), first_ply, 150, 2027);
        common::parallel_rows(&positions, |p| {
            let expected = oracle_value_under(p, rules);
            for (i, options) in engines.iter().enumerate() {
                assert_eq!(
                    solver_value_under(rules, p, options, 16 << 20, i == 0),
                    expected,
                    "{rules:?}: {p} {options:?}"
                );
                assert_eq!(
                    solver_value_under(rules, p, options, 64 << 10, i == 2),
                    expected,
                    "{rules:?}, tiny table: {p} {options:?}"
                );
            }
        });
    }
}

#[test]
#[ignore = "heavy oracle sweep: .ci/run runs it with --ignored, and again with debug assertions"]
fn workers_with_private_tables_match_the_reference_values_and_the_oracle() {
    let rows = common::data_rows("late-positions.tsv");
    common::parallel_rows(&rows, |row| {
        for workers in [2, 4, 8] {
            for table_bytes in [16 << 20, 64 << 10] {
                let got = private_tables_value(&row[0], workers, table_bytes, false);
                assert_eq!(got, row[1], "{} {workers} tables of {table_bytes}", row[0]);
            }
        }
    });
    common::parallel_rows(&common::playout_positions(200, 2026), |p| {
        let expected = common::oracle::oracle_value(p);
        for workers in [2, 8] {
            let value = private_tables_value(p, workers, 16 << 20, workers == 2);
            assert_eq!(value, expected, "{p}: {workers} tables");
            let tiny = private_tables_value(p, workers, 64 << 10, false);
            assert_eq!(tiny, expected, "{p}: {workers} tiny tables");
        }
    });
}

#[test]
fn private_tables_under_a_limit_give_unknown_or_the_true_value_never_another() {
    // A limit aborts the jobs in flight and takes back the ones held for a busy worker
    // unrun; so does the end of the first question when it is answered with jobs in flight.
    let positions = common::playout_positions(24, 78);
    let seen = std::sync::Mutex::new((0usize, 0usize));
    common::parallel_rows(&positions, |p| {
        let expected = common::oracle::oracle_value(p);
        let pos = parse_position(p).unwrap();
        for workers in [3, 8] {
            for node_limit in [40, 300, 2_000, 10_000] {
                let limited = SolveOptions {
                    node_limit: Some(node_limit),
                    ..SolveOptions::default()
                };
                let table = Table::new(1 << 20).unwrap();
                let report = private_tables_solve(&pos, &limited, workers, 1 << 20, &table);
                let mut counts = seen.lock().unwrap();
                if report.value() == SolveValue::Unknown {
                    counts.0 += 1;
                } else {
                    counts.1 += 1;
                    let got = reference_form(report.verdict);
                    assert_eq!(got, expected, "{p}: {workers} tables, {node_limit} nodes");
                }
            }
        }
    });
    let (unknown, settled) = *seen.lock().unwrap();
    // Both kinds of answer must occur, or the check says nothing.
    assert!(
        unknown > 10 && settled > 10,
        "{unknown} unknown, {settled} settled"
    );
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
    let positions = common::playout_positions(24, 77);
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
                let report = Solver::new(&limited, &table).solve(&pos);
                let mut counts = seen.lock().unwrap();
                if report.value() == SolveValue::Unknown {
                    counts.0 += 1;
                } else {
                    counts.1 += 1;
                    assert_eq!(reference_form(report.verdict), expected, "{p} {limited:?}");
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

/// An oracle value (`X`, `O`, `draw`) as the value for the player `side` (`X` or `O`).
fn value_for(oracle: &str, side: &str) -> SolveValue {
    match oracle {
        "draw" => SolveValue::Draw,
        winner if winner == side => SolveValue::Win,
        _ => SolveValue::Loss,
    }
}

/// The value of every move, and the position's value, as the oracle sees them.
#[test]
fn analysis_gives_every_move_its_oracle_value() {
    let positions = common::playout_positions(30, 4242);
    let kinds = std::sync::Mutex::new(std::collections::BTreeSet::new());
    common::parallel_rows(&positions, |p| {
        let pos = parse_position(p).unwrap();
        let side = pos.side_to_move().letter().to_string();
        let engines = engines();
        let options = &engines[p.len() % engines.len()];
        let table = Table::new(1 << 20).unwrap();
        let analysis = Solver::new(options, &table).analyze(&pos);
        assert_eq!(analysis.moves.len(), pos.legal_moves().len(), "{p}");
        for m in &analysis.moves {
            let after = format_position(&pos.play(m.mv));
            let expected = value_for(common::oracle::oracle_value(&after), &side);
            assert_eq!(m.value, expected, "{p} {} {options:?}", m.mv);
            kinds.lock().unwrap().insert(format!("{expected:?}"));
        }
        let position_value = value_for(common::oracle::oracle_value(p), &side);
        assert_eq!(analysis.value(), position_value, "{p}");
        let solved = Solver::new(options, &table).solve(&pos);
        assert_eq!(solved.value(), analysis.value(), "{p}");
        // Best first: values never improve down the list.
        let rank = |v: SolveValue| {
            [
                SolveValue::Win,
                SolveValue::Draw,
                SolveValue::Unknown,
                SolveValue::Loss,
            ]
            .iter()
            .position(|&r| r == v)
        };
        assert!(
            analysis
                .moves
                .windows(2)
                .all(|w| rank(w[0].value) <= rank(w[1].value)),
            "{p}"
        );
    });
    // Wins, draws and losses must all have been checked.
    assert_eq!(kinds.lock().unwrap().len(), 3);
}

/// The live display's root numbers follow the search: after a solve they show the last
/// search's settled root (one number 0, the other ∞), never the initial zeros.
#[test]
fn live_stats_show_the_root_numbers() {
    // A draw: both questions are searched (224 nodes with DFPN).
    let pos = parse_position("X;.XO.....X;.XOXX.X.O/XXXXO.O../OOXX..OOO/OO..XOOXO/.OXOOXX.O/O..X..OXO/XOXOXX.XO/O.O.OO.X./..XXXXX..").unwrap();
    for options in engines() {
        let live = uttt::search::LiveStats::default();
        let table = Table::new(1 << 20).unwrap();
        let report = Solver::new(&options, &table).watched_by(&live).solve(&pos);
        let last = report.searches.last().expect("a search ran").root;
        assert_eq!(live.root(), last, "{options:?}");
        assert!(last.is_solved());
    }
}

/// A node limit bounds the whole solve, the search for a best move included, also when a
/// tiny table has lost the entries that move would be read from.
#[test]
fn a_node_limit_bounds_the_whole_solve() {
    let positions = common::playout_positions(16, 99);
    common::parallel_rows(&positions, |p| {
        let pos = parse_position(p).unwrap();
        for options in engines() {
            for node_limit in [3, 30, 300, 3_000] {
                let limited = SolveOptions {
                    node_limit: Some(node_limit),
                    ..options.clone()
                };
                let table = Table::new(64 << 10).unwrap();
                let report = Solver::new(&limited, &table).solve(&pos);
                // A job or a MID call may finish the node it is in: a little slack per thread.
                let slack = 4 * limited.worker_threads() as u64;
                assert!(
                    report.nodes <= node_limit + slack,
                    "{p} {limited:?}: {} nodes",
                    report.nodes
                );
            }
        }
    });
}

/// A new database in `dir`, named by the next number of `next` (tests that run positions in
/// parallel give each its own).
fn numbered_database(
    dir: &std::path::Path,
    next: &std::sync::atomic::AtomicUsize,
) -> uttt::db::Database {
    let number = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    uttt::db::Database::open(&dir.join(format!("{number}.db"))).unwrap()
}

/// Every engine with a database: a first solve stores its answers, and a second solve of a
/// symmetric image (a fresh table, so nothing but the database can answer it) gives the
/// oracle's value from the database alone, with a legal best move that keeps the value.
#[test]
fn every_engine_with_a_database_agrees_with_the_oracle_from_any_image() {
    use uttt::db::Source;
    use uttt::services::StorePolicy;
    let positions = common::playout_positions(40, 4242);
    let dir = common::temp_dir("db-oracle");
    let engines = engines();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let answered = std::sync::atomic::AtomicUsize::new(0);
    common::parallel_rows(&positions, |p| {
        let expected = common::oracle::oracle_value(p);
        let pos = parse_position(p).unwrap();
        let database = numbered_database(&dir, &next);
        let policy = StorePolicy {
            min_work: 0,
            source: Source::Solve,
        };
        for (i, options) in engines.iter().enumerate() {
            let table = Table::new(16 << 20).unwrap();
            let first = Solver::new(options, &table)
                .with_database(&database, policy)
                .solve(&pos);
            assert_eq!(reference_form(first.verdict), expected, "{p} {options:?}");
            let image = pos.transform(1 + i % 7);
            let fresh = Table::new(1 << 20).unwrap();
            let again = Solver::new(options, &fresh)
                .with_database(&database, policy)
                .solve(&image);
            assert_eq!(reference_form(again.verdict), expected, "{p} {options:?}");
            // Positions the rules settle without a search never reach the database.
            if again.database.as_ref().unwrap().answered {
                assert_eq!(again.nodes, 0);
                check_best_move(OracleRules::Common, &image, again.best_move, expected);
                answered.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
    });
    let answered = answered.into_inner();
    assert!(
        answered > positions.len() * engines.len() / 2,
        "only {answered} second solves came from the database"
    );
}

/// A campaign stopped by a small node limit again and again, each run on a fresh table (so
/// that only the database carries its work over, or the database and a snapshot of the last
/// run's table), settles every position at the oracle's value with a best move that keeps
/// it; with one and two workers and a tiny table. Then the campaign answers any symmetric
/// image of the position from the database.
#[test]
#[ignore = "heavy oracle sweep: .ci/run runs it with --ignored, and again with debug assertions"]
fn a_campaign_resumed_run_after_run_agrees_with_the_oracle() {
    use uttt::db::Source;
    use uttt::services::StorePolicy;
    let positions = common::playout_positions(60, 7_2027);
    let dir = common::temp_dir("campaign-oracle");
    let next = std::sync::atomic::AtomicUsize::new(0);
    let resumed = std::sync::atomic::AtomicUsize::new(0);
    common::parallel_rows(&positions, |p| {
        let expected = common::oracle::oracle_value(p);
        let pos = parse_position(p).unwrap();
        let runs_with = [
            (1, 16 << 20, false),
            (2, 16 << 20, false),
            (2, 64 << 10, false),
            (2, 64 << 10, true),
        ];
        for (threads, table_bytes, carried) in runs_with {
            let database = numbered_database(&dir, &next);
            let snapshot = dir.join(format!(
                "{}.table",
                next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            ));
            let policy = StorePolicy {
                min_work: 0,
                source: Source::Campaign,
            };
            let options = SolveOptions {
                engine: Engine::PnDfpn,
                threads,
                job_work: 50,
                split_threshold: 100,
                node_limit: Some(60),
                ..SolveOptions::default()
            };
            let mut runs = 0;
            let report = loop {
                runs += 1;
                assert!(runs <= 2_000, "{p}: no answer after {runs} runs");
                let mut table = Table::new(table_bytes).unwrap();
                if carried && snapshot.exists() {
                    table.load_snapshot(&snapshot).unwrap();
                }
                let report = Solver::new(&options, &table)
                    .with_database(&database, policy)
                    .as_campaign()
                    .solve(&pos);
                if carried {
                    table.save_snapshot(&snapshot).unwrap();
                }
                assert_eq!(report.database.as_ref().unwrap().error, None, "{p}");
                if report.verdict != Verdict::Unknown {
                    break report;
                }
            };
            if runs > 1 {
                resumed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            let context = format!(
                "{p}: {threads} threads, table {table_bytes}, snapshot {carried}, {runs} runs"
            );
            assert_eq!(reference_form(report.verdict), expected, "{context}");
            check_best_move(OracleRules::Common, &pos, report.best_move, expected);
            let image = pos.transform(5);
            let table = Table::new(1 << 20).unwrap();
            let again = Solver::new(&options, &table)
                .with_database(&database, policy)
                .as_campaign()
                .solve(&image);
            assert_eq!(reference_form(again.verdict), expected, "image: {context}");
            check_best_move(OracleRules::Common, &image, again.best_move, expected);
        }
    });
    let resumed = resumed.into_inner();
    // 240 campaigns in all; most of these late positions take a few hundred MID calls (fewer
    // since the kills: 60 a run leaves about 75 of them needing more than one).
    assert!(
        resumed >= 60,
        "only {resumed} campaigns needed more than one run: the limit is too large to test resuming"
    );
}

/// PN-DFPN with a database answers tree leaves from it: after every child of a position is
/// solved into the database, a solve of the position on a fresh table takes leaves from the
/// database (so their stored answers, read in the tree's terms, decide its value) and still
/// gives the oracle's value and a move that keeps it.
#[test]
fn leaves_answered_by_the_database_give_the_oracle_value() {
    use uttt::db::Source;
    use uttt::services::StorePolicy;
    let positions = common::playout_positions(40, 99);
    let dir = common::temp_dir("db-leaves");
    let next = std::sync::atomic::AtomicUsize::new(0);
    let leaves = std::sync::atomic::AtomicU64::new(0);
    let policy = StorePolicy {
        min_work: 0,
        source: Source::Solve,
    };
    common::parallel_rows(&positions, |p| {
        let expected = common::oracle::oracle_value(p);
        let pos = parse_position(p).unwrap();
        let database = numbered_database(&dir, &next);
        let options = SolveOptions {
            engine: Engine::PnDfpn,
            threads: 2,
            job_work: 300,
            split_threshold: 200,
            ..SolveOptions::default()
        };
        for mv in pos.legal_moves() {
            let table = Table::new(1 << 20).unwrap();
            Solver::new(&options, &table)
                .with_database(&database, policy)
                .solve(&pos.play(mv));
        }
        let table = Table::new(1 << 20).unwrap();
        let report = Solver::new(&options, &table)
            .with_database(&database, policy)
            .solve(&pos);
        assert_eq!(reference_form(report.verdict), expected, "{p}");
        check_best_move(OracleRules::Common, &pos, report.best_move, expected);
        let used = report.database.unwrap();
        leaves.fetch_add(used.leaves, std::sync::atomic::Ordering::Relaxed);
    });
    assert!(
        leaves.into_inner() >= positions.len() as u64,
        "the database answered too few leaves to test them"
    );
}

#[test]
fn asking_the_other_player_first_gives_the_oracles_value_and_a_move_that_keeps_it() {
    // `first_question` (which `uttt review` sets) changes which binary search runs first and,
    // for a draw, which search the best move comes from; the value and the move stay exact,
    // and so do the facts the database keeps: a second solve answers from them alike.
    let positions = common::playout_positions(120, 2027);
    let dir = common::temp_dir("first-question");
    let database = uttt::db::Database::open(&dir.join("facts.db")).unwrap();
    let policy = uttt::services::StorePolicy {
        min_work: 0,
        source: uttt::db::Source::Solve,
    };
    let draws = std::sync::atomic::AtomicUsize::new(0);
    common::parallel_rows(&positions, |p| {
        let expected = common::oracle::oracle_value(p);
        let side = parse_position(p).unwrap().side_to_move();
        for engine in [Engine::Dfpn, Engine::PnDfpn] {
            let options = SolveOptions {
                engine,
                threads: 2,
                job_work: 300,
                split_threshold: 200,
                first_question: Some(side.opponent()),
                ..SolveOptions::default()
            };
            for table_bytes in [16 << 20, 64 << 10] {
                let value =
                    solved_value(OracleRules::Common, p, table_bytes, true, |pos, table| {
                        Solver::new(&options, table).solve(pos)
                    });
                assert_eq!(value, expected, "{p} {engine:?} {table_bytes}");
            }
            // Searched and stored (by the first engine), then answered from the database with
            // the best move stored beside the answer it belongs to.
            let mut answered = false;
            let value = solved_value(OracleRules::Common, p, 16 << 20, true, |pos, table| {
                let report = Solver::new(&options, table)
                    .with_database(&database, policy)
                    .solve(pos);
                answered = report.database.as_ref().is_some_and(|d| d.answered);
                report
            });
            assert_eq!(value, expected, "{p} {engine:?} with the database");
            let pos = parse_position(p).unwrap();
            let settled_by_the_rules =
                pos.is_over() || uttt::search::rules::immediate_win(&pos).is_some();
            assert!(
                answered || engine == Engine::Dfpn || settled_by_the_rules,
                "{p}: the database answers what the first solve stored"
            );
        }
        if expected == "draw" {
            draws.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    });
    let draws = draws.into_inner();
    assert!(
        draws >= 10,
        "only {draws} draws: the draw's best move is what changed"
    );
}
