//! Ctrl-C: the first one asks the running searches to stop (they return `unknown` with what
//! they know, and the command exits 130); a second one exits at once.

use super::EXIT_INTERRUPTED;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// Installs the handler (once) and returns the flag it raises. The flag lives in the CLI
/// layer; searches only ever see a borrowed `&AtomicBool`.
pub fn stop_flag() -> &'static AtomicBool {
    static STOP: AtomicBool = AtomicBool::new(false);
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        // If no handler can be installed (e.g. one exists already), Ctrl-C keeps its default
        // effect of ending the process; nothing else depends on the handler.
        let _ = ctrlc::set_handler(|| {
            if STOP.swap(true, Ordering::SeqCst) {
                std::process::exit(EXIT_INTERRUPTED);
            }
        });
    });
    &STOP
}

/// Whether Ctrl-C was pressed.
pub fn interrupted() -> bool {
    stop_flag().load(Ordering::Relaxed)
}
