//! Helpers of the tests that run `uttt` under `mpirun` (built with `--features mpi`).

use serde_json::Value;
use std::io::Read;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// X wins; one-threaded DFPN takes about 12,000 nodes with the default guide (16,000 with
/// `--guide rules`).
pub const MEDIUM: &str = "X;......@O.;O...XX.X./.....O.XX/XOOXX..../O.....O.O/OXO....OX/.OO....X./....O.XX./..XX..OOO/..X.XXO.O";

/// X wins; one-threaded DFPN takes about 1.1 million nodes: with jobs of a few hundred nodes,
/// an MPI solve or campaign over two worker ranks runs for seconds.
pub const LONGER: &str = "X;.@.X.....;..O....../....X..../..XOO..O./..XO.X..X/.O..O.XX./....X.O../.O.X...../X.XO...XO/.....O.OX";

/// `mpirun -np RANKS uttt ARGS`, with what a root user on a small machine needs.
pub fn mpirun(ranks: usize) -> Command {
    mpirun_over(ranks, Transport::Default)
}

/// How the ranks' messages travel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// Whatever Open MPI picks: shared memory between the ranks of this machine.
    Default,
    /// TCP over loopback only, as between machines: Open MPI's ob1 messaging layer (UCX, where
    /// installed, would use shared memory itself) over its tcp and self transports.
    Tcp,
}

/// Open MPI's options that keep every message on TCP over loopback.
pub const TCP_ONLY: [&str; 9] = [
    "--mca",
    "pml",
    "ob1",
    "--mca",
    "btl",
    "tcp,self",
    "--mca",
    "btl_tcp_if_include",
    "lo",
];

/// `mpirun -np RANKS uttt ARGS` with the messages over `transport`.
pub fn mpirun_over(ranks: usize, transport: Transport) -> Command {
    let mut command = Command::new("mpirun");
    command.args(["--allow-run-as-root", "--oversubscribe"]);
    if transport == Transport::Tcp {
        command.args(TCP_ONLY);
    }
    command
        .arg("-np")
        .arg(ranks.to_string())
        .arg(env!("CARGO_BIN_EXE_uttt"));
    command
}

/// Solves `position` with `ranks` ranks of one thread each; exit code and JSON.
pub fn solve(ranks: usize, position: &str, extra: &[&str]) -> (i32, Value) {
    solve_with_threads(ranks, 1, position, extra)
}

/// Solves `position` with `ranks` ranks of `threads` threads each; exit code and JSON.
pub fn solve_with_threads(
    ranks: usize,
    threads: usize,
    position: &str,
    extra: &[&str],
) -> (i32, Value) {
    solve_with_table(ranks, threads, "32M", position, extra)
}

/// Solves `position` with `ranks` ranks of `threads` threads each and tables of `table`; exit
/// code and JSON.
pub fn solve_with_table(
    ranks: usize,
    threads: usize,
    table: &str,
    position: &str,
    extra: &[&str],
) -> (i32, Value) {
    solve_over(Transport::Default, ranks, threads, table, position, extra)
}

/// Solves `position` with `ranks` ranks of `threads` threads each and tables of `table`, the
/// messages over `transport`; exit code and JSON.
pub fn solve_over(
    transport: Transport,
    ranks: usize,
    threads: usize,
    table: &str,
    position: &str,
    extra: &[&str],
) -> (i32, Value) {
    let out = mpirun_over(ranks, transport)
        .args([
            "solve",
            position,
            "--mpi",
            "--threads",
            &threads.to_string(),
            "--json",
            "--table-mem",
            table,
        ])
        .args(extra)
        .output_within(RUN_LIMIT);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout} {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap_or(-1), json)
}

/// The rank whose table each worker rank of a solve's JSON searched against.
pub fn table_ranks(json: &Value) -> Vec<u64> {
    let ranks = json["ranks"].as_array().unwrap();
    ranks
        .iter()
        .map(|r| r["table_rank"].as_u64().unwrap())
        .collect()
}

