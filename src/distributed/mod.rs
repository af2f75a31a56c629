//! PN-DFPN over MPI (the `mpi` feature): rank 0 runs the three-valued driver and the root
//! tree, every other rank runs DFPN worker threads against its machine's table, which the
//! worker ranks of one machine share in shared memory (or, with `--table-per-rank`, a
//! table of its own; see [`tables`]). Jobs, results and control messages are the search's
//! serde data, sent as JSON in MPI messages.
//!
//! Rank 0 sends each rank jobs (each says all that is needed to run it, see
//! [`crate::search::Job`]), `Abort` when a limit ends the search early (the jobs return at
//! once, and rank 0 takes their results in before the next search, whose first job lifts the
//! abort), and `Stop` when the solve is over. A worker rank answers
//! every job with its result. Each rank's main thread alone calls MPI; on a worker rank it is
//! also one of the `--threads` search threads (see [`serve`]), and the others talk to it over
//! channels.
//!
//! Locality: a job goes back to the table whose ranks ran the last job at its leaf, or else at the
//! leaf's nearest ancestor that had one, since that table holds the subtree, and there to the rank
//! of that table with the most room for jobs; when the table's ranks are full the job waits at rank
//! 0 for them within bounds, and past them the table with most room takes the job (and owns the
//! leaf from then on); see [`Placement`](crate::search::workers::placement::Placement), whose
//! workers are the tables. Each rank holds a job per thread (its own threads: ranks may differ) and
//! some more ([`jobs_per_rank`]), so that a thread finds its next job waiting when it finishes one
//! instead of idling through the message round trip.
//!
//! An MPI solve over separate tables searches more nodes than one process with one table:
//! mostly because the tables are separate (what one learns of the positions both subtrees
//! reach, the other does not see), not because of the messages. `uttt solve --private-tables`
//! runs the same placement in one process without messages, to tell the two apart; the
//! measurements are in BENCHMARKS.md. Hence one table per machine: between the ranks of one
//! machine, nothing needs passing on.
//!
//! Shared knowledge, between tables: a job's result carries the subtrees it solved with at
//! least [`SHARE_MIN_WORK`](crate::search::workers::placement::SHARE_MIN_WORK) MID calls (the
//! [`SHARED_PER_RESULT`] of most work), and rank 0 passes them on to every other table with
//! the next job of one of its ranks ([`LEARNED_PER_JOB`] at a time), whose table stores them
//! before the job runs: a proof is a fact wherever it was found, and without this each table
//! would solve the transpositions another already solved. They ride on jobs rather than in
//! messages of their own so that a result costs rank 0 no sends but the next job (see
//! [`MAX_UNSENT_LEARNED`]). With a single table (every worker rank on one machine), results
//! carry neither these nor snapshots.
//!
//! Latency: jobs and results go as buffered sends (`MPI_Bsend`, see [`attach_send_buffer`]),
//! which return as soon as the message is copied. A plain send of even a small message may
//! complete only once the receiving rank next calls MPI, which on a busy machine is often a
//! millisecond away: time in which rank 0 would take no result into the root tree, and a
//! worker rank no job. A worker rank whose threads wait for jobs polls rank 0 without sleeping
//! for a while ([`SPIN_FOR`]): its idle thread's core is free, and a job is then taken in the
//! moment it arrives. A worker rank's main thread searches too, and passes messages from within
//! its searches every [`POLL_INTERVAL`] MID calls: a thread of its own for them would have to
//! be woken for each message, which on a machine whose cores all search waits for a search
//! thread's time slice to end, and its wake-ups would take cores from the searches.
//!
//! No send can wait on another: buffered sends never wait, and a message too large for the
//! buffer goes without blocking from rank 0, which takes results in while it is under way
//! (see [`MpiWorkers::send_bytes`]), so a worker rank blocked sending a large result always
//! gets it through and goes back to receiving.

// The module's documentation explains its private constants to whoever maintains it (read it
// with `cargo doc --features mpi --document-private-items`), so it links to them.
#![allow(rustdoc::private_intra_doc_links)]

