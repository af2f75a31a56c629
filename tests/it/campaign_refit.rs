//! Learning as it goes (`uttt campaign run`): a campaign refits the calibrated guide to what it
//! settled after each run, steers its next run by the refit exactly when the refit predicted
//! the held-back positions better, ends at a plain solve's answer, and does none of it when
//! asked not to, for a bounded question, or with another guide; a damaged refit in the file is
//! told and set aside.
use crate::common::{run_uttt, temp_dir};
use serde_json::Value;

/// Line 42 of `positions/reach.txt`: an X win that takes two threads a couple of seconds.
const POSITION: &str = "X;.@.....X.;.....O.../..O....X./..XX.OOO./...XO.XOO/..O.X..../.O.X..X.X/.OXO.OX../XXX...O../.....X.O.";

/// One run of the campaign on [`POSITION`] in `db` with small jobs (a large root tree, so
/// many settled nodes to fit) and `extra` options, as JSON; its exit code must be 0 (settled)
/// or 1 (unknown at the node limit).
fn run(db: &str, extra: &[&str]) -> Value {
    run_telling(db, extra).0
}

/// [`run`], and what it wrote to stderr.
fn run_telling(db: &str, extra: &[&str]) -> (Value, String) {
    let args = [
        &[
            "campaign",
            "run",
            POSITION,
            "--db",
            db,
            "--threads",
            "2",
            "--table-mem",
            "64M",
            "--job-work",
            "300",
            "--split-threshold",
            "200",
            "--json",
        ][..],
        extra,
    ]
    .concat();
    let (code, out, err) = run_uttt(&args);
    assert!(code == 0 || code == 1, "exit {code}: {err}");
    let json = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    (json, err)
}

/// A refit's figures must agree with whether it predicts better: at least 30 held back and a smaller
/// error on them than the built-in table's.
fn check_refit_figures(refit: &Value) {
    let held_back = refit["held_back"].as_u64().unwrap();
    assert!(refit["fitted"].as_u64().unwrap() > 0, "{refit}");
    let better = match (
        refit["error_before"].as_f64(),
        refit["error_after"].as_f64(),
    ) {
        (Some(before), Some(after)) => after < before,
        _ => false,
    };
    assert_eq!(
        refit["predicts_better"].as_bool().unwrap(),
        held_back >= 30 && better,
        "{refit}"
    );
}

/// The calibration file kept in `db` (of its one campaign).
fn kept_calibration(db: &str) -> Vec<u8> {
    rusqlite::Connection::open(db)
        .unwrap()
        .query_row("SELECT calibration FROM campaign_guides", [], |row| {
            row.get(0)
        })
        .unwrap()
}

#[test]
fn a_campaign_refits_between_runs_and_steers_by_a_refit_that_predicts_better() {
    let dir = temp_dir("campaign-refit");
    let db = dir.join("c.db");
    let db = db.to_str().unwrap();
    let limit = ["--node-limit", "400000"];
    let first = run(db, &limit);
    assert_eq!(
        first["result"], "unknown",
        "the node limit must interrupt it"
    );
    assert_eq!(first["learning"]["steered_by"], Value::Null);
    let mut refit = first["learning"]["refit"].clone();
    check_refit_figures(&refit);
    // The status shows the refit kept.
    let (code, status, err) = run_uttt(&["campaign", "status", POSITION, "--db", db, "--json"]);
    assert_eq!(code, 0, "{err}");
    let status: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(status["guide"], refit);
    let mut runs = 1;
    let last = loop {
        runs += 1;
        assert!(runs <= 60, "no answer after {runs} runs");
        let next = run(db, &limit);
        // Steered by the last refit exactly when it helped.
        let expected = if refit["predicts_better"] == true {
            refit.clone()
        } else {
            Value::Null
        };
        assert_eq!(next["learning"]["steered_by"], expected, "run {runs}");
        if next["result"] != "unknown" {
            // A settled campaign has nothing more to learn for.
            assert_eq!(next["learning"]["refit"], Value::Null);
            break next;
        }
        refit = next["learning"]["refit"].clone();
        check_refit_figures(&refit);
    };
    let (code, plain, _) = run_uttt(&["solve", POSITION, "--json"]);
    assert_eq!(code, 0);
    let plain: Value = serde_json::from_str(&plain).unwrap();
    assert_eq!(last["result"], plain["result"]);
    assert_eq!(last["result"], "X");
    // The kept table is a calibration file of its own, not the built-in one.
    let kept = kept_calibration(db);
    assert!(kept.starts_with(b"UTTTCALI"));
    assert_ne!(kept, include_bytes!("../../models/calibration.bin"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_campaign_learns_nothing_when_told_not_to_bounded_or_with_another_guide() {
    let dir = temp_dir("campaign-no-refit");
    let cases: [&[&str]; 3] = [
        &["--no-refit"],
        &["--max-plies", "9"],
        &["--guide", "rules"],
    ];
    for (i, extra) in cases.into_iter().enumerate() {
        let db = dir.join(format!("c{i}.db"));
        let db = db.to_str().unwrap();
        let ran = run(db, &[extra, &["--node-limit", "100000"]].concat());
        assert_eq!(ran.get("learning"), None, "{extra:?}: {ran}");
        let conn = rusqlite::Connection::open(db).unwrap();
        let kept: i64 = conn
            .query_row("SELECT count(*) FROM campaign_guides", [], |row| row.get(0))
            .unwrap();
        assert_eq!(kept, 0, "{extra:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_damaged_refit_is_told_and_the_run_steers_by_the_built_in_table() {
    let dir = temp_dir("campaign-damaged-refit");
    let db = dir.join("c.db");
    let db = db.to_str().unwrap();
    let limit = ["--node-limit", "200000"];
    run(db, &limit);
    {
        let conn = rusqlite::Connection::open(db).unwrap();
        let changed = conn
            .execute(
                "UPDATE campaign_guides SET calibration = x'0011', predicts_better = 1",
                [],
            )
            .unwrap();
        assert_eq!(changed, 1);
    }
    let (ran, err) = run_telling(db, &limit);
    assert!(
        err.contains("a damaged campaign guide")
            && err.contains("steers by the built-in calibration"),
        "{err}"
    );
    assert_eq!(ran["learning"]["steered_by"], Value::Null);
    assert_eq!(ran["result"], "unknown", "the node limit must interrupt it");
    // The refit after the run replaces the damaged one.
    check_refit_figures(&ran["learning"]["refit"]);
    let kept = kept_calibration(db);
    assert!(kept.starts_with(b"UTTTCALI"));
    std::fs::remove_dir_all(&dir).unwrap();
}
