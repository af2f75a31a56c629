//! `uttt solve --mpi` under `mpirun` (built with `--features mpi`; needs Open MPI's mpirun).
use crate::common;
use crate::common::mpi::*;
use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn three_ranks_give_the_reference_values() {
    let rows = common::data_rows("late-positions.tsv");
    let small_jobs = ["--job-work", "50", "--split-threshold", "30"];
    // Worker ranks of one thread, then of two; every other position with a table per rank
    // instead of the machine's shared one.
    for (threads, rows) in [(1, &rows[..16]), (2, &rows[16..24])] {
        for (i, row) in rows.iter().enumerate() {
            let mut args = small_jobs.to_vec();
            if i % 2 == 1 {
                args.push("--table-per-rank");
            }
            let (code, json) = solve_with_threads(3, threads, &row[0], &args);
            assert_eq!(code, 0, "{json}");
            assert_eq!(json["result"], row[1].as_str(), "{} {args:?}", row[0]);
        }
    }
}

/// Three worker ranks of two threads writing one table of the smallest size: stores from
/// three processes contend for its entries and replace each other's, and every value stays
/// right.
#[test]
fn worker_ranks_sharing_a_tiny_table_give_the_reference_values() {
    let rows = common::data_rows("late-positions.tsv");
    let small_jobs = ["--job-work", "50", "--split-threshold", "30"];
    for row in &rows[..8] {
        let (code, json) = solve_with_table(4, 2, "64K", &row[0], &small_jobs);
        assert_eq!(code, 0, "{json}");
        assert_eq!(json["result"], row[1].as_str(), "{}", row[0]);
        assert_eq!(table_ranks(&json), vec![1, 1, 1], "one table: {json}");
    }
    // About 20,000-26,000 nodes (as the ranks' timing falls) through 4,096 entries with the
    // hand-built guide (the default guide's 13,000-14,000 replace 5,300-5,700 times, too
    // near the bound): the stores replace another's entry more often than there are entries.
    let rules_guide = [&small_jobs[..], &["--guide", "rules"]].concat();
    let (code, json) = solve_with_table(4, 2, "64K", MEDIUM, &rules_guide);
    assert_eq!((code, json["result"].as_str()), (0, Some("X")), "{json}");
    let table = &json["table"];
    assert_eq!(table["entries"], 4096, "{json}");
    assert!(table["replacements"].as_u64().unwrap() > 4096, "{json}");
}

