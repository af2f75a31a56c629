//! PN-DFPN over MPI (the `mpi` feature): rank 0 runs the three-valued driver and the root
//! tree, every other rank runs DFPN worker threads against its own table. Jobs, results and
//! control messages are the search's serde data, sent as JSON in MPI messages.
//!
//! Rank 0 sends each rank jobs (each says all that is needed to run it, see
//! [`crate::search::Job`]), `Abort` when a limit ends the search early (the jobs return at
//! once, and rank 0 takes their results in before the next search, whose first job lifts the
//! abort), and `Stop` when the solve is over. A worker rank answers
//! every job with its result. Each rank's main thread alone calls MPI; on a worker rank it is
//! also one of the `--threads` search threads (see [`serve`]), and the others talk to it over
//! channels.
//!
//! Locality: a job goes back to the rank that ran the last job at its leaf, or else at the
//! leaf's nearest ancestor that had one, since that rank's table holds the subtree; when that
//! rank is full the least busy rank takes the job (and owns the leaf from then on). Each rank
//! holds [`QUEUE_DEPTH`] jobs per thread, so that a thread finds its next job waiting when it
//! finishes one instead of idling through the message round trip.
//!
//! Where the extra nodes of an MPI solve come from: the worker ranks' separate tables, not the
//! messages. One process whose two threads each search against a table of their own, with
//! jobs placed as here but no messages (`uttt solve --private-tables`: one job per thread,
//! no minimum of work, every solved subtree shared), took 1.33× the time and 1.36× the nodes
//! of one process with a shared table, and `-np 3` 1.02× the time of that (1.36× and 1.41×
//! against the shared table; `scripts/bench-mpi.sh --rounds 2`, 30 positions): the messages
//! with the queue and the minimum of work that hide their round trip cost about as much as
//! those save in idle time. In throwaway builds of that one-process
//! search (14 positions, three rounds, one job per thread, no minimum of work): never moving
//! a job from the thread whose table knows its subtree searched 1.00× the nodes of the shared
//! table but took 1.45× the time, one thread doing most jobs; moving a job only to a thread
//! left idle, 1.39× the nodes, as many as the placement here (1.37×) with half as many jobs
//! moved; not sharing solved subtrees at all changed nothing beyond the noise (four
//! positions). So what the tables lack is what the other learned of the positions both
//! subtrees reach on the way to their solutions, presumably, not the moves of jobs nor the
//! solved subtrees; sharing it would take a table spread over the ranks.
//!
//! The same over MPI (14 positions of `positions/midgame.txt`,
//! three rounds, `-np 3` against one process with 2 threads, one run): with one job per
//! thread and no minimum of work, so that nothing hides the round trip, one worker rank of two
//! threads (one table) searched 1.08× the nodes of one process and two worker ranks of one
//! thread (two tables) 1.43× (round-robin 1.46×), against 1.41× with this build's settings.
//! The two tables cost most of the extra nodes; the queue and the minimum buy back the time of
//! the round trip (those runs took 1.82× and 2.10× the time, this build 1.33×). Many jobs go
//! to a rank other than the one that searched their subtree last ([`RankReport::jobs_moved`];
//! over `scripts/bench-mpi.sh --rounds 2`, 40 % of them, with round-robin 44 %): the
//! most-proving leaves gather below one subtree, and so at one rank, which then holds its most
//! jobs. Yet a moved job took only about 1.2× the MID calls of one that stayed (rows 2 and 28,
//! one run each), so the moves explain a small part of the extra nodes. Split
//! thresholds of 20,000, 10,000 and 5,000 MID calls, which put more of the search in rank 0's
//! tree, took 1.32×, 1.33× and 1.37× the time (1.45×, 1.49×, 1.58× the nodes) against 1.27×
//! (1.35×) for the default 40,000, in one run; one process with 10,000 1.06×. Holding a job
//! whose rank is full at rank 0 until that rank has room (one or two per rank), or sharing
//! 256 or 1,024 solved subtrees per result rather than [`SHARED_PER_RESULT`], changed
//! nothing beyond the noise on the three positions tried (rows 2, 4, 25, one run each).
//!
//! Shared knowledge: a job's result carries the subtrees it solved with at least
//! [`SHARE_MIN_WORK`] MID calls (the [`SHARED_PER_RESULT`] of most work), and rank 0 passes
//! them on to every other rank with that rank's next job ([`LEARNED_PER_JOB`] at a time), whose
//! table stores them before the job runs: a proof is a fact wherever it was found, and without
//! this each rank would solve the transpositions another already solved. They ride on jobs
//! rather than in messages of their own so that a result costs rank 0 no sends but the next
//! job (see [`MAX_UNSENT_LEARNED`]).
//!
//! Latency: jobs and results go as buffered sends (`MPI_Bsend`, see [`attach_send_buffer`]),
//! which return as soon as the message is copied. A plain send of even a small message
//! completes here (Open MPI 4.1, shared memory) only once the receiving rank next calls MPI,
//! which on a busy machine is often a millisecond away: rank 0 waited 0.56 ms on average for
//! each job it sent (midgame row 28, `-np 3`), during which no result reached the root tree,
//! and a worker rank 0.9 ms for each result, during which it took in no job. A worker rank
//! whose threads wait for jobs polls rank 0 without sleeping for a while ([`SPIN_FOR`]): its
//! idle thread's core is free, and a job is then taken in the moment it arrives. A worker
//! rank's main thread searches too, and passes messages from within its searches every
//! [`POLL_INTERVAL`] MID calls: a thread of its own for them had to be woken for each
//! message, which on a machine whose cores all search took 0.3–0.6 ms on average (the wait
//! for a search thread's time slice to end), and its wake-ups every [`WORKER_WAIT`] took
//! cores from the searches.
//!
//! No send can wait on another: buffered sends never wait, and a message too large for the
//! buffer goes without blocking from rank 0, which takes results in while it is under way
//! (see [`MpiWorkers::send_bytes`]), so a worker rank blocked sending a large result always
//! gets it through and goes back to receiving.

