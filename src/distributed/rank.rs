//! A worker rank's side: its search threads, and its main thread passing messages between
//! them and rank 0.

use super::{
    encode, SendBuffer, TableUse, ToWorker, POLL_INTERVAL, SHARED_PER_RESULT, SPIN_FOR,
    TABLE_USE_TAG, TAG, WORKER_WAIT,
};
use crate::search::dfpn::{Limits, Poll};
use crate::search::handover::install;
use crate::search::workers::spawn_workers;
use crate::search::{Job, JobResult};
use crate::table::Table;
use mpi::topology::{Process, SimpleCommunicator};
use mpi::traits::*;
use std::cmp::Reverse;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The exit code of a Rust program that panicked: the MPI job's when a worker rank's search
/// thread panicked (the thread has said why on standard error) in a build that unwinds. A
/// release build aborts the process at the panic instead (`panic = "abort"`), and `mpirun`
/// ends the job.
const PANIC_EXIT_CODE: i32 = 101;

/// Ends the whole MPI job after one of this rank's search threads panicked: its job's result
/// will never come, and rank 0 would wait for it for ever.
fn end_job_after_panic(world: &SimpleCommunicator) -> ! {
    eprintln!(
        "uttt: rank {}: a search thread failed; ending the MPI job",
        world.rank()
    );
    world.abort(PANIC_EXIT_CODE)
}

/// What a worker rank says when it may run on fewer CPUs than it has worker threads, or
/// `None` when it has enough. `mpirun` binds each rank to one core by default when it starts
/// no more ranks than the machine has cores (`-np 2` on any machine), and a rank's worker
/// threads then share that core, each at a fraction of its speed.
pub fn cpu_shortfall_warning(rank: usize, threads: usize, cpus: usize) -> Option<String> {
    (cpus < threads).then(|| {
        format!(
            "uttt: rank {rank} may run on {cpus} CPU(s) but has {threads} worker threads, \
             which then share them (mpirun binds each rank to a core by default when it starts \
             no more ranks than there are cores): start mpirun with --bind-to none, or give \
             each rank {threads} cores (--map-by slot:PE={threads})"
        )
    })
}

/// A worker rank's side: runs `threads` DFPN threads against `table` on the jobs rank 0
/// sends, and sends back their results (through `send_buffer`, see [`super::attach_send_buffer`]),
/// until rank 0 says stop. The calling thread is one of the `threads`: it passes the rank's
/// messages between its own searches and, every [`POLL_INTERVAL`] MID calls, from within
/// them (see [`WorkerRank::pass_messages`]).
pub fn serve(world: &SimpleCommunicator, table: &Table, threads: usize, send_buffer: SendBuffer) {
    let threads = threads.max(1);
    let abort = AtomicBool::new(false);
    let failed = AtomicBool::new(false);
    let limits = Limits::stop_only(&abort);
    let (job_tx, job_rx) = crossbeam_channel::unbounded::<Job>();
    let (result_tx, result_rx) = crossbeam_channel::unbounded::<JobResult>();
    std::thread::scope(|scope| {
        // This thread is the rank's last search thread. Should the system refuse the others,
        // it searches alone: the rank's jobs still run, each answer the same.
        let started = spawn_workers(
            scope,
            threads - 1,
            &job_rx,
            &result_tx,
            table,
            limits,
            &failed,
        );
        if let Err(error) = started {
            eprintln!(
                "uttt: rank {}: {error}; the rank searches on one thread",
                world.rank()
            );
        }
        let mut rank = WorkerRank {
            root_rank: world.process_at_rank(0),
            send_buffer,
            table,
            abort: &abort,
            jobs: job_tx,
            results: result_rx,
            held: 0,
            last_message: Instant::now(),
            stopped: false,
        };
        loop {
            if failed.load(Ordering::Relaxed) {
                end_job_after_panic(world);
            }
            let came = rank.pass_messages();
            if rank.stopped {
                break;
            }
            if let Ok(job) = job_rx.try_recv() {
                let mut pass = || {
                    rank.pass_messages();
                };
                let poll = Poll {
                    interval: POLL_INTERVAL,
                    call: &mut pass,
                };
                // This thread's own searches are caught here, as the flag catches the others'
                // (unwinding out of `serve` would finalise MPI, which waits for rank 0).
                let run = catch_unwind(AssertUnwindSafe(|| job.run(table, limits, Some(poll))));
                let Ok(result) = run else {
                    end_job_after_panic(world);
                };
                if rank.stopped {
                    break;
                }
                rank.forward(result);
            } else if came {
                continue;
            } else if rank.held < threads && rank.last_message.elapsed() < SPIN_FOR {
                // A thread waits for a job (this one, or a worker thread): its core is free.
                std::hint::spin_loop();
            } else if let Ok(result) = rank.results.recv_timeout(WORKER_WAIT) {
                rank.forward(result);
            }
        }
        abort.store(true, Ordering::Relaxed);
        // Dropping the rank closes the job channel: the worker threads finish.
        drop(rank);
        // Kept open until here so that a rank of one thread waits in `recv_timeout` above
        // rather than finding the channel closed at once.
        drop(result_tx);
    });
}