/// Asserts that a solve's (or campaign run's) JSON reports what its worker ranks searched
/// with: `threads[r − 1]` threads for worker rank `r`, in all the solve's `threads`, and
/// tables of `table_bytes` that their searches filled in part, which the solve's `table`
/// counts once each (`tables` of them) with their mean fill.
pub fn assert_worker_tables_reported(json: &Value, threads: &[u64], table_bytes: u64, tables: u64) {
    let ranks = json["ranks"].as_array().unwrap();
    let reported: Vec<u64> = ranks
        .iter()
        .map(|r| r["threads"].as_u64().unwrap())
        .collect();
    assert_eq!(reported, threads, "{ranks:?}");
    assert_eq!(json["threads"], threads.iter().sum::<u64>(), "{json}");
    let fills: Vec<f64> = ranks
        .iter()
        .map(|r| r["table"]["fill"].as_f64().unwrap())
        .collect();
    assert!(fills.iter().all(|&f| f > 0.0 && f <= 1.0), "{fills:?}");
    assert!(
        ranks.iter().all(|r| r["table"]["bytes"] == table_bytes),
        "{ranks:?}"
    );
    assert_eq!(json["table"]["bytes"], tables * table_bytes, "{json}");
    // Each table is as large, so the solve's fill is the mean of its tables' (each once).
    let mut distinct: Vec<(u64, f64)> = table_ranks(json).into_iter().zip(fills).collect();
    distinct.dedup_by_key(|(table, _)| *table);
    let mean = distinct.iter().map(|(_, f)| f).sum::<f64>() / distinct.len() as f64;
    let fill = json["table"]["fill"].as_f64().unwrap();
    assert!((fill - mean).abs() < 1e-9, "{fill} against {distinct:?}");
}

/// Asserts that every worker rank of a solve's JSON finished jobs.
pub fn assert_every_rank_ran_jobs(json: &Value) {
    let ranks = json["ranks"].as_array().unwrap();
    assert!(
        ranks.iter().all(|r| r["jobs"].as_u64().unwrap() > 0),
        "{ranks:?}"
    );
}

/// The jobs a solve's worker ranks were sent at subtrees another rank searched last, after
/// checking that no rank reports more of them than the jobs it ran.
pub fn moved_jobs(json: &Value) -> u64 {
    let ranks = json["ranks"].as_array().unwrap();
    let count = |rank: &Value, field: &str| rank[field].as_u64().unwrap();
    assert!(
        ranks
            .iter()
            .all(|r| count(r, "jobs_moved") <= count(r, "jobs")),
        "{ranks:?}"
    );
    ranks.iter().map(|r| count(r, "jobs_moved")).sum()
}

/// The pids of the running `uttt` processes whose MPI rank is `rank` and whose command line
/// holds `marker` (tests run in parallel: each kills only its own ranks).
pub fn pids_of_rank(rank: usize, marker: &str) -> Vec<u32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let is_uttt = String::from_utf8_lossy(&cmdline).contains(marker);
        let wanted = format!("OMPI_COMM_WORLD_RANK={rank}");
        let has_rank = environ.split(|&b| b == 0).any(|v| v == wanted.as_bytes());
        if is_uttt && has_rank && pid != std::process::id() {
            pids.push(pid);
        }
    }
    pids
}

/// Waits until the `uttt` process of MPI rank `rank` whose command line holds `marker` runs,
/// lets it search for `after`, and kills it with SIGKILL (as a machine that dies would).
pub fn kill_rank_once_running(rank: usize, marker: &str, after: Duration) {
    let start = Instant::now();
    let victim = loop {
        if let Some(&pid) = pids_of_rank(rank, marker).first() {
            break pid;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "rank {rank} never started"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    std::thread::sleep(after);
    let killed = Command::new("kill")
        .args(["-KILL", &victim.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
}

/// Waits for `child` (an `mpirun` whose output is piped) to end, at most `limit`; then ends it
/// (SIGTERM, which `mpirun` passes on to its ranks, and SIGKILL if it is still there 10 s later)
/// and fails. Its exit status and output.
pub fn wait_at_most(mut child: Child, limit: Duration) -> Output {
    // Read as it comes, so that a full pipe never stops the run.
    let read_all = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = pipe.read_to_end(&mut text);
            text
        })
    };
    let stdout = read_all(Box::new(child.stdout.take().expect("piped stdout")));
    let stderr = read_all(Box::new(child.stderr.take().expect("piped stderr")));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            let _ = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            let ended = Instant::now();
            while child.try_wait().unwrap().is_none() && ended.elapsed() < Duration::from_secs(10) {
                std::thread::sleep(Duration::from_millis(100));
            }
            let _ = child.kill();
            let _ = child.wait();
            panic!("the run went on for {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// The longest one `mpirun` of these tests may take: far more than any needs, so that a run
/// that hangs fails its test instead of holding CI up.
pub const RUN_LIMIT: Duration = Duration::from_secs(600);

/// [`Command::output`] within a time limit (see [`wait_at_most`]).
pub trait OutputWithin {
    /// Runs the command with its output piped, for at most `limit`.
    fn output_within(&mut self, limit: Duration) -> Output;
}

impl OutputWithin for Command {
    fn output_within(&mut self, limit: Duration) -> Output {
        let child = self
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mpirun runs");
        wait_at_most(child, limit)
    }
}
