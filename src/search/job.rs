//! A PN-DFPN job: one bounded DFPN search below a leaf of the root tree, as plain data that
//! says everything needed to run it (so that it can run on another thread, or in another
//! process), and the one way to run it.

use super::dfpn::{Dfpn, Limits, Poll, TableEntry};
use super::guide::Guide;
use super::handover::subtree_entries;
use super::numbers::Numbers;
use super::Question;
use crate::game::{Move, Position};
use crate::table::{Table, TableCounters};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// How much a job may search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkBudget {
    /// The most MID calls to spend.
    pub limit: u64,
    /// Keep searching the leaf past its thresholds until this many MID calls are spent (or it
    /// is solved), within `limit`: for workers far away, whose round trip would otherwise
    /// cost more than a short job's work (see [`Job::run`]). Zero for none.
    pub minimum: u64,
    /// The most wall-clock time to spend, if bounded (campaigns' `--job-time`); the job then
    /// ends at whichever of its limits comes first.
    #[serde(default)]
    pub time: Option<Duration>,
}

/// What the workers that move jobs ask of them: fixed by the transport, written into every
/// job by the root tree when it makes one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JobTerms {
    /// The [`WorkBudget::minimum`] of every job.
    pub min_work: u64,
    /// [`Job::share_solved_from`] of every job.
    pub share_solved_from: Option<u64>,
    /// [`Job::hand_over`] of every job.
    pub hand_over: usize,
}

/// A unit of work for a worker: plain data, so it can be sent to another machine.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Job {
    /// The position the path starts from: the root of the search.
    pub root: Position,
    /// The question the job's search answers below its leaf: the root's (the same attacker
    /// and deadline, see [`Question`]).
    pub question: Question,
    /// ε of the 1+ε trick.
    pub epsilon: f64,
    /// Where new nodes' numbers come from.
    #[serde(default)]
    pub guide: Guide,
    /// Squares of the moves from the root to the leaf to search.
    pub path: Vec<u8>,
    /// DFPN thresholds for the leaf.
    pub thresholds: Numbers,
    /// How much to search.
    pub work: WorkBudget,
    /// Return the subtrees solved with at least this many MID calls (in
    /// [`JobResult::solved`]), for workers that do not share one table.
    pub share_solved_from: Option<u64>,
    /// Return this many of the table's entries below the leaf, the most worked first (in
    /// [`JobResult::subtree`]), when the leaf stays unsolved: for a root that keeps them to
    /// hand over with the subtree's jobs should they move to another table (see
    /// [`crate::search::handover`]). Zero for none.
    #[serde(default)]
    pub hand_over: usize,
}

/// What a worker found for a job.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct JobResult {
    /// The job's path, to find the leaf again.
    pub path: Vec<u8>,
    /// The leaf's numbers after the search.
    pub numbers: Numbers,
    /// MID calls spent.
    pub work: u64,
    /// The job's work limit (the root thread reserved this much of the node budget for it).
    pub work_limit: u64,
    /// Each searched move's square and the child's numbers, in move order (moves that lose
    /// at once are left out, see `rules::safe_moves`); for a solved leaf too, so that the root
    /// thread can read a best move from them.
    pub children: Vec<(u8, Numbers)>,
    /// Worker time spent, in nanoseconds.
    pub busy_ns: u64,
    /// Table traffic of the job.
    pub counters: TableCounters,
    /// The subtrees the job solved, when [`Job::share_solved_from`] asked for them.
    pub solved: Vec<TableEntry>,
    /// The table's entries below the leaf, when [`Job::hand_over`] asked for them.
    #[serde(default)]
    pub subtree: Vec<TableEntry>,
}

impl Job {
    /// The position the job searches: its root after its path.
    pub fn leaf(&self) -> Position {
        self.path.iter().fold(self.root, |pos, &square| {
            pos.play(Move::from_square(square as usize))
        })
    }