// The module's documentation explains its private constants to whoever maintains it (read it
// with `cargo doc --features mpi --document-private-items`), so it links to them.
#![allow(rustdoc::private_intra_doc_links)]

use crate::search::dfpn::{Limits, Poll, SolvedEntry};
use crate::search::workers::placement::{Owners, SHARE_MIN_WORK};
use crate::search::workers::serve_jobs;
use crate::search::{Job, JobResult, JobTerms, Table, Workers};
use mpi::environment::Universe;
use mpi::topology::{Process, SimpleCommunicator};
use mpi::traits::*;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The MPI tag of every message of the protocol.
const TAG: i32 = 7;
/// Jobs in flight per worker thread: a rank holds the next job while it runs one, so the
/// message round trip does not leave its threads idle. Every job in flight steers the next
/// selection away from its leaf, so more jobs ahead cost nodes: with three per thread and
/// 2,000 MID calls of [`MIN_JOB_WORK`], `-np 3` took 1.57× the time and 1.60× the nodes of
/// one process, with four and 1,000 1.87× and 1.84×, against 1.41× and 1.35× for two and
/// 5,000 (14 positions of `positions/midgame.txt`, three rounds, same run). This and the
/// minimum cost nodes in one process too (the separate tables cost most, see the module
/// documentation): one process whose root keeps two jobs per thread
/// with the minimum needs 1.25× the nodes of one with its usual one job per thread and no
/// minimum (two rounds; one job per thread with the minimum 1.08×, two without it 1.08×).
/// With a worker rank's main thread searching too (and so a shorter round trip), one job per
/// thread still took 1.37× the time against 1.22× for two (14 positions, three rounds). Nor
/// did one job per thread plus a next one asked for by the rank shortly before its job
/// reaches the minimum of work do better: asking 500, 1,000 or 2,000 MID calls ahead took
/// 1.37×, 1.33× and 1.34× the time (1.43×, 1.39×, 1.45× the nodes) against 1.23× (1.32×)
/// for two jobs per thread, in one run: fewer jobs waited, yet more nodes were searched.
const QUEUE_DEPTH: usize = 2;
/// How long rank 0's main thread sleeps when it has nothing to do. Waking it sooner, or
/// asking the kernel for short scheduler slices (`sched_setattr`) for the threads that pass
/// messages, so that a woken one takes a core from a search thread at once, measured within
/// the noise of whole runs (14 positions, three rounds, time against one process, each run
/// with this setting alongside): 100 µs slices 1.36× and 1.31× against 1.43× and 1.47× in
/// two runs, but with a 50 µs sleep 1.27× in one run and 1.48× against 1.39× in the next;
/// a 50 µs sleep alone 1.44× against 1.39×. Not worth unsafe code and a dependency. With a
/// worker rank's main thread searching too, a 100 µs sleep took 1.31× against 1.41× in one
/// run and 1.36× against 1.32× and 1.26× (two copies of this build) in the next, a 50 µs
/// sleep 1.38× in that run: within the spread of this setting's own runs (1.22× to 1.42×).
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
/// [`crate::search::Job::run`]). Most jobs pass their thresholds within a few hundred
/// MID calls, a fraction of a millisecond, while a round trip through rank 0 takes about a
/// millisecond: without a minimum the worker ranks were busy 10–30 % of the time on short
/// solves. Measured as `scripts/bench-mpi.sh` measures (geometric mean over the 30 positions all
/// settle, time and nodes against one process with 2 threads, one run per row group):
/// no minimum 2.33× / 1.31×, 2,000 1.84× / 1.54×, **5,000 1.50× / 1.35×**, 20,000 (every job
/// its whole work limit) 1.76× / 1.74×; in a second run 5,000 1.54× / 1.40×, and with one
/// job per thread instead of [`QUEUE_DEPTH`] 2,000 2.07×, 5,000 1.73×, 10,000 1.66× the time.
///
/// The minimum buys the threads' time through the round trip, not a shorter search: an MPI
/// solve runs about as many jobs as one process, each about twice as long (midgame row 28:
/// 745 jobs of 11,700 MID calls on average against 757 of 6,400). Tried and measured no
/// better (14 positions, three rounds, against 1.38× the time and 1.32× the nodes of one
/// process in the same run): searching past the thresholds only while no other job waits at
/// the rank, 1.40× and 1.38× (the next job has rarely arrived when a job passes its
/// thresholds); the same with a minimum of 20,000, 1.60× and 1.68×; a thread with no job
/// waiting going on at its last leaf until one comes, with one job per thread, 1.78× and
/// 1.81× (against 1.44× and 1.38× in that run). Longer jobs by way of
/// the root tree measured worse too (two rounds): ε = 1.0 instead of 0.25, 2.16× and 2.06×
/// (one process with it 1.39×); a split threshold of 160,000, 1.49× and 1.40×, against 1.46×
/// and 1.39×. With a worker rank's main thread searching too, a minimum of 2,000 took 1.33×
/// the time and 1.48× the nodes against 1.22× and 1.30× for 5,000 (same run), and 8,000
/// 1.42× against 1.41× in another.
const MIN_JOB_WORK: u64 = 5_000;
/// Solved subtrees rank 0 holds at most for one worker rank until that rank's next jobs; the
/// oldest are dropped first (they are facts the rank may find again, not work it owes). Sent
/// in messages of their own as they came in, rank 0 spent 0.2 s of a 2.5 s solve (midgame
/// row 28, `-np 3`) waiting for those sends to complete, 0.9 s with two jobs queued per
/// thread: time in which no result reached the root tree and no new job went out.
const MAX_UNSENT_LEARNED: usize = 4_096;
/// Solved subtrees that ride on one job at most, so that a job fits in
/// [`BUFFERED_MESSAGE_BYTES`].
const LEARNED_PER_JOB: usize = 64;
/// Solved subtrees one result shares at most (those of most work), so that a result fits in
/// [`BUFFERED_MESSAGE_BYTES`].
const SHARED_PER_RESULT: usize = 64;
/// The largest job or result sent buffered; a larger one is sent without the buffer. A job
/// with [`LEARNED_PER_JOB`] entries and a result with 81 children and [`SHARED_PER_RESULT`]
/// entries fit, with every number at its largest (tested).
const BUFFERED_MESSAGE_BYTES: usize = 16 * 1024;
/// Bytes MPI adds to each buffered message, rounded up generously (Open MPI's
/// `MPI_BSEND_OVERHEAD` is about a hundred).
const BSEND_OVERHEAD_BYTES: usize = 1024;
/// The largest send buffer a rank attaches (MPI takes its size as a C `int`); a rank that
/// would need more sends without one.
const MAX_SEND_BUFFER_BYTES: usize = 1 << 30;
/// How long a worker rank's main thread polls for rank 0's messages without sleeping while a
/// worker thread waits for a job (see the module documentation); after that it waits on its
/// threads' results ([`WORKER_WAIT`]) between looks, as when every thread is busy, so that a
/// rank left without jobs does not keep a core busy. With buffered sends, polling without
/// sleeping whenever a thread waited took 1.30× the time of one process against 1.55× for
/// waiting as when busy (14 positions of `positions/midgame.txt`, three rounds, `-np 3`).
const SPIN_FOR: Duration = Duration::from_millis(2);
/// MID calls between two looks of a worker rank's main thread, while it searches, at the
/// rank's messages (see [`serve`]): about a tenth of a millisecond. Searching on the main
/// thread took 0.90×, 0.98× and 0.92× the time of the build with a thread of its own for
/// messages, in three runs (`-np 3`, one thread per worker rank: 14 positions of
/// `positions/midgame.txt` three rounds, twice, and `scripts/bench-mpi.sh --rounds 3`); one
/// worker rank of two threads took 1.13× the time of one process (1.32× in an earlier run).
/// Every 64 MID calls measured no better (1.27× the time of one process against 1.22×).
const POLL_INTERVAL: u64 = 256;

