//! PN-DFPN over MPI (the `mpi` feature): rank 0 runs the three-valued driver and the root
//! tree, every other rank runs DFPN worker threads against its own table. Jobs, results and
//! control messages are the search's serde data, sent as JSON in MPI messages.
//!
//! Rank 0 sends each rank a `Begin` (root and ε) before a search's first job, then jobs, and
//! `Abort` when a limit ends the search early (the jobs return at once, and rank 0 takes their
//! results in before the next search); `Stop` when the solve is over. A worker rank answers
//! every job with its result. Each rank's main thread alone calls MPI; its worker threads talk
//! to it over channels.
//!
//! Locality: a job goes back to the rank that ran the last job at its leaf, or else at the
//! leaf's nearest ancestor that had one, since that rank's table holds the subtree; when that
//! rank is full the least busy rank takes the job (and owns the leaf from then on). Each rank
//! holds [`QUEUE_DEPTH`] jobs per thread, so that a thread finds its next job waiting when it
//! finishes one instead of idling through the message round trip.
//!
//! Shared knowledge: a job's result carries the subtrees it solved with at least
//! [`SHARE_MIN_WORK`] MID calls, and rank 0 passes them on (`Learn`) to every other rank,
//! whose table stores them: a proof is a fact wherever it was found, and without this each
//! rank would solve the transpositions another already solved.
//!
//! No send can wait on another: rank 0 sends without blocking and takes results in while a
//! send is under way (see [`MpiWorkers::send_bytes`]), so a worker rank blocked sending a
//! large result always gets it through and goes back to receiving.

use crate::game::Position;
use crate::search::dfpn::{Limits, SolvedEntry};
use crate::search::pn_dfpn::{run_timed_job, Job, JobResult};
use crate::search::{Table, TableCounters, Workers};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The MPI tag of every message of the protocol.
const TAG: i32 = 7;
/// Jobs in flight per worker thread: a rank holds the next job while it runs one, so the
/// message round trip does not leave its threads idle.
const QUEUE_DEPTH: usize = 2;
/// How long rank 0's main thread sleeps when it has nothing to do.
const IDLE: Duration = Duration::from_micros(200);
/// How long a worker rank's main thread waits for its threads' next result (which it then
/// forwards at once) before it looks for rank 0's messages again. Before jobs had a minimum
/// of work ([`MIN_JOB_WORK`]) this measured the same as sleeping [`IDLE`] (1.33× the time of
/// one process against 1.34×, mean of three runs over `positions/midgame.txt`; every 1 ms,
/// 1.58× against 1.37×). With the minimum, whose jobs last milliseconds, a result forwarded
/// at once keeps the root's tree fresher: in two runs of the same loop as
/// `scripts/bench-mpi.sh`, sleeping took 1.38× and 1.40× the time of one process (1.47× and
/// 1.37× the nodes), waiting 300 µs 1.27× and 1.27× (1.37×, 1.26×), waiting 100 µs 1.24×
/// (1.27×), waiting 1 ms 1.51× (1.37×); and in a run of `scripts/bench-mpi.sh` itself, 1.47×
/// against 1.63× for sleeping. Whole runs of one build vary by up to ±15 % here.
const WORKER_WAIT: Duration = Duration::from_micros(100);
/// MID calls a job spends at its leaf at the least (unless it solves the leaf first, or its
/// work limit is lower), past the thresholds that would end it sooner (see
/// [`crate::search::pn_dfpn::run_job`]). Most jobs pass their thresholds within a few hundred
/// MID calls, a fraction of a millisecond, while a round trip through rank 0 takes about a
/// millisecond: without a minimum the worker ranks were busy 10–30 % of the time on short
/// solves. Measured as `scripts/bench-mpi.sh` measures (geometric mean over the 30 positions all
/// settle, time and nodes against one process with 2 threads, one run per row group):
/// no minimum 2.33× / 1.31×, 2,000 1.84× / 1.54×, **5,000 1.50× / 1.35×**, 20,000 (every job
/// its whole work limit) 1.76× / 1.74×; in a second run 5,000 1.54× / 1.40×, and with one
/// job per thread instead of [`QUEUE_DEPTH`] 2,000 2.07×, 5,000 1.73×, 10,000 1.66× the time.
const MIN_JOB_WORK: u64 = 5_000;
/// Subtrees a worker rank solved with at least this many MID calls are passed on to every
/// other rank, whose tables would otherwise have to solve them again. (Lower thresholds save
/// nodes but cost more in messages: 16 took 1.49× the time of one process and 1.25× the
/// nodes, 4 took 1.65× and 1.21×, against 1.45× and 1.29× for 64, in one run.)
const SHARE_MIN_WORK: u64 = 64;

