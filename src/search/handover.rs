//! What a worker's table knows of a subtree, handed to the worker that takes the subtree over
//! when a job moves (see [`super::workers::placement::Placement`]): without it the new worker
//! searches the subtree from nothing, while the old worker's table holds the numbers of the
//! positions its jobs there searched most.
//!
//! Why this is sound: an entry handed over is what the receiving table would hold had its own
//! worker done the searching. A solved entry is a fact about its position and question (the
//! game has no repetitions, so no path history makes it wrong elsewhere). An unsolved entry is
//! an estimate: DFPN reads it only to choose which child to search and when to return, and
//! proves or disproves a position only from solved children or the game's rules. Every table
//! already holds estimates from earlier, differently bounded searches, and one from another
//! table is no different; so no answer can change, only the work to reach it.

use super::dfpn::TableEntry;
use super::{table_key, Question};
use crate::game::Position;
use crate::table::{Table, TableWriter};
use std::collections::{BinaryHeap, HashMap, HashSet};

/// The most entries handed over with one moved job: the positions below its leaf that the old
/// table searched most. More carry more of the old worker's knowledge, but over MPI every
/// result carries this many (a snapshot, in case the subtree's next job moves): the walk
/// costs the worker time, rank 0 reads every snapshot, and a message past Open MPI's eager
/// limit (64 KiB, which the ranks ask for; see `crate::distributed`) waits for both ranks to
/// make progress. 256 entries, about 11 KiB of JSON, saved nodes against 64 at no cost seen;
/// 1,024 saved a few more nodes but no time (BENCHMARKS.md, "Scaling").
pub const HANDED_OVER_ENTRIES: usize = 256;

/// Unsolved entries with less work than this are handed over but not walked below: their
/// subtrees hold little.
const WALK_MIN_WORK: u64 = 4;

/// The entries of `table` for `question` below `leaf` (the leaf's own
/// included), at most `most`, the most worked first: a best-first walk that goes below an
/// entry only while it is unsolved (a solved entry says all there is).
pub fn subtree_entries(
    table: &Table,
    leaf: &Position,
    question: Question,
    most: usize,
) -> Vec<TableEntry> {
    let mut walk = Walk {
        reader: table.writer(),
        question,
        most,
        entries: Vec::new(),
        seen: HashSet::new(),
        frontier: BinaryHeap::new(),
        positions: Vec::new(),
    };
    walk.visit(*leaf);
    while let Some((_, index)) = walk.frontier.pop() {
        if walk.entries.len() >= most {
            break;
        }
        let pos = walk.positions[index];
        for mv in pos.legal_moves() {
            walk.visit(pos.play(mv));
        }
    }
    walk.entries
}

/// The state of [`subtree_entries`]'s walk.
struct Walk<'t> {
    reader: TableWriter<'t>,
    question: Question,
    most: usize,
    entries: Vec<TableEntry>,
    seen: HashSet<u64>,
    /// Positions still to walk below, by their entries' work, as indices into `positions`
    /// (a position has no order of its own for the heap).
    frontier: BinaryHeap<(u64, usize)>,
    positions: Vec<Position>,
}

impl Walk<'_> {
    /// Takes `pos`'s entry, if the table has one and there is room, and puts the position on
    /// the frontier while its entry is unsolved and worked.
    fn visit(&mut self, pos: Position) {
        let key = table_key(&pos, self.question);
        if self.entries.len() >= self.most || !self.seen.insert(key) {
            return;
        }
        let Some(found) = self.reader.lookup(key) else {
            return;
        };
        self.entries.push(TableEntry {
            key,
            numbers: found.numbers,
            work: found.work,
        });
        if !found.numbers.is_solved() && found.work >= WALK_MIN_WORK {
            self.frontier.push((found.work, self.positions.len()));
            self.positions.push(pos);
        }
    }
}

/// Stores `entries` handed over from another table through `writer`, except over an entry
/// that knows more: a solved one, or one with at least as much work.
pub fn install(entries: &[TableEntry], writer: &mut TableWriter) {
    for entry in entries {
        let knows_more = writer
            .lookup(entry.key)
            .is_some_and(|mine| mine.numbers.is_solved() || mine.work >= entry.work);
        if !knows_more {
            entry.store(writer);
        }
    }
}

/// What `find` gives for `path` or, failing that, for its nearest ancestor (the longest prefix)
/// for which it gives something: what is known of a subtree of the root tree is known of each
/// node below it until that node has its own.
pub fn nearest_ancestor<T>(path: &[u8], find: impl Fn(&[u8]) -> Option<T>) -> Option<T> {
    (0..=path.len()).rev().find_map(|len| find(&path[..len]))
}

/// The entries each subtree's last result handed back (see [`subtree_entries`]), by the path
/// of its leaf, for jobs that move there or below later: for a transport whose root does not
/// see the workers' tables (MPI). Bounded: two generations of snapshots, each of at most half
/// the capacity; when the recent one is full it becomes the older, and the older is dropped.
pub struct Snapshots {
    /// The most snapshots of one generation.
    generation: usize,
    recent: HashMap<Vec<u8>, Vec<TableEntry>>,
    older: HashMap<Vec<u8>, Vec<TableEntry>>,
}

impl Snapshots {
    /// Snapshots of at most `capacity` subtrees (at least two).
    pub fn new(capacity: usize) -> Snapshots {
        Snapshots {
            generation: (capacity / 2).max(1),
            recent: HashMap::new(),
            older: HashMap::new(),
        }
    }