/// From rank 0 to a worker rank.
#[derive(Serialize, Deserialize)]
enum ToWorker {
    /// A job to run, and the subtrees other ranks solved since this rank's last job: facts
    /// to store in its table first.
    Job { job: Job, learned: Vec<SolvedEntry> },
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
    /// Share of its threads' time spent searching, over the whole solve.
    pub busy_pct: f64,
}

fn encode<T: Serialize>(message: &T) -> Vec<u8> {
    serde_json::to_vec(message).expect("protocol messages serialise")
}

/// Whether a rank's jobs or results go as buffered sends (see [`attach_send_buffer`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SendBuffer {
    attached: bool,
}

/// The send buffer a rank needs for its jobs (rank 0, one set per worker rank) or results
/// (a worker rank), or `None` when that is more than [`MAX_SEND_BUFFER_BYTES`].
///
/// Why it suffices: a buffered message holds its space from its send until the sender sees it
/// delivered, in one of its later MPI calls. Rank 0 sends a worker rank a job only while fewer
/// than `threads` × [`QUEUE_DEPTH`] of its jobs are in flight, and a job stays in flight until
/// its result is taken in, which the rank sends only after receiving the job; a worker rank
/// has no more results out than jobs in flight. So at most `threads` × [`QUEUE_DEPTH`]
/// messages per destination are undelivered, and the buffer holds twice that many (each of at
/// most [`BUFFERED_MESSAGE_BYTES`] and [`BSEND_OVERHEAD_BYTES`]), for messages delivered but
/// not yet seen to be.
pub fn send_buffer_bytes(rank: usize, ranks: usize, threads: usize) -> Option<usize> {
    let destinations = if rank == 0 {
        ranks.saturating_sub(1)
    } else {
        1
    };
    let messages = destinations * 2 * threads.max(1) * QUEUE_DEPTH;
    let bytes = messages.checked_mul(BUFFERED_MESSAGE_BYTES + BSEND_OVERHEAD_BYTES)?;
    (bytes <= MAX_SEND_BUFFER_BYTES).then_some(bytes)
}

