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

/// How a command ended.
struct Ended {
    /// Its exit code, or `-(signal)` when a signal ended it.
    code: i32,
    /// Its stderr.
    err: String,
    /// How long it ran.
    took: Duration,
}

/// Runs the built binary with `args` in `dir`, stdin closed, sends it `signal` after its
/// delay if given, and waits for it at most 30 s (a hang fails the test).
fn run_signalled(dir: &std::path::Path, args: &[&str], signal: Option<(i32, Duration)>) -> Ended {
    use std::os::unix::process::ExitStatusExt;
    let mut child = Command::new(env!("CARGO_BIN_EXE_uttt"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("uttt runs");
    let began = std::time::Instant::now();
    let mut signalled = false;
    while child.try_wait().unwrap().is_none() {
        if let Some((number, after)) = signal {
            if !signalled && began.elapsed() >= after {
                // SAFETY: signals our own child, which has not been reaped.
                unsafe { libc::kill(child.id() as libc::pid_t, number) };
                signalled = true;
            }
        }
        if began.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("uttt {} still ran after 30 s", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let took = began.elapsed();
    let out = child.wait_with_output().unwrap();
    Ended {
        code: out
            .status
            .code()
            .unwrap_or_else(|| -out.status.signal().unwrap_or(0)),
        err: String::from_utf8_lossy(&out.stderr).into_owned(),
        took,
    }
}

/// The peak resident memory in KiB of the built binary run with `args` in `dir`, measured by
/// a small Python parent (`None`, with a printed reason, without python3). Not measured from
/// here: a process started by this one, a test binary of a gigabyte with the other tests'
/// tables, inherits its peak as its own (Linux keeps the larger peak across exec).
fn peak_resident_kib(dir: &std::path::Path, args: &[&str]) -> Option<i64> {
    const MEASURE: &str = "import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL, timeout=30)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)";
    let out = Command::new("python3")
        .args(["-c", MEASURE, env!("CARGO_BIN_EXE_uttt")])
        .args(args)
        .current_dir(dir)
        .output();
    let peak = out
        .ok()
        .filter(|out| out.status.success())
        .and_then(|out| String::from_utf8_lossy(&out.stdout).trim().parse().ok());
    if peak.is_none() {
        eprintln!("skipped: python3 could not measure the peak memory of uttt");
    }
    peak
}

/// A file of one valid training sample (for the commands that read weights, then samples).
const SAMPLE: &str = r#"{"position":"X;@........;........./........./........./........./........./........./........./........./.........","prove_x":10,"disprove_x":10,"prove_o":10,"disprove_o":10,"result":"draw"}"#;

/// Every command that reads a file a user names, with `FILE` where the file goes.
const READERS: &[&[&str]] = &[
    &[
        "solve",
        "--file",
        "FILE",
        "--time-limit",
        "1s",
        "--table-mem",
        "16M",
    ],
    &[
        "review",
        "--file",
        "FILE",
        "--time-limit",
        "1s",
        "--table-mem",
        "16M",
    ],
    &["verify", "FILE", "--time-limit", "1s"],
    &[
        "campaign",
        "run",
        "ee",
        "--db",
        "c.db",
        "--snapshot",
        "FILE",
        "--time-limit",
        "1s",
        "--table-mem",
        "16M",
    ],
    &[
        "solve",
        "ee",
        "--db",
        "FILE",
        "--time-limit",
        "1s",
        "--table-mem",
        "16M",
    ],
    &["solve", "ee", "--table-file", "FILE", "--time-limit", "1s"],
    &["learn", "train", "FILE", "--out", "w.bin"],
    &["learn", "quality", "FILE"],
    &["learn", "quality", "--weights", "FILE", "sample.jsonl"],
    &["learn", "calibrate", "FILE", "--out", "c.bin"],
    &["learn", "predict", "FILE"],
    &[
        "learn",
        "data",
        "--exclude",
        "FILE",
        "--games",
        "1",
        "--output",
        "q.jsonl",
    ],
    &["db", "import", "d.db", "FILE"],
];

/// `command` with `file` in place of `FILE`.
fn with_file<'a>(command: &[&'a str], file: &'a str) -> Vec<&'a str> {
    command
        .iter()
        .map(|&a| if a == "FILE" { file } else { a })
        .collect()
}

#[test]
fn every_command_that_reads_a_file_ends_at_once_on_dev_zero_in_bounded_memory() {
    let dir = crate::common::temp_dir("dev-zero");
    std::fs::write(dir.join("sample.jsonl"), SAMPLE).unwrap();
    for command in READERS {
        let args = with_file(command, "/dev/zero");
        let ended = run_signalled(&dir, &args, None);
        let what = format!("uttt {}: {}", args.join(" "), ended.err);
        assert_eq!(ended.code, 2, "{what}");
        assert!(ended.err.starts_with("error: "), "{what}");
        assert!(!ended.err.contains("panicked"), "{what}");
        assert!(
            ended.took < Duration::from_secs(3),
            "{:?}: {what}",
            ended.took
        );
        // 64 MiB resident at most (the 16 MiB tables included).
        if let Some(peak_kib) = peak_resident_kib(&dir, &args) {
            assert!(peak_kib <= 64 << 10, "{peak_kib} KiB: {what}");
        }
    }
    for leftover in ["/dev/zero-journal", "/dev/zero-wal", "/dev/zero-shm"] {
        assert!(
            !std::path::Path::new(leftover).exists(),
            "{leftover} was left"
        );
    }
}

/// Makes a FIFO at `path` (false, with a printed reason, where `mkfifo` cannot).
fn make_fifo(path: &std::path::Path) -> bool {
    let made = Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|status| status.success());
    if !made {
        eprintln!("skipped: mkfifo could not make {}", path.display());
    }
    made
}

#[test]
fn a_fifo_no_one_writes_keeps_no_command_past_its_limit_or_a_sigterm() {
    let dir = crate::common::temp_dir("fifo-inputs");
    let fifo = dir.join("fifo");
    if !make_fifo(&fifo) {
        return;
    }
    std::fs::write(dir.join("sample.jsonl"), SAMPLE).unwrap();
    let fifo = fifo.to_str().unwrap();
    for command in READERS {
        let args = with_file(command, fifo);
        let what =
            |ended: &Ended| format!("uttt {} ({:?}): {}", args.join(" "), ended.took, ended.err);
        // Those with a time limit end within it and a second (a margin for a loaded machine
        // beside it), refused or unfinished; the others wait (a FIFO may be written later).
        if args.contains(&"--time-limit") {
            let ended = run_signalled(&dir, &args, None);
            assert!(matches!(ended.code, 1 | 2), "{}", what(&ended));
            assert!(ended.took < Duration::from_secs(3), "{}", what(&ended));
            assert!(!ended.err.contains("panicked"), "{}", what(&ended));
        }
        // Without a time limit, SIGTERM ends every one of them with 143 (or a refusal that
        // came first), sent once the command is surely waiting.
        let unlimited: Vec<&str> = args
            .iter()
            .enumerate()
            .filter(|&(i, &a)| a != "--time-limit" && (i == 0 || args[i - 1] != "--time-limit"))
            .map(|(_, &a)| a)
            .collect();
        let ended = run_signalled(
            &dir,
            &unlimited,
            Some((libc::SIGTERM, Duration::from_millis(700))),
        );
        assert!(matches!(ended.code, 143 | 2), "{}", what(&ended));
        assert!(ended.took < Duration::from_secs(4), "{}", what(&ended));
    }
}

/// A tmpfs of 32 KiB mounted on a fresh directory, unmounted when dropped; `None` (with a
/// printed reason) where this process may not mount one (not root, or no such permission).
struct TinyDisk(crate::common::TempDir);

impl TinyDisk {
    fn mount(name: &str) -> Option<TinyDisk> {
        let dir = crate::common::temp_dir(name);
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=32k", "tmpfs"])
            .arg(&*dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        if !mounted {
            eprintln!("skipped: cannot mount a small tmpfs here (it needs root)");
            return None;
        }
        Some(TinyDisk(dir))
    }
}

impl Drop for TinyDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&*self.0).status();
    }
}

