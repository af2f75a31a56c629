//! The database of solved positions through the built binary: a solve that stores and a
//! second that reads (also of a symmetric image, and in analyses and batches), export and
//! import between databases, refusals, and `uttt db check`.
use crate::common;
use crate::common::run_uttt;
use serde_json::Value;
use uttt::game::{Move, Position};

/// O wins in about a second of search (the README's tour).
const POSITION: &str = "X;..O@.....;.X.X..X../...O.XX.O/..OXO.O../OX.O.O.../OOX....../....XOXX./OOXX..OO./..O.X..../..X...X..";

/// `uttt COMMAND POSITION --db DB --json` (storing every answer), which must succeed.
fn with_db(command: &str, position: &str, db: &str) -> Value {
    let (code, stdout, stderr) = run_uttt(&[
        command,
        position,
        "--db",
        db,
        "--json",
        "--table-mem",
        "64M",
        "--db-min-work",
        "0",
    ]);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

fn solve_json(position: &str, db: &str) -> Value {
    with_db("solve", position, db)
}

#[test]
fn a_second_solve_is_answered_by_the_database_from_any_image() {
    let dir = common::temp_dir("db-solve");
    let db = dir.join("s.db");
    let db = db.to_str().unwrap();
    let first = solve_json(POSITION, db);
    assert_eq!(first["database"]["answered"], false);
    // The root's two answers, and the root-tree leaves the jobs solved.
    let stored = first["database"]["stored"].as_u64().unwrap();
    assert!(stored >= 2, "{stored} facts stored");
    let (_, stats, _) = run_uttt(&["db", "stats", db, "--json"]);
    let stats: Value = serde_json::from_str(&stats).unwrap();
    assert_eq!(stats["facts"].as_u64(), Some(stored));
    let second = solve_json(POSITION, db);
    assert_eq!(second["database"]["answered"], true);
    assert_eq!(second["nodes"], 0);
    assert_eq!(second["result"], first["result"]);
    let pos: Position = POSITION.parse().unwrap();
    let best: Move = second["best_move"].as_str().unwrap().parse().unwrap();
    assert!(pos.is_legal(best));
    // A rotated image, never solved, comes back from the database with its own legal move.
    let image = pos.transform(2);
    let rotated = solve_json(&image.to_string(), db);
    assert_eq!(rotated["database"]["answered"], true);
    assert_eq!(rotated["result"], first["result"]);
    let best: Move = rotated["best_move"].as_str().unwrap().parse().unwrap();
    assert!(image.is_legal(best), "{best} in {image}");
    // The text output says where the answer came from.
    let (_, text, _) = run_uttt(&["solve", POSITION, "--db", db]);
    assert!(text.contains("the answer came from the database"), "{text}");
}

#[test]
fn analyses_and_batches_store_and_find_their_answers() {
    let dir = common::temp_dir("db-analyze");
    let db = dir.join("a.db");
    let db = db.to_str().unwrap();
    let analyze = || with_db("analyze", POSITION, db);
    let first = analyze();
    let second = analyze();
    let values = |json: &Value| -> Vec<(Value, Value)> {
        json["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["move"].clone(), m["value"].clone()))
            .collect()
    };
    assert_eq!(values(&first), values(&second));
    assert!(
        second["moves"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["nodes"] == 0),
        "every move answered by the database: {second}"
    );
    // A batch of the demo file, twice: the second answers every line from the database.
    let demo = format!("{}/positions/demo.txt", env!("CARGO_MANIFEST_DIR"));
    let batch = || {
        let (code, stdout, stderr) = run_uttt(&[
            "solve",
            "--file",
            &demo,
            "--db",
            db,
            "--json",
            "--db-min-work",
            "0",
        ]);
        assert_eq!(code, 0, "{stderr}");
        stdout
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|l| l["type"] == "result")
            .collect::<Vec<_>>()
    };
    let once = batch();
    let twice = batch();
    assert_eq!(once.len(), twice.len());
    for (a, b) in once.iter().zip(&twice) {
        assert_eq!(a["result"], b["result"]);
    }
}

#[test]
fn facts_move_between_databases_and_contradictions_are_refused() {
    let dir = common::temp_dir("db-import");
    let (from, to) = (dir.join("from.db"), dir.join("to.db"));
    let (from, to) = (from.to_str().unwrap(), to.to_str().unwrap());
    solve_json(POSITION, from);
    let (code, facts, _) = run_uttt(&["db", "export", from]);
    assert_eq!(code, 0);
    // The root's two answers and the solved leaves of its tree.
    let count = facts.lines().count();
    assert!(count >= 2, "{facts}");
    let file = dir.join("facts.jsonl");
    std::fs::write(&file, &facts).unwrap();
    let file = file.to_str().unwrap();
    let (code, out, err) = run_uttt(&["db", "import", to, file]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("{count} new")), "{out}");
    let (_, out, _) = run_uttt(&["db", "import", to, file]);
    assert!(
        out.contains(&format!("0 new, {count} known already")),
        "{out}"
    );
    assert_eq!(run_uttt(&["db", "export", to]).1, facts, "the same facts");
    // The imported database answers the position.
    assert_eq!(solve_json(POSITION, to)["database"]["answered"], true);
    // A fact that contradicts a stored one: refused, naming the position; nothing stored.
    let flipped = facts.replacen("\"wins\":true", "\"wins\":false", 1);
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, &flipped).unwrap();
    let (code, _, err) = run_uttt(&["db", "import", to, bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("contradictory facts"), "{err}");
    assert!(err.contains("X;"), "the position is named: {err}");
    // `db check` finds a wrong fact (imported into a database of its own).
    let wrong = dir.join("wrong.db");
    let wrong = wrong.to_str().unwrap();
    assert_eq!(
        run_uttt(&["db", "import", wrong, bad.to_str().unwrap()]).0,
        0
    );
    let (code, out, _) = run_uttt(&["db", "check", wrong, "--all", "--table-mem", "64M"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("DISAGREES"), "{out}");
    let (code, out, _) = run_uttt(&["db", "check", to, "--all", "--table-mem", "64M"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(&format!("{count} agree, 0 disagree")), "{out}");
}

#[test]
fn files_that_are_not_databases_and_bad_fact_lines_are_refused_with_their_place() {
    let dir = common::temp_dir("db-bad");
    let text = dir.join("notes.txt");
    std::fs::write(&text, "not a database\n".repeat(300)).unwrap();
    let text = text.to_str().unwrap();
    let (code, _, err) = run_uttt(&["solve", POSITION, "--db", text]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is not a uttt database"), "{err}");
    let (code, _, err) = run_uttt(&["db", "stats", &format!("{text}.missing")]);
    assert_eq!(code, 2);
    assert!(err.contains("does not exist"), "{err}");
    let facts = dir.join("facts.jsonl");
    std::fs::write(&facts, "\n{\"position\": 7}\n").unwrap();
    let db = dir.join("x.db");
    let (code, _, err) = run_uttt(&[
        "db",
        "import",
        db.to_str().unwrap(),
        facts.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("facts.jsonl:2:"), "file and line named: {err}");
}

/// Makes `path` a database as the first uttt with one wrote it: schema version 1, the facts
/// alone (later versions added campaigns and bounded facts).
fn version_1_database(path: &std::path::Path) {
    rusqlite::Connection::open(path)
        .unwrap()
        .execute_batch(uttt::db::SCHEMA_VERSION_1)
        .unwrap();
}

#[test]
fn two_processes_that_open_an_old_or_a_new_database_at_once_both_succeed() {
    // `uttt serve --db f` and `uttt campaign run --db f` started together once failed in the
    // second with "table bounded_facts already exists": both read the old version, both
    // migrated. Each round starts two processes on one file at once (an old file, then a new
    // one), so that their migrations overlap.
    let dir = common::temp_dir("db-race");
    let empty = dir.join("none.jsonl");
    std::fs::write(&empty, "").unwrap();
    let empty = empty.to_str().unwrap();
    for round in 0..6 {
        let path = dir.join(format!("race-{round}.db"));
        let db = path.to_str().unwrap();
        let args: [&str; 4] = if round % 2 == 0 {
            version_1_database(&path);
            ["db", "stats", db, "--json"]
        } else {
            // A missing file: both create it.
            ["db", "import", db, empty]
        };
        let children: Vec<_> = (0..2).map(|_| common::spawn_fed(&args, b"")).collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "round {round}: {stderr}");
        }
        let version: i32 = rusqlite::Connection::open(&path)
            .unwrap()
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .unwrap();
        assert_eq!(
            version, 5,
            "round {round}: brought up to the current version"
        );
        let (code, stats, err) = run_uttt(&["db", "stats", db, "--json"]);
        assert_eq!(code, 0, "{err}");
        let stats: Value = serde_json::from_str(&stats).unwrap();
        assert_eq!(stats["facts"], 0, "round {round}");
    }
}

#[test]
fn db_import_refuses_facts_the_rules_contradict_with_their_line() {
    use uttt::db::{Fact, Source};
    use uttt::game::{Outcome, Player, Rng};
    let dir = common::temp_dir("db-import-rules");
    let db = dir.join("f.db");
    // A finished game: a seeded random one played to its end, and its winner (O, a draw or
    // X: the fact below says the side that finished did not, or X finished a draw).
    let mut rng = Rng::new(86);
    let mut finished = Position::start();
    while let Some(mv) = rng.legal_move(&finished) {
        finished = finished.play(mv);
    }
    let winner = match finished.outcome() {
        Outcome::Won(player) => Some(player),
        _ => None,
    };
    let opened = Position::start().play(Move::from_square(40));
    let fact = |position, attacker, wins, best_move| Fact {
        position,
        attacker,
        wins,
        within: None,
        work: 1,
        best_move,
        source: Source::Import,
        created: 1_700_000_000,
    };
    let attacker = winner.unwrap_or(Player::X);
    let truth = winner.is_some();
    let sound = serde_json::to_string(&fact(finished, attacker, truth, None)).unwrap();
    let over = format!(
        "the game is over: the answer is {}",
        if truth { "yes" } else { "no" }
    );
    for (bad, says) in [
        (fact(finished, attacker, !truth, None), over.as_str()),
        // The centre cell, taken by the move played.
        (
            fact(opened, Player::X, false, Some(Move::from_square(40))),
            "the best move ee is not a legal move",
        ),
    ] {
        let file = dir.join("facts.jsonl");
        let bad = serde_json::to_string(&bad).unwrap();
        std::fs::write(&file, format!("{sound}\n{bad}\n")).unwrap();
        let (code, _, err) =
            run_uttt(&["db", "import", db.to_str().unwrap(), file.to_str().unwrap()]);
        assert_eq!(code, 2, "{err}");
        let place = format!("{}:2: a fact the rules contradict", file.display());
        assert!(err.contains(&place) && err.contains(says), "{err}");
        assert!(
            !db.exists(),
            "the file is refused before anything is stored"
        );
    }
}