/// From rank 0 to a worker rank.
#[derive(Serialize, Deserialize)]
enum ToWorker {
    /// A new search: the root of the coming jobs' paths, and the ε of their DFPN.
    Begin { root: Position, epsilon: f64 },
    /// A job to run.
    Job(Job),
    /// Subtrees another rank solved: facts to store in this rank's table.
    Learn(Vec<SolvedEntry>),
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
    /// Share of its threads' time spent searching, over the whole solve.
    pub busy_pct: f64,
}

fn encode<T: Serialize>(message: &T) -> Vec<u8> {
    serde_json::to_vec(message).expect("protocol messages serialise")
}

/// Rank 0's side: [`Workers`] whose jobs run on the other ranks.
pub struct MpiWorkers<'a> {
    world: &'a SimpleCommunicator,
    threads_per_rank: usize,
    assignment: Assignment,
    in_flight: Vec<usize>,
    figures: Vec<RankReport>,
    busy_ns: Vec<u64>,
    next_turn: usize,
    /// The rank (− 1) that ran the last job at each job path so far.
    owners: HashMap<Vec<u8>, usize>,
    /// Results taken in while a send was under way, with their worker (rank − 1).
    pending: VecDeque<(usize, JobResult)>,
    started: Instant,
    stopped: bool,
}

impl<'a> MpiWorkers<'a> {
    /// The workers of every rank but this one (rank 0), `threads_per_rank` each.
    pub fn new(
        world: &'a SimpleCommunicator,
        threads_per_rank: usize,
        assignment: Assignment,
    ) -> MpiWorkers<'a> {
        let ranks = world.size() as usize - 1;
        MpiWorkers {
            world,
            threads_per_rank: threads_per_rank.max(1),
            assignment,
            in_flight: vec![0; ranks],
            figures: (1..=ranks)
                .map(|rank| RankReport {
                    rank,
                    ..RankReport::default()
                })
                .collect(),
            busy_ns: vec![0; ranks],
            next_turn: 0,
            owners: HashMap::new(),
            pending: VecDeque::new(),
            started: Instant::now(),
            stopped: false,
        }
    }

    fn send(&mut self, worker: usize, message: &ToWorker) {
        self.send_bytes(worker, &encode(message));
    }

    fn broadcast(&mut self, message: &ToWorker) {
        let bytes = encode(message);
        for worker in 0..self.in_flight.len() {
            self.send_bytes(worker, &bytes);
        }
    }

    /// Sends `bytes` to `worker` without blocking on it: until the send completes, results
    /// arriving from any rank are taken in (see [`MpiWorkers::take_in_one`]). A worker rank
    /// may itself be blocked sending a large result to rank 0; taking it in lets that rank go
    /// back to receiving, so the two sends can never wait on each other.
    fn send_bytes(&mut self, worker: usize, bytes: &[u8]) {
        let destination = self.world.process_at_rank(worker as i32 + 1);
        mpi::request::scope(|scope| {
            let mut request = destination.immediate_send_with_tag(scope, bytes, TAG);
            loop {
                match request.test() {
                    Ok(_) => break,
                    Err(still_sending) => request = still_sending,
                }
                if !self.take_in_one() {
                    std::thread::sleep(IDLE);
                }
            }
        });
    }

    /// Receives one result, if one has arrived, into `pending`; whether there was one.
    fn take_in_one(&mut self) -> bool {
        let Some(probed) = self
            .world
            .any_process()
            .immediate_matched_probe_with_tag(TAG)
        else {
            return false;
        };
        let (bytes, status) = probed.matched_receive_vec::<u8>();
        let result: JobResult =
            serde_json::from_slice(&bytes).expect("a worker rank sends job results");
        self.pending
            .push_back((status.source_rank() as usize - 1, result));
        true
    }

    /// The worker (rank − 1) for `job`.
    fn choose(&mut self, job: &Job) -> usize {
        let ranks = self.in_flight.len();
        let preferred = match self.assignment {
            // The rank that last ran a job at this leaf or its nearest ancestor: its table
            // holds the subtree.
            Assignment::Locality => (0..=job.path.len())
                .rev()
                .find_map(|len| self.owners.get(&job.path[..len]).copied())
                .unwrap_or(0),
            Assignment::RoundRobin => {
                self.next_turn = (self.next_turn + 1) % ranks;
                self.next_turn
            }
        };
        let chosen = worker_with_room(&self.in_flight, preferred, self.threads_per_rank);
        if self.assignment == Assignment::Locality {
            self.owners.insert(job.path.clone(), chosen);
        }
        chosen
    }

    /// Each worker rank's figures so far.
    pub fn ranks(&self) -> Vec<RankReport> {
        let wall = self.started.elapsed().as_secs_f64().max(1e-9);
        self.figures
            .iter()
            .zip(&self.busy_ns)
            .map(|(f, &busy)| RankReport {
                busy_pct: 100.0 * busy as f64 / 1e9 / (wall * self.threads_per_rank as f64),
                ..f.clone()
            })
            .collect()
    }

    /// Tells every worker rank to exit (also done when dropped).
    pub fn stop(&mut self) {
        if !self.stopped {
            self.broadcast(&ToWorker::Stop);
            self.stopped = true;
        }
    }
}