mod buffer;
mod open_mpi;
mod rank;
mod root;
mod tables;

pub use buffer::{attach_send_buffer, send_buffer_bytes, SendBuffer};
pub use open_mpi::ask_for_large_eager_messages;
pub use rank::{cpu_shortfall_warning, report_table_use, serve};
pub use root::MpiWorkers;
pub use tables::{
    gather_worker_ranks, machine_table, send_worker_rank_setup, worker_ranks, WorkerRankSetup,
};

use crate::search::dfpn::TableEntry;
use crate::search::workers::spare_jobs;
use crate::search::Job;
use crate::table::Table;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The MPI tag of every message of the protocol but the last.
const TAG: i32 = 7;
/// The MPI tag of a worker rank's last message, what its table holds (see
/// [`report_table_use`]): a tag of its own, so that rank 0 takes it in past any result still
/// on its way.
const TABLE_USE_TAG: i32 = 8;
/// The most jobs in flight at a worker rank of `threads` threads: one per thread and
/// [`spare_jobs`] more, so that the message round trip does not leave its threads idle (a
/// one-thread rank holds the next job while it runs one). Every job in flight steers the next
/// selection away from its leaf, so more jobs ahead cost nodes: two per thread, the rule
/// before, searched more at ranks of four threads (BENCHMARKS.md, "Scaling").
fn jobs_per_rank(threads: usize) -> usize {
    let threads = threads.max(1);
    threads + spare_jobs(threads)
}
/// How long rank 0's main thread sleeps when it has nothing to do. Shorter sleeps and shorter
/// scheduler slices measured within the noise (BENCHMARKS.md, MPI).
const IDLE: Duration = Duration::from_micros(200);
/// How long a worker rank's main thread waits for its threads' next result (which it then
/// forwards at once) before it looks for rank 0's messages again: a result forwarded at once
/// keeps the root's tree fresher than one forwarded after a sleep (BENCHMARKS.md, MPI).
const WORKER_WAIT: Duration = Duration::from_micros(100);
/// MID calls a job spends at its leaf at the least (unless it solves the leaf first, or its
/// work limit is lower), past the thresholds that would end it sooner (see
/// [`crate::search::Job::run`]). Most jobs pass their thresholds after a fraction of a
/// millisecond, less than a round trip through rank 0: without a minimum the worker ranks
/// would be idle most of the time on short solves. The minimum buys the threads' time through
/// the round trip, not a shorter search: every MID call past the thresholds is spent where
/// the root would not have sent the job, so a larger minimum costs nodes. Since ranks hold a
/// job ahead ([`jobs_per_rank`]), a thread needs its job to outlast a round trip only, not to
/// cover it alone. The value and the alternatives tried are in BENCHMARKS.md (MPI, and
/// Scaling).
const MIN_JOB_WORK: u64 = 1_000;
/// Solved subtrees rank 0 holds at most for one table (the worker ranks that share it) until its
/// ranks' next jobs; the oldest are dropped first (they are facts its ranks may find again, not
/// work they owe). They ride on jobs because messages of their own would keep rank 0 waiting for
/// their sends, time in which no result reaches the root tree and no new job goes out.
const MAX_UNSENT_LEARNED: usize = 65_536;
/// Solved subtrees that ride on one job at most, so that a job fits in
/// [`BUFFERED_MESSAGE_BYTES`].
const LEARNED_PER_JOB: usize = 1_024;
/// Solved subtrees one result shares at most (those of most work), so that a result fits in
/// [`BUFFERED_MESSAGE_BYTES`].
const SHARED_PER_RESULT: usize = 1_024;
/// The largest job or result sent buffered; a larger one is sent without the buffer. A job
/// with [`LEARNED_PER_JOB`] entries and a result with 81 children and [`SHARED_PER_RESULT`]
/// entries fit, each with [`crate::search::handover::HANDED_OVER_ENTRIES`] more, with every
/// number at its largest (tested).
const BUFFERED_MESSAGE_BYTES: usize = 100 * 1024;
/// Bytes MPI adds to each buffered message, rounded up generously (Open MPI's
/// `MPI_BSEND_OVERHEAD` is about a hundred).
const BSEND_OVERHEAD_BYTES: usize = 1024;
/// The largest send buffer a rank attaches (MPI takes its size as a C `int`); a rank that
/// would need more sends without one.
const MAX_SEND_BUFFER_BYTES: usize = 1 << 30;
/// How long a worker rank's main thread polls for rank 0's messages without sleeping while a
/// worker thread waits for a job (see the module documentation); after that it waits on its
/// threads' results ([`WORKER_WAIT`]) between looks, as when every thread is busy, so that a
/// rank left without jobs does not keep a core busy.
const SPIN_FOR: Duration = Duration::from_millis(2);
/// MID calls between two looks of a worker rank's main thread, while it searches, at the
/// rank's messages (see [`serve`]): about a tenth of a millisecond.
const POLL_INTERVAL: u64 = 256;

