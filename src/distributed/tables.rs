//! Where the worker ranks' tables are: by default the worker ranks of one machine share one
//! table in shared memory (see `crate::table`'s shared tables), so that what one of them learns
//! every other reads at once, as the threads of one process do; across machines each machine
//! has its own. With `--table-per-rank` each rank keeps a table of its own instead, as
//! ranks on separate machines would: a setting for measuring what separate tables cost, and
//! for machines whose shared memory cannot hold a table.
//!
//! Rank 0 learns which ranks share a table, and each rank's threads ([`gather_worker_ranks`]),
//! so that it treats the ranks of a table as one worker for locality and sends them what other
//! tables solved once (see [`super::MpiWorkers`]).

use crate::table::Table;
use mpi::collective::SystemOperation;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use std::path::{Path, PathBuf};

/// The longest path of a shared table's file, in bytes (it goes to the machine's other ranks
/// in a message of this size).
const MAX_PATH_BYTES: usize = 4096;

/// The communicator of the worker ranks (every rank but 0); `None` on rank 0. Every rank of
/// `world` calls it (it is collective).
pub fn worker_ranks(world: &SimpleCommunicator) -> Option<SimpleCommunicator> {
    let color = if world.rank() == 0 {
        Color::undefined()
    } else {
        Color::with_value(1)
    };
    world.split_by_color(color)
}

/// This worker rank's share of the table of its machine's worker ranks: the table and the
/// world rank of the rank that made it (the first worker rank of the machine), or `None` when
/// the rank is its machine's only worker rank, or when the machine's ranks could not share a
/// table (each rank that failed has said why on standard error): the rank then keeps a table
/// of its own. Every rank of `workers` calls it (it is collective).
///
/// The first rank of each machine creates the table, of `bytes`, in a new file in shared
/// memory; the others map that file; once all of them have, the file is deleted, so that
/// nothing is left behind however the run ends from then on.
pub fn machine_table(
    workers: &SimpleCommunicator,
    world_rank: usize,
    bytes: u64,
) -> Option<(Table, usize)> {
    let machine = workers.split_shared(0);
    if machine.size() == 1 {
        // Alone on its machine: an anonymous table of its own is the same table, and faster
        // (it grows as it fills, and may get huge pages, which shared memory seldom does).
        return None;
    }
    let first = machine.process_at_rank(0);
    let is_first = machine.rank() == 0;
    let mut maker = world_rank as u64;
    first.broadcast_into(&mut maker);
    let mut path_bytes = vec![0u8; MAX_PATH_BYTES];
    let mine = if is_first {
        let path = shared_table_path(world_rank);
        let made = (|| {
            // Sent as text, so that reading it back needs no trust in the bytes.
            let text = path.to_str().filter(|text| text.len() < MAX_PATH_BYTES);
            let Some(text) = text else {
                anyhow::bail!(
                    "its path {} is not UTF-8 shorter than {MAX_PATH_BYTES} bytes",
                    path.display()
                );
            };
            let table = Table::create_shared(&path, bytes)?;
            path_bytes[..text.len()].copy_from_slice(text.as_bytes());
            Ok(table)
        })();
        first.broadcast_into(&mut path_bytes[..]);
        Some(made)
    } else {
        first.broadcast_into(&mut path_bytes[..]);
        // No path: the first rank could not make the table, and has said why.
        path_in(&path_bytes).map(|path| Table::open_shared(&path).map_err(anyhow::Error::from))
    };
    let mapped = i32::from(matches!(mine, Some(Ok(_))));
    let mut all_mapped = 0;
    machine.all_reduce_into(&mapped, &mut all_mapped, SystemOperation::min());
    if let (true, Some(path)) = (is_first, path_in(&path_bytes)) {
        let _ = std::fs::remove_file(path);
    }
    match mine {
        Some(Ok(table)) if all_mapped == 1 => Some((table, maker as usize)),
        Some(Err(error)) => {
            eprintln!(
                "uttt: rank {world_rank} could not share a table with the other worker ranks \
                 of its machine ({error:#}), so each of them keeps a table of its own"
            );
            None
        }
        _ => None,
    }
}

/// Where the first rank of a machine creates the shared table: in `/dev/shm` (memory, on
/// Linux) where there is one, else in the temporary directory; a name no other run uses.
fn shared_table_path(world_rank: usize) -> PathBuf {
    let shm = Path::new("/dev/shm");
    let directory = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    directory.join(format!(
        "uttt-table-{}-{world_rank}-{nanos}",
        std::process::id()
    ))
}

/// The path the first rank of a machine sent (UTF-8 up to the first zero byte), if any.
fn path_in(bytes: &[u8]) -> Option<PathBuf> {
    let length = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let text = std::str::from_utf8(&bytes[..length]).ok()?;
    (!text.is_empty()).then(|| PathBuf::from(text))
}

/// What rank 0 learns of each worker rank at the start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkerRankSetup {
    /// The world rank of the rank that made the table it searches against (itself when it
    /// keeps its own).
    pub table_rank: usize,
    /// Its search threads: its own `--threads`, whose default is its own machine's
    /// parallelism, so that ranks on machines of different sizes may differ.
    pub threads: usize,
}

/// A worker rank's part of [`gather_worker_ranks`]: sends rank 0 its setup. Every worker rank
/// calls it once, as rank 0 calls [`gather_worker_ranks`] (it is collective).
pub fn send_worker_rank_setup(world: &SimpleCommunicator, mine: WorkerRankSetup) {
    let mine = [mine.table_rank as u64, mine.threads as u64];
    world.process_at_rank(0).gather_into(&mine[..]);
}

/// Rank 0's part: each worker rank's setup, entry `r − 1` for worker rank `r` (see
/// [`send_worker_rank_setup`]).
pub fn gather_worker_ranks(world: &SimpleCommunicator) -> Vec<WorkerRankSetup> {
    // Rank 0's own pair is a placeholder, dropped below.
    let none = [0u64; 2];
    let mut all = vec![0u64; 2 * world.size() as usize];
    world
        .process_at_rank(0)
        .gather_into_root(&none[..], &mut all[..]);
    all.chunks_exact(2)
        .skip(1)
        .map(|rank| WorkerRankSetup {
            table_rank: rank[0] as usize,
            threads: rank[1] as usize,
        })
        .collect()
}