impl Drop for MpiWorkers<'_> {
    fn drop(&mut self) {
        // Whatever happened on rank 0, the worker ranks must not wait forever.
        self.stop();
    }
}

impl Workers for MpiWorkers<'_> {
    fn slots(&self) -> usize {
        self.threads() * QUEUE_DEPTH
    }

    fn threads(&self) -> usize {
        self.in_flight.len() * self.threads_per_rank
    }

    fn begin(&mut self, root: &Position, epsilon: f64) {
        self.broadcast(&ToWorker::Begin {
            root: *root,
            epsilon,
        });
    }

    fn submit(&mut self, mut job: Job) {
        let worker = self.choose(&job);
        self.in_flight[worker] += 1;
        job.share_min_work = Some(SHARE_MIN_WORK);
        job.min_work = MIN_JOB_WORK;
        self.send(worker, &ToWorker::Job(job));
    }

    fn receive(&mut self, timeout: Duration) -> Option<JobResult> {
        let until = Instant::now() + timeout;
        loop {
            if self.pending.is_empty() {
                self.take_in_one();
            }
            if let Some((worker, mut result)) = self.pending.pop_front() {
                let solved = std::mem::take(&mut result.solved);
                if !solved.is_empty() {
                    let learn = encode(&ToWorker::Learn(solved));
                    for other in (0..self.in_flight.len()).filter(|&r| r != worker) {
                        self.send_bytes(other, &learn);
                    }
                }
                self.in_flight[worker] -= 1;
                self.figures[worker].jobs += 1;
                self.figures[worker].nodes += result.work;
                self.busy_ns[worker] += result.busy_ns;
                return Some(result);
            }
            if Instant::now() >= until {
                return None;
            }
            std::thread::sleep(IDLE);
        }
    }

    fn abort(&mut self) {
        self.broadcast(&ToWorker::Abort);
    }
}

/// The worker (rank − 1) to run a job that would best go to `preferred`, given the jobs in
/// flight on each worker and the threads each runs: the preferred worker while it holds fewer
/// than [`QUEUE_DEPTH`] jobs per thread, else the worker with the fewest jobs in flight (the
/// first of them on ties).
///
/// Sending a job elsewhere only once the preferred queue is full keeps subtrees on the rank
/// whose table knows them. Measured against this rule (time of one process with two
/// threads, geometric mean over `positions/midgame.txt`): sending a job to any worker with a
/// thread free before queueing it at the preferred one, 1.33× against 1.34× (mean of three
/// runs, within their noise); on top of that, a leaf keeping its owner when a job at it went
/// elsewhere, 1.34× against 1.32× (one run).
fn worker_with_room(in_flight: &[usize], preferred: usize, threads_per_rank: usize) -> usize {
    if in_flight[preferred] < threads_per_rank * QUEUE_DEPTH {
        preferred
    } else {
        (0..in_flight.len())
            .min_by_key(|&worker| in_flight[worker])
            .expect("at least one worker rank")
    }
}

