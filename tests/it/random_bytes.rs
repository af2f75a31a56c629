//! Random and mangled input for the readers of untrusted text and files: the certificate
//! reader and checker, the position notations, table files and databases. Whatever the bytes,
//! they answer, never panic, and an error's text says what is wrong. Seeded, so that a failure
//! repeats: the input is in the message.
use std::panic::{catch_unwind, AssertUnwindSafe};
use uttt::certificate::{check_bytes, read_blocks, write_block, Block, Claim, ClaimKind};
use uttt::game::formats::{format_codingame, format_uttt_ai_moves, format_uttt_ai_state};
use uttt::game::{parse_game_arg_under, Player, Position, Rng, Rules};

/// Cases of each kind: pure random bytes, and mangled copies of real input.
const CASES: usize = 10_000;

/// `input` with a few random edits: a byte flipped, inserted, deleted, or a span repeated.
fn mangle(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(4) {
            0 if at < out.len() => out[at] ^= 1 << rng.below(8),
            1 => out.insert(at, interesting_byte(rng)),
            2 if at < out.len() => {
                out.remove(at);
            }
            _ => {
                let end = (at + rng.below(16)).min(out.len());
                let span = out[at..end].to_vec();
                out.splice(at..at, span);
            }
        }
    }
    out
}

/// A byte that is often meaningful to the readers (digits, separators, marks, letters, line
/// ends, a UTF-8 lead), else any byte.
fn interesting_byte(rng: &mut Rng) -> u8 {
    const MEANINGFUL: &[u8] = b"0123456789 .;/@#XOxo:\n-ae+\xc3";
    if rng.below(2) == 0 {
        MEANINGFUL[rng.below(MEANINGFUL.len())]
    } else {
        rng.next_u64() as u8
    }
}

/// Up to `max` bytes, each random or meaningful.
fn random_bytes(rng: &mut Rng, max: usize) -> Vec<u8> {
    (0..rng.below(max + 1))
        .map(|_| interesting_byte(rng))
        .collect()
}

/// Runs `check` on `input`, turning a panic into a test failure that shows the input.
fn no_panic(what: &str, input: &[u8], check: impl FnOnce()) {
    if catch_unwind(AssertUnwindSafe(check)).is_err() {
        panic!("{what} panicked on {:?}", String::from_utf8_lossy(input));
    }
}

/// Certificates to mangle: a proof of some substance under each rule set, with a bound, and
/// version 2 blocks that refer to later ones.
fn real_certificates(rng: &mut Rng) -> Vec<Vec<u8>> {
    let mut files = vec![std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/proofs/open-game.cert"),
    )
    .unwrap()];
    for rules in Rules::ALL {
        let mut blocks = Vec::new();
        for _ in 0..3 {
            let mut pos = Position::start_under(rules);
            for mv in rng.playout(&pos, 30) {
                pos = pos.play(mv);
            }
            let claim = Claim {
                prover: [Player::X, Player::O][rng.below(2)],
                kind: [ClaimKind::Wins, ClaimKind::Holds][rng.below(2)],
                within: (rng.below(2) == 0).then_some(rng.below(10) as u8),
            };
            let moves = (0..rng.below(8)).map(|_| rng.below(81) as u8).collect();
            let version = if rules == Rules::Common { 2 } else { 3 };
            blocks.push(Block {
                version,
                claim,
                position: pos,
                moves,
            });
        }
        let mut file = Vec::new();
        for block in &blocks {
            write_block(&mut file, block).unwrap();
        }
        files.push(file);
    }
    files
}

#[test]
fn the_certificate_reader_and_checker_never_panic_and_say_what_is_wrong() {
    let mut rng = Rng::new(63);
    let real = real_certificates(&mut rng);
    for case in 0..2 * CASES {
        let input = if case % 2 == 0 {
            random_bytes(&mut rng, 200)
        } else {
            // The header of the open game's proof is where a mangled byte matters most: keep
            // the mangling near the text lines by cutting the moves short now and then.
            let file = &real[rng.below(real.len())];
            let cut = if rng.below(3) == 0 {
                file.len().min(400)
            } else {
                file.len()
            };
            mangle(&mut rng, &file[..cut])
        };
        no_panic("read_blocks", &input, || {
            if let Err(error) = read_blocks(&mut &input[..]) {
                assert!(!error.reason.trim().is_empty(), "{error}");
                assert!(error.block >= 1 && error.line >= 1, "{error}");
            }
        });
        no_panic("check_bytes", &input, || {
            if let Ok(check) = check_bytes(&input) {
                // Rendering the report runs every message of the failures.
                let _ = check.to_string();
                let _ = check.proves();
            }
        });
    }
}

