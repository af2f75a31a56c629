//! Stopping searches from outside. Ctrl-C (SIGINT) and SIGTERM (what `timeout`, `docker stop`,
//! systemd and batch schedulers send before they kill): the first asks the running searches to
//! stop (they return `unknown` with what they know, a table file is written back, and the
//! command exits 128 + the signal's number: 130 or 143); a second Ctrl-C exits at once. A
//! second SIGTERM does not: GNU `timeout` sends its signal twice at once (to the command, then
//! to its process group), which ended the command now and then before it had written its
//! output, and the tools that send SIGTERM follow it with SIGKILL when they mean it. The
//! command itself can also stop them quietly, e.g. when its reader went away.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::OnceLock;

static STOP: AtomicBool = AtomicBool::new(false);
/// The first stopping signal received, 0 for none.
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// Installs the signal handlers (once) and returns the flag that stops searches. The flag lives
/// in the CLI layer; searches only ever see a borrowed `&AtomicBool`. Commands that search
/// call this before anything else, so that a signal never finds the default action (which
/// ends the process without writing a table file back) once they have started.
pub fn stop_flag() -> &'static AtomicBool {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(install_handlers);
    &STOP
}

/// Stops the running searches without counting as an interrupt (the exit code is the
/// command's own).
pub fn stop_quietly() {
    STOP.store(true, Ordering::SeqCst);
}

/// The exit code of a command stopped by a signal (128 + its number), or `None` when no signal
/// came.
pub fn exit_code() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(128 + signal),
    }
}

/// What a stopping signal does: stop the searches, or, for a Ctrl-C after an earlier
/// signal, end the process (see the module's comment for why a repeated SIGTERM does not).
/// Only atomic operations and `_exit`, which are safe in a signal handler.
#[cfg(unix)]
extern "C" fn on_signal(signal: libc::c_int) {
    // The first signal is the one the exit code names.
    let first = SIGNAL
        .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
        .is_ok();
    if !first && signal == libc::SIGINT {
        // SAFETY: `_exit` is async-signal-safe; nothing runs after it.
        unsafe { libc::_exit(128 + signal) };
    }
    STOP.store(true, Ordering::SeqCst);
}

#[cfg(unix)]
fn install_handlers() {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a zeroed `sigaction` is a valid value to fill in; the handler only touches
        // atomics and calls `_exit`. SA_RESTART resumes system calls the signal interrupted
        // (reads of a batch's input). If installing fails, the signal keeps its default
        // effect of ending the process; nothing else depends on the handler.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// Elsewhere signals keep their default effect.
#[cfg(not(unix))]
fn install_handlers() {}