/// From rank 0 to a worker rank.
#[derive(Serialize, Deserialize)]
enum ToWorker {
    /// A job to run, the subtrees other ranks solved since this rank's last job (facts to
    /// store in its table first), and, for a job whose subtree another rank searched last,
    /// that rank's entries of it (see [`crate::search::handover`]).
    Job {
        /// Boxed: the other messages are a word or two.
        job: Box<Job>,
        learned: Vec<TableEntry>,
        #[serde(default)]
        subtree: Vec<TableEntry>,
    },
    /// Return the running jobs at once.
    Abort,
    /// The solve is over: exit.
    Stop,
}

/// How rank 0 chooses the rank of a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Assignment {
    /// To the rank that worked on the job's subtree before (see the module documentation).
    Locality,
    /// Each rank in turn.
    RoundRobin,
}

/// One worker rank's figures, reported under `ranks` in the JSON.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RankReport {
    /// The rank.
    pub rank: usize,
    /// Jobs it finished.
    pub jobs: u64,
    /// MID calls it made.
    pub nodes: u64,
    /// Jobs it was sent at a leaf whose subtree another rank searched last (that rank's
    /// table, not this one's, holds what was found there): under locality, the jobs sent on
    /// because their rank held its most jobs.
    pub jobs_moved: u64,
    /// Its search threads.
    pub threads: usize,
    /// Share of its threads' time spent searching, over the whole solve.
    pub busy_pct: f64,
    /// The rank that made the table it searches against: the first worker rank of its
    /// machine, whose worker ranks share one table, or itself when it keeps its own (see
    /// [`machine_table`]).
    pub table_rank: usize,
    /// What that table held once the run was over.
    pub table: TableUse,
    /// The messages rank 0 sent it (jobs, aborts and the stop) and their bytes.
    pub to_rank: MessageCount,
    /// The messages it sent rank 0 (results) and their bytes.
    pub from_rank: MessageCount,
}

/// A count of messages and of their bytes (the payload, as MPI was given it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MessageCount {
    /// Messages.
    pub messages: u64,
    /// Their bytes together.
    pub bytes: u64,
}

impl MessageCount {
    /// Counts one message of `bytes`.
    fn add(&mut self, bytes: usize) {
        self.messages += 1;
        self.bytes += bytes as u64;
    }

    /// The counts of `counts` together.
    pub fn total<'c>(counts: impl IntoIterator<Item = &'c MessageCount>) -> MessageCount {
        counts
            .into_iter()
            .fold(MessageCount::default(), |sum, c| MessageCount {
                messages: sum.messages + c.messages,
                bytes: sum.bytes + c.bytes,
            })
    }
}

/// How large a worker rank's table is and how full at the end of a run: the rank's last
/// message to rank 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TableUse {
    /// Its size.
    pub bytes: u64,
    /// The part of it in use (an anonymous table grows into its size as it fills).
    pub active_bytes: u64,
    /// Its entry capacity.
    pub entries: u64,
    /// The estimated fraction of its entries in use.
    pub fill: f64,
}

