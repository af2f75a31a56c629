//! The default transport: worker threads in this process, all searching against the solve's
//! own table, fed over channels.

use super::{receive_from_threads, spare_jobs, spawn_workers, start_round, Workers};
use crate::search::dfpn::Limits;
use crate::search::job::{Job, JobResult, JobTerms};
use crate::search::threads::ThreadError;
use crate::table::Table;
use crossbeam_channel::{Receiver, Sender};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// The worker threads of [`with_local_workers`].
struct LocalWorkers<'a> {
    threads: usize,
    jobs: Sender<Job>,
    results: Receiver<JobResult>,
    abort: &'a AtomicBool,
    /// Raised by a worker thread that panicked: its job's result will never come.
    failed: &'a AtomicBool,
}

impl Workers for LocalWorkers<'_> {
    fn slots(&self) -> usize {
        queued_jobs(self.threads) + self.threads
    }

    fn threads(&self) -> usize {
        self.threads
    }

    fn terms(&self) -> JobTerms {
        // One table: nothing to share, and no message round trip to hide.
        JobTerms::default()
    }

    fn submit(&mut self, job: Job) {
        start_round(self.abort);
        self.jobs.send(job).expect("workers outlive the root loop");
    }

    fn receive(&mut self, timeout: Duration) -> Option<JobResult> {
        receive_from_threads(&self.results, timeout, self.failed)
    }

    fn abort(&mut self) -> Vec<Job> {
        self.abort.store(true, std::sync::atomic::Ordering::Relaxed);
        // Every job submitted is in the channel or running: all come back.
        Vec::new()
    }
}

/// How many jobs wait in the channel beyond one per thread: [`spare_jobs`], except for a single
/// thread, which gets no queue: with one job in flight at a time the root's merges never race
/// the job, which keeps the one-worker search deterministic.
fn queued_jobs(threads: usize) -> usize {
    if threads > 1 {
        spare_jobs(threads)
    } else {
        0
    }
}

/// Calls `f` with `threads` worker threads (at least one) that run jobs against `table` within
/// `limits`' deadline, count their nodes in its live display and read its calibration (the
/// workers are stopped by [`Workers::abort`], not by its stop flag); the threads end when `f`
/// returns. A thread the system refuses is an error, and `f` is not called.
pub fn with_local_workers<R>(
    table: &Table,
    threads: usize,
    limits: Limits,
    f: impl FnOnce(&mut dyn Workers) -> R,
) -> Result<R, ThreadError> {
    let abort = AtomicBool::new(false);
    let failed = AtomicBool::new(false);
    let limits = Limits {
        stop: &abort,
        ..limits
    };
    let (job_tx, job_rx) = crossbeam_channel::unbounded::<Job>();
    let (result_tx, result_rx) = crossbeam_channel::unbounded::<JobResult>();
    let threads = threads.max(1);
    std::thread::scope(|scope| {
        spawn_workers(scope, threads, &job_rx, &result_tx, table, limits, &failed)?;
        drop(result_tx);
        let mut workers = LocalWorkers {
            threads,
            jobs: job_tx,
            results: result_rx,
            abort: &abort,
            failed: &failed,
        };
        // Dropping the workers, also when `f` panics, closes the job channel: the threads
        // finish and the scope ends.
        Ok(f(&mut workers))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_thread_gets_no_queue_and_more_threads_one_job_queued_per_four() {
        let queued: Vec<usize> = [1, 2, 3, 4, 7, 8, 16, 64].map(queued_jobs).to_vec();
        assert_eq!(queued, vec![0, 1, 1, 1, 1, 2, 4, 16]);
    }
}
