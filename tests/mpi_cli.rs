//! `uttt solve --mpi` under `mpirun` (built with `--features mpi`; needs Open MPI's mpirun).
#![cfg(feature = "mpi")]
mod common;
use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// X wins; one-threaded DFPN takes about 16,000 nodes.
const MEDIUM: &str = "X;......@O.;O...XX.X./.....O.XX/XOOXX..../O.....O.O/OXO....OX/.OO....X./....O.XX./..XX..OOO/..X.XXO.O";

/// `mpirun -np RANKS uttt ARGS`, with what a root user on a small machine needs.
fn mpirun(ranks: usize) -> Command {
    let mut command = Command::new("mpirun");
    command
        .args(["--allow-run-as-root", "--oversubscribe", "-np"])
        .arg(ranks.to_string())
        .arg(env!("CARGO_BIN_EXE_uttt"));
    command
}

/// Solves `position` with `ranks` ranks of one thread each; exit code and JSON.
fn solve(ranks: usize, position: &str, extra: &[&str]) -> (i32, Value) {
    solve_with_threads(ranks, 1, position, extra)
}

/// Solves `position` with `ranks` ranks of `threads` threads each; exit code and JSON.
fn solve_with_threads(
    ranks: usize,
    threads: usize,
    position: &str,
    extra: &[&str],
) -> (i32, Value) {
    solve_with_table(ranks, threads, "32M", position, extra)
}

/// Solves `position` with `ranks` ranks of `threads` threads each and tables of `table`; exit
/// code and JSON.
fn solve_with_table(
    ranks: usize,
    threads: usize,
    table: &str,
    position: &str,
    extra: &[&str],
) -> (i32, Value) {
    let out = mpirun(ranks)
        .args([
            "solve",
            position,
            "--mpi",
            "--threads",
            &threads.to_string(),
            "--json",
            "--table-mem",
            table,
        ])
        .args(extra)
        .output()
        .expect("mpirun runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout} {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap_or(-1), json)
}

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
    // About 20,000-26,000 nodes (as the ranks' timing falls) through 4,096 entries: the
    // stores replace another's entry more often than there are entries.
    let (code, json) = solve_with_table(4, 2, "64K", MEDIUM, &small_jobs);
    assert_eq!((code, json["result"].as_str()), (0, Some("X")), "{json}");
    let table = &json["table"];
    assert_eq!(table["entries"], 4096, "{json}");
    assert!(table["replacements"].as_u64().unwrap() > 4096, "{json}");
}

/// The rank whose table each worker rank of a solve's JSON searched against.
fn table_ranks(json: &Value) -> Vec<u64> {
    let ranks = json["ranks"].as_array().unwrap();
    ranks
        .iter()
        .map(|r| r["table_rank"].as_u64().unwrap())
        .collect()
}

/// Asserts that a solve's (or campaign run's) JSON reports what its worker ranks searched
/// with: `threads[r − 1]` threads for worker rank `r`, in all the solve's `threads`, and
/// tables of `table_bytes` that their searches filled in part, which the solve's `table`
/// counts once each (`tables` of them) with their mean fill.
fn assert_worker_tables_reported(json: &Value, threads: &[u64], table_bytes: u64, tables: u64) {
    let ranks = json["ranks"].as_array().unwrap();
    let reported: Vec<u64> = ranks
        .iter()
        .map(|r| r["threads"].as_u64().unwrap())
        .collect();
    assert_eq!(reported, threads, "{ranks:?}");
    assert_eq!(json["threads"], threads.iter().sum::<u64>(), "{json}");
    let fills: Vec<f64> = ranks
        .iter()
        .map(|r| r["table"]["fill"].as_f64().unwrap())
        .collect();
    assert!(fills.iter().all(|&f| f > 0.0 && f <= 1.0), "{fills:?}");
    assert!(
        ranks.iter().all(|r| r["table"]["bytes"] == table_bytes),
        "{ranks:?}"
    );
    assert_eq!(json["table"]["bytes"], tables * table_bytes, "{json}");
    // Each table is as large, so the solve's fill is the mean of its tables' (each once).
    let mut distinct: Vec<(u64, f64)> = table_ranks(json).into_iter().zip(fills).collect();
    distinct.dedup_by_key(|(table, _)| *table);
    let mean = distinct.iter().map(|(_, f)| f).sum::<f64>() / distinct.len() as f64;
    let fill = json["table"]["fill"].as_f64().unwrap();
    assert!((fill - mean).abs() < 1e-9, "{fill} against {distinct:?}");
}

