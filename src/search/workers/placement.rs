//! Where the jobs of a root tree go when each worker searches against a table of its own (the
//! tables of an MPI run, one per machine or per worker rank, each a worker here; or the
//! threads of `uttt solve --private-tables`): back to the worker whose table knows their
//! subtree, while it has room, or else, for a while, waiting at the root until it has.

use crate::search::handover::nearest_ancestor;
use std::collections::{HashMap, VecDeque};

/// Subtrees a worker solved with at least this many MID calls are passed on to every other
/// worker (over MPI: rank), whose table would otherwise have to solve them again. Lower
/// thresholds save nodes but cost more in messages; with many ranks, sharing every subtree of
/// 16 or more (none dropped on the way) measured best (see BENCHMARKS.md, "Scaling").
pub const SHARE_MIN_WORK: u64 = 16;

/// Which worker's table knows each subtree of the root tree: the worker that was sent the
/// last job at each path (when it was sent; a job held at the root, when it left for the
/// worker that took it).
#[derive(Default)]
pub struct Owners(HashMap<Vec<u8>, usize>);

/// Where a job went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    /// The worker that runs it.
    pub worker: usize,
    /// The worker whose table knew its subtree, when another than `worker` (the job moved).
    pub moved_from: Option<usize>,
}

impl Owners {
    /// The worker sent the last job at `path` or, failing that, at its nearest ancestor that
    /// had one: a leaf expanded into the tree passes its subtree's knowledge on to its
    /// children.
    pub fn of(&self, path: &[u8]) -> Option<usize> {
        nearest_ancestor(path, |prefix| self.0.get(prefix).copied())
    }

    /// Records `worker` as the owner of the subtree at `path` from now on.
    fn record(&mut self, path: &[u8], worker: usize) {
        self.0.insert(path.to_vec(), worker);
    }

    /// Chooses the worker of a job at `path` that would best go to `preferred` (see
    /// [`worker_with_room`], whose conditions apply; `capacities[w]` jobs in flight fill worker
    /// `w`), and records it as the owner of the job's subtree from now on.
    pub fn place(
        &mut self,
        path: &[u8],
        preferred: usize,
        in_flight: &[usize],
        capacities: &[usize],
    ) -> Placed {
        let owner = self.of(path);
        let worker = worker_with_room(in_flight, preferred, capacities);
        self.record(path, worker);
        Placed {
            worker,
            moved_from: owner.filter(|&owner| owner != worker),
        }
    }
}

/// The worker to run a job that would best go to `preferred`, given the jobs in flight on
/// each worker (at least one; `preferred` is one of them) and the jobs each can take: the
/// preferred worker while it holds fewer than its capacity, else the worker with the most
/// room left (the first of them on ties; with equal capacities, the one with the fewest jobs
/// in flight).
///
/// Sending a job elsewhere only once the preferred worker is full keeps subtrees with the
/// table that knows them (the alternatives measured are in BENCHMARKS.md).
pub fn worker_with_room(in_flight: &[usize], preferred: usize, capacities: &[usize]) -> usize {
    if in_flight[preferred] < capacities[preferred] {
        preferred
    } else {
        (0..in_flight.len())
            .min_by_key(|&worker| in_flight[worker] as isize - capacities[worker] as isize)
            .expect("at least one worker")
    }
}

/// The jobs of the workers of one transport: which worker's table knows each subtree
/// ([`Owners`]), the jobs in flight at each worker, and the jobs held at the root for a worker
/// that is full.
///
/// Why hold: when every worker is full, the slot a result frees is at the worker that sent it,
/// and the next leaf the root selects almost never belongs to that worker (with 16 workers, 15
/// times in 16). Sent there, the job searches a subtree that worker's table knows nothing of,
/// and takes the subtree from its owner, so with many workers most jobs would move and every
/// table would know a little of everything (BENCHMARKS.md, "Scaling"). A held job waits instead
/// for its owner's next free slot, while the free slot takes the next leaf selected (whose
/// owner may be that worker). Holding is bounded, so that a subtree that draws most of the
/// leaves still spreads over the other workers: at most [`Placement::hold_slots`] jobs in all,
/// and at most a worker's capacity for one worker (one more queue's worth).
pub struct Placement<J> {
    owners: Owners,
    in_flight: Vec<usize>,
    /// The jobs each worker may have in flight.
    capacities: Vec<usize>,
    /// Whether jobs may wait for their owner (locality assignment).
    holds: bool,
    /// Held jobs, oldest first.
    held: VecDeque<Held<J>>,
}

/// A job held at the root.
struct Held<J> {
    /// The worker it waits for (`None`: any).
    worker: Option<usize>,
    /// Its leaf's path, whose subtree goes to the worker that takes it.
    path: Vec<u8>,
    job: J,
}

/// A job [`Placement::submit`] sends now.
#[derive(Debug, PartialEq, Eq)]
pub struct Dispatch<J> {
    /// The job.
    pub job: J,
    /// Where it goes.
    pub placed: Placed,
}