    /// Runs the job against `table` within `limits` (which can only end it sooner), making
    /// `poll`'s call while it searches (see [`Dfpn::polling`]), and reports the leaf's and
    /// its children's numbers.
    ///
    /// A job with a [`WorkBudget::minimum`] that passes its thresholds sooner goes on
    /// searching its leaf with no thresholds until it has spent that much (within its work
    /// limit) or solved the leaf. Thresholds only order the search: the leaf's numbers stay
    /// true numbers of its subtree, which the root merges like any others, so no value can
    /// change. For a worker in another process this trades a little search in a leaf that may
    /// no longer be the most proving for a message round trip: most jobs pass their
    /// thresholds after far less work than the round trip costs.
    pub fn run<'a>(
        &self,
        table: &'a Table,
        limits: Limits<'a>,
        poll: Option<Poll<'a>>,
    ) -> JobResult {
        let began = Instant::now();
        let mut limits = limits;
        if let Some(end) = self.work.time.and_then(|time| began.checked_add(time)) {
            limits.deadline = Some(limits.deadline.map_or(end, |d| d.min(end)));
        }
        let mut searcher = Dfpn::new(table, self.question, self.epsilon, limits)
            .guided_by(limits.estimate(self.guide));
        if let Some(poll) = poll {
            searcher = searcher.polling(poll);
        }
        if let Some(min_work) = self.share_solved_from {
            searcher = searcher.sharing_solved(min_work);
        }
        let leaf = self.leaf();
        let mut numbers = searcher.search(&leaf, self.thresholds, self.work.limit);
        let minimum = self.work.minimum.min(self.work.limit);
        if !numbers.is_solved() && !searcher.was_stopped() && searcher.nodes() < minimum {
            // Past its thresholds but short of its minimum: on to a solution or the minimum.
            numbers = searcher.solve(&leaf, minimum - searcher.nodes());
        }
        // Also for a solved leaf: the root thread's table may not hold the children (another
        // process searched them), and a best move is read from them.
        let children = searcher
            .children(&leaf)
            .into_iter()
            .map(|(mv, numbers)| (mv.square() as u8, numbers))
            .collect();
        let subtree = if self.hand_over > 0 && !numbers.is_solved() {
            subtree_entries(table, &leaf, self.question, self.hand_over)
        } else {
            Vec::new()
        };
        JobResult {
            path: self.path.clone(),
            numbers,
            work: searcher.nodes(),
            work_limit: self.work.limit,
            children,
            busy_ns: began.elapsed().as_nanos() as u64,
            counters: searcher.counters(),
            solved: searcher.take_solved(),
            subtree,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Player;
    use crate::search::numbers::INFINITY;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Line 67 of `positions/midgame.txt`: an O win that "does O win?" takes some 100,000 MID
    /// calls to prove.
    const POSITION: &str = "X;O.O...O..;X..OOO..O/X.XX...X./O...O.X.O/XO..X..O./..XXO.X../.O...X.../OOO...XO./X.O...X../.OX.....X";

    /// A job at the root of [`POSITION`] for "does O win?".
    fn job_at_the_root(thresholds: Numbers, work: WorkBudget) -> Job {
        Job {
            root: POSITION.parse().unwrap(),
            question: Question::wins(Player::O),
            epsilon: 0.25,
            guide: Guide::Rules,
            path: Vec::new(),
            thresholds,
            work,
            share_solved_from: None,
            hand_over: 0,
        }
    }

    /// The work and numbers of one job at [`POSITION`] whose thresholds the leaf passes as
    /// soon as it grows, with a work limit of 20,000 MID calls and `minimum`.
    fn run_with_minimum(minimum: u64) -> (u64, Numbers) {
        let table = Table::new(64 << 20).unwrap();
        let stop = AtomicBool::new(false);
        let limits = Limits::stop_only(&stop);
        let root: Position = POSITION.parse().unwrap();
        let start = Dfpn::new(&table, Question::wins(Player::O), 0.25, limits).peek(&root);
        let thresholds = Numbers {
            phi: start.phi + 1,
            delta: start.delta + 1,
        };
        let work = WorkBudget {
            limit: 20_000,
            minimum,
            time: None,
        };
        let result = job_at_the_root(thresholds, work).run(&table, limits, None);
        assert!(
            !result.numbers.is_solved(),
            "20,000 MID calls do not solve it"
        );
        (result.work, result.numbers)
    }

    #[test]
    fn a_job_with_a_minimum_of_work_searches_on_past_its_thresholds_within_its_limit() {
        let (without, _) = run_with_minimum(0);
        let (with, numbers) = run_with_minimum(5_000);
        assert!(
            without < 5_000,
            "the thresholds end the plain job before the minimum: {without}"
        );
        assert!((5_000..=20_000).contains(&with), "{with} MID calls");
        assert!(numbers.phi > 0 && numbers.delta > 0);
        // The work limit still bounds the job, whatever the minimum.
        let (capped, _) = run_with_minimum(1_000_000);
        assert_eq!(capped, 20_000, "an unsolved job spends its whole limit");
    }

    #[test]
    fn a_job_with_a_time_budget_ends_when_its_time_is_spent() {
        let unbounded = Numbers {
            phi: INFINITY,
            delta: INFINITY,
        };
        let mut job = job_at_the_root(
            unbounded,
            WorkBudget {
                limit: u64::MAX,
                minimum: 0,
                time: Some(Duration::from_millis(5)),
            },
        );
        let never = AtomicBool::new(false);
        let table = Table::new(64 << 20).unwrap();
        let timed = job.run(&table, Limits::stop_only(&never), None);
        // Some 100,000 MID calls solve it: 5 ms end the job well before.
        assert!(!timed.numbers.is_solved(), "{} MID calls", timed.work);
        assert!(timed.work > 0);
        assert!(
            Duration::from_nanos(timed.busy_ns) < Duration::from_secs(2),
            "{} ns",
            timed.busy_ns
        );
        // Without it the same job runs to the end.
        job.work.time = None;
        let table = Table::new(64 << 20).unwrap();
        let whole = job.run(&table, Limits::stop_only(&never), None);
        assert!(whole.numbers.is_solved());
        assert!(whole.work > timed.work);
    }

    #[test]
    fn a_job_searches_the_leaf_its_path_names() {
        let mut job = job_at_the_root(
            Numbers::UNIT,
            WorkBudget {
                limit: 1,
                minimum: 0,
                time: None,
            },
        );
        let first = job.root.legal_moves().into_iter().next().unwrap();
        job.path = vec![first.square() as u8];
        assert_eq!(job.leaf(), job.root.play(first));
    }

    #[test]
    fn a_polling_job_calls_back_every_interval_and_stops_when_the_call_says_so() {
        let unbounded = Numbers {
            phi: INFINITY,
            delta: INFINITY,
        };
        let job = job_at_the_root(
            unbounded,
            WorkBudget {
                limit: 20_000,
                minimum: 0,
                time: None,
            },
        );
        let never = AtomicBool::new(false);
        let plain = job.run(
            &Table::new(64 << 20).unwrap(),
            Limits::stop_only(&never),
            None,
        );
        assert_eq!(plain.work, 20_000, "the work limit ends the plain job");

        // A job on a fresh table whose searcher makes `call` every 100 MID calls.
        let polled = |stop: &AtomicBool, call: &mut dyn FnMut()| {
            let poll = Poll {
                interval: 100,
                call,
            };
            let table = Table::new(64 << 20).unwrap();
            job.run(&table, Limits::stop_only(stop), Some(poll))
        };

        // A call that does nothing changes nothing, and comes about every 100 MID calls.
        let mut calls = 0u64;
        let counted = polled(&never, &mut || calls += 1);
        assert_eq!((counted.work, counted.numbers), (plain.work, plain.numbers));
        assert!(
            (190..=200).contains(&calls),
            "{calls} calls in 20,000 MID calls"
        );

        // A call that raises the stop flag ends the job at its next check.
        let stop = AtomicBool::new(false);
        let stopped = polled(&stop, &mut || stop.store(true, Ordering::Relaxed));
        assert!(stopped.work <= 2 * 100, "{} MID calls", stopped.work);
        assert!(!stopped.numbers.is_solved());
    }
}
