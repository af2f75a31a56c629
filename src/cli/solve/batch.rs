//! `uttt solve --file`: every position of a file, JSON Lines or a table, with a progress bar.
//!
//! Positions are solved `--jobs` at a time, taken in file order by worker threads, all against
//! one table allocated once for the batch; results are printed in file order as soon as they
//! are contiguous. When the batch stops early (Ctrl-C, or a reader that went away), every
//! result already finished is still printed, in order, before the summary.

use super::entries::{count_entries, Entries, Entry};
use super::options::{check_threads, open_database, open_table, search_options, use_database};
use super::progress::{batch_bar, progress_mode, Progress};
use super::report::{
    database_text, move_text, report_certificate_problem, trusted_files, verdict_label, SolveJson,
};
use crate::cli::args::{SearchArgs, SolveArgs};
use crate::cli::{interrupt, EXIT_CERTIFICATE_FAILED, EXIT_INCOMPLETE, EXIT_OK};
use crate::db::Source;
use crate::files;
use crate::search::threads::spawn_gated;
use crate::search::SolveOptions;
use crate::services::{
    write_and_check, CertificateFigures, CertificateRequest, SolveReport, Solver, Verdict,
};
use crate::table::Table;
use anyhow::Context;
use indicatif::ProgressBar;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// What became of one entry.
enum Outcome {
    Solved {
        report: Box<SolveReport>,
        expected: Option<Verdict>,
        /// The certificate written, when one was asked for and the answer is known.
        certificate: Option<CertificateFigures>,
    },
    Bad(String),
}

/// Whether `verdict` says the same as `expected` (exactly the same answer, as a single
/// `--attacker` answer "not X" is not a value).
fn matches(expected: Verdict, verdict: Verdict) -> bool {
    expected == verdict
}

/// Whether `report`'s verdict contradicts `expected`: an answer that cannot be true if
/// `expected` is. An unknown contradicts nothing, "not X" contradicts only "X wins", and "not X
/// within N plies" nothing at all (X may win later); "X wins within N" is a win.
fn contradicts(expected: Verdict, report: &SolveReport) -> bool {
    match report.verdict {
        Verdict::Unknown => false,
        Verdict::DoesNotWin(_) if report.max_plies.is_some() => false,
        Verdict::DoesNotWin(player) => expected == Verdict::Wins(player),
        answer => answer != expected,
    }
}

/// The result column of a text line: the verdict, with its bound where it has one (`X ≤15`).
fn result_label(report: &SolveReport) -> String {
    match (report.verdict, report.max_plies) {
        (Verdict::Wins(_) | Verdict::DoesNotWin(_), Some(plies)) => {
            format!("{} ≤{plies}", verdict_label(report.verdict))
        }
        (verdict, _) => verdict_label(verdict),
    }
}

