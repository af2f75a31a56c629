//! Starting a search's threads so that a thread the system cannot start is an error, never a
//! panic or a hang.
//!
//! `std::thread::Scope::spawn` panics when the system refuses a thread (no memory for its
//! stack, a process limit). Inside a scope that panic is worse than a crash: the scope waits
//! for the threads already started, which wait for work that never comes, and the call never
//! returns. [`spawn_gated`] starts every thread behind a gate: they begin their work only once
//! all of them are started, and when one cannot be, the gate sends the others home and the
//! caller gets a [`ThreadError`] in the system's words.

use std::fmt;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{Scope, ScopedJoinHandle};

/// The most search threads a solve takes (the command line's `--threads` range, and Python's).
pub const MAX_THREADS: usize = 1024;

/// A search thread the system would not start.
#[derive(Debug)]
pub struct ThreadError {
    /// Threads asked for.
    pub wanted: usize,
    /// Threads started before the refusal (sent home since).
    pub started: usize,
    /// What the system said.
    pub source: std::io::Error,
}

impl fmt::Display for ThreadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot start search thread {} of {}: {} (ask for fewer threads)",
            self.started + 1,
            self.wanted,
            self.source
        )
    }
}

/// The system's words are in the message already: no source, so that a chain of causes does
/// not say them twice.
impl std::error::Error for ThreadError {}

/// Where the threads behind a gate wait: `None` until every thread is started, then whether
/// they go on.
#[derive(Default)]
struct Gate {
    open: Mutex<Option<bool>>,
    changed: Condvar,
}

impl Gate {
    fn set(&self, go: bool) {
        *self.open.lock().unwrap_or_else(|p| p.into_inner()) = Some(go);
        self.changed.notify_all();
    }

    fn wait(&self) -> bool {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(go) = *open {
                return go;
            }
            open = self.changed.wait(open).unwrap_or_else(|p| p.into_inner());
        }
    }
}

/// Starts `count` threads in `scope`, the `i`th running `make(i)`'s closure once all of them
/// are started. When the system refuses one, those started return without running their
/// closure (their handles are dropped; the scope joins them) and the refusal comes back.
/// A handle's result is `Some` (a thread sent home never hands one over).
pub fn spawn_gated<'scope, 'env, T, F>(
    scope: &'scope Scope<'scope, 'env>,
    count: usize,
    make: impl FnMut(usize) -> F,
) -> Result<Vec<ScopedJoinHandle<'scope, Option<T>>>, ThreadError>
where
    T: Send + 'scope,
    F: FnOnce() -> T + Send + 'scope,
{
    spawn_gated_by(scope, count, |_| std::thread::Builder::new(), make)
}

/// [`spawn_gated`], the `i`th thread made by `builder(i)` (a test asks for a stack no system
/// gives).
fn spawn_gated_by<'scope, 'env, T, F>(
    scope: &'scope Scope<'scope, 'env>,
    count: usize,
    builder: impl Fn(usize) -> std::thread::Builder,
    mut make: impl FnMut(usize) -> F,
) -> Result<Vec<ScopedJoinHandle<'scope, Option<T>>>, ThreadError>
where
    T: Send + 'scope,
    F: FnOnce() -> T + Send + 'scope,
{
    let gate = Arc::new(Gate::default());
    // Should `make` panic with threads started, they are sent home as the panic leaves:
    // the scope would otherwise wait for them for ever.
    let mut sends_home = SendHomeOnDrop {
        gate: Arc::clone(&gate),
        armed: true,
    };
    let mut handles = Vec::with_capacity(count);
    for i in 0..count {
        let work = make(i);
        let gate_here = Arc::clone(&gate);
        let spawned = builder(i).spawn_scoped(scope, move || gate_here.wait().then(work));
        match spawned {
            Ok(handle) => handles.push(handle),
            Err(source) => {
                // `sends_home` sends the started threads home as this returns.
                return Err(ThreadError {
                    wanted: count,
                    started: i,
                    source,
                });
            }
        }
    }
    sends_home.armed = false;
    gate.set(true);
    Ok(handles)
}

/// Sends the threads behind its gate home when dropped armed (see [`spawn_gated_by`]).
struct SendHomeOnDrop {
    gate: Arc<Gate>,
    armed: bool,
}

impl Drop for SendHomeOnDrop {
    fn drop(&mut self) {
        if self.armed {
            self.gate.set(false);
        }
    }
}

/// Whether the system starts `count` threads now (they end at once): asked where a thread count
/// comes in (a command's `--threads`, a Python `Solver`, the server), so that a count the
/// system cannot give is refused there in its words, before any work. A search still handles
/// a refusal of its own later (memory may run short in between).
pub fn check_startable(count: usize) -> Result<(), ThreadError> {
    std::thread::scope(|scope| spawn_gated(scope, count, |_| || ()).map(drop))
}

/// The result of a thread started by [`spawn_gated`].
///
/// # Panics
/// When the thread panicked (a bug: its panic goes on in the caller), as `join` would.
pub fn join_gated<T>(handle: ScopedJoinHandle<'_, Option<T>>) -> T {
    match handle.join() {
        Ok(Some(value)) => value,
        Ok(None) => unreachable!("the gate opened for every handle handed out"),
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_thread_runs_once_all_are_started() {
        let ran = AtomicUsize::new(0);
        let sum: usize = std::thread::scope(|scope| {
            let handles = spawn_gated(scope, 8, |i| {
                let ran = &ran;
                move || {
                    ran.fetch_add(1, Ordering::Relaxed);
                    i
                }
            })
            .unwrap();
            handles.into_iter().map(join_gated).sum()
        });
        assert_eq!(sum, 28);
        assert_eq!(ran.load(Ordering::Relaxed), 8);
    }

    #[test]
    fn a_thread_the_system_refuses_is_an_error_and_the_others_run_nothing() {
        let ran = AtomicUsize::new(0);
        let error = std::thread::scope(|scope| {
            let builder = |i| {
                let builder = std::thread::Builder::new();
                // A stack larger than any address space: refused.
                if i == 5 {
                    builder.stack_size(usize::MAX / 2)
                } else {
                    builder
                }
            };
            spawn_gated_by(scope, 8, builder, |_| {
                let ran = &ran;
                move || ran.fetch_add(1, Ordering::Relaxed)
            })
            .expect_err("the sixth thread is refused")
        });
        // The scope ended: the five started went home without running.
        assert_eq!(ran.load(Ordering::Relaxed), 0);
        assert_eq!((error.wanted, error.started), (8, 5));
        assert!(
            error
                .to_string()
                .starts_with("cannot start search thread 6 of 8: "),
            "{error}"
        );
    }
}