/// Attaches this rank's send buffer (see [`send_buffer_bytes`]); without one (too many ranks
/// and threads) jobs and results go as plain sends.
pub fn attach_send_buffer(universe: &mut Universe, threads: usize) -> SendBuffer {
    let world = universe.world();
    let bytes = send_buffer_bytes(world.rank() as usize, world.size() as usize, threads);
    if let Some(bytes) = bytes {
        universe.set_buffer_size(bytes);
    }
    SendBuffer {
        attached: bytes.is_some(),
    }
}

impl SendBuffer {
    /// Sends `bytes` buffered when they fit the buffer's slots ([`BUFFERED_MESSAGE_BYTES`]),
    /// returning true; false when the caller must send them otherwise.
    fn try_send(self, destination: &Process, bytes: &[u8]) -> bool {
        let fits = self.attached && bytes.len() <= BUFFERED_MESSAGE_BYTES;
        if fits {
            destination.buffered_send_with_tag(bytes, TAG);
        }
        fits
    }
}

/// Rank 0's side: [`Workers`] whose jobs run on the other ranks.
pub struct MpiWorkers<'a> {
    world: &'a SimpleCommunicator,
    send_buffer: SendBuffer,
    threads_per_rank: usize,
    assignment: Assignment,
    in_flight: Vec<usize>,
    figures: Vec<RankReport>,
    busy_ns: Vec<u64>,
    next_turn: usize,
    /// Which rank searched each subtree last.
    owners: Owners,
    /// Results taken in while a send was under way, with their worker (rank − 1).
    pending: VecDeque<(usize, JobResult)>,
    /// Per worker (rank − 1), the subtrees other ranks solved that go with its next jobs.
    unsent_learned: Vec<VecDeque<SolvedEntry>>,
    started: Instant,
    stopped: bool,
}

