//! `uttt campaign run` and `status` from the command line: a campaign killed with SIGKILL
//! again and again resumes to a plain solve's answer, its status is consistent after every
//! kill, and bad requests are refused.
use crate::common;
use crate::common::{run_uttt, temp_dir};
use std::time::Duration;

/// The position of most of these campaigns.
const POSITION: &str = common::TWO_SECOND_X_WIN;

/// A delay of 0 to `most_ms` milliseconds that differs from run to run (the moments of the
/// kills are meant to fall anywhere).
fn random_delay(most_ms: u64) -> Duration {
    use std::hash::{BuildHasher, RandomState};
    Duration::from_millis(RandomState::new().hash_one(0u8) % (most_ms + 1))
}

/// Waits until `child` (a `--progress` run) prints a progress line (true: it searches) or
/// exits (false); its stderr is drained in the background either way.
fn searching_or_done(child: &mut std::process::Child) -> bool {
    use std::io::BufRead;
    let stderr = child.stderr.take().expect("stderr is piped");
    let (lines_tx, lines_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines() {
            let _ = lines_tx.send(line.unwrap_or_default());
        }
    });
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while std::time::Instant::now() < deadline {
        match lines_rx.recv_timeout(Duration::from_millis(50)) {
            Ok(line) if line.starts_with("progress ") => return true,
            Ok(_) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            // Stderr closed: the process is ending.
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                child.wait().unwrap();
                return false;
            }
        }
        if child.try_wait().unwrap().is_some() {
            return false;
        }
    }
    let _ = child.kill();
    panic!("the campaign neither searched nor ended within 120 s");
}

/// The position of the campaign killed again and again: one that takes long enough for the
/// kills (in the second after its first progress line) to fall inside its search.
const KILLED: &str = common::SIX_SECOND_X_WIN;

/// The status of the campaign on [`KILLED`] in `db` as JSON.
fn status_json(db: &str) -> serde_json::Value {
    let (code, out, err) = run_uttt(&["campaign", "status", KILLED, "--db", db, "--json"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn a_campaign_killed_again_and_again_resumes_to_the_plain_answer() {
    let dir = temp_dir("campaign-kill");
    let db = dir.join("campaign.db");
    let db = db.to_str().unwrap();
    let args = [
        "campaign",
        "run",
        KILLED,
        "--db",
        db,
        "--threads",
        "2",
        "--table-mem",
        "64M",
        "--progress",
    ];
    let mut delays = Vec::new();
    let mut kills = 0u64;
    for _ in 0..3 {
        let mut child = common::spawn_fed(&args, b"");
        // Once the search runs (its first progress line), somewhere in it.
        if !searching_or_done(&mut child) {
            // It settled before its first progress line: nothing more to resume.
            break;
        }
        let delay = random_delay(800);
        delays.push(delay);
        std::thread::sleep(delay);
        if child.try_wait().unwrap().is_some() {
            break;
        }
        child.kill().unwrap(); // SIGKILL: nothing is flushed or closed
        child.wait().unwrap();
        kills += 1;
        // The status after a kill: every question searched has a tree and its runs.
        let status = status_json(db);
        let questions = status["questions"].as_array().unwrap();
        let runs: u64 = questions
            .iter()
            .map(|q| q["totals"]["runs"].as_u64().unwrap())
            .sum();
        assert!(
            runs >= kills,
            "{runs} runs after {kills} kills ({delays:?})"
        );
        for q in questions {
            if q["totals"]["runs"].as_u64().unwrap() > 0 {
                assert!(q["root"].is_object(), "{q} ({delays:?})");
                assert!(q["tree_nodes"].as_u64().unwrap() > 1, "{q}");
            }
        }
    }
    assert!(
        kills >= 1,
        "the campaign settled before any kill ({delays:?})"
    );
    let (code, out, err) = run_uttt(&args);
    assert_eq!(code, 0, "{err}");
    let (plain_code, plain, err) = run_uttt(&["solve", KILLED, "--threads", "2"]);
    assert_eq!(plain_code, 0, "{err}");
    let result = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("result"))
            .unwrap()
            .to_string()
    };
    assert_eq!(
        result(&out),
        result(&plain),
        "after {kills} kills ({delays:?})"
    );
    assert!(result(&out).contains("X wins"));
    assert!(out.contains("campaign   "), "{out}");
    // The settled campaign answers at once, from the database.
    let (code, again, _) = run_uttt(&args);
    assert_eq!(code, 0);
    assert!(
        again.contains("the answer came from the database"),
        "{again}"
    );
}

#[test]
fn a_campaign_reports_json_with_its_status() {
    let dir = temp_dir("campaign-json");
    let db = dir.join("c.db");
    let db = db.to_str().unwrap();
    // A late position from the tour (docs/tour.md): settled in well under a second.
    let pos = "X;..O@.....;.X.X..X../...O.XX.O/..OXO.O../OX.O.O.../OOX....../....XOXX./OOXX..OO./..O.X..../..X...X..";
    let (code, out, err) = run_uttt(&["campaign", "run", pos, "--db", db, "--json"]);
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["result"], "O");
    let questions = json["campaign"]["questions"].as_array().unwrap();
    assert_eq!(questions.len(), 2);
    assert_eq!(questions[0]["attacker"], "X");
    assert_eq!(questions[0]["answer"], false);
    assert_eq!(questions[1]["answer"], true);
    // `db stats` counts the campaign, its kept trees and the work its run did.
    let (code, stats, err) = run_uttt(&["db", "stats", db, "--json"]);
    assert_eq!(code, 0, "{err}");
    let stats: serde_json::Value = serde_json::from_str(&stats).unwrap();
    assert_eq!(stats["campaigns"], 1);
    let kept: u64 = questions
        .iter()
        .map(|q| q["tree_nodes"].as_u64().unwrap())
        .sum();
    assert_eq!(stats["campaign_tree_nodes"].as_u64(), Some(kept));
    assert_eq!(stats["campaign_nodes_searched"], json["nodes"]);
    // The same campaign from a symmetric image (a half turn of the whole board).
    let image = uttt::game::parse_position(pos)
        .unwrap()
        .transform(2)
        .to_string();
    let (code, text, err) = run_uttt(&["campaign", "status", &image, "--db", db]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("does O win? yes (proved)"), "{text}");
}

