//! A table file cut short by another program while a search has it mapped. The table file's
//! lock is advisory: it keeps a second uttt away, not `truncate` or an editor. A read of a
//! mapped page that no longer has a file behind it raises SIGBUS, whose default action ends the
//! process without a word (exit 135). The command line registers the mapping of the table
//! file it opened ([`watch_table_file`]); a SIGBUS within it ends the process at once with a
//! message naming the file, and exit 2. Nothing can be saved then: the table's memory is gone.
//! A SIGBUS anywhere else keeps its default action.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The watched mapping: its first address and its length (0: none).
static START: AtomicUsize = AtomicUsize::new(0);
static LENGTH: AtomicUsize = AtomicUsize::new(0);
/// What the handler writes, made before it is installed (a handler may not allocate).
static MESSAGE: OnceLock<Vec<u8>> = OnceLock::new();

/// Watches the mapping `range` (first address, length) of the table file at `path`: a SIGBUS
/// within it ends the process with a message and exit 2. One table file per process (the
/// command line opens one).
pub fn watch_table_file(path: &Path, range: (usize, usize)) {
    let message = format!(
        "error: the table file {} was cut short by another program while this search had it \
         mapped (its lock keeps other uttt processes away, not other programs), or its disk ran \
         out of space or failed: the search cannot go on\n",
        path.display()
    );
    if MESSAGE.set(message.into_bytes()).is_err() {
        return;
    }
    START.store(range.0, Ordering::SeqCst);
    LENGTH.store(range.1, Ordering::SeqCst);
    install();
}

#[cfg(target_os = "linux")]
fn install() {
    // SAFETY: a zeroed `sigaction` is a valid value to fill in; the handler only reads atomics
    // and a message made before, and calls `write`, `sigaction` and `_exit`, which are
    // async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_bus_error
            as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void)
            as libc::sighandler_t;
        action.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}

#[cfg(not(target_os = "linux"))]
fn install() {}

#[cfg(target_os = "linux")]
extern "C" fn on_bus_error(
    signal: libc::c_int,
    info: *mut libc::siginfo_t,
    _context: *mut libc::c_void,
) {
    // SAFETY: the kernel hands a valid siginfo to an SA_SIGINFO handler. Only a fault the
    // kernel raised (si_code > 0) has an address; one sent by `kill` has a pid there.
    let (code, address) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
    let (start, length) = (START.load(Ordering::SeqCst), LENGTH.load(Ordering::SeqCst));
    if code > 0 && address.wrapping_sub(start) < length {
        if let Some(message) = MESSAGE.get() {
            // SAFETY: writes bytes that live as long as the process; nothing after it but
            // `_exit`.
            unsafe { libc::write(2, message.as_ptr().cast(), message.len()) };
        }
        // SAFETY: `_exit` is async-signal-safe.
        unsafe { libc::_exit(2) };
    }
    // Not the table file's: the default action, at once for a signal sent (`kill -BUS`), and
    // for a fault when the access is made again.
    // SAFETY: restores the default disposition and raises the signal, async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = libc::SIG_DFL;
        libc::sigaction(signal, &action, std::ptr::null_mut());
        if code <= 0 {
            libc::raise(signal);
        }
    }
}
