//! PN-DFPN workers that each search against a table of their own, in this process: what the
//! worker ranks of an MPI run do, without the messages (`uttt solve --private-tables`). Jobs
//! are placed (and held for a busy owner) as MPI's locality places them ([`Placement`]); a
//! job's solved subtrees go into every other worker's table as its result comes in, as MPI
//! passes them on; and a job that moves takes the old table's knowledge of its subtree with it
//! ([`crate::search::handover`]), as over MPI it takes the subtree's last snapshot. Unlike over
//! MPI, a thread holds one job at a time and a job has no minimum of work (there is no round
//! trip to hide), and every solved subtree of [`SHARE_MIN_WORK`] or more is shared at once. So
//! the time of a solve against one process's shared table is what separate tables cost, and
//! the time of an MPI solve against this is what the message layer costs together with the
//! queue and the minimum that hide its round trip.

use super::placement::{Placement, SHARE_MIN_WORK};
use super::{receive_from_threads, serve_jobs, start_round, PanicFlag, Workers};
use crate::search::dfpn::{Limits, LiveStats};
use crate::search::handover::{install, subtree_entries, HANDED_OVER_ENTRIES};
use crate::search::job::{Job, JobResult, JobTerms};
use crate::search::threads::{spawn_gated, ThreadError};
use crate::table::Table;
use crossbeam_channel::{Receiver, Sender};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The workers of [`with_private_tables`].
struct PrivateTableWorkers<'a> {
    tables: &'a [Table],
    jobs: Vec<Sender<Job>>,
    results: Receiver<(usize, JobResult)>,
    abort: &'a AtomicBool,
    /// Raised by a worker thread that panicked: its job's result will never come.
    failed: &'a AtomicBool,
    placement: Placement<Job>,
}

impl Workers for PrivateTableWorkers<'_> {
    fn slots(&self) -> usize {
        self.jobs.len() + self.placement.hold_slots()
    }

    fn threads(&self) -> usize {
        self.jobs.len()
    }

    fn terms(&self) -> JobTerms {
        JobTerms {
            min_work: 0,
            share_solved_from: Some(SHARE_MIN_WORK),
            // The owner's table is at hand when a job moves: nothing to snapshot.
            hand_over: 0,
        }
    }

    fn submit(&mut self, job: Job) {
        start_round(self.abort);
        let preferred = self.placement.owner(&job.path).unwrap_or(0);
        let path = job.path.clone();
        if let Some(sent) = self.placement.submit(&path, preferred, job) {
            if let Some(owner) = sent.placed.moved_from {
                // The subtree's knowledge goes with it (see `crate::search::handover`).
                let entries = subtree_entries(
                    &self.tables[owner],
                    &sent.job.leaf(),
                    sent.job.question,
                    HANDED_OVER_ENTRIES,
                );
                install(&entries, &mut self.tables[sent.placed.worker].writer());
            }
            self.send(sent.placed.worker, sent.job);
        }
    }

    fn receive(&mut self, timeout: Duration) -> Option<JobResult> {
        let (worker, mut result) = receive_from_threads(&self.results, timeout, self.failed)?;
        if let Some(held) = self.placement.finished(worker) {
            self.send(worker, held);
        }
        let solved = std::mem::take(&mut result.solved);
        for (other, table) in self.tables.iter().enumerate() {
            if other != worker {
                let mut writer = table.writer();
                for entry in &solved {
                    entry.store(&mut writer);
                }
            }
        }
        Some(result)
    }

    fn abort(&mut self) -> Vec<Job> {
        self.abort.store(true, Ordering::Relaxed);
        self.placement.take_held()
    }
}

impl PrivateTableWorkers<'_> {
    fn send(&self, worker: usize, job: Job) {
        self.jobs[worker]
            .send(job)
            .expect("the worker threads outlive the searches");
    }
}

/// Calls `f` with PN-DFPN workers, one thread per table of `tables` (at least one), each
/// searching against its own and counting its nodes in `live`; the threads end when `f`
/// returns. A thread the system refuses is an error, and `f` is not called.
pub fn with_private_tables<R>(
    tables: &[Table],
    live: Option<&LiveStats>,
    f: impl FnOnce(&mut dyn Workers) -> R,
) -> Result<R, ThreadError> {
    assert!(!tables.is_empty(), "workers need at least one table");
    let abort = AtomicBool::new(false);
    let failed = AtomicBool::new(false);
    // The root loop ends the jobs at a deadline (by `Workers::abort`), as over MPI.
    let limits = Limits {
        stop: &abort,
        deadline: None,
        live,
        calibration: None,
    };
    let (result_tx, results) = crossbeam_channel::unbounded();
    std::thread::scope(|scope| {
        let mut jobs = Vec::with_capacity(tables.len());
        spawn_gated(scope, tables.len(), |worker| {
            let (job_tx, job_rx) = crossbeam_channel::unbounded::<Job>();
            jobs.push(job_tx);
            let (table, result_tx, failed) = (&tables[worker], result_tx.clone(), &failed);
            move || {
                let _flag = PanicFlag(failed);
                serve_jobs(job_rx, table, limits, |result| {
                    result_tx.send((worker, result)).is_ok()
                });
            }
        })?;
        drop(result_tx);
        let mut workers = PrivateTableWorkers {
            tables,
            jobs,
            results,
            abort: &abort,
            failed: &failed,
            placement: Placement::new(tables.len(), 1, true),
        };
        // Dropping the workers, also when `f` panics, closes the job channels: the threads
        // finish and the scope ends.
        Ok(f(&mut workers))
    })
}