impl<'a> MpiWorkers<'a> {
    /// The workers of every rank but this one (rank 0), `threads_per_rank` each; jobs go
    /// through `send_buffer` (see [`attach_send_buffer`]).
    pub fn new(
        world: &'a SimpleCommunicator,
        threads_per_rank: usize,
        assignment: Assignment,
        send_buffer: SendBuffer,
    ) -> MpiWorkers<'a> {
        let ranks = world.size() as usize - 1;
        MpiWorkers {
            world,
            send_buffer,
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
            owners: Owners::default(),
            pending: VecDeque::new(),
            unsent_learned: vec![VecDeque::new(); ranks],
            started: Instant::now(),
            stopped: false,
        }
    }

    /// Sends a job message: buffered when it fits (returning at once), else as
    /// [`MpiWorkers::send_bytes`] does.
    fn send_job(&mut self, worker: usize, message: &ToWorker) {
        let bytes = encode(message);
        let destination = self.world.process_at_rank(worker as i32 + 1);
        if !self.send_buffer.try_send(&destination, &bytes) {
            self.send_bytes(worker, &bytes);
        }
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
            // Its table holds the subtree.
            Assignment::Locality => self.owners.of(&job.path).unwrap_or(0),
            Assignment::RoundRobin => {
                self.next_turn = (self.next_turn + 1) % ranks;
                self.next_turn
            }
        };
        // Owners are kept under either assignment, so that both report the jobs they moved.
        let capacity = self.threads_per_rank * QUEUE_DEPTH;
        let placed = self
            .owners
            .place(&job.path, preferred, &self.in_flight, capacity);
        if placed.moved {
            self.figures[placed.worker].jobs_moved += 1;
        }
        placed.worker
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

    fn terms(&self) -> JobTerms {
        JobTerms {
            min_work: MIN_JOB_WORK,
            share_solved_from: Some(SHARE_MIN_WORK),
        }
    }

    fn submit(&mut self, job: Job) {
        let worker = self.choose(&job);
        self.in_flight[worker] += 1;
        let unsent = &mut self.unsent_learned[worker];
        let learned = unsent.drain(..unsent.len().min(LEARNED_PER_JOB)).collect();
        self.send_job(worker, &ToWorker::Job { job, learned });
    }

    fn receive(&mut self, timeout: Duration) -> Option<JobResult> {
        let until = Instant::now() + timeout;
        loop {
            if self.pending.is_empty() {
                self.take_in_one();
            }
            if let Some((worker, mut result)) = self.pending.pop_front() {
                let solved = std::mem::take(&mut result.solved);
                for (other, unsent) in self.unsent_learned.iter_mut().enumerate() {
                    if other != worker {
                        unsent.extend(solved.iter().copied());
                        let excess = unsent.len().saturating_sub(MAX_UNSENT_LEARNED);
                        unsent.drain(..excess);
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
/// sends, and sends back their results (through `send_buffer`, see [`attach_send_buffer`]),
/// until rank 0 says stop. The calling thread is one of the `threads`: it passes the rank's
/// messages between its own searches and, every [`POLL_INTERVAL`] MID calls, from within
/// them (see [`WorkerRank::pass_messages`]).
pub fn serve(world: &SimpleCommunicator, table: &Table, threads: usize, send_buffer: SendBuffer) {
    let threads = threads.max(1);
    let abort = AtomicBool::new(false);
    let limits = Limits::stop_only(&abort);
    let (job_tx, job_rx) = crossbeam_channel::unbounded::<Job>();
    let (result_tx, result_rx) = crossbeam_channel::unbounded::<JobResult>();
    std::thread::scope(|scope| {
        for _ in 1..threads {
            let job_rx = job_rx.clone();
            let result_tx = result_tx.clone();
            scope.spawn(move || {
                serve_jobs(job_rx, table, limits, |result| {
                    result_tx.send(result).is_ok()
                });
            });
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
                let result = job.run(table, limits, Some(poll));
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
            ToWorker::Job { job, learned } => {
                // Rank 0 sends a job after an abort only once every job of the aborted round
                // has returned here: the abort concerns no running search any more.
                self.abort.store(false, Ordering::Relaxed);
                let mut writer = self.table.writer();
                for entry in &learned {
                    entry.store(&mut writer);
                }
                self.jobs
                    .send(job)
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
        if !self.send_buffer.try_send(&self.root_rank, &bytes) {
            self.root_rank.send_with_tag(&bytes[..], TAG);
        }
        self.held -= 1;
    }
}

/// `result` with only the [`SHARED_PER_RESULT`] solved subtrees of most work, so that it fits
/// in [`BUFFERED_MESSAGE_BYTES`]; the others are left for the ranks to find again.
fn share_most_work(mut result: JobResult) -> JobResult {
    if result.solved.len() > SHARED_PER_RESULT {
        result
            .solved
            .sort_unstable_by_key(|entry| Reverse(entry.work));
        result.solved.truncate(SHARED_PER_RESULT);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Player;
    use crate::search::{Numbers, TableCounters, WorkBudget};

    #[test]
    fn a_rank_with_fewer_cpus_than_threads_is_told_how_to_unbind_it() {
        assert_eq!(cpu_shortfall_warning(1, 2, 2), None);
        assert_eq!(cpu_shortfall_warning(1, 1, 1), None);
        let warning = cpu_shortfall_warning(3, 2, 1).expect("1 CPU for 2 threads");
        assert!(warning.contains("rank 3 may run on 1 CPU(s) but has 2 worker threads"));
        assert!(warning.contains("--bind-to none"));
    }

    /// A solved entry with every number at its largest, so the longest in JSON.
    fn longest_entry(work: u64) -> SolvedEntry {
        SolvedEntry {
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
            attacker: Player::O,
            epsilon: f64::MAX,
            path: vec![80; 81],
            thresholds: most,
            work: WorkBudget {
                limit: u64::MAX,
                minimum: u64::MAX,
            },
            share_solved_from: Some(u64::MAX),
        };
        let learned = vec![longest_entry(u64::MAX); LEARNED_PER_JOB];
        let job_bytes = encode(&ToWorker::Job { job, learned }).len();
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
    fn the_send_buffer_holds_twice_the_jobs_in_flight_per_destination() {
        let slot = BUFFERED_MESSAGE_BYTES + BSEND_OVERHEAD_BYTES;
        // Rank 0 of `-np 3 --threads 1`: two worker ranks, QUEUE_DEPTH jobs each.
        assert_eq!(send_buffer_bytes(0, 3, 1), Some(2 * 2 * QUEUE_DEPTH * slot));
        // A worker rank sends to rank 0 alone.
        assert_eq!(send_buffer_bytes(2, 3, 4), Some(2 * 4 * QUEUE_DEPTH * slot));
        // Beyond what MPI can attach, no buffer.
        assert_eq!(send_buffer_bytes(0, 100_000, 64), None);
    }
}
