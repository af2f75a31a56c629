//! Files that cannot hurt (issue 73): an output named like an input, table files with damaged
//! entries and databases with a misfiled fact, certificates that never end or never come,
//! input read as a stream, two processes on one database, and the words of what went wrong.
//! Each case ends in bounded time (a hang fails the test, it does not hang it), without a
//! panic, and with the files it was given whole. Seeded random bytes in table files and
//! databases are in `random_bytes`.
use crate::common::{self, finish_within, run_uttt, spawn_uttt as spawn};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use uttt::game::{Position, Rng};

/// O wins in well under a second (the README's tour).
const POSITION: &str = "X;..O@.....;.X.X..X../...O.XX.O/..OXO.O../OX.O.O.../OOX....../....XOXX./OOXX..OO./..O.X..../..X...X..";

fn text(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Runs `args`, which must be refused with exit 2, no panic, and an error that says `because`.
fn refused(args: &[&str], because: &str) {
    let (code, _, err) = run_uttt(args);
    assert_eq!(code, 2, "{args:?}: {err}");
    assert!(err.contains(because), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// A database holding the answers of a solve of [`POSITION`].
fn solved_database(dir: &Path, name: &str) -> PathBuf {
    let db = dir.join(name);
    let (code, _, err) = run_uttt(&["solve", POSITION, "--db", text(&db), "-q"]);
    assert_eq!(code, 0, "{err}");
    db
}

/// The facts a database holds, by `db stats`.
fn fact_count(db: &Path) -> u64 {
    let (code, out, err) = run_uttt(&["db", "stats", text(db), "--json"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str::<Value>(&out).unwrap()["facts"]
        .as_u64()
        .unwrap()
}

#[test]
fn an_output_that_is_an_input_by_any_name_is_refused_before_anything_is_written() {
    let dir = common::temp_dir("hostile-same-file");
    let db = solved_database(&dir, "x.db");
    let facts = fact_count(&db);
    let before = std::fs::read(&db).unwrap();
    let link = dir.join("link.db");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&db, &link).unwrap();
    let dotted = dir.join(".").join("x.db");
    for certificate in [&db, &link, &dotted] {
        let args = [
            "solve",
            POSITION,
            "--db",
            text(&db),
            "--certificate",
            text(certificate),
        ];
        refused(&args, "are the same file");
    }
    let (db_path, link_path) = (text(&db), text(&link));
    let certify = ["campaign", "certify", POSITION, "--db", db_path];
    refused(
        &[&certify[..], &["--certificate", link_path]].concat(),
        "are the same file",
    );
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "the database is untouched"
    );
    assert_eq!(fact_count(&db), facts);

    // A table file named as the certificate: refused, no panic, and the table file still
    // opens as one.
    let table = dir.join("t.tt");
    let args = [
        "solve",
        POSITION,
        "--table-file",
        text(&table),
        "--table-mem",
        "4M",
        "-q",
    ];
    assert_eq!(run_uttt(&args).0, 0);
    refused(
        &[&args[..], &["--certificate", text(&table)]].concat(),
        "are the same file",
    );
    let (code, _, err) = run_uttt(&args);
    assert_eq!(code, 0, "{err}");

    // A batch whose input lies in its certificate directory under a certificate's name.
    let certificates = dir.join("certs");
    std::fs::create_dir_all(&certificates).unwrap();
    let input = certificates.join("line-1.cert");
    std::fs::write(&input, format!("{POSITION}\n")).unwrap();
    let batch = [
        "solve",
        "--file",
        text(&input),
        "--certificate",
        text(&certificates),
    ];
    refused(&batch, "certificate directory");
    assert_eq!(
        std::fs::read_to_string(&input).unwrap(),
        format!("{POSITION}\n")
    );

    // An import whose input is its database.
    refused(
        &["db", "import", text(&db), text(&link)],
        "are the same file",
    );
    assert_eq!(fact_count(&db), facts);
}

/// The entries of the table file at `path` (after its 4 KiB header) overwritten by `fill`, and
/// its clean-close mark set to `clean`.
fn damage_table(path: &Path, clean: bool, fill: impl Fn(usize) -> u8) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[32] = u8::from(clean);
    for (i, byte) in bytes[4096..].iter_mut().enumerate() {
        *byte = fill(i);
    }
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_table_file_with_damaged_entries_ends_in_time_with_an_error_or_the_answer() {
    let dir = common::temp_dir("hostile-table");
    let plain = run_uttt(&["solve", POSITION, "--json", "--table-mem", "4M"]);
    let expected: Value = serde_json::from_str(&plain.1).unwrap();
    let mut rng = Rng::new(73);
    let noise: Vec<u8> = (0..(4 << 20)).map(|_| rng.next_u64() as u8).collect();
    for (name, clean) in [
        ("ones", true),
        ("ones", false),
        ("random", true),
        ("random", false),
    ] {
        let table = dir.join(format!("{name}-{clean}.tt"));
        let args = [
            "solve",
            POSITION,
            "--table-file",
            text(&table),
            "--table-mem",
            "4M",
        ];
        assert_eq!(run_uttt(&[&args[..], &["-q"]].concat()).0, 0);
        damage_table(&table, clean, |i| if name == "ones" { 1 } else { noise[i] });
        let child = spawn(&[&args[..], &["--time-limit", "2s", "--json"]].concat());
        let (code, out, err, took) = finish_within(child, Duration::from_secs(20));
        assert!(took < Duration::from_secs(6), "{name} {clean}: {took:?}");
        assert!(!err.contains("panicked"), "{err}");
        if clean {
            // Closed cleanly, then changed: the checksum tells.
            assert_eq!(code, 2, "{name}: {err}");
            assert!(err.contains("is damaged"), "{err}");
        } else {
            // Left as by a crash: what no writer leaves is cleared, with a warning.
            assert!(err.contains("were cleared"), "{err}");
            let report: Value = serde_json::from_str(&out).unwrap();
            if name == "ones" {
                // Every entry was cleared: the search is the plain one.
                assert_eq!(code, 0, "{err}");
                assert_eq!(report["result"], expected["result"]);
            } else {
                // Random entries that look sound may mislead, never hang: an answer or unknown.
                assert!(code == 0 || code == 1, "{code}: {err}");
            }
        }
    }
}

#[test]
fn verify_reads_in_bounded_pieces_and_hears_its_limit_and_signals() {
    let began = Instant::now();
    let child = spawn(&["verify", "/dev/zero", "--time-limit", "2s"]);
    let (code, _, err, _) = finish_within(child, Duration::from_secs(20));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("longer than 4096 bytes"), "{err}");
    assert!(began.elapsed() < Duration::from_secs(5));

    // The other readers of files and stdin cut what no real input needs.
    let dir = common::temp_dir("hostile-fifo");
    let db = dir.join("import.db");
    for (args, because) in [
        (vec!["db", "import", text(&db), "/dev/zero"], "not a fact"),
        (vec!["review", "--file", "/dev/zero"], "not a game"),
    ] {
        let (code, _, err, _) = finish_within(spawn(&args), Duration::from_secs(20));
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(because), "{err}");
    }
    let fifo = dir.join("never-written");
    let _ = std::fs::remove_file(&fifo);
    let name = std::ffi::CString::new(text(&fifo)).unwrap();
    // SAFETY: a valid C string; mkfifo reads nothing else.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let child = spawn(&["verify", text(&fifo), "--time-limit", "1s"]);
    let (code, _, err, took) = finish_within(child, Duration::from_secs(20));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("time limit"), "{err}");
    assert!(took < Duration::from_secs(4), "{took:?}");
    for args in [
        vec!["verify", text(&fifo)],
        vec!["solve", "--file", text(&fifo)],
    ] {
        let child = spawn(&args);
        std::thread::sleep(Duration::from_millis(300));
        common::send_signal(&child, "TERM");
        let (code, _, err, _) = finish_within(child, Duration::from_secs(20));
        assert_eq!(code, 143, "{args:?}: {err}");
    }
}