    /// Keeps `entries` as what the table of the worker that searched `path` last knows of it.
    pub fn keep(&mut self, path: &[u8], entries: Vec<TableEntry>) {
        if entries.is_empty() {
            return;
        }
        if self.recent.len() >= self.generation {
            self.older = std::mem::take(&mut self.recent);
        }
        self.older.remove(path);
        self.recent.insert(path.to_vec(), entries);
    }

    /// The snapshot kept at `path` or, failing that, at its nearest ancestor that has one (a
    /// leaf's subtree holds its children's).
    pub fn of(&self, path: &[u8]) -> Option<&[TableEntry]> {
        nearest_ancestor(path, |prefix| {
            self.recent
                .get(prefix)
                .or_else(|| self.older.get(prefix))
                .map(Vec::as_slice)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Player;
    use crate::search::dfpn::{Dfpn, Limits};
    use crate::search::numbers::{Numbers, MAX_FINITE};
    use std::sync::atomic::AtomicBool;

    /// Line 67 of `positions/midgame.txt` (an O win of some 100,000 MID calls).
    const POSITION: &str = "X;O.O...O..;X..OOO..O/X.XX...X./O...O.X.O/XO..X..O./..XXO.X../.O...X.../OOO...XO./X.O...X../.OX.....X";

    /// A table after `work` MID calls of "does O win?" on [`POSITION`].
    fn searched_table(work: u64) -> (Table, Position) {
        let table = Table::new(16 << 20).unwrap();
        let pos: Position = POSITION.parse().unwrap();
        let stop = AtomicBool::new(false);
        let mut dfpn = Dfpn::new(
            &table,
            Question::wins(Player::O),
            0.25,
            Limits::stop_only(&stop),
        );
        dfpn.search(
            &pos,
            Numbers {
                phi: MAX_FINITE,
                delta: MAX_FINITE,
            },
            work,
        );
        drop(dfpn);
        (table, pos)
    }

    #[test]
    fn a_subtree_walk_gives_the_tables_entries_below_the_leaf_most_worked_first() {
        let (table, pos) = searched_table(20_000);
        let entries = subtree_entries(&table, &pos, Question::wins(Player::O), 200);
        assert_eq!(entries.len(), 200, "the table holds far more than 200");
        // The leaf's own entry first, each entry as the table holds it, none twice.
        assert_eq!(entries[0].key, table_key(&pos, Question::wins(Player::O)));
        let mut reader = table.writer();
        let mut keys = HashSet::new();
        for entry in &entries {
            let found = reader.lookup(entry.key).expect("an entry of the table");
            assert_eq!((found.numbers, found.work), (entry.numbers, entry.work));
            assert!(keys.insert(entry.key));
        }
        // Every child the search stored is among them (the leaf is walked first).
        for mv in pos.legal_moves() {
            let key = table_key(&pos.play(mv), Question::wins(Player::O));
            if reader.lookup(key).is_some() {
                assert!(keys.contains(&key), "child {mv} left out");
            }
        }
        // The other question's entries are not this subtree's.
        let other = subtree_entries(&table, &pos, Question::wins(Player::X), 200);
        assert!(other.is_empty(), "nothing asked whether X wins");
    }

    #[test]
    fn installing_keeps_what_the_receiving_table_knows_better() {
        let (from, pos) = searched_table(5_000);
        let entries = subtree_entries(&from, &pos, Question::wins(Player::O), 50);
        let to = Table::new(1 << 20).unwrap();
        let mut writer = to.writer();
        let solved = entries[1];
        let proof = Numbers::PROVED;
        writer.store(solved.key, proof, 1);
        let worked = entries[2];
        writer.store(
            worked.key,
            Numbers { phi: 7, delta: 7 },
            worked.work.max(1) * 4,
        );
        install(&entries, &mut writer);
        assert_eq!(writer.lookup(solved.key).unwrap().numbers, proof);
        assert_eq!(
            writer.lookup(worked.key).unwrap().numbers,
            Numbers { phi: 7, delta: 7 }
        );
        for entry in entries
            .iter()
            .filter(|e| ![solved.key, worked.key].contains(&e.key))
        {
            assert_eq!(writer.lookup(entry.key).unwrap().numbers, entry.numbers);
        }
    }

    #[test]
    fn snapshots_are_found_at_the_nearest_ancestor_and_the_oldest_dropped() {
        let entry = |key| {
            vec![TableEntry {
                key,
                numbers: Numbers::UNIT,
                work: 1,
            }]
        };
        let mut snapshots = Snapshots::new(4);
        snapshots.keep(&[4], entry(1));
        snapshots.keep(&[4, 0], entry(2));
        assert_eq!(snapshots.of(&[4, 0, 8]).unwrap()[0].key, 2);
        assert_eq!(snapshots.of(&[4, 1]).unwrap()[0].key, 1);
        assert!(snapshots.of(&[3]).is_none());
        // A newer snapshot of a path replaces the older.
        snapshots.keep(&[4], entry(3));
        assert_eq!(snapshots.of(&[4, 1]).unwrap()[0].key, 3);
        // Four more: the first ones are gone.
        for key in 10..14 {
            snapshots.keep(&[key as u8], entry(key));
        }
        assert!(snapshots.of(&[4, 1]).is_none());
        assert_eq!(snapshots.of(&[13]).unwrap()[0].key, 13);
        // Nothing to keep: no snapshot.
        snapshots.keep(&[20], Vec::new());
        assert!(snapshots.of(&[20]).is_none());
    }
}
