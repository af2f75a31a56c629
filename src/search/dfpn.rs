//! Depth-first proof-number search (MID in φ/δ form) with the 1+ε trick and a work limit.
//!
//! The table is only a cache: each call keeps its children's numbers in its own frame, so a
//! dropped or overwritten entry costs time, never progress or correctness.

use super::evaluations::EvaluationCache;
use super::guide::{Estimate, Estimator, Family};
pub use super::limits::Limits;
pub use super::live::LiveStats;
use super::numbers::{child_thresholds, select_child, Numbers, INFINITY};
use super::rules::{evaluate, Evaluation};
use super::{table_key, Question};
use crate::game::{Move, MoveSet, Position};
use crate::table::{Table, TableCounters, TableWriter};
use serde::{Deserialize, Serialize};
use std::sync::atomic::Ordering;

/// How often (in MID calls) the clock and the stop flag are read, unless the searcher polls
/// more often (see [`Dfpn::polling`]).
const CHECK_INTERVAL: u64 = 4096;

/// A call a searcher makes on its own thread every `interval` MID calls: for a thread that
/// also passes messages, such as an MPI worker rank's main thread, which would otherwise
/// need a thread of its own that the operating system wakes for every message.
pub struct Poll<'p> {
    /// MID calls between two calls.
    pub interval: u64,
    /// What to call.
    pub call: &'p mut (dyn FnMut() + 'p),
}

/// One child of a node held in the caller's frame.
#[derive(Clone, Copy)]
struct Child {
    /// The move from the parent.
    mv: Move,
    pos: Position,
    key: u64,
    /// The child's numbers for its own side to move.
    numbers: Numbers,
    /// The child's moves worth searching (empty when it is solved).
    moves: MoveSet,
}

/// What is known of a position before searching it.
#[derive(Clone, Copy, Debug)]
pub struct Peeked {
    /// Its numbers for the side to move: static, from the table, or initial estimates.
    pub numbers: Numbers,
    /// The moves worth searching (empty when the static rules settle it).
    pub moves: MoveSet,
}

/// A table entry, as handed to searchers that do not share this table (another thread's
/// private table, another process). A solved entry (a proof or disproof) is a fact about its
/// position and question wherever it was found, since the game has no repetitions (no
/// graph-history interaction). An unsolved entry is an estimate, as any table entry is: it
/// steers a search, never decides it, so an estimate from another table is as sound as one
/// from this table (see [`super::handover`]). In JSON it is the array
/// `[key, φ, δ, work]`: thousands of them ride on MPI messages, and the array is about half
/// the length of an object with named fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "(u64, u32, u32, u64)", from = "(u64, u32, u32, u64)")]
pub struct TableEntry {
    /// The table key (position and question, see [`super::table_key`]).
    pub key: u64,
    /// The numbers, for the side to move.
    pub numbers: Numbers,
    /// MID calls spent on them (for a solved entry: the solution).
    pub work: u64,
}

impl From<TableEntry> for (u64, u32, u32, u64) {
    fn from(entry: TableEntry) -> Self {
        (
            entry.key,
            entry.numbers.phi,
            entry.numbers.delta,
            entry.work,
        )
    }
}

impl From<(u64, u32, u32, u64)> for TableEntry {
    fn from((key, phi, delta, work): (u64, u32, u32, u64)) -> Self {
        TableEntry {
            key,
            numbers: Numbers { phi, delta },
            work,
        }
    }
}

impl TableEntry {
    /// Stores the entry through `table`.
    pub fn store(&self, table: &mut TableWriter) {
        table.store(self.key, self.numbers, self.work);
    }
}

/// A single-threaded DFPN searcher for one binary question, over a shared table.
pub struct Dfpn<'a> {
    table: TableWriter<'a>,
    question: Question,
    epsilon: f64,
    limits: Limits<'a>,
    /// MID calls so far.
    nodes: u64,
    /// `nodes` value at which the current job must return.
    node_budget_end: u64,
    next_check: u64,
    stopped: bool,
    /// Whether this searcher's root is the solve's root, whose numbers go to the live display.
    publishes_root: bool,
    /// One reusable child buffer per ply, so MID allocates nothing in steady state.
    frames: Vec<Vec<Child>>,
    /// When set, subtrees solved with at least this much work are kept in `solved`.
    share_min_work: Option<u64>,
    /// The solved subtrees kept for sharing (see [`Dfpn::sharing_solved`]).
    solved: Vec<TableEntry>,
    /// MID calls between two reads of the clock and the stop flag (and calls of `poll`).
    check_interval: u64,
    /// Called on the searching thread every `check_interval` MID calls (see [`Dfpn::polling`]).
    poll: Option<&'a mut (dyn FnMut() + 'a)>,
    /// Where new nodes' numbers come from (see [`Dfpn::guided_by`]).
    estimator: Estimator<'a>,
    /// Told of every MID call as it returns (see [`Dfpn::observing`]).
    observer: Option<&'a mut Observer<'a>>,
    /// The static evaluations of positions peeked at lately.
    evaluations: EvaluationCache,
}