#[test]
fn a_batch_answers_each_line_of_a_pipe_before_the_pipe_ends() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_uttt"))
        .args(["solve", "--file", "-", "--json", "--table-mem", "16M"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    // A byte-order mark at the start is skipped, as editors write it.
    writeln!(input, "\u{feff}{POSITION} O").unwrap();
    input.flush().unwrap();
    let mut line = String::new();
    output.read_line(&mut line).unwrap();
    let first: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(first["type"], "result", "{line}");
    assert_eq!(first["matches"], true, "{line}");
    // The pipe is still open: the answer came from a stream, not from the whole input.
    writeln!(input, "{POSITION}").unwrap();
    drop(input);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut output, &mut rest).unwrap();
    assert!(
        child.wait().unwrap().success() || rest.contains("unknown"),
        "{rest}"
    );
    assert!(rest.contains("\"line\":2"), "{rest}");
}

#[test]
fn error_messages_escape_control_bytes_and_cut_long_tokens() {
    let long = "q".repeat(100_000);
    for position in [
        "ee \u{1b}[2J".to_string(),
        long.clone(),
        format!("ee {long}"),
    ] {
        let (code, _, err) = run_uttt(&["solve", &position]);
        assert_eq!(code, 2, "{err}");
        assert!(!err.contains('\u{1b}'), "{err:?}");
        assert!(err.len() < 1000, "{} bytes", err.len());
    }
    let dir = common::temp_dir("hostile-words");
    let file = dir.join("positions.txt");
    std::fs::write(&file, format!("ee \u{0}\u{1b}[31m\n{long}\n")).unwrap();
    let (code, out, err) = run_uttt(&["solve", "--file", text(&file), "--json"]);
    assert_eq!(code, 1, "{err}");
    assert!(!out.contains('\u{1b}') && !out.contains('\u{0}'), "{out:?}");
    assert!(
        out.contains("\\\\u{1b}") || out.contains("\\u{1b}"),
        "{out}"
    );
    assert!(out.len() < 2000, "{} bytes", out.len());
}

