//! Buffered sends: the send buffer each rank attaches, sized so that no job or result ever
//! waits for room.

use super::{
    jobs_per_rank, BSEND_OVERHEAD_BYTES, BUFFERED_MESSAGE_BYTES, MAX_SEND_BUFFER_BYTES, TAG,
};
use mpi::environment::Universe;
use mpi::topology::Process;
use mpi::traits::*;

/// Whether a rank's jobs or results go as buffered sends (see [`attach_send_buffer`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SendBuffer {
    attached: bool,
}

/// The send buffer a rank needs for its jobs or results, given the threads of the worker ranks
/// it sends to: rank 0 sends jobs to every worker rank (`worker_threads` holds each one's
/// threads), a worker rank sends results to rank 0 alone (`worker_threads` holds its own);
/// `None` when that is more than [`MAX_SEND_BUFFER_BYTES`].
///
/// Why it suffices: a buffered message holds its space from its send until the sender sees it
/// delivered, in one of its later MPI calls. Rank 0 sends a worker rank a job only while fewer
/// of its jobs are in flight than [`jobs_per_rank`] gives for that rank's threads, and a job
/// stays in flight until its result is taken in, which the rank sends only after receiving the job; a
/// worker rank has no more results out than jobs in flight. So at most [`jobs_per_rank`]
/// messages per destination are undelivered, and the buffer holds twice that many (each of at
/// most [`BUFFERED_MESSAGE_BYTES`] and [`BSEND_OVERHEAD_BYTES`]), for messages delivered but
/// not yet seen to be.
pub fn send_buffer_bytes(worker_threads: &[usize]) -> Option<usize> {
    let messages = worker_threads.iter().try_fold(0usize, |sum, &threads| {
        sum.checked_add(2 * jobs_per_rank(threads))
    })?;
    let bytes = messages.checked_mul(BUFFERED_MESSAGE_BYTES + BSEND_OVERHEAD_BYTES)?;
    (bytes <= MAX_SEND_BUFFER_BYTES).then_some(bytes)
}

/// Attaches this rank's send buffer for the worker ranks of `worker_threads` threads (see
/// [`send_buffer_bytes`]); without one (too many ranks and threads) jobs and results go as
/// plain sends.
pub fn attach_send_buffer(universe: &mut Universe, worker_threads: &[usize]) -> SendBuffer {
    let bytes = send_buffer_bytes(worker_threads);
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
    pub(super) fn try_send(self, destination: &Process, bytes: &[u8]) -> bool {
        self.try_send_with_tag(destination, bytes, TAG)
    }

    /// [`SendBuffer::try_send`] with another tag than the protocol's.
    pub(super) fn try_send_with_tag(self, destination: &Process, bytes: &[u8], tag: i32) -> bool {
        let fits = self.attached && bytes.len() <= BUFFERED_MESSAGE_BYTES;
        if fits {
            destination.buffered_send_with_tag(bytes, tag);
        }
        fits
    }

    /// Sends `bytes` with `tag` buffered when they fit, else as a plain send, which may wait
    /// until `destination` receives them (a worker rank's messages to rank 0: see
    /// [`super::MpiWorkers::send_bytes`] for why rank 0 always does).
    pub(super) fn send_with_tag(self, destination: &Process, bytes: &[u8], tag: i32) {
        if !self.try_send_with_tag(destination, bytes, tag) {
            destination.send_with_tag(bytes, tag);
        }
    }
}