/// What [`Dfpn::observing`] calls as each MID call returns: the position, its numbers then
/// (for its side to move), and the MID calls that call made.
pub type Observer<'a> = dyn FnMut(&Position, Numbers, u64) + 'a;

impl Drop for Dfpn<'_> {
    /// Reports to the live display the MID calls made since the searcher's last check (up to
    /// `CHECK_INTERVAL` of them, which many short PN-DFPN jobs would otherwise leave out of
    /// the live count). Its table writer reports its fills as it is dropped.
    fn drop(&mut self) {
        if let Some(live) = self.limits.live {
            let reported = self.next_check - self.check_interval;
            live.nodes
                .fetch_add(self.nodes.saturating_sub(reported), Ordering::Relaxed);
        }
    }
}

impl<'a> Dfpn<'a> {
    /// A searcher for `question`.
    pub fn new(table: &'a Table, question: Question, epsilon: f64, limits: Limits<'a>) -> Dfpn<'a> {
        Dfpn {
            table: table.writer(),
            question,
            epsilon,
            limits,
            nodes: 0,
            node_budget_end: u64::MAX,
            next_check: CHECK_INTERVAL,
            stopped: false,
            publishes_root: false,
            frames: Vec::new(),
            share_min_work: None,
            solved: Vec::new(),
            check_interval: CHECK_INTERVAL,
            poll: None,
            estimator: Estimator::new(Estimate::Rules),
            observer: None,
            evaluations: EvaluationCache::new(),
        }
    }

    /// This searcher, estimating the numbers of new nodes by `estimate`. Any estimate keeps
    /// the search sound; it changes only the work.
    pub fn guided_by(mut self, estimate: Estimate<'a>) -> Dfpn<'a> {
        self.estimator = Estimator::new(estimate);
        self
    }

    /// This searcher, telling `observer` of every MID call as it returns: the position, its
    /// numbers then (for its side to move), and the MID calls that call made (for the
    /// learned guide's training data, see `crate::services::learn`).
    pub fn observing(mut self, observer: &'a mut Observer<'a>) -> Dfpn<'a> {
        self.observer = Some(observer);
        self
    }

    /// This searcher, making `poll`'s call on its own thread every `poll.interval` MID calls,
    /// before it reads the stop flag (which the call may raise).
    pub fn polling(mut self, poll: Poll<'a>) -> Dfpn<'a> {
        self.check_interval = poll.interval.max(1);
        self.next_check = self.nodes + self.check_interval;
        self.poll = Some(poll.call);
        self
    }

    /// This searcher, keeping every subtree it solves with at least `min_work` MID calls for
    /// [`Dfpn::take_solved`] (for searchers of other processes, which do not see this table).
    pub fn sharing_solved(mut self, min_work: u64) -> Dfpn<'a> {
        self.share_min_work = Some(min_work);
        self
    }

    /// The solved subtrees kept so far (see [`Dfpn::sharing_solved`]), leaving none.
    pub fn take_solved(&mut self) -> Vec<TableEntry> {
        std::mem::take(&mut self.solved)
    }

    /// This searcher, publishing its root's numbers to the live display as they change (for
    /// the searcher of a solve's root, not for job workers or re-searches).
    pub fn publishing_root_numbers(mut self) -> Dfpn<'a> {
        self.publishes_root = true;
        self
    }

    /// MID calls made so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Table traffic so far.
    pub fn counters(&self) -> TableCounters {
        self.table.counters()
    }

    /// Whether the stop flag or the deadline ended the last search.
    pub fn was_stopped(&self) -> bool {
        self.stopped
    }

    /// The question this searcher answers.
    pub fn question(&self) -> Question {
        self.question
    }

    /// The key of `pos` for this searcher's question.
    pub fn key(&self, pos: &Position) -> u64 {
        table_key(pos, self.question)
    }

    /// The best knowledge of `pos` without searching: static rules, then the table (an entry
    /// of this question, or one of the other question that shows its attacker wins, which
    /// settles this one), then initial numbers from the moves worth searching.
    pub fn peek(&mut self, pos: &Position) -> Numbers {
        self.peek_moves(pos).numbers
    }

    /// [`Dfpn::peek`], with the moves worth searching.
    pub fn peek_moves(&mut self, pos: &Position) -> Peeked {
        self.peek_in_family(pos, self.key(pos), None)
    }

    /// [`Dfpn::peek_moves`] of `pos` (whose key is `key`), which is the child by `mv` of the
    /// parent of `family` when one is given: a node's children are peeked one after another,
    /// and the guide estimates them together.
    fn peek_in_family(
        &mut self,
        pos: &Position,
        key: u64,
        family: Option<(&mut Family<'_, 'a>, Move)>,
    ) -> Peeked {
        let node = match self.evaluations.evaluate(pos, key, self.question) {
            Evaluation::Solved(numbers) => {
                return Peeked {
                    numbers,
                    moves: MoveSet::EMPTY,
                }
            }
            Evaluation::Open(node) => node,
        };
        let numbers = match self.table_numbers(pos, key) {
            Some(numbers) => numbers,
            None => match family {
                Some((family, mv)) => {
                    self.estimator
                        .child_numbers(key, family, mv, pos, &node, self.question)
                }
                None => self.estimator.numbers(key, pos, &node, self.question),
            },
        };
        Peeked {
            numbers,
            moves: node.moves,
        }
    }

    /// What the table knows of `pos` (whose key is `key`) for this question. An entry for the
    /// other question (the other player's win, with the same deadline) that proves its
    /// attacker wins answers this
    /// one too: the attacker here cannot win then.
    /// Entries hold numbers for the side to move, so "the other attacker wins" reads φ = 0
    /// where that attacker is to move (here it is the defender, which reaches its goal:
    /// proved) and δ = 0 where it is not (here the attacker is to move and fails: disproved).
    /// Both keys of a position share a bucket (see [`table_key`]): one pass over it reads both
    /// entries.
    fn table_numbers(&mut self, pos: &Position, key: u64) -> Option<Numbers> {
        let other = self.question.other();
        let (own, theirs) = self.table.lookup_pair(key, table_key(pos, other));
        let other = other.attacker;
        let own = own.map(|found| found.numbers);
        if own.is_some_and(Numbers::is_solved) {
            return own;
        }
        let other_to_move = pos.side_to_move() == other;
        let other_wins = theirs.is_some_and(|found| {
            let numbers = found.numbers;
            if other_to_move {
                numbers.phi == 0
            } else {
                numbers.delta == 0
            }
        });
        if other_wins {
            return Some(if other_to_move {
                Numbers::PROVED
            } else {
                Numbers::DISPROVED
            });
        }
        own
    }

    /// The moves worth searching at `pos` and each child's numbers (empty when the static
    /// rules settle `pos`).
    pub fn children(&mut self, pos: &Position) -> Vec<(Move, Numbers)> {
        match evaluate(pos, self.question) {
            Evaluation::Solved(_) => Vec::new(),
            Evaluation::Open(node) => {
                let mut family = Family::of(pos);
                node.moves
                    .map(|mv| {
                        let child = pos.play(mv);
                        let key = self.key(&child);
                        let peeked = self.peek_in_family(&child, key, Some((&mut family, mv)));
                        (mv, peeked.numbers)
                    })
                    .collect()
            }
        }
    }

    /// The work the table recorded for `pos` (0 if it is not there).
    pub fn recorded_work(&mut self, pos: &Position) -> u64 {
        let key = self.key(pos);
        self.table.lookup(key).map_or(0, |found| found.work)
    }

    /// Searches `root` until it is solved, `work_limit` more MID calls are spent, or a limit
    /// stops it; returns the root's numbers.
    pub fn search(&mut self, root: &Position, thresholds: Numbers, work_limit: u64) -> Numbers {
        self.stopped = false;
        self.node_budget_end = self.nodes.saturating_add(work_limit.max(1));
        let moves = match evaluate(root, self.question) {
            Evaluation::Solved(numbers) => return numbers,
            Evaluation::Open(node) => node.moves,
        };
        let key = self.key(root);
        self.mid(root, key, moves, thresholds, 0)
    }

    /// Searches `root` with no thresholds (to a solution) within `work_limit` MID calls.
    pub fn solve(&mut self, root: &Position, work_limit: u64) -> Numbers {
        self.search(
            root,
            Numbers {
                phi: INFINITY,
                delta: INFINITY,
            },
            work_limit,
        )
    }

    fn out_of_work(&mut self) -> bool {
        if self.stopped || self.nodes >= self.node_budget_end {
            return true;
        }
        if self.nodes >= self.next_check {
            if let Some(live) = self.limits.live {
                live.nodes.fetch_add(
                    self.nodes + self.check_interval - self.next_check,
                    Ordering::Relaxed,
                );
            }
            self.next_check = self.nodes + self.check_interval;
            if let Some(poll) = self.poll.as_mut() {
                poll();
            }
            if self.limits.reached() {
                self.stopped = true;
                return true;
            }
        }
        false
    }

    /// MID: expands `pos` until its numbers reach a threshold (or work runs out), keeping the
    /// children's numbers in this frame; stores and returns the node's numbers.
    /// Only `moves` (the moves worth searching, never empty) become children.
    fn mid(
        &mut self,
        pos: &Position,
        key: u64,
        moves: MoveSet,
        thresholds: Numbers,
        ply: usize,
    ) -> Numbers {
        let start_nodes = self.nodes;
        self.nodes += 1;
        if self.frames.len() <= ply {
            self.frames.resize_with(ply + 1, Vec::new);
        }
        let mut children = std::mem::take(&mut self.frames[ply]);
        children.clear();
        // Two passes: first every child's bucket (and the slot of its cached estimate) is
        // requested from memory, then the children are evaluated while those loads are under
        // way (both questions share a bucket).
        for mv in moves {
            let child = pos.play(mv);
            let key = self.key(&child);
            self.table.prefetch(key);
            self.estimator.prefetch(key);
            children.push(Child {
                mv,
                pos: child,
                key,
                numbers: Numbers::UNIT,
                moves: MoveSet::EMPTY,
            });
        }
        let mut family = Family::of(pos);
        for i in 0..children.len() {
            let child = &children[i];
            let peeked = self.peek_in_family(&child.pos, child.key, Some((&mut family, child.mv)));
            children[i].numbers = peeked.numbers;
            children[i].moves = peeked.moves;
            if peeked.numbers.delta == 0 {
                // A child lost for its side to move proves this node: the rest cannot matter.
                children.truncate(i + 1);
                break;
            }
        }

        let mut numbers;
        loop {
            let selection = select_child(children.len(), |i| children[i].numbers);
            numbers = selection.parent;
            if ply == 0 && self.publishes_root {
                if let Some(live) = self.limits.live {
                    live.publish_root(numbers);
                }
            }
            if numbers.phi >= thresholds.phi
                || numbers.delta >= thresholds.delta
                || self.out_of_work()
            {
                break;
            }
            let best = selection.best;
            let Child {
                pos: child,
                key: child_key,
                moves: child_moves,
                ..
            } = children[best];
            let child_thresholds = child_thresholds(thresholds, &selection, self.epsilon);
            children[best].numbers =
                self.mid(&child, child_key, child_moves, child_thresholds, ply + 1);
        }
        let work = self.nodes - start_nodes;
        self.table.store(key, numbers, work);
        if let Some(observer) = self.observer.as_mut() {
            observer(pos, numbers, work);
        }
        if numbers.is_solved() && self.share_min_work.is_some_and(|min| work >= min) {
            self.solved.push(TableEntry { key, numbers, work });
        }
        self.frames[ply] = children;
        numbers
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Player;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn a_solved_entry_travels_as_a_four_number_array_and_comes_back_whole() {
        let entry = TableEntry {
            key: u64::MAX - 7,
            numbers: Numbers {
                phi: 0,
                delta: u32::MAX,
            },
            work: 12_345,
        };
        let json = serde_json::to_string(&entry).unwrap();
        assert_eq!(json, format!("[{},0,{},12345]", u64::MAX - 7, u32::MAX));
        let back: TableEntry = serde_json::from_str(&json).unwrap();
        assert_eq!(back, entry);
    }

    #[test]
    fn a_dropped_searcher_has_published_every_node_it_searched() {
        let table = Table::new(16 << 20).unwrap();
        let stop = AtomicBool::new(false);
        let live = LiveStats::default();
        let limits = Limits {
            stop: &stop,
            deadline: None,
            live: Some(&live),
            calibration: None,
        };
        let pos = Position::start();
        let mut published_by_searchers = 0;
        // Budgets below, at and above one check interval, and several searches per searcher.
        for budgets in [vec![100], vec![CHECK_INTERVAL], vec![10_000, 3_000, 777]] {
            let mut searcher = Dfpn::new(&table, Question::wins(Player::X), 0.25, limits);
            for budget in budgets {
                searcher.solve(&pos, budget);
            }
            published_by_searchers += searcher.nodes();
            drop(searcher);
            assert_eq!(live.nodes.load(Ordering::Relaxed), published_by_searchers);
        }
    }
}