/// Positions to write in every notation: the start, and playouts of a few lengths.
fn real_notations(rng: &mut Rng) -> Vec<String> {
    let mut texts = vec!["start".to_string(), "open:start".to_string()];
    for rules in Rules::ALL {
        let start = Position::start_under(rules);
        for plies in [1, 7, 30, 60] {
            let moves = rng.playout(&start, plies);
            let pos = moves.iter().fold(start, |pos, &mv| pos.play(mv));
            let list: Vec<String> = moves.iter().map(ToString::to_string).collect();
            let prefix = if rules.is_common() {
                String::new()
            } else {
                format!("{}:", rules.name())
            };
            // The project's own notations must read back.
            for text in [
                // The position's notation names its rule set itself.
                pos.to_string(),
                format!("{prefix}{}", list.join(" ")),
            ] {
                let game = parse_game_arg_under(&text, Rules::Common)
                    .unwrap_or_else(|e| panic!("{text}: {e}"));
                assert_eq!(game.position, pos, "{text}");
                texts.push(text);
            }
            texts.push(format_uttt_ai_state(&pos));
            texts.push(format_uttt_ai_moves(&moves));
            texts.push(format_codingame(&moves));
        }
    }
    texts
}

#[test]
fn the_position_notations_never_panic_and_say_what_is_wrong() {
    let mut rng = Rng::new(64);
    let real = real_notations(&mut rng);
    for case in 0..2 * CASES {
        let bytes = if case % 2 == 0 {
            random_bytes(&mut rng, 120)
        } else {
            let text = &real[rng.below(real.len())];
            mangle(&mut rng, text.as_bytes())
        };
        let text = String::from_utf8_lossy(&bytes).into_owned();
        no_panic("Position::from_str", &bytes, || {
            if let Err(error) = text.parse::<Position>() {
                assert!(error.to_string().trim().len() > 5, "{text:?}: {error}");
            }
        });
        for rules in Rules::ALL {
            no_panic("parse_game_arg_under", &bytes, || {
                if let Err(error) = parse_game_arg_under(&text, rules) {
                    assert!(error.to_string().trim().len() > 5, "{text:?}: {error}");
                }
            });
        }
    }
}

/// O wins in well under a second (the README's tour).
const SOLVED: &str = "X;..O@.....;.X.X..X../...O.XX.O/..OXO.O../OX.O.O.../OOX....../....XOXX./OOXX..OO./..O.X..../..X...X..";

/// `bytes` with a few random bytes overwritten anywhere, header included.
fn scribble(rng: &mut Rng, bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for _ in 0..1 + rng.below(64) {
        let at = rng.below(out.len());
        out[at] = rng.next_u64() as u8;
    }
    out
}

#[test]
fn random_bytes_in_table_files_are_refused_or_cleared_never_a_panic_or_a_hang() {
    use std::sync::atomic::AtomicBool;
    use uttt::search::SolveOptions;
    use uttt::services::Solver;
    use uttt::table::Table;
    let dir = crate::common::temp_dir("hostile-table-bytes");
    let path = dir.join("t.tt");
    let never = AtomicBool::new(false);
    let pos: Position = SOLVED.parse().unwrap();
    let options = SolveOptions {
        threads: 1,
        node_limit: Some(20_000),
        ..SolveOptions::default()
    };
    {
        let table = Table::open_file(&path, 64 << 10, &never, None).unwrap();
        Solver::new(&options, &table).solve(&pos);
    }
    let good = std::fs::read(&path).unwrap();
    let mut rng = Rng::new(7373);
    let (mut refused, mut opened) = (0, 0);
    for case in 0..200 {
        let mut bytes = scribble(&mut rng, &good);
        if case % 2 == 0 {
            // As a crash leaves it: no checksum to hold the entries to.
            bytes[32] = 0;
        }
        std::fs::write(&path, &bytes).unwrap();
        match Table::open_file(&path, 64 << 10, &never, None) {
            Err(_) => refused += 1,
            Ok(table) => {
                opened += 1;
                let report = Solver::new(&options, &table).solve(&pos);
                assert!(
                    report.nodes <= 2 * 20_000 + 1_000,
                    "case {case}: {}",
                    report.nodes
                );
            }
        }
    }
    assert!(
        refused > 0 && opened > 0,
        "{refused} refused, {opened} opened"
    );
}

#[test]
fn random_bytes_in_databases_give_errors_never_a_panic() {
    use uttt::db::Database;
    let dir = crate::common::temp_dir("hostile-db-bytes");
    let db = dir.join("good.db");
    let (code, _, err) = crate::common::run_uttt(&[
        "solve",
        SOLVED,
        "--db",
        db.to_str().unwrap(),
        "--db-min-work",
        "0",
        "-q",
    ]);
    assert_eq!(code, 0, "{err}");
    let good = std::fs::read(&db).unwrap();
    let pos: Position = SOLVED.parse().unwrap();
    let mut rng = Rng::new(7374);
    let mut failed = 0;
    for case in 0..200 {
        let path = dir.join(format!("case-{case}.db"));
        std::fs::write(&path, scribble(&mut rng, &good)).unwrap();
        let used = std::panic::catch_unwind(|| -> Result<(), uttt::db::DbError> {
            let database = Database::open(&path)?;
            database.lookup(&pos)?;
            let facts = database.facts()?;
            database.stored_facts()?;
            database.store(&facts)?;
            Ok(())
        });
        match used {
            Ok(Ok(())) => {}
            Ok(Err(error)) => {
                failed += 1;
                assert!(!error.to_string().is_empty());
            }
            Err(_) => panic!("case {case} panicked"),
        }
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    }
    assert!(failed > 0, "some damage is seen");
}
