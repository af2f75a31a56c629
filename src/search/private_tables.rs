//! PN-DFPN workers that each search against a table of their own, in this process: what the
//! worker ranks of an MPI run do, without the messages (`uttt solve --private-tables`). Jobs
//! are placed as MPI's locality places them ([`Owners`]), one per thread, and a job's solved
//! subtrees go into every other worker's table as its result comes in, as MPI passes them on.
//! So the time of a solve against one process's shared table is what separate tables cost,
//! and the time of an MPI solve against this is what the message layer costs.

use super::dfpn::Limits;
use super::placement::Owners;
use super::pn_dfpn::{run_timed_job, Job, JobResult, Workers};
use super::{Table, TableCounters};
use crate::game::Position;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Solved subtrees of at least this many MID calls are shared, as over MPI.
const SHARE_MIN_WORK: u64 = 64;

/// The workers of [`with_private_tables`].
struct PrivateTableWorkers<'a> {
    tables: &'a [Table],
    jobs: Vec<crossbeam_channel::Sender<(Position, f64, Job)>>,
    results: crossbeam_channel::Receiver<(usize, JobResult)>,
    abort: &'a AtomicBool,
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
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => return None,
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                panic!("a worker thread ended with a job in flight")
            }
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

/// Calls `f` with PN-DFPN workers, one thread per table of `tables`, each searching against
/// its own; the threads end when `f` returns.
pub fn with_private_tables<R>(tables: &[Table], f: impl FnOnce(&mut dyn Workers) -> R) -> R {
    let abort = AtomicBool::new(false);
    let limits = Limits::stop_only(&abort);
    let (result_tx, results) = crossbeam_channel::unbounded();
    std::thread::scope(|scope| {
        let jobs = tables
            .iter()
            .enumerate()
            .map(|(worker, table)| {
                let (job_tx, job_rx) = crossbeam_channel::unbounded::<(Position, f64, Job)>();
                let result_tx = result_tx.clone();
                scope.spawn(move || {
                    for (root, epsilon, job) in job_rx {
                        let result = run_timed_job(&root, &job, table, epsilon, limits, None);
                        if result_tx.send((worker, result)).is_err() {
                            break;
                        }
                    }
                });
                job_tx
            })
            .collect();
        // Only the threads hold senders now: a thread that panicked closes the channel.
        drop(result_tx);
        let mut workers = PrivateTableWorkers {
            tables,
            jobs,
            results,
            abort: &abort,
            search: None,
            in_flight: vec![0; tables.len()],
            owners: Owners::default(),
        };
        let answer = f(&mut workers);
        // Dropping the workers closes the job channels: the threads finish.
        drop(workers);
        answer
    })
}