/// Runs the batch; returns the exit code. The input is read by a thread of its own, a few
/// entries ahead of the searches (so memory does not grow with it), and left behind when the
/// batch stops early: a pipe that keeps it waiting cannot hold the batch.
pub fn run(args: &SolveArgs, path: &Path) -> anyhow::Result<i32> {
    let stop = interrupt::stop_flag();
    // A FIFO no one writes is waited for as long as one position's search may take.
    let open_deadline = args
        .search
        .time_limit
        .and_then(|limit| std::time::Instant::now().checked_add(limit));
    let entries = Entries::open(path, args.rule_set.rules, open_deadline)?;
    let mut options = search_options(&args.search, args.attacker)?;
    check_threads(&options)?;
    options.max_plies = args.max_plies;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let wanted_jobs = args.jobs.map_or(cores, |j| j as usize);
    // A file is counted first (a line at a time), so that a short one gets as many jobs as
    // it has positions, each of them more threads, and progress shows the whole; a pipe is
    // not, since its next line may wait on the answer to the first.
    let total = count_entries(path);
    let jobs = total.map_or(wanted_jobs, |total| {
        wanted_jobs.min((total as usize).max(1))
    });
    if args.search.threads.is_none() {
        // Each position gets its share of the cores unless --threads says otherwise.
        options.threads = options.threads.min((cores / jobs).max(1));
    }
    if let Some(dir) = &args.certificate {
        prepare_certificate_directory(dir, path, &args.search)?;
    }
    let mut table = open_table(&args.search)?;
    let database = open_database(&args.search)?;
    let wants_certificate = args.certificate.is_some() || args.verify;
    let progress = progress_mode(&args.search);
    let bar = batch_bar(total.unwrap_or(0), progress == Progress::Live);
    let start = Instant::now();
    let read = Arc::new(AtomicUsize::new(0));
    let read_error = Arc::new(Mutex::new(None));
    let growing = total.is_none().then(|| bar.clone());
    let inputs = read_ahead(entries, jobs, &read, &read_error, growing);
    let (sender, receiver) = crossbeam_channel::unbounded::<(usize, usize, Outcome)>();
    let mut summary = Summary::default();
    let mut out = std::io::stdout().lock();
    let printed = std::thread::scope(|scope| -> anyhow::Result<()> {
        // The solving threads: all of them, or an error in the system's words.
        spawn_gated(scope, jobs, |_| {
            let sender = sender.clone();
            let (table, options, inputs) = (&table, &options, inputs.clone());
            let database = database.as_ref();
            move || {
                while let Some((i, entry)) = next_input(&inputs, stop) {
                    let outcome = match entry.parsed {
                        Err(message) => Outcome::Bad(message),
                        Ok((pos, expected)) => {
                            let solver = Solver::new(options, table).stopped_by(stop);
                            let report =
                                use_database(solver, database, &args.search, Source::Solve)
                                    .solve_win_in(&pos, args.win_in.mode());
                            if let Some(failure) = report.failure {
                                let _ = sender.send((i, entry.line, Outcome::Bad(failure)));
                                continue;
                            }
                            let certificate = wants_certificate
                                .then(|| certify(args, &report, table, options, entry.line))
                                .flatten();
                            Outcome::Solved {
                                report: Box::new(report),
                                expected,
                                certificate,
                            }
                        }
                    };
                    if sender.send((i, entry.line, outcome)).is_err() {
                        break;
                    }
                }
            }
        })?;
        drop(sender);
        drop(inputs);
        if !args.search.json {
            writeln!(out, "{}", TEXT_HEADER).inspect_err(|_| interrupt::stop_quietly())?;
        }
        // Print in input order: hold results until every earlier one has arrived. Entries
        // never started (after a stop) leave gaps; what finished after a gap is printed at the
        // end.
        let mut pending = BTreeMap::new();
        let mut next = 0;
        let mut print = |outcome: &Outcome, line: usize| -> anyhow::Result<()> {
            summary.count(outcome);
            emit(&mut out, line, outcome, args.search.json)
                .inspect_err(|_| interrupt::stop_quietly())?;
            bar.set_message(summary.brief());
            Ok(())
        };
        let mut finished = 0;
        for (i, line, outcome) in receiver {
            // Progress counts positions as they finish, also those held back for the order.
            finished += 1;
            bar.inc(1);
            if progress == Progress::Lines {
                // Of a pipe, the entries read so far (it is read a few ahead).
                let of = total.unwrap_or(read.load(Ordering::Relaxed) as u64);
                eprintln!("progress {finished}/{of} positions finished");
            }
            pending.insert(i, (line, outcome));
            while let Some((line, outcome)) = pending.remove(&next) {
                print(&outcome, line)?;
                next += 1;
            }
        }
        for (line, outcome) in pending.into_values() {
            print(&outcome, line)?;
        }
        Ok(())
    });
    printed?;
    bar.finish_and_clear();
    summary.time_ms = start.elapsed().as_millis() as u64;
    summary.interrupted = interrupt::exit_code().is_some();
    // Of a counted file, every entry not done; of a pipe, those read and not done.
    let entries = total.unwrap_or(read.load(Ordering::Relaxed) as u64);
    summary.not_started = entries.saturating_sub(summary.positions + summary.errors);
    if args.search.json {
        writeln!(out, "{}", summary.to_json())?;
    } else {
        writeln!(out, "{}", summary.text())?;
    }
    out.flush()?;
    table.flush(true)?;
    if let Some(error) = read_error.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(error);
    }
    Ok(if let Some(code) = interrupt::exit_code() {
        code
    } else if summary.not_certified > 0 {
        EXIT_CERTIFICATE_FAILED
    } else if summary.not_written > 0 {
        // Answers without the certificates asked for: an error of the files, as a single
        // solve's.
        crate::cli::EXIT_USAGE
    } else if summary.all_good() {
        EXIT_OK
    } else {
        EXIT_INCOMPLETE
    })
}