/// Asserts that every worker rank of a solve's JSON finished jobs.
fn assert_every_rank_ran_jobs(json: &Value) {
    let ranks = json["ranks"].as_array().unwrap();
    assert!(
        ranks.iter().all(|r| r["jobs"].as_u64().unwrap() > 0),
        "{ranks:?}"
    );
}

/// The jobs a solve's worker ranks were sent at subtrees another rank searched last, after
/// checking that no rank reports more of them than the jobs it ran.
fn moved_jobs(json: &Value) -> u64 {
    let ranks = json["ranks"].as_array().unwrap();
    let count = |rank: &Value, field: &str| rank[field].as_u64().unwrap();
    assert!(
        ranks
            .iter()
            .all(|r| count(r, "jobs_moved") <= count(r, "jobs")),
        "{ranks:?}"
    );
    ranks.iter().map(|r| count(r, "jobs_moved")).sum()
}

#[test]
fn hundreds_of_jobs_over_two_worker_ranks_give_the_same_answer_as_one_process() {
    let small_jobs = ["--job-work", "100", "--split-threshold", "100"];
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
        .output()
        .expect("mpirun runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("engine pn-dfpn (6 threads)"), "{stdout}");
    // The one table the three worker ranks share, not rank 0's as well.
    assert!(stdout.contains("table      32 MiB"), "{stdout}");
    let rank_lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with("rank ")).collect();
    assert_eq!(rank_lines.len(), 3, "{stdout}");
    assert!(
        rank_lines
            .iter()
            .all(|l| l.contains("table of rank 1 (") && l.ends_with("% full)")),
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
        .output()
        .expect("mpirun runs");
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

/// The pids of the running `uttt` processes whose MPI rank is `rank` and whose command line
/// holds `marker` (tests run in parallel: each kills only its own ranks).
fn pids_of_rank(rank: usize, marker: &str) -> Vec<u32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let is_uttt = String::from_utf8_lossy(&cmdline).contains(marker);
        let wanted = format!("OMPI_COMM_WORLD_RANK={rank}");
        let has_rank = environ.split(|&b| b == 0).any(|v| v == wanted.as_bytes());
        if is_uttt && has_rank && pid != std::process::id() {
            pids.push(pid);
        }
    }
    pids
}