/// O wins in well under a second, with a certificate of about 40 KiB: more than the disk holds.
const O_WINS: &str = "X;..O@.....;.X.X..X../...O.XX.O/..OXO.O../OX.O.O.../OOX....../....XOXX./OOXX..OO./..O.X..../..X...X..";

#[test]
fn a_full_disk_costs_no_answer_and_is_told_apart_from_a_failed_check() {
    let Some(disk) = TinyDisk::mount("tiny-disk") else {
        return;
    };
    let certificate = disk.0.join("o.cert");
    let (code, out, err) = run_uttt(&[
        "solve",
        O_WINS,
        "--certificate",
        certificate.to_str().unwrap(),
        "--table-mem",
        "16M",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(out.contains("O wins"), "the answer is printed: {out}");
    assert!(out.contains("NOT WRITTEN"), "{out}");
    assert!(err.contains("No space left on device"), "{err}");
    assert!(err.contains("the answer above stands"), "{err}");
    assert!(!certificate.exists(), "no part of a certificate is left");
    // A batch: each line's answer, its certificate told as not written (not as failing its
    // check, exit 3, which is kept for a bug), and the same exit as a single solve.
    let inputs = crate::common::temp_dir("tiny-disk-batch");
    let positions = inputs.join("p.txt");
    std::fs::write(&positions, format!("{O_WINS}\n{O_WINS} O\n")).unwrap();
    let batch = |more: &[&str]| {
        let base = [
            "solve",
            "--file",
            positions.to_str().unwrap(),
            "--certificate",
            disk.0.to_str().unwrap(),
            "--table-mem",
            "16M",
        ];
        run_uttt(&[&base[..], more].concat())
    };
    let (code, out, err) = batch(&["--jobs", "1"]);
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(out.matches("certificate NOT WRITTEN").count(), 2, "{out}");
    assert!(out.contains("2 certificates NOT WRITTEN"), "{out}");
    assert!(!out.contains("NOT CERTIFIED"), "{out}");
    assert!(err.contains("No space left on device"), "{err}");
    let (code, out, _) = batch(&["--json"]);
    assert_eq!(code, 2);
    let summary: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(summary["not_written"], 2, "{out}");
    assert_eq!(summary["not_certified"], 0, "{out}");
    let first: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(first["result"], "O", "{out}");
    assert!(first["certificate"]["not_written"].is_string(), "{out}");
}

#[test]
fn a_table_file_cut_short_under_a_solve_ends_it_with_words_not_a_bus_error() {
    let dir = crate::common::temp_dir("cut-table");
    let table = dir.join("t.table");
    let table_arg = table.to_str().unwrap();
    let mut solve = crate::common::spawn_fed(
        &[
            "solve",
            "ee ea",
            "--table-file",
            table_arg,
            "--table-mem",
            "64M",
            "--time-limit",
            "60s",
            "--progress",
        ],
        b"",
    );
    let drained = crate::common::wait_for_stderr(
        &mut solve,
        |line| line.starts_with("progress "),
        Duration::from_secs(60),
    );
    // Another program (not uttt: the lock does not stop it) cuts the file.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&table)
        .unwrap()
        .set_len(4096)
        .unwrap();
    let began = std::time::Instant::now();
    let status = loop {
        if let Some(status) = solve.try_wait().unwrap() {
            break status;
        }
        assert!(
            began.elapsed() < Duration::from_secs(20),
            "the solve went on after its table file was cut"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let err = drained.join().unwrap();
    assert_eq!(status.code(), Some(2), "{status:?}: {err}");
    assert!(err.contains("was cut short by another program"), "{err}");
    assert!(err.contains("t.table"), "{err}");
    // The next run refuses the file as it is.
    let (code, _, err) = run_uttt(&["solve", "ee ea", "--table-file", table_arg]);
    assert_eq!(code, 2, "{err}");
}