/// Hands the entries, numbered in input order, to the searches through a channel that holds a
/// few per job, read by a thread of its own that counts them in `read` (and in the length of
/// a `growing` bar, when the input was not counted first), and leaves a read error in `error`.
fn read_ahead(
    entries: Entries,
    jobs: usize,
    read: &Arc<AtomicUsize>,
    error: &Arc<Mutex<Option<anyhow::Error>>>,
    growing: Option<ProgressBar>,
) -> crossbeam_channel::Receiver<(usize, Entry)> {
    let (sender, receiver) = crossbeam_channel::bounded(2 * jobs);
    let (read, error) = (Arc::clone(read), Arc::clone(error));
    let refused = Arc::clone(&error);
    // Not scoped: a thread waiting on a pipe must not keep a stopped batch from ending.
    let reader = std::thread::Builder::new().spawn(move || {
        for (i, entry) in entries.enumerate() {
            match entry {
                Ok(entry) => {
                    // Counted before it is handed over, so that the count never trails the
                    // entries the searches finished (one never handed over is not started).
                    read.fetch_add(1, Ordering::Relaxed);
                    if let Some(bar) = &growing {
                        bar.inc_length(1);
                    }
                    if sender.send((i, entry)).is_err() {
                        return;
                    }
                }
                Err(failure) => {
                    *error.lock().unwrap_or_else(|e| e.into_inner()) = Some(failure);
                    return;
                }
            }
        }
    });
    if let Err(system) = reader {
        // No entry is read: the batch ends at once with this error.
        *refused.lock().unwrap_or_else(|e| e.into_inner()) = Some(anyhow::anyhow!(
            "cannot start the thread that reads the positions: {system}"
        ));
    }
    receiver
}

/// The next entry for a search, or `None` once the input has ended or the batch is stopped
/// (looked at while the input keeps it waiting).
fn next_input(
    inputs: &crossbeam_channel::Receiver<(usize, Entry)>,
    stop: &AtomicBool,
) -> Option<(usize, Entry)> {
    loop {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        match inputs.recv_timeout(INPUT_TICK) {
            Ok(input) => return Some(input),
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => continue,
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => return None,
        }
    }
}

/// How often a search waiting for input looks at the stop flag.
const INPUT_TICK: std::time::Duration = std::time::Duration::from_millis(50);

/// Makes the batch's certificate directory and checks before any search that a certificate
/// can be written there, and that no input of the batch is a file its certificates would
/// replace (`line-N.cert`).
fn prepare_certificate_directory(
    dir: &Path,
    input: &Path,
    search: &SearchArgs,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create certificate directory {}", dir.display()))?;
    files::check_writable(&dir.join("line-0.cert"))
        .with_context(|| format!("cannot write certificates into directory {}", dir.display()))?;
    let is_certificate = |name: &str| {
        name.strip_prefix("line-")
            .and_then(|rest| rest.strip_suffix(".cert"))
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
    };
    let inputs = [
        Some(input),
        search.table_file.as_deref(),
        search.db.as_deref(),
    ];
    for path in inputs.into_iter().flatten() {
        if files::is_in_directory(path, dir, is_certificate) {
            anyhow::bail!(
                "{} is in the certificate directory {} under a certificate's name: the batch \
                 would replace it; name another directory",
                path.display(),
                dir.display()
            );
        }
    }
    Ok(())
}

/// Writes (and with `--verify` checks) the certificate of a batch line's answer.
fn certify(
    args: &SolveArgs,
    report: &SolveReport,
    table: &Table,
    options: &SolveOptions,
    line: usize,
) -> Option<CertificateFigures> {
    let name = format!("line-{line}");
    let path = args
        .certificate
        .as_ref()
        .map(|d| d.join(format!("{name}.cert")));
    let request = CertificateRequest {
        path: path.as_deref(),
        verify: args.verify,
    };
    let stop = interrupt::stop_flag();
    match write_and_check(report, table, options.epsilon, stop, &request, &name) {
        Ok(figures) => {
            report_certificate_problem(figures.as_ref(), &trusted_files(&args.search));
            figures
        }
        // A full disk, say: the line's answer stands, and the line says its certificate is
        // missing (not a failed check, which would be a bug).
        Err(error) => {
            let figures = CertificateFigures::not_written(path, &error);
            if let Some(words) = &figures.not_written {
                eprintln!("error: line {line}: {words}");
            }
            Some(figures)
        }
    }
}

/// The column titles of the text output.
const TEXT_HEADER: &str = "  line  result   move       time        nodes  check";

/// A batch result line in the JSON: the single-solve object with the line and the check.
#[derive(Serialize)]
struct ResultJson<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    line: usize,
    #[serde(flatten)]
    report: SolveJson<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    matches: Option<bool>,
}

