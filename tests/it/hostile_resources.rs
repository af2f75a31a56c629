//! Files that cannot hurt, round two (issue 86): resources that fail (threads the system will
//! not start, a full disk), waits on paths that never answer (FIFOs), files that never end
//! (`/dev/zero`) and a table file cut short under a solve. Each case ends in bounded time (a
//! hang fails the test), with an error in the system's words and no panic. Cases that need
//! what this machine may not give (a memory cap, root for a small filesystem) say so and skip.
use crate::common::{finish_within, run_uttt};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The built binary under `sh -c 'ulimit -v KIB; exec uttt ARGS'`: its exit code, stdout and
/// stderr, waited for at most a minute.
fn run_capped(address_space_kib: u64, args: &[&str]) -> (i32, String, String) {
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {address_space_kib} && exec \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_uttt"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh runs");
    let (code, out, err, _) = finish_within(child, Duration::from_secs(60));
    (code, out, err)
}

/// Whether a test under a memory cap can run here (`sh` takes `ulimit -v`).
fn caps_memory() -> bool {
    let capped = Command::new("sh")
        .args(["-c", "ulimit -v 1000000"])
        .status()
        .is_ok_and(|status| status.success());
    if !capped {
        eprintln!("skipped: this shell cannot cap the address space (ulimit -v)");
    }
    capped
}

/// A command's result that must be an error in the system's words about the threads it asked
/// for: exit 2, no panic.
fn assert_threads_refused((code, _, err): (i32, String, String), what: &str) {
    assert_eq!(code, 2, "{what}: {err}");
    assert!(err.contains("cannot start search thread"), "{what}: {err}");
    assert!(!err.contains("panicked"), "{what}: {err}");
}

#[test]
fn threads_the_system_will_not_start_are_an_error_never_a_panic() {
    if !caps_memory() {
        return;
    }
    // 1 GiB of address space: far less than 1,024 threads' stacks.
    let cap = 1 << 20;
    for args in [
        &["solve", "start", "--threads", "1024", "--table-mem", "16M"][..],
        &[
            "analyze",
            "start",
            "--threads",
            "1024",
            "--table-mem",
            "16M",
        ],
        &[
            "campaign",
            "run",
            "start",
            "--db",
            "/nonexistent/c.db",
            "--threads",
            "1024",
        ],
        &[
            "serve",
            "--port",
            "0",
            "--threads",
            "1024",
            "--table-mem",
            "16M",
        ],
    ] {
        assert_threads_refused(run_capped(cap, args), &args.join(" "));
    }
    // `play` asks no count of the system before it searches: its search meets the refusal.
    assert_threads_refused(
        run_capped(
            cap,
            &["play", "ee ea", "--threads", "1000", "--table-mem", "16M"],
        ),
        "play",
    );
    // A batch: its solving threads (`--jobs`) too.
    let (code, _, err) = run_capped(
        cap,
        &[
            "solve",
            "--file",
            "/dev/null",
            "--jobs",
            "1000",
            "--table-mem",
            "16M",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // Within what the system gives, the same commands answer.
    let (code, out, err) = run_uttt(&["solve", "start", "--threads", "2", "--node-limit", "1"]);
    assert!(matches!(code, 0 | 1), "{err}");
    assert!(out.contains("result"), "{out}");
}