/// A worker rank's last message, once [`serve`] has returned: what its table holds, for rank
/// 0's report ([`super::MpiWorkers::finish`]). Buffered where the rank has a send buffer, so
/// that it never waits for rank 0, which on an error path takes nothing more in; else a
/// plain send of a few dozen bytes, which MPI libraries send at once.
pub fn report_table_use(world: &SimpleCommunicator, table: &Table, send_buffer: SendBuffer) {
    let root = world.process_at_rank(0);
    send_buffer.send_with_tag(&root, &encode(&TableUse::of(table)), TABLE_USE_TAG);
}

/// A worker rank's main thread's state: the messages it passes between rank 0 and the rank's
/// searches.
struct WorkerRank<'w> {
    root_rank: Process<'w>,
    send_buffer: SendBuffer,
    table: &'w Table,
    abort: &'w AtomicBool,
    /// Where the jobs received wait for a thread.
    jobs: crossbeam_channel::Sender<Job>,
    /// The worker threads' results, to forward.
    results: crossbeam_channel::Receiver<JobResult>,
    /// Jobs received and not yet answered.
    held: usize,
    last_message: Instant,
    /// Whether rank 0 said stop.
    stopped: bool,
}

impl WorkerRank<'_> {
    /// Forwards the worker threads' results and takes in every message rank 0 has sent;
    /// whether any came.
    fn pass_messages(&mut self) -> bool {
        while let Ok(result) = self.results.try_recv() {
            self.forward(result);
        }
        let mut came = false;
        while !self.stopped {
            let Some(probed) = self.root_rank.immediate_matched_probe_with_tag(TAG) else {
                break;
            };
            came = true;
            self.last_message = Instant::now();
            let (bytes, _) = probed.matched_receive_vec::<u8>();
            self.take(serde_json::from_slice(&bytes).expect("rank 0 sends protocol messages"));
        }
        came
    }

    fn take(&mut self, message: ToWorker) {
        match message {
            ToWorker::Job {
                job,
                learned,
                subtree,
            } => {
                // Rank 0 sends a job after an abort only once every job of the aborted round
                // has returned here: the abort concerns no running search any more.
                self.abort.store(false, Ordering::Relaxed);
                let mut writer = self.table.writer();
                for entry in &learned {
                    entry.store(&mut writer);
                }
                install(&subtree, &mut writer);
                self.jobs
                    .send(*job)
                    .expect("this thread holds a receiver of its jobs");
                self.held += 1;
            }
            ToWorker::Abort => self.abort.store(true, Ordering::Relaxed),
            ToWorker::Stop => {
                // The running searches return at once; their results are not wanted.
                self.abort.store(true, Ordering::Relaxed);
                self.stopped = true;
            }
        }
    }

    /// Sends a job's result to rank 0.
    fn forward(&mut self, result: JobResult) {
        let bytes = encode(&share_most_work(result));
        self.send_buffer.send_with_tag(&self.root_rank, &bytes, TAG);
        self.held -= 1;
    }
}

/// `result` with only the [`SHARED_PER_RESULT`] solved subtrees of most work, so that it fits
/// in [`super::BUFFERED_MESSAGE_BYTES`]; the others are left for the ranks to find again.
pub(super) fn share_most_work(mut result: JobResult) -> JobResult {
    if result.solved.len() > SHARED_PER_RESULT {
        result
            .solved
            .sort_unstable_by_key(|entry| Reverse(entry.work));
        result.solved.truncate(SHARED_PER_RESULT);
    }
    result
}