impl TableUse {
    /// The tables the worker ranks of `ranks` searched against, together: each once, however
    /// many ranks share it (see [`root::table_indices`]), their sizes and entries added and
    /// their fills averaged by entries.
    pub fn of_tables(ranks: &[RankReport]) -> TableUse {
        let table_ranks: Vec<usize> = ranks.iter().map(|r| r.table_rank).collect();
        let mut tables: Vec<TableUse> = Vec::new();
        for (rank, &table) in ranks.iter().zip(&root::table_indices(&table_ranks)) {
            // Tables are numbered in the order they first appear: this is its first rank.
            if table == tables.len() {
                tables.push(rank.table);
            }
        }
        let entries: u64 = tables.iter().map(|t| t.entries).sum();
        TableUse {
            bytes: tables.iter().map(|t| t.bytes).sum(),
            active_bytes: tables.iter().map(|t| t.active_bytes).sum(),
            entries,
            fill: tables
                .iter()
                .map(|t| t.fill * t.entries as f64)
                .sum::<f64>()
                / entries.max(1) as f64,
        }
    }

    /// What `table` holds now.
    pub fn of(table: &Table) -> TableUse {
        TableUse {
            bytes: table.bytes(),
            active_bytes: table.active_bytes(),
            entries: table.entries(),
            fill: table.fill(),
        }
    }
}

fn encode<T: Serialize>(message: &T) -> Vec<u8> {
    serde_json::to_vec(message).expect("protocol messages serialise")
}

#[cfg(test)]
mod tests {
    use super::rank::share_most_work;
    use super::*;
    use crate::game::Player;
    use crate::search::guide::Guide;
    use crate::search::handover::HANDED_OVER_ENTRIES;
    use crate::search::JobResult;
    use crate::search::{Numbers, Question, WorkBudget};
    use crate::table::TableCounters;

    #[test]
    fn a_rank_with_fewer_cpus_than_threads_is_told_how_to_unbind_it() {
        assert_eq!(cpu_shortfall_warning(1, 2, 2), None);
        assert_eq!(cpu_shortfall_warning(1, 1, 1), None);
        let warning = cpu_shortfall_warning(3, 2, 1).expect("1 CPU for 2 threads");
        assert!(warning.contains("rank 3 may run on 1 CPU(s) but has 2 worker threads"));
        assert!(warning.contains("--bind-to none"));
    }

    /// A solved entry with every number at its largest, so the longest in JSON.
    fn longest_entry(work: u64) -> TableEntry {
        TableEntry {
            key: u64::MAX,
            numbers: Numbers {
                phi: u32::MAX,
                delta: u32::MAX,
            },
            work,
        }
    }

    #[test]
    fn the_largest_job_and_result_fit_a_buffered_slot() {
        let most = Numbers {
            phi: u32::MAX,
            delta: u32::MAX,
        };
        let job = Job {
            root: "X;.XO.....X;.XOXX.X.O/XXXXO.O../OOXX..OOO/OO..XOOXO/.OXOOXX.O/O..X..OXO/XOXOXX.XO/O.O.OO.X./..XXXXX.."
                .parse()
                .unwrap(),
            question: Question {
                attacker: Player::O,
                deadline: Some(u8::MAX),
            },
            epsilon: f64::MAX,
            guide: Guide::Learned,
            path: vec![80; 81],
            thresholds: most,
            work: WorkBudget {
                limit: u64::MAX,
                minimum: u64::MAX,
                time: Some(std::time::Duration::new(u64::MAX, 999_999_999)),
            },
            share_solved_from: Some(u64::MAX),
            hand_over: usize::MAX,
        };
        let learned = vec![longest_entry(u64::MAX); LEARNED_PER_JOB];
        let subtree = vec![longest_entry(u64::MAX); HANDED_OVER_ENTRIES];
        let job_bytes = encode(&ToWorker::Job {
            job: Box::new(job),
            learned,
            subtree,
        })
        .len();
        assert!(
            job_bytes <= BUFFERED_MESSAGE_BYTES,
            "a job of {job_bytes} bytes"
        );
        let result = JobResult {
            path: vec![80; 81],
            numbers: most,
            work: u64::MAX,
            work_limit: u64::MAX,
            children: vec![(80, most); 81],
            busy_ns: u64::MAX,
            counters: TableCounters {
                lookups: u64::MAX,
                hits: u64::MAX,
                stores: u64::MAX,
                replacements: u64::MAX,
                fills: u64::MAX,
            },
            solved: (0..3 * SHARED_PER_RESULT as u64)
                .map(|work| longest_entry(u64::MAX - work))
                .collect(),
            subtree: vec![longest_entry(u64::MAX); HANDED_OVER_ENTRIES],
        };
        // More subtrees than a result shares: the ones of most work are kept.
        let shared = share_most_work(result);
        assert_eq!(shared.solved.len(), SHARED_PER_RESULT);
        let least_kept = u64::MAX - (SHARED_PER_RESULT as u64 - 1);
        assert!(shared.solved.iter().all(|entry| entry.work >= least_kept));
        let result_bytes = encode(&shared).len();
        assert!(
            result_bytes <= BUFFERED_MESSAGE_BYTES,
            "a result of {result_bytes} bytes"
        );
    }

