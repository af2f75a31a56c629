//! Rank 0's side: the transport whose jobs run on the other ranks.

use super::{
    encode, jobs_per_rank, Assignment, RankReport, SendBuffer, ToWorker, WorkerRankSetup, IDLE,
    LEARNED_PER_JOB, MAX_UNSENT_LEARNED, MIN_JOB_WORK, TABLE_USE_TAG, TAG,
};
use crate::search::dfpn::TableEntry;
use crate::search::handover::{Snapshots, HANDED_OVER_ENTRIES};
use crate::search::workers::placement::{Placement, SHARE_MIN_WORK};
use crate::search::{Job, JobResult, JobTerms, Workers};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cmp::Reverse;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The most subtrees whose last snapshot rank 0 keeps: at [`HANDED_OVER_ENTRIES`] entries of
/// 24 bytes each, 24 MiB at most.
const MAX_SNAPSHOTS: usize = 4_096;

/// Rank 0's side: [`Workers`] whose jobs run on the other ranks.
pub struct MpiWorkers<'a> {
    world: &'a SimpleCommunicator,
    send_buffer: SendBuffer,
    /// The jobs each worker rank (rank − 1) may have in flight ([`jobs_per_rank`]).
    capacity: Vec<usize>,
    assignment: Assignment,
    figures: Vec<RankReport>,
    busy_ns: Vec<u64>,
    next_turn: usize,
    /// The table each worker rank (rank − 1) searches against, as an index of `placement`'s
    /// workers: the worker ranks of one machine share one (see [`super::tables`]).
    table_of: Vec<usize>,
    /// The jobs in flight at each worker rank (rank − 1).
    in_flight: Vec<usize>,
    /// Which table's ranks searched each subtree last, the jobs in flight at each table, and
    /// the jobs held for a table whose ranks are full.
    placement: Placement<Job>,
    /// Results taken in while a send was under way, with their worker (rank − 1).
    pending: VecDeque<(usize, JobResult)>,
    /// Per table, the subtrees other tables' ranks solved that go with its ranks' next jobs.
    unsent_learned: Vec<VecDeque<TableEntry>>,
    /// What the rank that searched each subtree last knew of it, for a job that moves.
    snapshots: Snapshots,
    started: Instant,
    stopped: bool,
}

impl<'a> MpiWorkers<'a> {
    /// The workers of every rank but this one (rank 0); jobs go through `send_buffer` (see
    /// [`super::attach_send_buffer`]). `setups[r − 1]` gives worker rank `r`'s threads and
    /// names its table by the world rank that made it (see [`super::gather_worker_ranks`]).
    pub fn new(
        world: &'a SimpleCommunicator,
        assignment: Assignment,
        send_buffer: SendBuffer,
        setups: &[WorkerRankSetup],
    ) -> MpiWorkers<'a> {
        let ranks = world.size() as usize - 1;
        assert_eq!(setups.len(), ranks, "a setup for each worker rank");
        let table_ranks: Vec<usize> = setups.iter().map(|s| s.table_rank).collect();
        let threads: Vec<usize> = setups.iter().map(|s| s.threads.max(1)).collect();
        let capacity: Vec<usize> = threads.iter().map(|&t| jobs_per_rank(t)).collect();
        let table_of = table_indices(&table_ranks);
        let tables = table_of.iter().max().map_or(0, |&last| last + 1);
        let mut capacities = vec![0; tables];
        for (&table, &jobs) in table_of.iter().zip(&capacity) {
            capacities[table] += jobs;
        }
        MpiWorkers {
            world,
            send_buffer,
            assignment,
            placement: Placement::with_capacities(capacities, assignment == Assignment::Locality),
            figures: (1..=ranks)
                .map(|rank| RankReport {
                    rank,
                    threads: threads[rank - 1],
                    table_rank: table_ranks[rank - 1],
                    ..RankReport::default()
                })
                .collect(),
            capacity,
            in_flight: vec![0; ranks],
            table_of,
            busy_ns: vec![0; ranks],
            next_turn: 0,
            pending: VecDeque::new(),
            unsent_learned: vec![VecDeque::new(); tables],
            snapshots: Snapshots::new(MAX_SNAPSHOTS),
            started: Instant::now(),
            stopped: false,
        }
    }

    /// Sends a job message: buffered when it fits (returning at once), else as
    /// [`MpiWorkers::send_bytes`] does.
    fn send_job(&mut self, worker: usize, message: &ToWorker) {
        let bytes = encode(message);
        self.figures[worker].to_rank.add(bytes.len());
        let destination = self.world.process_at_rank(worker as i32 + 1);
        if !self.send_buffer.try_send(&destination, &bytes) {
            self.send_bytes(worker, &bytes);
        }
    }

    fn broadcast(&mut self, message: &ToWorker) {
        let bytes = encode(message);
        for worker in 0..self.figures.len() {
            self.figures[worker].to_rank.add(bytes.len());
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
        let worker = status.source_rank() as usize - 1;
        self.figures[worker].from_rank.add(bytes.len());
        self.pending.push_back((worker, result));
        true
    }

    /// Sends `job` to `worker` (rank − 1) with the subtrees other tables' ranks solved since
    /// its table's last job (up to [`LEARNED_PER_JOB`]) and, for a job that `moved` from
    /// another table, the last snapshot of its subtree.
    fn dispatch(&mut self, worker: usize, job: Job, moved: bool) {
        self.in_flight[worker] += 1;
        let unsent = &mut self.unsent_learned[self.table_of[worker]];
        let learned = unsent.drain(..unsent.len().min(LEARNED_PER_JOB)).collect();
        let subtree = if moved {
            self.snapshots
                .of(&job.path)
                .map_or_else(Vec::new, <[TableEntry]>::to_vec)
        } else {
            Vec::new()
        };
        self.send_job(
            worker,
            &ToWorker::Job {
                job: Box::new(job),
                learned,
                subtree,
            },
        );
    }

    /// The worker rank (rank − 1) of `table` with the most room for jobs (the first on
    /// ties). The placement gives a table a job only while its ranks have room together, so
    /// this rank has room.
    fn roomiest_rank_of(&self, table: usize) -> usize {
        (0..self.table_of.len())
            .filter(|&worker| self.table_of[worker] == table)
            .max_by_key(|&worker| {
                let room = self.capacity[worker].saturating_sub(self.in_flight[worker]);
                (room, Reverse(worker))
            })
            .expect("every table has a rank")
    }

    /// Each worker rank's figures so far.
    pub fn ranks(&self) -> Vec<RankReport> {
        let wall = self.started.elapsed().as_secs_f64().max(1e-9);
        self.figures
            .iter()
            .zip(&self.busy_ns)
            .map(|(f, &busy)| RankReport {
                busy_pct: 100.0 * busy as f64 / 1e9 / (wall * f.threads as f64),
                ..f.clone()
            })
            .collect()
    }

    /// Tells every worker rank to exit, and returns each one's figures, with what its table
    /// held once its searches had stopped (each rank's last message, see
    /// [`super::report_table_use`]).
    pub fn finish(&mut self) -> Vec<RankReport> {
        self.stop();
        for (worker, figures) in self.figures.iter_mut().enumerate() {
            let (bytes, _) = self
                .world
                .process_at_rank(worker as i32 + 1)
                .receive_vec_with_tag::<u8>(TABLE_USE_TAG);
            figures.table =
                serde_json::from_slice(&bytes).expect("worker ranks send protocol messages");
        }
        self.ranks()
    }

    /// Tells every worker rank to exit (also done when dropped, without waiting for their
    /// tables' figures).
    pub fn stop(&mut self) {
        if !self.stopped {
            self.broadcast(&ToWorker::Stop);
            self.stopped = true;
        }
    }
}

