//! Transports of PN-DFPN jobs: they move [`Job`]s from the root tree to whatever runs them and
//! [`JobResult`]s back, and nothing else. In this process: [`local`] (threads sharing the
//! solve's table, the default) and [`private`] (threads with a table each, as MPI ranks have);
//! across processes, `crate::distributed` (the `mpi` feature).

pub mod local;
pub mod placement;
pub mod private;

use super::dfpn::Limits;
use super::job::{Job, JobResult, JobTerms};
use super::threads::{spawn_gated, ThreadError};
use crate::table::Table;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Where PN-DFPN jobs run. The root loop submits jobs and takes results back; a transport
/// neither makes nor changes a job.
///
/// Rounds: after [`Workers::abort`], every job in flight returns at once and its result
/// still comes back, except the jobs the abort hands back unstarted; the caller takes all of
/// them in before it submits again, and the next job submitted starts a new round, which the
/// abort no longer concerns.
pub trait Workers {
    /// How many jobs may be in flight at once.
    fn slots(&self) -> usize;
    /// How many threads run them (for the busy share).
    fn threads(&self) -> usize;
    /// What this transport asks of every job (see [`JobTerms`]).
    fn terms(&self) -> JobTerms;
    /// Starts a job.
    fn submit(&mut self, job: Job);
    /// A finished job's result, waiting at most `timeout` for one.
    fn receive(&mut self, timeout: Duration) -> Option<JobResult>;
    /// Asks the running jobs to return at once; their results still come back. Returns the
    /// jobs submitted but not started (held for a busy worker, see
    /// [`placement::Placement`]): they never run, and no result comes for them.
    fn abort(&mut self) -> Vec<Job>;
}

/// The jobs a group of `threads` worker threads (one process's, or one MPI rank's) holds beyond
/// one per thread, so that a thread that finishes a job takes the next at once instead of
/// idling while its result reaches the root and the root selects a new leaf. One per four
/// threads, and at least one: the more threads, the more of them finish within one such round
/// trip. No more, because every job in flight steers the root's next selection away from its
/// leaf, so jobs held ahead send the workers to worse leaves. Measured against one spare and
/// against two jobs per thread, in one process on 16 real cores and over MPI
/// (BENCHMARKS.md, "Scaling").
pub fn spare_jobs(threads: usize) -> usize {
    (threads / 4).max(1)
}

/// A worker thread's loop: runs every job from `jobs` against `table` within `limits` and
/// hands its result to `deliver`, until the jobs end or `deliver` returns false (nobody takes
/// results any more).
pub fn serve_jobs(
    jobs: Receiver<Job>,
    table: &Table,
    limits: Limits,
    mut deliver: impl FnMut(JobResult) -> bool,
) {
    for job in jobs {
        if !deliver(job.run(table, limits, None)) {
            break;
        }
    }
}

/// Starts `count` worker threads in `scope` (each serving the jobs against `table`, see
/// [`serve_jobs`], and raising `failed` if it panics, see [`PanicFlag`]; all or none: see
/// [`spawn_gated`]) that share the job channel `jobs` and send their results to `results`,
/// until either channel closes.
pub(crate) fn spawn_workers<'scope, 'env>(
    scope: &'scope std::thread::Scope<'scope, 'env>,
    count: usize,
    jobs: &Receiver<Job>,
    results: &Sender<JobResult>,
    table: &'env Table,
    limits: Limits<'env>,
    failed: &'env AtomicBool,
) -> Result<(), ThreadError> {
    spawn_gated(scope, count, |_| {
        let (jobs, results) = (jobs.clone(), results.clone());
        move || {
            let _flag = PanicFlag(failed);
            serve_jobs(jobs, table, limits, |result| results.send(result).is_ok());
        }
    })?;
    Ok(())
}

/// Raises its flag when dropped while its thread panics: a worker thread holds one, so that
/// the root loop, which waits for every job in flight, learns that one result will never
/// come even while the other threads keep the result channel open.
pub(crate) struct PanicFlag<'a>(pub(crate) &'a AtomicBool);

impl Drop for PanicFlag<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

/// The next result from worker threads, waiting at most `timeout`; `None` if none came.
///
/// # Panics
/// When a worker thread panicked (`failed`, see [`PanicFlag`]) and no result is waiting: the
/// root loop waits for every job in flight, and that job's result will never come.
fn receive_from_threads<T>(
    results: &Receiver<T>,
    timeout: Duration,
    failed: &AtomicBool,
) -> Option<T> {
    match results.recv_timeout(timeout) {
        Ok(result) => Some(result),
        Err(RecvTimeoutError::Timeout) if !failed.load(Ordering::Relaxed) => None,
        Err(_) => panic!("a PN-DFPN worker thread ended with a job in flight"),
    }
}

/// Lowers `abort` when a job starts a new round (see [`Workers`]): every job of the aborted
/// round has returned by then, so no search still reads it.
fn start_round(abort: &AtomicBool) {
    abort.store(false, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_thread_that_panics_raises_its_flag_and_one_that_ends_does_not() {
        let failed = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let ended = scope.spawn(|| {
                let _flag = PanicFlag(&failed);
            });
            assert!(ended.join().is_ok());
        });
        assert!(!failed.load(Ordering::Relaxed));
        std::thread::scope(|scope| {
            let panicked = scope.spawn(|| {
                let _flag = PanicFlag(&failed);
                panic!("a worker's bug");
            });
            assert!(panicked.join().is_err());
        });
        assert!(failed.load(Ordering::Relaxed));
    }
}