#[test]
fn hundreds_of_jobs_over_two_worker_ranks_give_the_same_answer_as_one_process() {
    // Jobs of 30 nodes: 490-551 of them over five runs on a 2-core machine (of 100 nodes,
    // 199-255 with the hand-built guide, as the ranks' timing fell), so that at least 200
    // holds with room to spare.
    let small_jobs = ["--job-work", "30", "--split-threshold", "30"];
    let (code, json) = solve(3, MEDIUM, &small_jobs);
    assert_eq!(code, 0);
    assert_eq!(json["result"], "X");
    assert!(
        json["tree"]["jobs"].as_u64().unwrap() >= 200,
        "{}",
        json["tree"]
    );
    assert_eq!(json["ranks"].as_array().unwrap().len(), 2);
    assert_every_rank_ran_jobs(&json);
    moved_jobs(&json);
    // The answer does not depend on the number of ranks, on how jobs are assigned or on
    // whether the ranks share a table. Six ranks: five worker ranks, among which, each with a
    // table of its own, jobs wait at rank 0 for a busy rank's table.
    let configurations = [(2, None), (4, None), (6, None), (3, Some("round-robin"))];
    for ((ranks, extra), per_rank) in configurations
        .into_iter()
        .flat_map(|c| [(c, false), (c, true)])
    {
        let mut args = small_jobs.to_vec();
        if let Some(assignment) = extra {
            args.extend(["--mpi-assignment", assignment]);
        }
        if per_rank {
            args.push("--table-per-rank");
        }
        let (code, json) = solve(ranks, MEDIUM, &args);
        assert_eq!(
            (code, json["result"].as_str()),
            (0, Some("X")),
            "{ranks} {args:?}"
        );
        let moved = moved_jobs(&json);
        let workers = 1..ranks as u64;
        let tables = if per_rank { ranks as u64 - 1 } else { 1 };
        assert_worker_tables_reported(&json, &vec![1; ranks - 1], 32 << 20, tables);
        if per_rank {
            assert_eq!(table_ranks(&json), workers.collect::<Vec<_>>(), "{json}");
        } else {
            // All on this machine: one table, made by the first worker rank.
            assert_eq!(table_ranks(&json), workers.map(|_| 1).collect::<Vec<_>>());
            assert_eq!(moved, 0, "one table: nothing to move a job from; {json}");
        }
        if ranks == 2 {
            // One worker rank: no other table to move a job from.
            assert_eq!(moved, 0, "{json}");
        }
        if extra.is_some() && per_rank {
            // Taking turns over hundreds of jobs, the next job below a leaf goes to the
            // other rank about every other time.
            assert!(moved > 0, "{json}");
        }
    }
    // Worker ranks of two threads: each rank's main thread searches too, between and within
    // its jobs passing the messages of the rank's other thread.
    let (code, json) = solve_with_threads(3, 2, MEDIUM, &small_jobs);
    assert_eq!((code, json["result"].as_str()), (0, Some("X")), "{json}");
    assert_every_rank_ran_jobs(&json);
    assert_worker_tables_reported(&json, &[2, 2], 32 << 20, 1);
    let (_, single, _) = common::run_uttt(&["solve", MEDIUM, "--json", "--table-mem", "32M"]);
    assert!(single.contains("\"result\":\"X\""), "{single}");
}

#[test]
fn the_summary_of_an_mpi_solve_shows_the_worker_ranks_threads_and_tables() {
    let out = mpirun(4)
        .args([
            "solve",
            MEDIUM,
            "--mpi",
            "--threads",
            "2",
            "--table-mem",
            "32M",
        ])
        .output_within(RUN_LIMIT);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("engine pn-dfpn (6 threads)"), "{stdout}");
    // The one table the three worker ranks share, not rank 0's as well.
    assert!(stdout.contains("table      32 MiB"), "{stdout}");
    let rank_lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with("rank ")).collect();
    assert_eq!(rank_lines.len(), 3, "{stdout}");
    assert!(
        rank_lines.iter().all(|l| l.contains("table of rank 1 (")
            && l.contains("% full), messages in/out ")
            && l.ends_with(" KiB)")),
        "{stdout}"
    );
}