    #[test]
    fn the_tables_of_ranks_together_count_each_shared_table_once() {
        let table = |bytes: u64, fill: f64| TableUse {
            bytes,
            active_bytes: bytes / 2,
            entries: bytes / 16,
            fill,
        };
        let rank = |rank: usize, table_rank: usize, table: TableUse| RankReport {
            rank,
            table_rank,
            table,
            ..RankReport::default()
        };
        // Ranks 1 and 2 share rank 1's table, rank 3 keeps its own, twice as large.
        let ranks = [
            rank(1, 1, table(1 << 20, 0.5)),
            rank(2, 1, table(1 << 20, 0.5)),
            rank(3, 3, table(2 << 20, 0.2)),
        ];
        let together = TableUse::of_tables(&ranks);
        assert_eq!(together.bytes, 3 << 20);
        assert_eq!(together.active_bytes, 3 << 19);
        assert_eq!(together.entries, (3 << 20) / 16);
        assert!((together.fill - 0.3).abs() < 1e-12, "{together:?}");
        assert_eq!(TableUse::of_tables(&[]), TableUse::default());
    }

    #[test]
    fn tables_are_numbered_in_the_order_they_first_appear() {
        use super::root::table_indices;
        // Worker ranks 1, 2 and 5 on one machine, 3 and 4 on another, 6 alone.
        assert_eq!(table_indices(&[1, 1, 3, 3, 1, 6]), vec![0, 0, 1, 1, 0, 2]);
        // A table per rank.
        assert_eq!(table_indices(&[1, 2, 3]), vec![0, 1, 2]);
        assert_eq!(table_indices(&[]), Vec::<usize>::new());
    }

    #[test]
    fn the_send_buffer_holds_twice_the_jobs_in_flight_per_destination() {
        let slot = BUFFERED_MESSAGE_BYTES + BSEND_OVERHEAD_BYTES;
        // Rank 0 of `-np 3 --threads 1`: two worker ranks of two jobs each (one running, one
        // waiting).
        assert_eq!(send_buffer_bytes(&[1, 1]), Some(2 * 2 * 2 * slot));
        // Worker ranks of different threads: each holds its own jobs.
        assert_eq!(
            send_buffer_bytes(&[1, 4, 16]),
            Some(2 * (2 + 5 + 20) * slot)
        );
        // A worker rank sends to rank 0 alone: four threads hold five jobs.
        assert_eq!(send_buffer_bytes(&[4]), Some(2 * 5 * slot));
        assert_eq!(send_buffer_bytes(&[16]), Some(2 * 20 * slot));
        // Beyond what MPI can attach, no buffer.
        assert_eq!(send_buffer_bytes(&vec![64; 99_999]), None);
    }
}
