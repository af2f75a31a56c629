//! Where the jobs of a root tree go when each worker searches against a table of its own (the
//! worker ranks of an MPI run, or the threads of `uttt solve --private-tables`): back to the
//! worker whose table knows their subtree, while it has room.

use std::collections::HashMap;

/// Subtrees a worker solved with at least this many MID calls are passed on to every other
/// worker (over MPI: rank), whose table would otherwise have to solve them again. Lower
/// thresholds save nodes but cost more in messages (see BENCHMARKS.md).
pub const SHARE_MIN_WORK: u64 = 64;

/// Which worker's table knows each subtree of the root tree: the worker that was sent the
/// last job at each path.
#[derive(Default)]
pub struct Owners(HashMap<Vec<u8>, usize>);

/// Where a job went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    /// The worker that runs it.
    pub worker: usize,
    /// Whether another worker's table, not this one's, knew its subtree.
    pub moved: bool,
}

impl Owners {
    /// The worker sent the last job at `path` or, failing that, at its nearest ancestor that
    /// had one: a leaf expanded into the tree passes its subtree's knowledge on to its
    /// children.
    pub fn of(&self, path: &[u8]) -> Option<usize> {
        (0..=path.len())
            .rev()
            .find_map(|len| self.0.get(&path[..len]).copied())
    }

    /// Chooses the worker of a job at `path` that would best go to `preferred` (see
    /// [`worker_with_room`], whose conditions apply; `capacity` jobs in flight fill a worker),
    /// and records it as the owner of the job's subtree from now on.
    pub fn place(
        &mut self,
        path: &[u8],
        preferred: usize,
        in_flight: &[usize],
        capacity: usize,
    ) -> Placed {
        let owner = self.of(path);
        let worker = worker_with_room(in_flight, preferred, capacity);
        self.0.insert(path.to_vec(), worker);
        Placed {
            worker,
            moved: owner.is_some_and(|owner| owner != worker),
        }
    }
}

/// The worker to run a job that would best go to `preferred`, given the jobs in flight on
/// each worker (at least one; `preferred` is one of them): the preferred worker while it
/// holds fewer than `capacity`, else the worker with the fewest jobs in flight (the first of
/// them on ties).
///
/// Sending a job elsewhere only once the preferred worker is full keeps subtrees with the
/// table that knows them (the alternatives measured are in BENCHMARKS.md).
pub fn worker_with_room(in_flight: &[usize], preferred: usize, capacity: usize) -> usize {
    if in_flight[preferred] < capacity {
        preferred
    } else {
        (0..in_flight.len())
            .min_by_key(|&worker| in_flight[worker])
            .expect("at least one worker")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_goes_to_its_preferred_worker_until_that_worker_is_full() {
        assert_eq!(worker_with_room(&[0, 0, 0], 2, 2), 2);
        assert_eq!(worker_with_room(&[0, 1, 1], 2, 2), 2);
        // The preferred worker is full: the least busy one (the first on ties) takes it.
        assert_eq!(worker_with_room(&[1, 0, 2], 2, 2), 1);
        assert_eq!(worker_with_room(&[1, 1, 2], 2, 2), 0);
        assert_eq!(worker_with_room(&[0, 3], 1, 4), 1);
        assert_eq!(worker_with_room(&[0, 4], 1, 4), 0);
    }

    #[test]
    fn a_subtree_belongs_to_the_worker_sent_the_last_job_at_it_or_its_nearest_ancestor() {
        let mut owners = Owners::default();
        let idle = [0, 0, 0];
        assert_eq!(owners.of(&[4, 0]), None);
        let first = owners.place(&[4], 1, &idle, 1);
        assert_eq!(
            first,
            Placed {
                worker: 1,
                moved: false
            }
        );
        // A leaf below a leaf a worker searched: that worker's table knows it.
        assert_eq!(owners.of(&[4, 0, 8]), Some(1));
        assert_eq!(owners.of(&[4]), Some(1));
        // Not the ancestors' or the siblings'.
        assert_eq!(owners.of(&[]), None);
        assert_eq!(owners.of(&[3, 4]), None);
        // A job at a deeper leaf whose owner is full moves that subtree alone.
        let moved = owners.place(&[4, 0], 1, &[0, 1, 0], 1);
        assert_eq!(
            moved,
            Placed {
                worker: 0,
                moved: true
            }
        );
        assert_eq!(owners.of(&[4, 0, 8]), Some(0));
        assert_eq!(owners.of(&[4, 1]), Some(1));
        // Sent elsewhere by choice (round-robin), a job moves too; the last job decides.
        assert!(owners.place(&[4], 2, &idle, 1).moved);
        assert_eq!(owners.of(&[4, 1]), Some(2));
        assert_eq!(owners.of(&[4, 0]), Some(0));
        // A job at a subtree nobody searched moves nothing.
        assert!(!owners.place(&[5], 2, &idle, 1).moved);
    }
}