/// Ranks started with different `--threads` (as machines of different sizes are, where each
/// rank's default is its own machine's cores): each worker rank searches with its own, and
/// rank 0, whose own `--threads` is neither, counts and feeds each rank by its own.
#[test]
fn each_worker_rank_searches_with_its_own_threads() {
    let rank = |threads: &str| -> Vec<String> {
        let args = [
            "-np",
            "1",
            env!("CARGO_BIN_EXE_uttt"),
            "solve",
            MEDIUM,
            "--mpi",
            "--json",
            "--table-mem",
            "32M",
            "--job-work",
            "100",
            "--split-threshold",
            "100",
            "--threads",
            threads,
        ];
        args.iter().map(|a| a.to_string()).collect()
    };
    // Open MPI's colon syntax: rank 0 with 1 thread, rank 1 with 3, rank 2 with 2.
    let out = Command::new("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe"])
        .args(rank("1"))
        .arg(":")
        .args(rank("3"))
        .arg(":")
        .args(rank("2"))
        .output_within(RUN_LIMIT);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout} {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(out.status.code(), Some(0), "{json}");
    assert_eq!(json["result"], "X");
    assert_every_rank_ran_jobs(&json);
    assert_worker_tables_reported(&json, &[3, 2], 32 << 20, 1);
}
#[test]
fn a_limit_gives_unknown_and_stops_every_rank() {
    let start = Instant::now();
    let (code, json) = solve(3, "ee ea ae", &["--time-limit", "2s"]);
    assert_eq!(code, 1);
    assert_eq!(json["result"], "unknown");
    assert!(json["nodes"].as_u64().unwrap() > 0);
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_rank_killed_mid_solve_ends_the_run_with_an_error_and_no_answer() {
    // A node limit no solve reaches here, unique to this test's processes.
    const MARKER: &str = "987654321987";
    let child = mpirun(3)
        .args(["solve", "ee ea ae", "--mpi", "--threads", "1", "--json"])
        .args(["--table-mem", "32M", "--node-limit", MARKER])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    kill_rank_once_running(1, MARKER, Duration::from_secs(1));
    let out = wait_at_most(child, Duration::from_secs(30));
    assert!(!out.status.success(), "a dead rank must fail the run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !stdout.contains("\"result\""),
        "no answer after a rank died: {stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.is_empty(), "an error is reported");
}

/// A table that does not fit in memory fails the run with an error that says so, whether
/// the machine's ranks would share it or each would keep one, and no rank is left waiting.
#[test]
fn a_table_larger_than_memory_ends_an_mpi_run_with_an_error() {
    for tables in [None, Some("--table-per-rank")] {
        let child = mpirun(3)
            .args(["solve", MEDIUM, "--mpi", "--json", "--table-mem", "1000T"])
            .args(tables)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mpirun runs");
        let out = wait_at_most(child, Duration::from_secs(60));
        assert!(!out.status.success(), "{tables:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(!stdout.contains("\"result\""), "{tables:?}: {stdout}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("(--table-mem) does not fit in the"),
            "{tables:?}: {stderr}"
        );
    }
}

#[test]
fn options_that_need_one_process_are_refused_with_mpi() {
    for extra in ["--verify", "--table-file=run.tt", "--certificate=p.cert"] {
        let out = Command::new(env!("CARGO_BIN_EXE_uttt"))
            .args(["solve", MEDIUM, "--mpi", extra])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("cannot be used with"), "{extra}: {stderr}");
    }
    // And the other way: an MPI option without --mpi.
    let out = Command::new(env!("CARGO_BIN_EXE_uttt"))
        .args(["solve", MEDIUM, "--table-per-rank"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--mpi"), "{stderr}");
}

#[test]
fn a_worker_rank_pinned_to_fewer_cpus_than_threads_says_how_to_unbind_it() {
    // `taskset -c 0` pins every rank to one CPU, as mpirun's default binding does for `-np 2`.
    let pinned = |threads: &str| {
        Command::new("mpirun")
            .args([
                "--allow-run-as-root",
                "--oversubscribe",
                "--bind-to",
                "none",
            ])
            .args(["-np", "2", "taskset", "-c", "0", env!("CARGO_BIN_EXE_uttt")])
            .args(["solve", MEDIUM, "--mpi", "--json", "--table-mem", "32M"])
            .args(["--threads", threads])
            .output_within(RUN_LIMIT)
    };
    let out = pinned("2");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("rank 1 may run on 1 CPU(s) but has 2 worker threads")
            && stderr.contains("--bind-to none"),
        "{stderr}"
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["result"], "X");
    // One thread on one CPU is no shortfall.
    let out = pinned("1");
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("may run on"));
}