impl<J> Placement<J> {
    /// The placement of `workers` workers (at least one) that take `capacity` jobs each;
    /// `holds`: whether a job may wait at the root for its owner (see [`Placement`]).
    pub fn new(workers: usize, capacity: usize, holds: bool) -> Placement<J> {
        Placement::with_capacities(vec![capacity; workers], holds)
    }

    /// The placement of workers that take `capacities[w]` jobs each (at least one worker):
    /// over MPI, a worker is a table, which the ranks of one machine share.
    pub fn with_capacities(capacities: Vec<usize>, holds: bool) -> Placement<J> {
        assert!(!capacities.is_empty(), "at least one worker");
        Placement {
            owners: Owners::default(),
            in_flight: vec![0; capacities.len()],
            capacities: capacities.into_iter().map(|c| c.max(1)).collect(),
            holds,
            held: VecDeque::new(),
        }
    }

    /// The most jobs held at once, beyond the workers' own: one per worker when holding (none
    /// with a single worker, which owns everything and so never waits for another).
    pub fn hold_slots(&self) -> usize {
        if self.holds && self.in_flight.len() > 1 {
            self.in_flight.len()
        } else {
            0
        }
    }

    /// The worker whose table knows the subtree at `path` (see [`Owners::of`]).
    pub fn owner(&self, path: &[u8]) -> Option<usize> {
        self.owners.of(path)
    }

    /// Takes a new job at `path` that would best go to `preferred`: returns it with the worker
    /// to send it to now (see [`Owners::place`]), or holds it and returns `None`: for the
    /// subtree's owner when the owner is full and the holding bounds allow (see
    /// [`Placement`]), and whenever every worker is full (for the owner, or for whichever
    /// worker finishes a job first), so that no worker ever has more than its capacity.
    pub fn submit(&mut self, path: &[u8], preferred: usize, job: J) -> Option<Dispatch<J>> {
        let owner = self.owners.of(path);
        let full = |worker: usize| self.in_flight[worker] >= self.capacities[worker];
        let wait_for_owner = owner.is_some_and(|owner| {
            let waiting = self.held.iter().filter(|h| h.worker == Some(owner)).count();
            full(owner) && self.held.len() < self.hold_slots() && waiting < self.capacities[owner]
        });
        let room = worker_with_room(&self.in_flight, preferred, &self.capacities);
        if wait_for_owner || (self.holds && full(room)) {
            // Its subtree's owner is recorded when it leaves (see `finished`): until then its
            // leaf, in flight, takes no other job.
            self.held.push_back(Held {
                worker: owner,
                path: path.to_vec(),
                job,
            });
            return None;
        }
        let placed = self
            .owners
            .place(path, preferred, &self.in_flight, &self.capacities);
        self.in_flight[placed.worker] += 1;
        Some(Dispatch { job, placed })
    }

    /// Takes back a job finished by `worker`; returns the oldest job held for it (or for any
    /// worker), now in flight there and its subtree's owner's (a job held for any worker is
    /// at a subtree nobody searched, so it moves none), if any.
    pub fn finished(&mut self, worker: usize) -> Option<J> {
        self.in_flight[worker] -= 1;
        let index = self
            .held
            .iter()
            .position(|h| h.worker.is_none_or(|w| w == worker))?;
        let held = self.held.remove(index)?;
        self.owners.record(&held.path, worker);
        self.in_flight[worker] += 1;
        Some(held.job)
    }

    /// Every held job, oldest first, which will not be sent any more: for an abort, after
    /// which the root takes them back unrun (see [`super::Workers::abort`]).
    pub fn take_held(&mut self) -> Vec<J> {
        self.held.drain(..).map(|held| held.job).collect()
    }

