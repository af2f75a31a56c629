//! Unit tests of `db`.

use super::*;
use crate::game::tables::SYMMETRY_COUNT;

/// A fresh path in the temporary directory, removed (with its log files) when dropped.
pub(super) struct TempPath(pub(super) PathBuf);

impl TempPath {
    pub(super) fn new(name: &str) -> TempPath {
        let path = std::env::temp_dir().join(format!(
            "uttt-db-{name}-{}-{:?}.sqlite",
            std::process::id(),
            std::thread::current().id()
        ));
        let temp = TempPath(path);
        temp.remove();
        temp
    }

    fn remove(&self) {
        for suffix in ["", "-wal", "-shm"] {
            let mut name = self.0.clone().into_os_string();
            name.push(suffix);
            let _ = std::fs::remove_file(name);
        }
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        self.remove();
    }
}

/// Makes `file` a database as the first uttt with one wrote it: schema version 1, the facts
/// alone.
pub(super) fn version_1_file(file: &TempPath) {
    Connection::open(&file.0)
        .unwrap()
        .execute_batch(super::SCHEMA_VERSION_1)
        .unwrap();
}

/// The schema version `file` is marked with.
pub(super) fn schema_version(file: &TempPath) -> i32 {
    Connection::open(&file.0)
        .unwrap()
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap()
}

/// `ee ea ab`: a position that no symmetry but the identity leaves unchanged (only the
/// main diagonal's reflection keeps board a and cell a, and it moves cell b).
pub(super) fn position() -> Position {
    let moves = [Move::new(4, 4), Move::new(4, 0), Move::new(0, 1)];
    let pos = moves.iter().fold(Position::start(), |p, &m| p.play(m));
    assert!((1..SYMMETRY_COUNT).all(|sym| pos.transform(sym) != pos));
    pos
}

pub(super) fn fact(pos: Position, attacker: Player, wins: bool, best_move: Option<Move>) -> Fact {
    Fact {
        position: pos,
        attacker,
        wins,
        within: None,
        work: 1234,
        best_move,
        source: Source::Solve,
        created: 1_700_000_000,
    }
}

#[test]
fn facts_come_back_from_every_symmetric_image_with_their_moves_mapped() {
    let file = TempPath::new("images");
    let db = Database::open(&file.0).unwrap();
    let pos = position();
    let best = pos.legal_moves().into_iter().nth(2).unwrap();
    let stored = db
        .store(&[
            fact(pos, Player::O, true, Some(best)),
            fact(pos, Player::X, false, None),
        ])
        .unwrap();
    assert_eq!(stored, Stored { new: 2, known: 0 });
    for sym in 0..SYMMETRY_COUNT {
        let image = pos.transform(sym);
        let known = db.lookup(&image).unwrap();
        let o = known.o.expect("O's answer");
        assert!(o.wins && o.work == 1234);
        assert_eq!(o.best_move, Some(best.transform(sym)), "symmetry {sym}");
        assert!(!known.x.unwrap().wins);
    }
    // One entry per question, whatever the image stored.
    assert_eq!(db.stats().unwrap().facts, 2);
    assert_eq!(db.stats().unwrap().positions, 1);
    // Another position is not answered.
    let other = pos.play(pos.legal_moves().into_iter().next().unwrap());
    assert_eq!(db.lookup(&other).unwrap(), Known::default());
}

#[test]
fn the_same_facts_twice_change_nothing_and_a_contradiction_is_refused() {
    let file = TempPath::new("twice");
    let db = Database::open(&file.0).unwrap();
    let pos = position();
    let facts = [fact(pos, Player::X, false, None)];
    db.store(&facts).unwrap();
    let before = db.facts().unwrap();
    assert_eq!(db.store(&facts).unwrap(), Stored { new: 0, known: 1 });
    assert_eq!(db.facts().unwrap(), before);
    let error = db
        .store(&[fact(pos.transform(3), Player::X, true, None)])
        .unwrap_err();
    assert!(matches!(error, DbError::Contradiction { .. }), "{error}");
    assert!(error.to_string().contains("contradictory"), "{error}");
    assert_eq!(db.facts().unwrap(), before, "nothing stored");
}

#[test]
fn a_reopened_database_keeps_its_facts_and_exports_them_exactly() {
    let file = TempPath::new("reopen");
    let pos = position();
    let best = pos.legal_moves().into_iter().next().unwrap();
    let offered = [fact(pos, Player::O, true, Some(best))];
    Database::open(&file.0).unwrap().store(&offered).unwrap();
    let facts = Database::open_existing(&file.0).unwrap().facts().unwrap();
    assert_eq!(facts.len(), 1);
    let (_, image, sym) = key::canonical(&pos);
    assert_eq!(
        facts[0].position, image,
        "exported in the canonical orientation"
    );
    assert_eq!(facts[0].best_move, Some(best.transform(sym)));
    assert_eq!((facts[0].wins, facts[0].work), (true, 1234));
}