/// What a worker rank says when it may run on fewer CPUs than it has worker threads, or
/// `None` when it has enough. `mpirun` binds each rank to one core by default when it starts
/// no more ranks than the machine has cores (`-np 2` on any machine), and a rank's worker
/// threads then share that core: on the 2-core development machine, a worker rank of two
/// threads so bound solved at about half the speed of the same rank unbound.
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
/// sends, and sends back their results, until rank 0 says stop.
pub fn serve(world: &SimpleCommunicator, table: &Table, threads: usize) {
    let abort = AtomicBool::new(false);
    let limits = Limits::stop_only(&abort);
    let (job_tx, job_rx) = crossbeam_channel::unbounded::<(Position, f64, Job)>();
    let (result_tx, result_rx) = crossbeam_channel::unbounded::<JobResult>();
    let root_rank = world.process_at_rank(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            let job_rx = job_rx.clone();
            let result_tx = result_tx.clone();
            scope.spawn(move || {
                for (root, epsilon, job) in job_rx {
                    let result = run_timed_job(&root, &job, table, epsilon, limits);
                    if result_tx.send(result).is_err() {
                        break;
                    }
                }
            });
        }
        drop(result_tx);
        let forward = |result: JobResult| root_rank.send_with_tag(&encode(&result)[..], TAG);
        let mut search: Option<(Position, f64)> = None;
        loop {
            let mut idle = true;
            while let Ok(result) = result_rx.try_recv() {
                forward(result);
                idle = false;
            }
            if let Some(probed) = root_rank.immediate_matched_probe_with_tag(TAG) {
                idle = false;
                let (bytes, _) = probed.matched_receive_vec::<u8>();
                match serde_json::from_slice(&bytes).expect("rank 0 sends protocol messages") {
                    ToWorker::Begin { root, epsilon } => {
                        search = Some((root, epsilon));
                        abort.store(false, Ordering::Relaxed);
                    }
                    ToWorker::Job(job) => {
                        let (root, epsilon) = search.expect("a search begins before its jobs");
                        job_tx
                            .send((root, epsilon, job))
                            .expect("worker threads run until stop");
                    }
                    ToWorker::Learn(entries) => {
                        let mut counters = TableCounters::default();
                        for entry in &entries {
                            entry.store(table, &mut counters);
                        }
                        table.report_remaining_fills(&counters);
                    }
                    ToWorker::Abort => abort.store(true, Ordering::Relaxed),
                    ToWorker::Stop => break,
                }
            }
            if idle {
                if let Ok(result) = result_rx.recv_timeout(WORKER_WAIT) {
                    forward(result);
                }
            }
        }
        abort.store(true, Ordering::Relaxed);
        drop(job_tx);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rank_with_fewer_cpus_than_threads_is_told_how_to_unbind_it() {
        assert_eq!(cpu_shortfall_warning(1, 2, 2), None);
        assert_eq!(cpu_shortfall_warning(1, 1, 1), None);
        let warning = cpu_shortfall_warning(3, 2, 1).expect("1 CPU for 2 threads");
        assert!(warning.contains("rank 3 may run on 1 CPU(s) but has 2 worker threads"));
        assert!(warning.contains("--bind-to none"));
    }

    #[test]
    fn a_job_goes_to_its_preferred_worker_until_that_queue_is_full() {
        let full = QUEUE_DEPTH;
        assert_eq!(worker_with_room(&[0, 0, 0], 2, 1), 2);
        assert_eq!(worker_with_room(&[0, 1, full - 1], 2, 1), 2);
        // The preferred queue is full: the least busy worker (the first on ties) takes it.
        assert_eq!(worker_with_room(&[1, 0, full], 2, 1), 1);
        assert_eq!(worker_with_room(&[1, 1, full], 2, 1), 0);
        // Two threads per rank hold twice the jobs.
        assert_eq!(worker_with_room(&[0, full], 1, 2), 1);
        assert_eq!(worker_with_room(&[0, 2 * full], 1, 2), 0);
    }
}
