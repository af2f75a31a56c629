//! PN-DFPN workers that each search against a table of their own, in this process: what the
//! worker ranks of an MPI run do, without the messages (`uttt solve --private-tables`). Jobs
//! are placed as MPI's locality places them ([`Owners`]), and a job's solved subtrees go into
//! every other worker's table as its result comes in, as MPI passes them on. Unlike over MPI,
//! a thread holds one job at a time and a job has no minimum of work (there is no round trip
//! to hide), and every solved subtree of [`SHARE_MIN_WORK`] or more is shared at once. So the
//! time of a solve against one process's shared table is what separate tables cost, and the
//! time of an MPI solve against this is what the message layer costs together with the queue
//! and the minimum that hide its round trip.

use super::dfpn::{Limits, LiveStats};
use super::placement::{Owners, SHARE_MIN_WORK};
use super::pn_dfpn::{work_through_jobs, Job, JobResult, PanicFlag, Workers};
use super::{Table, TableCounters};
use crate::game::Position;
use crossbeam_channel::RecvTimeoutError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The workers of [`with_private_tables`].
struct PrivateTableWorkers<'a> {
    tables: &'a [Table],
    jobs: Vec<crossbeam_channel::Sender<(Position, f64, Job)>>,
    results: crossbeam_channel::Receiver<(usize, JobResult)>,
    abort: &'a AtomicBool,
    /// Raised by a worker thread that panicked: its job's result will never come.
    failed: &'a AtomicBool,
    /// The current search's root and ε.
    search: Option<(Position, f64)>,
    in_flight: Vec<usize>,
    owners: Owners,
}

impl Workers for PrivateTableWorkers<'_> {
    fn slots(&self) -> usize {
        self.jobs.len()
    }

    fn threads(&self) -> usize {
        self.jobs.len()
    }

    fn begin(&mut self, root: &Position, epsilon: f64) {
        self.search = Some((*root, epsilon));
        self.abort.store(false, Ordering::Relaxed);
    }

    fn submit(&mut self, mut job: Job) {
        let preferred = self.owners.of(&job.path).unwrap_or(0);
        let placed = self.owners.place(&job.path, preferred, &self.in_flight, 1);
        self.in_flight[placed.worker] += 1;
        job.share_min_work = Some(SHARE_MIN_WORK);
        let (root, epsilon) = self.search.expect("a search begins before its jobs");
        self.jobs[placed.worker]
            .send((root, epsilon, job))
            .expect("the worker threads outlive the searches");
    }

    fn receive(&mut self, timeout: Duration) -> Option<JobResult> {
        let (worker, mut result) = match self.results.recv_timeout(timeout) {
            Ok(received) => received,
            Err(RecvTimeoutError::Timeout) if !self.failed.load(Ordering::Relaxed) => return None,
            // Waiting on would never end: the root loop waits for every job in flight.
            Err(_) => panic!("a worker thread ended with a job in flight"),
        };
        self.in_flight[worker] -= 1;
        let mut counters = TableCounters::default();
        for entry in std::mem::take(&mut result.solved) {
            for (other, table) in self.tables.iter().enumerate() {
                if other != worker {
                    entry.store(table, &mut counters);
                }
            }
        }
        Some(result)
    }

    fn abort(&mut self) {
        self.abort.store(true, Ordering::Relaxed);
    }
}

/// Calls `f` with PN-DFPN workers, one thread per table of `tables` (at least one), each
/// searching against its own and counting its nodes in `live`; the threads end when `f`
/// returns.
pub fn with_private_tables<R>(
    tables: &[Table],
    live: Option<&LiveStats>,
    f: impl FnOnce(&mut dyn Workers) -> R,
) -> R {
    assert!(!tables.is_empty(), "workers need at least one table");
    let abort = AtomicBool::new(false);
    let failed = AtomicBool::new(false);
    // The root loop ends the jobs at a deadline (by `Workers::abort`), as over MPI.
    let limits = Limits {
        stop: &abort,
        deadline: None,
        live,
    };
    let (result_tx, results) = crossbeam_channel::unbounded();
    std::thread::scope(|scope| {
        let jobs = tables
            .iter()
            .enumerate()
            .map(|(worker, table)| {
                let (job_tx, job_rx) = crossbeam_channel::unbounded::<(Position, f64, Job)>();
                let result_tx = result_tx.clone();
                let failed = &failed;
                scope.spawn(move || {
                    let _flag = PanicFlag(failed);
                    work_through_jobs(job_rx, table, limits, |result| {
                        result_tx.send((worker, result)).is_ok()
                    });
                });
                job_tx
            })
            .collect();
        drop(result_tx);
        let mut workers = PrivateTableWorkers {
            tables,
            jobs,
            results,
            abort: &abort,
            failed: &failed,
            search: None,
            in_flight: vec![0; tables.len()],
            owners: Owners::default(),
        };
        // Dropping the workers, also when `f` panics, closes the job channels: the threads
        // finish and the scope ends.
        f(&mut workers)
    })
}