#[test]
fn bad_campaign_requests_are_refused_with_a_reason() {
    let dir = temp_dir("campaign-bad");
    let db = dir.join("c.db");
    let db = db.to_str().unwrap();
    let cases: [(&[&str], &str); 4] = [
        (&["campaign", "run", "start"], "needs --db"),
        (
            &["campaign", "run", "start", "--db", db, "--engine", "dfpn"],
            "pn-dfpn",
        ),
        (
            &["campaign", "status", "start", "--db", db],
            "does not exist",
        ),
        (
            &["campaign", "run", "ee ee", "--db", db],
            "invalid position",
        ),
    ];
    for (args, reason) in cases {
        let (code, _, err) = run_uttt(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(reason), "{args:?}: {err}");
    }
    // A database without this campaign, and a file that is not a database.
    assert_eq!(
        run_uttt(&["solve", "ee ea", "--db", db, "--node-limit", "10"]).0,
        1
    );
    let (code, _, err) = run_uttt(&["campaign", "status", "start", "--db", db]);
    assert_eq!(code, 2);
    assert!(err.contains("no campaign"), "{err}");
    let text = dir.join("text.db");
    std::fs::write(&text, vec![b'x'; 4096]).unwrap();
    let text = text.to_str().unwrap();
    let (code, _, err) = run_uttt(&["campaign", "run", "start", "--db", text]);
    assert_eq!(code, 2);
    assert!(err.contains("not a uttt database"), "{err}");
}

/// A kept tree damaged in its file so that one node has two parents, one of them below it
/// (every node is still reached once from the root, so the check before this one let it
/// through, and the search hung in the cycle) is refused with the reason before the campaign
/// searches.
#[test]
fn a_campaign_whose_kept_tree_is_damaged_is_refused_with_a_reason() {
    let dir = temp_dir("campaign-damaged-tree");
    let db = dir.join("c.db");
    let db = db.to_str().unwrap();
    let run = ["campaign", "run", POSITION, "--db", db, "--threads", "1"];
    let (code, _, err) = run_uttt(&[&run[..], &["--node-limit", "300000"]].concat());
    assert_eq!(code, 1, "the node limit stops it: {err}");
    {
        let conn = rusqlite::Connection::open(db).unwrap();
        let mut roots = conn
            .prepare("SELECT campaign, attacker, first_child FROM campaign_nodes WHERE id = 0")
            .unwrap();
        let trees: Vec<(i64, String, i64)> = roots
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(!trees.is_empty());
        for (campaign, attacker, first_child) in trees {
            // The last leaf of the tree gets the root's first child as its own.
            let changed = conn
                .execute(
                    "UPDATE campaign_nodes SET first_child = ?3
                     WHERE campaign = ?1 AND attacker = ?2 AND id = (
                         SELECT MAX(id) FROM campaign_nodes
                         WHERE campaign = ?1 AND attacker = ?2 AND first_child = 4294967295)",
                    rusqlite::params![campaign, attacker, first_child],
                )
                .unwrap();
            assert_eq!(changed, 1);
        }
    }
    // Killed after a minute (SIGKILL: SIGTERM only asks the search to stop, and the search
    // followed the cycle for ever before the check).
    let out = std::process::Command::new("timeout")
        .args(["-s", "KILL", "60", env!("CARGO_BIN_EXE_uttt")])
        .args(run)
        .output()
        .expect("timeout runs uttt");
    let (code, err) = (out.status.code(), String::from_utf8_lossy(&out.stderr));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("kept tree in database")
            && err.contains("is damaged (node")
            && err.contains("is linked twice")
            && err.contains("uttt campaign reset"),
        "{err}"
    );
    // `campaign status` refuses it too, as `run` does (it once reported it as sound).
    let (code, _, status_err) = run_uttt(&["campaign", "status", POSITION, "--db", db]);
    assert_eq!(code, 2, "{status_err}");
    assert!(status_err.contains("is linked twice"), "{status_err}");
    // The way out: the trees dropped, the next run starts them anew and answers.
    let (code, out, err) = run_uttt(&["campaign", "reset", POSITION, "--db", db]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("dropped the campaign's kept trees"), "{out}");
    let (code, out, err) = run_uttt(&run);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("result     X wins"), "{out}");
}

