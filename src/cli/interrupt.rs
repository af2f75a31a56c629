//! Stopping searches from outside. Ctrl-C: the first one asks the running searches to stop
//! (they return `unknown` with what they know, and the command exits 130); a second one exits
//! at once. The command itself can also stop them quietly, e.g. when its reader went away.

use super::EXIT_INTERRUPTED;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

static STOP: AtomicBool = AtomicBool::new(false);
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Installs the Ctrl-C handler (once) and returns the flag that stops searches. The flag lives
/// in the CLI layer; searches only ever see a borrowed `&AtomicBool`.
pub fn stop_flag() -> &'static AtomicBool {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        // If no handler can be installed (e.g. one exists already), Ctrl-C keeps its default
        // effect of ending the process; nothing else depends on the handler.
        let _ = ctrlc::set_handler(|| {
            if INTERRUPTED.swap(true, Ordering::SeqCst) {
                std::process::exit(EXIT_INTERRUPTED);
            }
            STOP.store(true, Ordering::SeqCst);
        });
    });
    &STOP
}

/// Stops the running searches without counting as an interrupt (the exit code is the
/// command's own).
pub fn stop_quietly() {
    STOP.store(true, Ordering::SeqCst);
}

/// Whether Ctrl-C was pressed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}