#[test]
fn a_rank_killed_mid_solve_ends_the_run_with_an_error_and_no_answer() {
    // A node limit no solve reaches here, unique to this test's processes.
    const MARKER: &str = "987654321987";
    let mut child = mpirun(3)
        .args(["solve", "ee ea ae", "--mpi", "--threads", "1", "--json"])
        .args(["--table-mem", "32M", "--node-limit", MARKER])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until rank 1 runs, then kill it.
    let start = Instant::now();
    let victim = loop {
        if let Some(&pid) = pids_of_rank(1, MARKER).first() {
            break pid;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "rank 1 never started"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    std::thread::sleep(Duration::from_secs(1));
    let killed = Command::new("kill")
        .args(["-KILL", &victim.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let killed_at = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if killed_at.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("the run went on for 30 s after a rank died");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = child.wait_with_output().unwrap();
    assert!(!status.success(), "a dead rank must fail the run");
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
        let mut child = mpirun(3)
            .args(["solve", MEDIUM, "--mpi", "--json", "--table-mem", "1000T"])
            .args(tables)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mpirun runs");
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                panic!("{tables:?}: the run went on for 60 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = child.wait_with_output().unwrap();
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
            .output()
            .expect("mpirun runs")
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

/// `uttt campaign run --mpi` with three ranks: stopped by a node limit run after run (the
/// worker ranks never see the database), then settled, it gives the single-process value and
/// a certificate that verifies; a tiny table on every rank changes nothing.
#[test]
fn a_campaign_over_mpi_resumes_run_after_run_to_the_plain_value_and_certifies() {
    let dir = common::temp_dir("mpi-campaign");
    let (code, plain, _) = common::run_uttt(&["solve", MEDIUM, "--json", "--table-mem", "32M"]);
    assert_eq!(code, 0);
    let plain: Value = serde_json::from_str(&plain).unwrap();
    for table in ["32M", "64K"] {
        let db = dir.join(format!("campaign-{table}.db"));
        let db = db.to_str().unwrap();
        let mut runs = 0;
        let json = loop {
            runs += 1;
            assert!(runs <= 100, "no answer after {runs} runs");
            let out = mpirun(3)
                .args([
                    "campaign",
                    "run",
                    MEDIUM,
                    "--mpi",
                    "--db",
                    db,
                    "--threads",
                    "1",
                ])
                .args(["--json", "--table-mem", table, "--job-work", "300"])
                .args(["--split-threshold", "200", "--node-limit", "15000"])
                .output()
                .expect("mpirun runs");
            let stdout = String::from_utf8_lossy(&out.stdout);
            let json: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
                panic!("{e}: {stdout} {}", String::from_utf8_lossy(&out.stderr))
            });
            match out.status.code() {
                Some(0) => break json,
                Some(1) => assert_eq!(json["result"], "unknown"),
                other => panic!("exit {other:?}: {stdout}"),
            }
        };
        assert!(runs > 1, "the node limit must interrupt the campaign");
        assert_eq!(json["result"], plain["result"], "table {table}");
        // Its figures are the two worker ranks' (one thread each, one table on this
        // machine), as a solve's are, not rank 0's.
        let table_bytes = if table == "32M" { 32 << 20 } else { 64 << 10 };
        assert_worker_tables_reported(&json, &[1, 1], table_bytes, 1);
        let questions = json["campaign"]["questions"].as_array().unwrap();
        let total_runs: u64 = questions
            .iter()
            .map(|q| q["totals"]["runs"].as_u64().unwrap())
            .sum();
        assert!(
            total_runs >= runs,
            "{total_runs} runs recorded over {runs} runs"
        );
        // The campaign the ranks settled is certified, and the certificate verifies.
        let certificate = dir.join(format!("campaign-{table}.cert"));
        let certificate = certificate.to_str().unwrap();
        let (code, stdout, stderr) = common::run_uttt(&[
            "campaign",
            "certify",
            MEDIUM,
            "--db",
            db,
            "--certificate",
            certificate,
            "--verify",
            "--json",
            "--table-mem",
            table,
        ]);
        assert_eq!(code, 0, "{stdout} {stderr}");
        let figures: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(figures["certified"], true, "{figures}");
        let (code, stdout, _) = common::run_uttt(&["verify", certificate]);
        assert_eq!(code, 0, "{stdout}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `uttt solve --mpi --db`: rank 0 stores what the ranks settle, a second MPI solve is answered
/// by the database without a job, and a single-process solve reads the same fact.
#[test]
fn an_mpi_solve_fills_and_reads_the_database() {
    let dir = common::temp_dir("mpi-db");
    let db = dir.join("solved.db");
    let db = db.to_str().unwrap();
    let small_jobs = ["--job-work", "100", "--split-threshold", "100"];
    let with_db = [&small_jobs[..], &["--db", db, "--db-min-work", "0"]].concat();
    let (code, first) = solve(3, MEDIUM, &with_db);
    assert_eq!(code, 0, "{first}");
    assert_eq!(first["result"], "X");
    assert_eq!(first["database"]["answered"], false, "{first}");
    assert!(first["database"]["stored"].as_u64().unwrap() > 0, "{first}");
    let (code, second) = solve(3, MEDIUM, &with_db);
    assert_eq!(code, 0, "{second}");
    assert_eq!(second["result"], "X");
    assert_eq!(second["database"]["answered"], true, "{second}");
    assert_eq!(second["nodes"], 0, "{second}");
    let ranks = second["ranks"].as_array().unwrap();
    assert!(ranks.iter().all(|r| r["jobs"] == 0), "{ranks:?}");
    let (code, plain, _) = common::run_uttt(&["solve", MEDIUM, "--json", "--db", db]);
    assert_eq!(code, 0);
    let plain: Value = serde_json::from_str(&plain).unwrap();
    assert_eq!(plain["database"]["answered"], true, "{plain}");
    assert_eq!(plain["result"], "X");
    std::fs::remove_dir_all(&dir).unwrap();
}