/// Asserts that a solve's JSON counts each worker rank's messages: at least a job and the stop
/// from rank 0 for each job it finished, and a result back for each, with their bytes.
fn assert_messages_counted(json: &Value) {
    for rank in json["ranks"].as_array().unwrap() {
        let count = |way: &str, what: &str| rank[way][what].as_u64().unwrap();
        let jobs = rank["jobs"].as_u64().unwrap();
        assert!(count("to_rank", "messages") > jobs, "{rank}");
        assert!(count("from_rank", "messages") >= jobs, "{rank}");
        // The shortest message is the stop, `"Stop"`; a result is dozens of bytes at least.
        let to_rank = count("to_rank", "bytes");
        assert!(to_rank >= 6 * count("to_rank", "messages"), "{rank}");
        let from_rank = count("from_rank", "bytes");
        assert!(from_rank >= 20 * count("from_rank", "messages"), "{rank}");
    }
}

/// Ranks apart, as on separate machines: a table each (`--table-per-rank`) and every message
/// over TCP on loopback. 2, 4, 8 and 16 worker ranks, tables of 32 MiB and of the smallest size,
/// give the reference values, whatever the count, the table or the messages' timing.
#[test]
fn ranks_apart_over_tcp_give_the_reference_values() {
    let rows = common::data_rows("late-positions.tsv");
    let apart = [
        "--job-work",
        "50",
        "--split-threshold",
        "30",
        "--table-per-rank",
    ];
    for (i, workers) in [2, 4, 8, 16].into_iter().enumerate() {
        for (j, table) in ["32M", "64K"].into_iter().enumerate() {
            let row = &rows[40 + 2 * i + j];
            let (code, json) = solve_over(Transport::Tcp, workers + 1, 1, table, &row[0], &apart);
            assert_eq!(code, 0, "{json}");
            assert_eq!(
                json["result"],
                row[1].as_str(),
                "{workers} {table} {}",
                row[0]
            );
            let tables: Vec<u64> = (1..=workers as u64).collect();
            assert_eq!(table_ranks(&json), tables, "a table each: {json}");
            assert_messages_counted(&json);
        }
    }
    // Four ranks apart with the smallest tables on a solve of about a million nodes: every
    // rank's table is overfilled (its entries replaced), and the value stays right.
    let (code, json) = solve_over(Transport::Tcp, 5, 1, "64K", LONGER, &apart[4..]);
    assert_eq!((code, json["result"].as_str()), (0, Some("X")), "{json}");
    assert_worker_tables_reported(&json, &[1; 4], 64 << 10, 4);
    assert!(
        json["table"]["replacements"].as_u64().unwrap() > 4 * 4096,
        "{json}"
    );
    assert_every_rank_ran_jobs(&json);
    assert_messages_counted(&json);
}

/// A bounded question's jobs carry its bound to the worker ranks: over MPI the distance of a
/// win, and the answers just at it and just below it, are one process's.
#[test]
fn bounded_questions_and_distances_over_mpi_are_one_process_answers() {
    let (code, out, err) = common::run_uttt(&[
        "solve",
        MEDIUM,
        "--win-in",
        "exact",
        "--threads",
        "1",
        "--json",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let alone: Value = serde_json::from_str(&out).unwrap();
    let distance = alone["win_in"].as_u64().expect("an exact distance");
    assert!(distance >= 5, "{alone}");
    let small_jobs = ["--job-work", "50", "--split-threshold", "30"];
    let mut args = small_jobs.to_vec();
    args.extend(["--win-in", "exact"]);
    let (code, json) = solve(3, MEDIUM, &args);
    assert_eq!((code, &json["result"]), (0, &Value::from("X")), "{json}");
    assert_eq!(json["win_in"], distance, "{json}");
    for (plies, answer) in [(distance, "X"), (distance - 2, "not X")] {
        let plies = plies.to_string();
        let mut args = small_jobs.to_vec();
        args.extend(["--max-plies", &plies]);
        let (code, json) = solve(3, MEDIUM, &args);
        assert_eq!(code, 0, "{json}");
        assert_eq!(json["result"], answer, "within {plies}: {json}");
        assert_eq!(json["max_plies"].to_string(), plies);
    }
}