#[test]
fn db_check_finds_a_fact_filed_under_another_positions_key() {
    let dir = common::temp_dir("hostile-db-key");
    let db = solved_database(&dir, "keys.db");
    let (code, out, err) = run_uttt(&["db", "check", text(&db), "--all"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(" 0 misfiled"), "{out}");
    // Move one fact to the key of a position it is not (as a damaged or tampered file might):
    // lookups of that position would find it.
    let other: Position = "ee".parse().unwrap();
    let (key, _, _) = uttt::db::key::canonical(&other);
    let connection = rusqlite::Connection::open(&db).unwrap();
    let (first, attacker): (Vec<u8>, String) = connection
        .query_row("SELECT position, attacker FROM facts LIMIT 1", [], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .unwrap();
    let moved = connection
        .execute(
            "UPDATE facts SET position = ?1 WHERE position = ?2 AND attacker = ?3",
            rusqlite::params![&key[..], first, attacker],
        )
        .unwrap();
    assert_eq!(moved, 1);
    drop(connection);
    let (code, out, _) = run_uttt(&["db", "check", text(&db), "--all"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("MISFILED"), "{out}");
    assert!(out.contains(" 1 misfiled"), "{out}");
}

#[test]
fn a_snapshot_part_left_by_a_killed_process_is_removed_by_the_next_run() {
    let dir = common::temp_dir("hostile-snapshot-part");
    let db = dir.join("c.db");
    let mut child = Command::new("true").spawn().unwrap();
    let gone = child.id();
    child.wait().unwrap();
    let part = dir.join(format!("c.db.table.part-{gone}"));
    std::fs::write(&part, b"half a snapshot").unwrap();
    let (code, _, err) = run_uttt(&[
        "campaign",
        "run",
        POSITION,
        "--db",
        text(&db),
        "--table-mem",
        "16M",
        "-q",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!part.exists(), "the dead process's part is gone");
    assert!(dir.join("c.db.table").exists());
}

#[test]
fn two_batches_writing_one_database_answer_as_alone_and_store_every_answer() {
    let dir = common::temp_dir("hostile-two-batches");
    let positions: Vec<String> =
        common::playout_positions_under(uttt::game::Rules::Common, 36, 12, 73);
    let files: Vec<PathBuf> = positions
        .chunks(6)
        .enumerate()
        .map(|(i, chunk)| {
            let file = dir.join(format!("batch-{i}.txt"));
            std::fs::write(&file, chunk.join("\n") + "\n").unwrap();
            file
        })
        .collect();
    let batch = |file: &Path, db: &Path| {
        spawn(&[
            "solve",
            "--file",
            text(file),
            "--db",
            text(db),
            "--db-min-work",
            "0",
            "--node-limit",
            "2000000",
            "--table-mem",
            "64M",
            "--json",
        ])
    };
    let results = |child: Child| -> Vec<Value> {
        let (_, out, err, _) = finish_within(child, Duration::from_secs(300));
        assert!(!err.contains("panicked"), "{err}");
        out.lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .filter(|line| line["type"] == "result")
            .collect()
    };
    let alone: Vec<Vec<Value>> = files
        .iter()
        .enumerate()
        .map(|(i, file)| results(batch(file, &dir.join(format!("alone-{i}.db")))))
        .collect();
    for round in 0..2 {
        let db = dir.join(format!("together-{round}.db"));
        let running: Vec<Child> = files.iter().map(|file| batch(file, &db)).collect();
        let together: Vec<Vec<Value>> = running.into_iter().map(results).collect();
        for (i, file) in files.iter().enumerate() {
            for (line, alone_line) in together[i].iter().zip(&alone[i]) {
                assert!(
                    line["database"]["error"].is_null(),
                    "round {round}: {}",
                    line["database"]
                );
                // A node limit makes each answer the same as alone, whatever else runs.
                assert_eq!(line["result"], alone_line["result"], "round {round}");
            }
            // Every answer stored: a second solve finds each in the file.
            for line in results(batch(file, &db)) {
                if line["result"] != "unknown" {
                    assert_eq!(line["database"]["answered"], true, "{line}");
                }
            }
        }
    }
}

#[test]
fn a_database_in_a_read_only_directory_is_named_for_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = common::temp_dir("hostile-read-only");
    let db = solved_database(&dir, "r.db");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_uttt"));
    // SAFETY: geteuid reads nothing and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        // Permissions do not bind the superuser (CI runs as root): run as nobody.
        command = Command::new("setpriv");
        command.args(["--reuid=65534", "--regid=65534", "--clear-groups"]);
        command.arg(env!("CARGO_BIN_EXE_uttt"));
    }
    let out = command.args(["db", "stats", text(&db)]).output().unwrap();
    let (code, err) = (out.status.code(), String::from_utf8_lossy(&out.stderr));
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let code = code.unwrap_or(-1);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("read-only"), "{err}");
    assert!(!err.contains("not a uttt database"), "{err}");
}

#[test]
fn a_certificate_that_cannot_be_written_is_refused_before_any_search() {
    let dir = common::temp_dir("hostile-unwritable-certificate");
    let taken = dir.join("a-directory");
    std::fs::create_dir_all(&taken).unwrap();
    let plain_file = dir.join("a-file");
    std::fs::write(&plain_file, b"x").unwrap();
    let inside_a_file = plain_file.join("certs");
    // The opening: a search of it would not end, so only a refusal before it ends in time.
    let positions = dir.join("positions.txt");
    std::fs::write(&positions, "ee\n").unwrap();
    let (taken, inside_a_file, db) = (text(&taken), text(&inside_a_file), dir.join("c.db"));
    for args in [
        vec!["solve", "ee", "--certificate", taken],
        vec![
            "solve",
            "--file",
            text(&positions),
            "--certificate",
            inside_a_file,
        ],
        vec![
            "campaign",
            "certify",
            "ee",
            "--db",
            text(&db),
            "--certificate",
            taken,
        ],
    ] {
        let (code, out, err, _) = finish_within(spawn(&args), Duration::from_secs(20));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("cannot"), "{err}");
        assert!(!out.contains("result"), "nothing was searched: {out}");
    }
}