/// Numbers the tables `table_ranks` names (by the rank that made each) from 0, in the order
/// they first appear.
pub(super) fn table_indices(table_ranks: &[usize]) -> Vec<usize> {
    let mut seen: Vec<usize> = Vec::new();
    table_ranks
        .iter()
        .map(|rank| {
            seen.iter().position(|r| r == rank).unwrap_or_else(|| {
                seen.push(*rank);
                seen.len() - 1
            })
        })
        .collect()
}

impl Drop for MpiWorkers<'_> {
    fn drop(&mut self) {
        // Whatever happened on rank 0, the worker ranks must not wait forever.
        self.stop();
    }
}

impl Workers for MpiWorkers<'_> {
    fn slots(&self) -> usize {
        self.capacity.iter().sum::<usize>() + self.placement.hold_slots()
    }

    fn threads(&self) -> usize {
        self.figures.iter().map(|f| f.threads).sum()
    }

    fn terms(&self) -> JobTerms {
        // With one table for all worker ranks, every rank reads what the others found.
        let one_table = self.unsent_learned.len() == 1;
        JobTerms {
            min_work: MIN_JOB_WORK,
            share_solved_from: (!one_table).then_some(SHARE_MIN_WORK),
            hand_over: if one_table { 0 } else { HANDED_OVER_ENTRIES },
        }
    }

    fn submit(&mut self, job: Job) {
        let ranks = self.figures.len();
        let preferred = match self.assignment {
            // Its table holds the subtree.
            Assignment::Locality => self.placement.owner(&job.path).unwrap_or(0),
            Assignment::RoundRobin => {
                self.next_turn = (self.next_turn + 1) % ranks;
                self.table_of[self.next_turn]
            }
        };
        let path = job.path.clone();
        // Owners are kept under either assignment, so that both report the jobs they moved.
        if let Some(sent) = self.placement.submit(&path, preferred, job) {
            let moved = sent.placed.moved_from.is_some();
            let worker = self.roomiest_rank_of(sent.placed.worker);
            if moved {
                self.figures[worker].jobs_moved += 1;
            }
            self.dispatch(worker, sent.job, moved);
        }
    }

    fn receive(&mut self, timeout: Duration) -> Option<JobResult> {
        let until = Instant::now() + timeout;
        loop {
            if self.pending.is_empty() {
                self.take_in_one();
            }
            if let Some((worker, mut result)) = self.pending.pop_front() {
                self.snapshots
                    .keep(&result.path, std::mem::take(&mut result.subtree));
                let solved = std::mem::take(&mut result.solved);
                let table = self.table_of[worker];
                self.in_flight[worker] -= 1;
                for (other, unsent) in self.unsent_learned.iter_mut().enumerate() {
                    if other != table {
                        unsent.extend(solved.iter().copied());
                        let excess = unsent.len().saturating_sub(MAX_UNSENT_LEARNED);
                        unsent.drain(..excess);
                    }
                }
                if let Some(held) = self.placement.finished(table) {
                    // Its rank has room again: the job held for its table goes now (to the
                    // table that knows its subtree, or one nobody searched).
                    self.dispatch(worker, held, false);
                }
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

    fn abort(&mut self) -> Vec<Job> {
        self.broadcast(&ToWorker::Abort);
        self.placement.take_held()
    }
}
