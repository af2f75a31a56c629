//! `uttt campaign run --mpi` and `uttt solve --mpi --db` under `mpirun` (built with
//! `--features mpi`; needs Open MPI's mpirun): rank 0 keeps the database, the worker ranks
//! never see it.
use crate::common;
use crate::common::mpi::*;
use serde_json::Value;
use std::process::Stdio;
use std::time::{Duration, Instant};

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
            // Runs of 8,000 nodes: four to settle MEDIUM here (runs of 15,000 took two, too
            // near the one run that would leave nothing to resume).
            let (code, json) = campaign_run_over_mpi(
                db,
                &["--table-mem", table, "--job-work", "300"],
                &["--split-threshold", "200", "--node-limit", "8000"],
            );
            match code {
                Some(0) => break json,
                Some(1) => assert_eq!(json["result"], "unknown"),
                other => panic!("exit {other:?}: {json}"),
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
        certify_and_verify(MEDIUM, db, certificate, table);
    }
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
}

/// Certifies the settled campaign on `position` in `db` into `certificate` (re-solving its
/// pieces on a `table` table) with `--verify`, and checks the file again with `uttt verify`.
fn certify_and_verify(position: &str, db: &str, certificate: &str, table: &str) {
    let (code, stdout, stderr) = common::run_uttt(&[
        "campaign",
        "certify",
        position,
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

/// The kept tree of "does X win?" in a campaign's status: its nodes and its runs; `None`
/// while the database holds no campaign on `position` (or does not exist yet).
fn kept_tree(position: &str, db: &str) -> Option<(u64, u64)> {
    let (code, stdout, _) =
        common::run_uttt(&["campaign", "status", position, "--db", db, "--json"]);
    if code != 0 {
        return None;
    }
    let status: Value = serde_json::from_str(&stdout).unwrap();
    let question = &status["questions"][0];
    assert_eq!(question["attacker"], "X", "{status}");
    Some((
        question["tree_nodes"].as_u64().unwrap(),
        question["totals"]["runs"].as_u64().unwrap(),
    ))
}

/// A campaign over ranks apart (a table each, messages over TCP, as on separate machines)
/// whose worker rank is killed with SIGKILL mid-run: the run ends at once with `mpirun`'s
/// message naming the rank and a non-zero exit, keeps what it had stored, and the same command
/// resumes it to the single-process value with a certificate that verifies.
#[test]
fn a_campaign_whose_worker_rank_is_killed_resumes_to_the_right_value_and_certifies() {
    // Longer than LONGER: since the kills, a run of LONGER killed once its tree was kept left
    // its resumption no second run in 4 of 8 tries (not explained yet); this one in 0 of 6.
    // X wins; about 3 million MID calls of one-threaded DFPN (line 42 of positions/reach.txt).
    const LONGEST: &str = "X;.@.....X.;.....O.../..O....X./..XX.OOO./...XO.XOO/..O.X..../.O.X..X.X/.OXO.OX../XXX...O../.....X.O.";
    // A node limit no run reaches here, unique to this test's processes.
    const MARKER: &str = "987654321654";
    let dir = common::temp_dir("mpi-campaign-killed");
    let db = dir.join("campaign.db");
    let db = db.to_str().unwrap();
    let (code, plain, _) = common::run_uttt(&["solve", LONGEST, "--json", "--table-mem", "32M"]);
    assert_eq!(code, 0);
    let plain: Value = serde_json::from_str(&plain).unwrap();
    let run = || {
        let mut command = mpirun_over(3, Transport::Tcp);
        command
            .args([
                "campaign",
                "run",
                LONGEST,
                "--mpi",
                "--table-per-rank",
                "--db",
                db,
            ])
            .args(["--threads", "1", "--json", "--table-mem", "32M"])
            .args(["--job-work", "300", "--split-threshold", "200"])
            .args(["--node-limit", MARKER]);
        command
    };
    let child = run()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpirun runs");
    // Killed once the run has kept a tree of some size: then there is something to lose.
    let started = Instant::now();
    let kept_before = loop {
        let (nodes, _) = kept_tree(LONGEST, db).unwrap_or_default();
        if nodes >= 50 {
            break nodes;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the campaign kept no tree"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    kill_rank_once_running(1, MARKER, Duration::ZERO);
    let out = wait_at_most(child, Duration::from_secs(30));
    assert!(!out.status.success(), "a dead rank must fail the run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("\"result\""), "no answer: {stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("rank 1") && stderr.contains("signal 9"),
        "{stderr}"
    );
    let (kept_after, runs) = kept_tree(LONGEST, db).expect("the campaign is kept");
    assert!(kept_after >= kept_before, "{kept_after} < {kept_before}");
    assert_eq!(runs, 1);
    // The same command resumes it.
    let out = run().output_within(RUN_LIMIT);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["result"], plain["result"], "{json}");
    let (_, runs) = kept_tree(LONGEST, db).expect("the campaign is kept");
    assert_eq!(runs, 2);
    let certificate = dir.join("campaign.cert");
    let certificate = certificate.to_str().unwrap();
    certify_and_verify(LONGEST, db, certificate, "32M");
}

/// A bounded campaign over MPI: its jobs carry the bound, and it answers as one process does,
/// just at the distance and just below it.
#[test]
fn a_bounded_campaign_over_mpi_answers_as_one_process() {
    let dir = common::temp_dir("mpi-campaign-bounded");
    let (code, out, err) = common::run_uttt(&["solve", MEDIUM, "--win-in", "exact", "--json"]);
    assert_eq!(code, 0, "{err}");
    let distance = serde_json::from_str::<Value>(&out).unwrap()["win_in"]
        .as_u64()
        .expect("an exact distance");
    for (plies, answer) in [(distance, "X"), (distance - 2, "not X")] {
        let db = dir.join(format!("within-{plies}.db"));
        let _ = std::fs::remove_file(&db);
        let plies = plies.to_string();
        let (_, json) = campaign_run_over_mpi(
            db.to_str().unwrap(),
            &["--max-plies", &plies, "--table-mem", "32M"],
            &["--job-work", "50", "--split-threshold", "30"],
        );
        assert_eq!(json["result"], answer, "within {plies}: {json}");
        assert_eq!(json["campaign"]["max_plies"].to_string(), plies);
    }
}

/// `campaign run MEDIUM --mpi --db DB --threads 1 --json` over three ranks with `options` and
/// `more_options`: its exit code and JSON.
fn campaign_run_over_mpi(
    db: &str,
    options: &[&str],
    more_options: &[&str],
) -> (Option<i32>, Value) {
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
            "--json",
        ])
        .args(options)
        .args(more_options)
        .output_within(RUN_LIMIT);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout} {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), json)
}