#[test]
fn a_campaign_with_a_tiny_table_resumes_after_node_limits_to_the_plain_answer() {
    let dir = temp_dir("campaign-tiny");
    let db = dir.join("tiny.db");
    let db = db.to_str().unwrap();
    // X wins in 45,000 nodes one-threaded (50,000-64,000 with two threads), well past a run's
    // limit (line 15 of positions/midgame.txt: the position used before settles in 6,000-10,000
    // since the trap, sometimes within one run).
    let pos = "X;....@X...;....O...O/..O.OO.../XX.O...O./..X..O.O./X..XO..../..X.X.XO./......OXO/.XOX..X../.X...X...";
    let args = [
        "campaign",
        "run",
        pos,
        "--db",
        db,
        "--table-mem",
        "64K",
        "--threads",
        "2",
        "--job-work",
        "300",
        "--split-threshold",
        "200",
        "--node-limit",
        "8000",
        "--json",
    ];
    let mut runs = 0;
    let json: serde_json::Value = loop {
        runs += 1;
        assert!(runs <= 200, "no answer after {runs} runs");
        let (code, out, err) = run_uttt(&args);
        let json: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
        match code {
            0 => break json,
            1 => assert_eq!(json["result"], "unknown"),
            other => panic!("exit {other}: {err}"),
        }
    };
    assert!(runs > 1, "the node limit must interrupt the campaign");
    let (code, plain, _) = run_uttt(&["solve", pos, "--json"]);
    assert_eq!(code, 0);
    let plain: serde_json::Value = serde_json::from_str(&plain).unwrap();
    assert_eq!(json["result"], plain["result"]);
    assert_eq!(json["result"], "X");
}