#[test]
fn a_store_that_finds_the_database_busy_is_tried_again_and_the_answer_stands() {
    use uttt::db::{Database, Source};
    use uttt::search::SolveOptions;
    use uttt::services::{Solver, StorePolicy};
    use uttt::table::Table;
    let dir = common::temp_dir("hostile-busy-database");
    let path = dir.join("busy.db");
    let database = Database::open(&path).unwrap();
    let pos: Position = POSITION.parse().unwrap();
    let options = SolveOptions {
        threads: 2,
        ..SolveOptions::default()
    };
    let table = Table::new(64 << 20).unwrap();
    let plain = Solver::new(&options, &table).solve(&pos);
    let table = Table::new(64 << 20).unwrap();
    // Another process's writer holds the file for the first part of the search.
    let (held, release) = std::sync::mpsc::channel();
    let holder = {
        let path = path.clone();
        std::thread::spawn(move || {
            let other = rusqlite::Connection::open(&path).unwrap();
            other.execute_batch("BEGIN IMMEDIATE").unwrap();
            held.send(()).unwrap();
            std::thread::sleep(Duration::from_millis(400));
            other.execute_batch("COMMIT").unwrap();
        })
    };
    release.recv().unwrap();
    let policy = StorePolicy {
        min_work: 0,
        source: Source::Solve,
    };
    let report = Solver::new(&options, &table)
        .with_database(&database, policy)
        .solve(&pos);
    holder.join().unwrap();
    assert_eq!(report.verdict, plain.verdict, "the answer stands");
    let used = report.database.unwrap();
    assert!(used.failed_stores > 0, "the file was busy: {used:?}");
    assert_eq!(used.unstored, 0, "every fact stored in the end: {used:?}");
    assert!(used.stored > 0);
    assert_eq!(database.facts().unwrap().len() as u64, used.stored);
}