/// Prints one result or error line.
fn emit(out: &mut impl Write, line: usize, outcome: &Outcome, as_json: bool) -> anyhow::Result<()> {
    match outcome {
        Outcome::Bad(message) if as_json => writeln!(
            out,
            "{}",
            json!({"type": "error", "line": line, "message": message})
        )?,
        Outcome::Bad(message) => writeln!(out, "{line:>6}  error: {message}")?,
        Outcome::Solved {
            report,
            expected,
            certificate,
        } if as_json => {
            let json = ResultJson {
                kind: "result",
                line,
                report: SolveJson::of(report).with_certificate(certificate.as_ref()),
                expected: expected.map(verdict_label),
                matches: expected.map(|e| matches(e, report.verdict)),
            };
            writeln!(out, "{}", serde_json::to_string(&json)?)?
        }
        Outcome::Solved {
            report,
            expected,
            certificate,
        } => {
            let not_written = certificate
                .as_ref()
                .is_some_and(|c| c.not_written.is_some());
            let certified = match certificate.as_ref().and_then(|c| c.certified) {
                _ if not_written => "  certificate NOT WRITTEN",
                Some(true) => "  certified",
                Some(false) => "  NOT CERTIFIED",
                None => "",
            };
            let check = match expected {
                Some(e) if matches(*e, report.verdict) => "ok".to_string(),
                Some(e) if contradicts(*e, report) => {
                    format!("MISMATCH (expected {})", verdict_label(*e))
                }
                Some(e) => format!("(expected {})", verdict_label(*e)),
                None => String::new(),
            };
            writeln!(
                out,
                "{line:>6}  {:<8} {:<5} {:>9.3} s {:>12} nodes  {check}{certified}",
                result_label(report),
                move_text(report.best_move),
                report.elapsed.as_secs_f64(),
                report.nodes,
            )?;
            // The JSON carries it in the line's object; the table's columns stay as they are.
            if let Some(database) = report.database.as_ref().filter(|d| d.error.is_some()) {
                eprintln!(
                    "warning: line {line}: database: {}",
                    database_text(database)
                );
            }
        }
    }
    Ok(())
}

/// Running totals of a batch.
#[derive(Default)]
struct Summary {
    positions: u64,
    solved: u64,
    unknown: u64,
    mismatches: u64,
    errors: u64,
    not_started: u64,
    not_certified: u64,
    not_written: u64,
    time_ms: u64,
    interrupted: bool,
}

impl Summary {
    fn count(&mut self, outcome: &Outcome) {
        match outcome {
            Outcome::Bad(_) => self.errors += 1,
            Outcome::Solved {
                report,
                expected,
                certificate,
            } => {
                self.positions += 1;
                if certificate.as_ref().and_then(|c| c.certified) == Some(false) {
                    self.not_certified += 1;
                }
                if certificate
                    .as_ref()
                    .is_some_and(|c| c.not_written.is_some())
                {
                    self.not_written += 1;
                }
                if report.verdict.is_answered() {
                    self.solved += 1;
                } else {
                    self.unknown += 1;
                }
                if expected.is_some_and(|e| contradicts(e, report)) {
                    self.mismatches += 1;
                }
            }
        }
    }

    fn all_good(&self) -> bool {
        self.unknown == 0
            && self.mismatches == 0
            && self.errors == 0
            && self.not_started == 0
            && self.not_certified == 0
            && self.not_written == 0
    }

    fn brief(&self) -> String {
        format!("solved {}  unknown {}", self.solved, self.unknown)
    }

    fn to_json(&self) -> Value {
        json!({
            "type": "summary",
            "positions": self.positions,
            "solved": self.solved,
            "unknown": self.unknown,
            "mismatches": self.mismatches,
            "errors": self.errors,
            "not_started": self.not_started,
            "not_certified": self.not_certified,
            "not_written": self.not_written,
            "time_ms": self.time_ms,
            "interrupted": self.interrupted,
        })
    }

    fn text(&self) -> String {
        // Counts shown only when there are any.
        let mut exceptions = String::new();
        if self.not_started > 0 {
            exceptions += &format!(", {} not started", self.not_started);
        }
        if self.not_certified > 0 {
            exceptions += &format!(", {} NOT CERTIFIED", self.not_certified);
        }
        if self.not_written > 0 {
            exceptions += &format!(", {} certificates NOT WRITTEN", self.not_written);
        }
        format!(
            "{} positions: {} solved, {} unknown, {} mismatches, {} bad lines{exceptions}, {:.3} s{}",
            self.positions,
            self.solved,
            self.unknown,
            self.mismatches,
            self.errors,
            self.time_ms as f64 / 1000.0,
            if self.interrupted {
                " (interrupted)"
            } else {
                ""
            }
        )
    }
}