#[test]
fn a_campaign_keeps_its_table_in_a_snapshot_beside_its_database() {
    let dir = temp_dir("campaign-snapshot");
    let db = dir.join("c.db");
    let db = db.to_str().unwrap();
    let snapshot = dir.join("c.db.table");
    let run = |more: &[&str]| {
        let mut args = vec!["campaign", "run", POSITION, "--db", db, "--json"];
        args.extend_from_slice(more);
        let (code, out, err) = run_uttt(&args);
        let json: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
        (code, json)
    };
    // Stopped by a node limit: the run's table is in the snapshot.
    let (code, first) = run(&["--node-limit", "300000", "--table-mem", "64M"]);
    assert_eq!(code, 1, "{first}");
    let written = &first["snapshot"];
    assert_eq!(written["loaded_entries"], serde_json::Value::Null);
    assert!(written["written"].as_u64().unwrap() >= 1, "{written}");
    let entries = written["entries"].as_u64().unwrap();
    assert!(entries > 1000, "{written}");
    assert_eq!(
        written["bytes"].as_u64().unwrap(),
        std::fs::metadata(&snapshot).unwrap().len()
    );
    // The next run starts from it, and goes on to the plain solve's answer.
    let (code, second) = run(&["--table-mem", "64M", "--snapshot-every", "100ms"]);
    assert_eq!(code, 0, "{second}");
    assert_eq!(second["snapshot"]["loaded_entries"].as_u64(), Some(entries));
    assert_eq!(second["result"], "X");

    // No snapshot when asked for none, or when the table is a file already.
    std::fs::remove_file(&snapshot).unwrap();
    let other = "X;......@O.;O...XX.X./.....O.XX/XOOXX..../O.....O.O/OXO....OX/.OO....X./....O.XX./..XX..OOO/..X.XXO.O";
    let table_file = dir.join("t.tt");
    for more in [
        vec!["--no-snapshot"],
        vec![
            "--table-file",
            table_file.to_str().unwrap(),
            "--table-mem",
            "1M",
        ],
    ] {
        let mut args = vec!["campaign", "run", other, "--db", db, "--json"];
        args.extend(more);
        let (code, out, err) = run_uttt(&args);
        assert_eq!(code, 0, "{err}");
        assert!(!out.contains("\"snapshot\""), "{out}");
        assert!(!snapshot.exists());
    }

    // A file that is not a snapshot is refused, never overwritten; so is the database itself.
    let text = dir.join("notes.txt");
    std::fs::write(&text, b"my notes").unwrap();
    let (code, _, err) = run_uttt(&[
        "campaign",
        "run",
        POSITION,
        "--db",
        db,
        "--snapshot",
        text.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("notes.txt") && err.contains("--no-snapshot"),
        "{err}"
    );
    assert_eq!(std::fs::read(&text).unwrap(), b"my notes");
    let (code, _, err) = run_uttt(&["campaign", "run", POSITION, "--db", db, "--snapshot", db]);
    assert_eq!(code, 2);
    assert!(err.contains("the database itself"), "{err}");
}

/// X wins; one-threaded DFPN takes about 16,000 nodes (the MPI tests' medium position).
const MEDIUM: &str = "X;......@O.;O...XX.X./.....O.XX/XOOXX..../O.....O.O/OXO....OX/.OO....X./....O.XX./..XX..OOO/..X.XXO.O";

#[test]
fn a_bounded_question_is_a_campaign_of_its_own_that_resumes_to_the_solves_answer() {
    let dir = temp_dir("campaign-bounded");
    let db = dir.join("bounded.db");
    let _ = std::fs::remove_file(&db);
    let db = db.to_str().unwrap();
    let (code, out, err) = run_uttt(&["solve", MEDIUM, "--win-in", "exact", "--json"]);
    assert_eq!(code, 0, "{err}");
    let solved: serde_json::Value = serde_json::from_str(&out).unwrap();
    let distance = solved["win_in"].as_u64().expect("an exact distance");
    let campaign = |plies: u64, extra: &[&str]| {
        let plies = plies.to_string();
        let mut args = vec![
            "campaign",
            "run",
            MEDIUM,
            "--db",
            db,
            "--max-plies",
            &plies,
            "--threads",
            "2",
            "--table-mem",
            "64M",
            "--job-work",
            "50",
            "--split-threshold",
            "30",
            "--json",
            "--no-snapshot",
        ];
        args.extend_from_slice(extra);
        let (_, out, err) = run_uttt(&args);
        serde_json::from_str::<serde_json::Value>(&out).unwrap_or_else(|e| panic!("{e}: {err}"))
    };
    // Stopped early, then resumed to the answer.
    let first = campaign(distance, &["--node-limit", "2000"]);
    assert_eq!(first["result"], "unknown", "{first}");
    let done = campaign(distance, &[]);
    assert_eq!(done["result"], "X", "{done}");
    assert_eq!(done["max_plies"], distance);
    let status = &done["campaign"];
    assert_eq!(status["max_plies"], distance, "{status}");
    let x = &status["questions"][0];
    assert_eq!(
        (&x["attacker"], &x["answer"]),
        (&"X".into(), &true.into()),
        "{status}"
    );
    assert!(x["totals"]["runs"].as_u64().unwrap() >= 2, "{status}");
    // The bound below is another campaign: X does not win within it.
    let below = campaign(distance - 2, &[]);
    assert_eq!(below["result"], "not X", "{below}");
    // The answers are bounded facts, and no unbounded campaign was started.
    let (_, out, _) = run_uttt(&["db", "export", db]);
    let root_facts: Vec<serde_json::Value> = out
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|fact| fact["within"] == distance || fact["within"] == distance - 2)
        .collect();
    assert!(root_facts.iter().any(|f| f["wins"] == true), "{out}");
    assert!(root_facts.iter().any(|f| f["wins"] == false), "{out}");
    let (code, _, err) = run_uttt(&["campaign", "status", MEDIUM, "--db", db]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no campaign on"), "{err}");
    let within = distance.to_string();
    let (code, text, err) = run_uttt(&[
        "campaign",
        "status",
        MEDIUM,
        "--db",
        db,
        "--max-plies",
        &within,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains(&format!("does X win within {distance} plies? yes")),
        "{text}"
    );
}
