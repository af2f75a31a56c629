//! A search request (or a certificate's check) watched while it runs: its work runs on a thread
//! of its own while the request's thread watches the client and the clock. The work stops when
//! the client goes away, when the request's time is up, or when the server stops; a client that
//! takes server-sent events gets the search's progress as it goes, then its answer.

use super::answers::{Progress, Searches};
use super::api::Request;
use super::http::EVENT_TIMEOUT;
use super::http::{client_gone, respond, send_event, start_events, Answer, WRITE_TIMEOUT};
use std::net::TcpStream;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How often the watcher looks at the client, the clock and the server's stop flag.
const WATCH_EVERY: Duration = Duration::from_millis(50);
/// How often a client that takes events gets a progress event.
pub const PROGRESS_EVERY: Duration = Duration::from_millis(500);

/// Answers `request` (a search, or a check of the certificate `body`) on `stream`: as one JSON
/// answer, or with `events` as server-sent events (`progress` every [`PROGRESS_EVERY`], then
/// `result` with the answer or `error` with `{"error": TEXT}`).
/// `slot` is given back once the answer is ready, before it is written.
pub fn answer_watched(
    mut stream: TcpStream,
    events: bool,
    searches: &Searches,
    request: &Request,
    body: &[u8],
    slot: Permit<'_>,
) {
    let stop = AtomicBool::new(false);
    let progress = Progress::default();
    let start = Instant::now();
    let deadline = searches
        .options_for(request)
        .time_limit
        .and_then(|limit| start.checked_add(limit));
    let mut streaming = events && start_events(&mut stream, searches.stop).is_ok();
    if events && !streaming {
        stop.store(true, Ordering::Relaxed);
    }
    let answer = std::thread::scope(|scope| {
        let (done, answered) = mpsc::channel();
        let (stop, progress) = (&stop, &progress);
        // Should this thread panic while it watches, the work is stopped as the panic leaves
        // this closure, rather than left to run on unwatched (the scope waits for it).
        let _stop_on_unwind = RaiseOnDrop(stop);
        let started = std::thread::Builder::new().spawn_scoped(scope, move || {
            // A panic is a bug; it answers 500 rather than taking the server down with it.
            let answer = std::panic::catch_unwind(AssertUnwindSafe(|| {
                searches.answer(request, body, stop, progress)
            }));
            let _ = done.send(answer.unwrap_or_else(|_| {
                Answer::error(
                    500,
                    "the search failed (a bug): see the server's error output",
                )
            }));
        });
        if let Err(error) = started {
            return Answer::error(500, &format!("cannot start the search's thread: {error}"));
        }
        let mut last_event = start;
        loop {
            match answered.recv_timeout(WATCH_EVERY) {
                Ok(answer) => break answer,
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    break Answer::error(500, "the search ended without an answer")
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            let now = Instant::now();
            if searches.stop.load(Ordering::Relaxed)
                || deadline.is_some_and(|deadline| now >= deadline)
                || client_gone(&mut stream)
            {
                stop.store(true, Ordering::Relaxed);
            }
            if streaming && now.duration_since(last_event) >= PROGRESS_EVERY {
                last_event = now;
                let data = serde_json::to_string(&progress.json(request, start.elapsed()))
                    .expect("progress serialises");
                if send_event(&mut stream, "progress", &data, EVENT_TIMEOUT, searches.stop).is_err()
                {
                    streaming = false;
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
    });
    drop(slot);
    if !events {
        return respond(stream, &answer, searches.stop);
    }
    if streaming {
        let name = if answer.status == 200 {
            "result"
        } else {
            "error"
        };
        let data = String::from_utf8_lossy(&answer.body);
        let _ = send_event(&mut stream, name, &data, WRITE_TIMEOUT, searches.stop);
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// Raises its flag when dropped: on every way out of a scope, a panic's included.
struct RaiseOnDrop<'a>(&'a AtomicBool);

impl Drop for RaiseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// One of a counted number of places (a search slot, a request being answered), given back
/// when dropped.
pub(crate) struct Permit<'a>(&'a AtomicUsize);

impl<'a> Permit<'a> {
    /// One of the `most` places that `taken` counts, if one is free.
    pub fn take(taken: &'a AtomicUsize, most: usize) -> Option<Permit<'a>> {
        if taken.fetch_add(1, Ordering::SeqCst) >= most {
            taken.fetch_sub(1, Ordering::SeqCst);
            None
        } else {
            Some(Permit(taken))
        }
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}