#[test]
fn files_that_are_not_uttt_databases_are_refused() {
    let text = TempPath::new("text");
    std::fs::write(&text.0, vec![b'x'; 4096]).unwrap();
    let error = Database::open(&text.0).err().expect("refused");
    assert!(matches!(error, DbError::NotADatabase { .. }), "{error}");
    let other = TempPath::new("other");
    Connection::open(&other.0)
        .unwrap()
        .execute_batch("CREATE TABLE t (x INTEGER)")
        .unwrap();
    let error = Database::open(&other.0).err().expect("refused");
    assert!(error.to_string().contains("another application"), "{error}");
    let missing = TempPath::new("missing");
    assert!(matches!(
        Database::open_existing(&missing.0),
        Err(DbError::Missing { .. })
    ));
}

/// `fact` within `plies` plies.
fn bounded(pos: Position, attacker: Player, plies: u32, wins: bool) -> Fact {
    Fact {
        within: Some(plies),
        ..fact(pos, attacker, wins, None)
    }
}

#[test]
fn bounded_facts_answer_the_bounds_they_reach_and_a_win_answers_the_unbounded_question() {
    let file = TempPath::new("bounded");
    let db = Database::open(&file.0).unwrap();
    let pos = position();
    let stored = db
        .store(&[
            bounded(pos, Player::X, 9, true),
            bounded(pos, Player::X, 11, true),
            bounded(pos, Player::X, 5, false),
        ])
        .unwrap();
    assert_eq!(stored, Stored { new: 3, known: 0 });
    let known = db.lookup(&pos.transform(3)).unwrap();
    let x = |plies| known.answer(Player::X, Some(plies)).map(|a| a.wins);
    assert_eq!(
        (x(3), x(5), x(7), x(9), x(40)),
        (Some(false), Some(false), None, Some(true), Some(true))
    );
    // "Wins within 9" is a win, and then O wins nothing.
    assert!(known.answer(Player::X, None).unwrap().wins);
    assert_eq!(
        known.answer(Player::O, Some(3)).map(|a| a.wins),
        Some(false)
    );
    // "Not within 7" alone is no answer to "does O win?", nor to any larger bound.
    let later = pos.play(pos.legal_moves().into_iter().next().unwrap());
    db.store(&[bounded(later, Player::O, 7, false)]).unwrap();
    let known = db.lookup(&later).unwrap();
    assert_eq!(known.answer(Player::O, None), None);
    assert_eq!(
        known.answer(Player::O, Some(7)).map(|a| a.wins),
        Some(false)
    );
    assert_eq!(known.answer(Player::O, Some(8)), None);
    assert_eq!((known.o, known.x), (None, None));
    let stats = db.stats().unwrap();
    assert_eq!((stats.facts, stats.bounded_facts), (0, 4));
    // Exported and read back with their bounds.
    let mut bounds: Vec<Option<u32>> = db.facts().unwrap().iter().map(|f| f.within).collect();
    bounds.sort();
    assert_eq!(bounds, [Some(5), Some(7), Some(9), Some(11)]);
}

#[test]
fn an_unbounded_no_is_a_no_within_every_bound_and_contradictions_are_refused() {
    let file = TempPath::new("bounded-contradictions");
    let db = Database::open(&file.0).unwrap();
    let pos = position();
    db.store(&[
        fact(pos, Player::O, false, None),
        bounded(pos, Player::X, 7, true),
    ])
    .unwrap();
    let known = db.lookup(&pos).unwrap();
    assert_eq!(
        known.answer(Player::O, Some(60)).map(|a| a.wins),
        Some(false)
    );
    // X's win within 7 makes every question of O's a "no" too.
    assert_eq!(known.answer(Player::O, None).map(|a| a.wins), Some(false));
    for offered in [
        bounded(pos, Player::X, 9, false),
        bounded(pos, Player::X, 7, false),
        fact(pos, Player::X, false, None),
        bounded(pos, Player::O, 3, true),
    ] {
        let error = db.store(std::slice::from_ref(&offered)).unwrap_err();
        assert!(
            matches!(error, DbError::Contradiction { .. }),
            "{offered:?}: {error}"
        );
    }
    // What agrees is stored: no win within fewer plies, a win within more.
    let stored = db
        .store(&[
            bounded(pos, Player::X, 5, false),
            bounded(pos, Player::X, 9, true),
        ])
        .unwrap();
    assert_eq!(stored.new, 2);
}

#[test]
fn two_connections_that_open_an_old_or_new_file_at_once_both_succeed() {
    // Each round both threads open the file at the same moment: one migrates (or creates) it,
    // the other waits for it and finds the work done, instead of failing on a table that is
    // already there.
    for round in 0..8 {
        let file = TempPath::new(&format!("race-{round}"));
        if round % 2 == 0 {
            version_1_file(&file);
        }
        let barrier = std::sync::Barrier::new(2);
        std::thread::scope(|scope| {
            let opens: Vec<_> = (0..2)
                .map(|_| {
                    scope.spawn(|| {
                        barrier.wait();
                        Database::open(&file.0).map(|_| ())
                    })
                })
                .collect();
            for open in opens {
                if let Err(error) = open.join().unwrap() {
                    panic!("round {round}: {}", error.with_causes());
                }
            }
        });
        assert_eq!(schema_version(&file), SCHEMA_VERSION, "round {round}");
    }
}
