//! Running a search without the GIL while this thread watches it: Ctrl-C (which Python only
//! sees on a thread that holds the GIL) raises the search's stop flag, and a progress callback
//! hears how far it got.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use uttt::search::dfpn::LiveStats;

/// How often the watching thread takes the GIL to look for Ctrl-C: a stop within a second
/// with room to spare, and a cost nobody sees.
const SIGNAL_POLL_MS: u64 = 100;

/// How a watched run ended.
pub struct Watched<T> {
    /// What the work returned (partial when stopped).
    pub value: T,
    /// The KeyboardInterrupt that stopped it, if Ctrl-C did.
    pub interrupt: Option<PyErr>,
}

/// What the watcher does besides looking for Ctrl-C: call `callback` every `every` with what
/// `live` shows.
pub struct Progress<'a, 'py> {
    /// The callable, given one dict: `nodes`, `time_ms`, `root_phi`, `root_delta`.
    pub callback: Option<&'a Bound<'py, PyAny>>,
    /// How often.
    pub every: Duration,
    /// The numbers the search publishes.
    pub live: &'a LiveStats,
}

/// Runs `work` on a thread of its own with the GIL released, so that other Python threads
/// run meanwhile, while this thread waits for it, every [`SIGNAL_POLL_MS`] checking for
/// Ctrl-C (then raising `stop`, after which the work returns what it has) and calling the
/// progress callback when it is due. An exception the callback raises stops the work too, and
/// is raised once the work has returned.
pub fn run_watched<T: Send>(
    py: Python<'_>,
    stop: &AtomicBool,
    progress: &Progress<'_, '_>,
    work: impl FnOnce() -> T + Send,
) -> PyResult<Watched<T>> {
    let start = Instant::now();
    let (done, finished) = crossbeam_channel::bounded(1);
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .spawn_scoped(scope, move || {
                // The receiver waits until the work ends, so the send cannot fail.
                let _ = done.send(work());
            })
            .map_err(|error| {
                pyo3::exceptions::PyRuntimeError::new_err(format!(
                    "cannot start the search's thread: {error}"
                ))
            })?;
        let mut interrupt = None;
        let mut failure = None;
        let mut next_report = progress.every;
        loop {
            let poll = Duration::from_millis(SIGNAL_POLL_MS);
            let wait = match progress.callback {
                Some(_) => poll.min(next_report.saturating_sub(start.elapsed())),
                None => poll,
            };
            if let Ok(value) = py.detach(|| finished.recv_timeout(wait)) {
                if let Some(error) = failure {
                    return Err(error);
                }
                return Ok(Watched { value, interrupt });
            }
            if interrupt.is_none() && failure.is_none() {
                if let Err(error) = py.check_signals() {
                    stop.store(true, Ordering::SeqCst);
                    if error.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
                        interrupt = Some(error);
                    } else {
                        failure = Some(error);
                    }
                }
            }
            if let Some(callback) = progress.callback {
                if start.elapsed() >= next_report && failure.is_none() {
                    next_report = start.elapsed() + progress.every;
                    if let Err(error) = report(py, callback, progress.live, start) {
                        stop.store(true, Ordering::SeqCst);
                        failure = Some(error);
                    }
                }
            }
        }
    })
}

/// Calls `callback` with what `live` shows now.
fn report(
    py: Python<'_>,
    callback: &Bound<'_, PyAny>,
    live: &LiveStats,
    start: Instant,
) -> PyResult<()> {
    let root = live.root();
    let state = PyDict::new(py);
    state.set_item("nodes", live.nodes.load(Ordering::Relaxed))?;
    state.set_item("time_ms", start.elapsed().as_millis() as u64)?;
    state.set_item("root_phi", root.phi)?;
    state.set_item("root_delta", root.delta)?;
    callback.call1((state,))?;
    Ok(())
}