    /// The jobs in flight at each worker.
    pub fn in_flight(&self) -> &[usize] {
        &self.in_flight
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_goes_to_its_preferred_worker_until_that_worker_is_full() {
        assert_eq!(worker_with_room(&[0, 0, 0], 2, &[2; 3]), 2);
        assert_eq!(worker_with_room(&[0, 1, 1], 2, &[2; 3]), 2);
        // The preferred worker is full: the least busy one (the first on ties) takes it.
        assert_eq!(worker_with_room(&[1, 0, 2], 2, &[2; 3]), 1);
        assert_eq!(worker_with_room(&[1, 1, 2], 2, &[2; 3]), 0);
        assert_eq!(worker_with_room(&[0, 3], 1, &[4; 2]), 1);
        assert_eq!(worker_with_room(&[0, 4], 1, &[4; 2]), 0);
        // Of unequal workers (tables shared by different numbers of ranks), the one with the
        // most room left, not the one with the fewest jobs.
        assert_eq!(worker_with_room(&[2, 3, 1], 0, &[2, 8, 2]), 1);
        assert_eq!(worker_with_room(&[2, 7, 1], 0, &[2, 8, 2]), 1);
        assert_eq!(worker_with_room(&[2, 8, 1], 0, &[2, 8, 2]), 2);
    }

    #[test]
    fn a_subtree_belongs_to_the_worker_sent_the_last_job_at_it_or_its_nearest_ancestor() {
        let mut owners = Owners::default();
        let idle = [0, 0, 0];
        assert_eq!(owners.of(&[4, 0]), None);
        let first = owners.place(&[4], 1, &idle, &[1; 3]);
        assert_eq!(
            first,
            Placed {
                worker: 1,
                moved_from: None
            }
        );
        // A leaf below a leaf a worker searched: that worker's table knows it.
        assert_eq!(owners.of(&[4, 0, 8]), Some(1));
        assert_eq!(owners.of(&[4]), Some(1));
        // Not the ancestors' or the siblings'.
        assert_eq!(owners.of(&[]), None);
        assert_eq!(owners.of(&[3, 4]), None);
        // A job at a deeper leaf whose owner is full moves that subtree alone.
        let moved = owners.place(&[4, 0], 1, &[0, 1, 0], &[1; 3]);
        assert_eq!(
            moved,
            Placed {
                worker: 0,
                moved_from: Some(1)
            }
        );
        assert_eq!(owners.of(&[4, 0, 8]), Some(0));
        assert_eq!(owners.of(&[4, 1]), Some(1));
        // Sent elsewhere by choice (round-robin), a job moves too; the last job decides.
        assert_eq!(owners.place(&[4], 2, &idle, &[1; 3]).moved_from, Some(1));
        assert_eq!(owners.of(&[4, 1]), Some(2));
        assert_eq!(owners.of(&[4, 0]), Some(0));
        // A job at a subtree nobody searched moves nothing.
        assert_eq!(owners.place(&[5], 2, &idle, &[1; 3]).moved_from, None);
    }

    #[test]
    fn a_job_whose_owner_is_full_waits_for_it_within_the_bounds() {
        // Three workers of one job each.
        let mut placement = Placement::new(3, 1, true);
        assert_eq!(placement.hold_slots(), 3);
        // Unowned subtrees go where there is room.
        let a = placement.submit(&[1], 0, "a").unwrap();
        assert_eq!(a.placed.worker, 0);
        let b = placement.submit(&[2], 0, "b").unwrap();
        assert_eq!(b.placed.worker, 1);
        // Below [1], owned by the full worker 0: held, not moved to worker 2.
        assert_eq!(placement.submit(&[1, 5], 0, "c"), None);
        assert_eq!(placement.in_flight(), &[1, 1, 0]);
        // Worker 0 may hold `capacity` (one) job: the next one below [1] moves to worker 2.
        let d = placement.submit(&[1, 6], 0, "d").unwrap();
        assert_eq!(
            d.placed,
            Placed {
                worker: 2,
                moved_from: Some(0)
            }
        );
        // Worker 1 finishes with nothing held for it; worker 0 finishes and takes "c" at once.
        assert_eq!(placement.finished(1), None);
        assert_eq!(placement.finished(0), Some("c"));
        assert_eq!(placement.in_flight(), &[1, 0, 1]);
        assert_eq!(placement.owner(&[1, 5, 3]), Some(0));
        // An abort takes the held jobs back: none is sent any more.
        assert_eq!(placement.submit(&[1, 5, 3], 0, "e"), None);
        assert_eq!(placement.take_held(), vec!["e"]);
        assert_eq!(placement.in_flight(), &[1, 0, 1]);
        assert_eq!(placement.finished(0), None);
    }

    #[test]
    fn jobs_are_held_at_most_one_per_worker_in_all_and_never_without_holding() {
        let mut placement = Placement::new(2, 1, true);
        placement.submit(&[1], 0, 1).unwrap();
        placement.submit(&[2], 0, 2).unwrap();
        assert_eq!(placement.submit(&[1, 1], 0, 3), None);
        assert_eq!(placement.submit(&[2, 1], 1, 4), None);
        // Two held for two workers, but every worker is full: the third waits too, for the
        // first worker to finish, as does a job at a subtree nobody owns.
        assert_eq!(placement.submit(&[1, 2], 0, 5), None);
        assert_eq!(placement.submit(&[3], 0, 6), None);
        assert_eq!(placement.owner(&[3]), None);
        assert_eq!(placement.finished(1), Some(4));
        assert_eq!(placement.finished(1), Some(6));
        // The subtree nobody had searched belongs to the worker that took its held job.
        assert_eq!(placement.owner(&[3, 7]), Some(1));
        assert_eq!(placement.finished(1), None);
        assert_eq!(placement.finished(0), Some(3));
        assert_eq!(placement.finished(0), Some(5));
        assert_eq!(placement.in_flight(), &[1, 0]);
        // Round-robin (no holding) and a single worker never hold.
        let mut plain = Placement::new(2, 1, false);
        plain.submit(&[1], 0, 1).unwrap();
        plain.submit(&[2], 1, 2).unwrap();
        assert!(plain.submit(&[1, 1], 0, 3).is_some());
        assert_eq!(Placement::<u8>::new(1, 1, true).hold_slots(), 0);
    }
}
