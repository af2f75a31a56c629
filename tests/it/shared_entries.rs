//! Entries handed from one table to another (what MPI worker ranks exchange): each solved one
//! is a fact the oracle confirms, and a table given them answers the same with less work; a
//! table given another's unsolved estimates of a subtree (a moved job's) answers the same.
use crate::common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use uttt::game::{format_position, Player, Position};
use uttt::search::dfpn::{Limits, TableEntry};
use uttt::search::guide::Guide;
use uttt::search::handover::{install, subtree_entries, HANDED_OVER_ENTRIES};
use uttt::search::numbers::{Numbers, INFINITY};
use uttt::search::{table_key, Job, JobResult, Question, WorkBudget};
use uttt::table::Table;

/// Solves `root` for `attacker` as one unlimited job against `table`.
fn solve_as_job(root: &Position, attacker: Player, table: &Table, share: Option<u64>) -> JobResult {
    search_as_job(root, attacker, table, share, u64::MAX)
}

/// Searches `root` for `attacker` as one job of at most `limit` MID calls against `table`.
fn search_as_job(
    root: &Position,
    attacker: Player,
    table: &Table,
    share: Option<u64>,
    limit: u64,
) -> JobResult {
    let stop = AtomicBool::new(false);
    let limits = Limits::stop_only(&stop);
    let job = Job {
        root: *root,
        question: Question::wins(attacker),
        epsilon: 0.25,
        guide: Guide::Rules,
        path: Vec::new(),
        thresholds: Numbers {
            phi: INFINITY,
            delta: INFINITY,
        },
        work: WorkBudget {
            limit,
            minimum: 0,
            time: None,
        },
        share_solved_from: share,
        hand_over: 0,
    };
    job.run(table, limits, None)
}

/// Whether solved numbers for `pos` claim what the oracle's value says, for "does `attacker`
/// win?" (the numbers are for the side to move, whose goal depends on its role).
fn claim_matches_oracle(pos: &Position, attacker: Player, numbers: Numbers) -> bool {
    let side_reaches_goal = numbers.phi == 0;
    let attacker_wins = side_reaches_goal == (pos.side_to_move() == attacker);
    let value = common::oracle::oracle_value(&format_position(pos));
    attacker_wins == (value == attacker.letter().to_string())
}

#[test]
fn shared_solved_entries_are_facts_and_spare_the_receiving_table_work() {
    let positions = common::playout_positions(40, 77);
    let checked_entries = AtomicUsize::new(0);
    let spared = AtomicUsize::new(0);
    common::parallel_rows(&positions, |text| {
        let root: Position = text.parse().unwrap();
        for attacker in [Player::X, Player::O] {
            let giver = Table::new(1 << 20).unwrap();
            let given = solve_as_job(&root, attacker, &giver, Some(1));
            assert!(given.numbers.is_solved(), "{text}");
            let shared: HashMap<u64, TableEntry> =
                given.solved.iter().map(|e| (e.key, *e)).collect();
            for entry in &given.solved {
                assert!(entry.numbers.is_solved() && entry.work >= 1, "{text}");
            }
            // The entries of the root, its children and grandchildren, checked one by one.
            let mut near_root = vec![root];
            for mv in root.legal_moves() {
                let child = root.play(mv);
                near_root.extend(child.legal_moves().into_iter().map(|m| child.play(m)));
                near_root.push(child);
            }
            for pos in near_root.iter().filter(|p| !p.is_over()) {
                if let Some(entry) = shared.get(&table_key(pos, Question::wins(attacker))) {
                    assert!(
                        claim_matches_oracle(pos, attacker, entry.numbers),
                        "shared entry {entry:?} for {} (attacker {attacker:?}) is wrong",
                        format_position(pos)
                    );
                    checked_entries.fetch_add(1, Ordering::Relaxed);
                }
            }
            // A table given the entries answers the same, with less work when the root took
            // more than its own MID call (then some child was solved by a MID call, shared).
            let receiver = Table::new(1 << 20).unwrap();
            let mut writer = receiver.writer();
            for entry in &given.solved {
                entry.store(&mut writer);
            }
            drop(writer);
            let again = solve_as_job(&root, attacker, &receiver, None);
            assert_eq!(again.numbers, given.numbers, "{text}");
            assert!(again.work <= given.work, "{text}");
            if given.work > 1 {
                assert!(again.work < given.work, "{text}: {again:?}");
                spared.fetch_add(1, Ordering::Relaxed);
            }
        }
    });
    let checked = checked_entries.into_inner();
    assert!(checked > 200, "only {checked} shared entries were checked");
    assert!(spared.into_inner() > 20);
}

#[test]
fn a_table_handed_another_tables_subtree_answers_the_same() {
    let positions = common::playout_positions(40, 78);
    let handed_unsolved = AtomicUsize::new(0);
    common::parallel_rows(&positions, |text| {
        let root: Position = text.parse().unwrap();
        for attacker in [Player::X, Player::O] {
            let full = solve_as_job(&root, attacker, &Table::new(1 << 20).unwrap(), None);
            assert!(full.numbers.is_solved(), "{text}");
            assert!(
                claim_matches_oracle(&root, attacker, full.numbers),
                "{text}: {full:?}"
            );
            // Another table searched part of the way, as a job that then moves.
            let giver = Table::new(1 << 20).unwrap();
            search_as_job(&root, attacker, &giver, None, full.work / 2);
            let entries =
                subtree_entries(&giver, &root, Question::wins(attacker), HANDED_OVER_ENTRIES);
            let unsolved = entries.iter().filter(|e| !e.numbers.is_solved()).count();
            handed_unsolved.fetch_add(unsolved, Ordering::Relaxed);
            let receiver = Table::new(1 << 20).unwrap();
            install(&entries, &mut receiver.writer());
            let again = solve_as_job(&root, attacker, &receiver, None);
            assert_eq!(again.numbers, full.numbers, "{text}: {entries:?}");
        }
    });
    let handed = handed_unsolved.into_inner();
    assert!(
        handed > 200,
        "only {handed} unsolved entries were handed over"
    );
}
