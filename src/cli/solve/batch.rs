//! `uttt solve --file`: every position of a file, JSON Lines or a table, with a progress bar.
//!
//! Positions are solved `--jobs` at a time, taken in file order by worker threads, all against
//! one table allocated once for the batch; results are printed in file order as soon as they
//! are contiguous. When the batch stops early (Ctrl-C, or a reader that went away), every
//! result already finished is still printed, in order, before the summary.

use super::options::{open_database, open_table, search_options, use_database};
use super::progress::{batch_bar, progress_mode, Progress};
use super::report::{move_text, report_certificate_problem, verdict_label, SolveJson};
use crate::cli::args::parse_rules;
use crate::cli::args::SolveArgs;
use crate::cli::{interrupt, EXIT_CERTIFICATE_FAILED, EXIT_INCOMPLETE, EXIT_OK};
use crate::db::Source;
use crate::game::{parse_game_arg_under, Player, Position, Rules};
use crate::services::certify::CertificateFileError;
use crate::services::{
    write_and_check, CertificateFigures, CertificateRequest, SolveReport, Solver, Verdict,
};
use anyhow::Context;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// One non-blank, non-comment line of the input.
pub(crate) struct Entry {
    /// Its line number, from 1.
    pub line: usize,
    /// Its position and expected value, or what is wrong with it.
    pub parsed: Result<(Position, Option<Verdict>), String>,
}

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

/// Reads the input and splits each line into a position and an optional expected value, read
/// under `rules` until a line `rules NAME` names another rule set for the lines after it. A
/// line that is not UTF-8, or names no rule set, becomes a bad entry; only a failure to read
/// at all is an error.
pub(crate) fn read_entries(path: &Path, mut rules: Rules) -> anyhow::Result<Vec<Entry>> {
    let mut reader: Box<dyn BufRead> = if path == Path::new("-") {
        Box::new(std::io::stdin().lock())
    } else {
        let file =
            std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        Box::new(std::io::BufReader::new(file))
    };
    let mut entries = Vec::new();
    let mut bytes = Vec::new();
    for line in 1.. {
        bytes.clear();
        let read = reader
            .read_until(b'\n', &mut bytes)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if read == 0 {
            break;
        }
        // Comments are cut on the raw bytes, so that a comment need not be UTF-8 text.
        let content = strip_comment(&bytes);
        if content.is_empty() {
            continue;
        }
        let parsed = match std::str::from_utf8(content) {
            Ok(text) => match text.strip_prefix("rules ") {
                Some(name) => match parse_rules(name.trim()) {
                    Ok(named) => {
                        rules = named;
                        continue;
                    }
                    Err(reason) => Err(format!("column 7: {reason}")),
                },
                None => parse_entry(text, rules),
            },
            Err(e) => Err(format!(
                "column {}: the line is not valid UTF-8 text",
                content_offset(&bytes, content) + e.valid_up_to() + 1
            )),
        };
        entries.push(Entry { line, parsed });
    }
    Ok(entries)
}

/// The line without its comment and surrounding whitespace: `#` opens one at the start of a
/// line or after whitespace (inside the notation `#` marks a drawn board and is never
/// preceded by whitespace).
fn strip_comment(line: &[u8]) -> &[u8] {
    let text = line.trim_ascii();
    if text.starts_with(b"#") {
        return &[];
    }
    let comment = text
        .windows(2)
        .position(|pair| pair[0].is_ascii_whitespace() && pair[1] == b'#');
    match comment {
        Some(at) => text[..at].trim_ascii(),
        None => text,
    }
}

/// Where `part` (a subslice of `line`) starts in it.
fn content_offset(line: &[u8], part: &[u8]) -> usize {
    part.as_ptr() as usize - line.as_ptr() as usize
}

/// `POSITION [X|O|draw]`: the position in any accepted form under `rules`, then optionally
/// its value.
fn parse_entry(text: &str, rules: Rules) -> Result<(Position, Option<Verdict>), String> {
    let (position, expected) = match text.rsplit_once(char::is_whitespace) {
        Some((rest, last)) => match expected_value(last) {
            Some(value) => (rest.trim(), Some(value)),
            None => (text, None),
        },
        None => (text, None),
    };
    let pos = parse_game_arg_under(position, rules)
        .map(|game| game.position)
        .map_err(|e| e.to_string())?;
    Ok((pos, expected))
}

/// An expected value as written in a batch file.
fn expected_value(word: &str) -> Option<Verdict> {
    match word {
        "X" => Some(Verdict::Wins(Player::X)),
        "O" => Some(Verdict::Wins(Player::O)),
        "draw" => Some(Verdict::Draw),
        _ => None,
    }
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

/// Runs the batch; returns the exit code.
pub fn run(args: &SolveArgs, path: &Path) -> anyhow::Result<i32> {
    let stop = interrupt::stop_flag();
    let entries = read_entries(path, args.rule_set.rules)?;
    let mut options = search_options(&args.search, args.attacker)?;
    options.max_plies = args.max_plies;
    let mut table = open_table(&args.search)?;
    let database = open_database(&args.search)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = args
        .jobs
        .map_or(cores, |j| j as usize)
        .min(entries.len().max(1));
    if args.search.threads.is_none() {
        // Each position gets its share of the cores unless --threads says otherwise.
        options.threads = options.threads.min((cores / jobs).max(1));
    }
    if let Some(dir) = &args.certificate {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create certificate directory {}", dir.display()))?;
    }
    let wants_certificate = args.certificate.is_some() || args.verify;
    let progress = progress_mode(&args.search);
    let bar = batch_bar(entries.len() as u64, progress == Progress::Live);
    let start = Instant::now();
    let (sender, receiver) = crossbeam_channel::unbounded::<(usize, Outcome)>();
    let mut summary = Summary::default();
    let mut out = std::io::stdout().lock();
    let next_entry = AtomicUsize::new(0);
    let printed = std::thread::scope(|scope| -> anyhow::Result<()> {
        for _ in 0..jobs {
            let sender = sender.clone();
            let (table, options, entries, next_entry) = (&table, &options, &entries, &next_entry);
            let database = database.as_ref();
            scope.spawn(move || loop {
                let i = next_entry.fetch_add(1, Ordering::Relaxed);
                let Some(entry) = entries.get(i) else { break };
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let outcome = match &entry.parsed {
                    Err(message) => Outcome::Bad(message.clone()),
                    Ok((pos, expected)) => {
                        let solver = Solver::new(options, table).stopped_by(stop);
                        let report = use_database(solver, database, &args.search, Source::Solve)
                            .solve_win_in(pos, args.win_in.mode());
                        let name = format!("line-{}", entry.line);
                        let path = args
                            .certificate
                            .as_ref()
                            .map(|d| d.join(format!("{name}.cert")));
                        let request = CertificateRequest {
                            path: path.as_deref(),
                            verify: args.verify,
                        };
                        let certificate = if wants_certificate {
                            match write_and_check(
                                &report,
                                table,
                                options.epsilon,
                                stop,
                                &request,
                                &name,
                            ) {
                                Ok(figures) => {
                                    report_certificate_problem(figures.as_ref());
                                    figures
                                }
                                Err(error) => Some(failed_certificate(error)),
                            }
                        } else {
                            None
                        };
                        Outcome::Solved {
                            report: Box::new(report),
                            expected: *expected,
                            certificate,
                        }
                    }
                };
                if sender.send((i, outcome)).is_err() {
                    break;
                }
            });
        }
        drop(sender);
        if !args.search.json {
            writeln!(out, "{}", TEXT_HEADER).inspect_err(|_| interrupt::stop_quietly())?;
        }
        // Print in file order: hold results until every earlier one has arrived. Entries never
        // started (after a stop) leave gaps; what finished after a gap is printed at the end.
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
        for (i, outcome) in receiver {
            // Progress counts positions as they finish, also those held back for the order.
            finished += 1;
            bar.inc(1);
            if progress == Progress::Lines {
                eprintln!("progress {finished}/{} positions finished", entries.len());
            }
            pending.insert(i, outcome);
            while let Some(outcome) = pending.remove(&next) {
                print(&outcome, entries[next].line)?;
                next += 1;
            }
        }
        for (i, outcome) in pending {
            print(&outcome, entries[i].line)?;
        }
        Ok(())
    });
    printed?;
    bar.finish_and_clear();
    summary.time_ms = start.elapsed().as_millis() as u64;
    summary.interrupted = interrupt::exit_code().is_some();
    summary.not_started = entries.len() as u64 - summary.positions - summary.errors;
    if args.search.json {
        writeln!(out, "{}", summary.to_json())?;
    } else {
        writeln!(out, "{}", summary.text())?;
    }
    out.flush()?;
    table.flush(true)?;
    Ok(if let Some(code) = interrupt::exit_code() {
        code
    } else if summary.not_certified > 0 {
        EXIT_CERTIFICATE_FAILED
    } else if summary.all_good() {
        EXIT_OK
    } else {
        EXIT_INCOMPLETE
    })
}

/// The figures of a certificate that could not be written (an I/O error): not certified.
fn failed_certificate(error: CertificateFileError) -> CertificateFigures {
    eprintln!("error: {:#}", anyhow::Error::from(error));
    CertificateFigures {
        certified: Some(false),
        ..CertificateFigures::default()
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
            let certified = match certificate.as_ref().and_then(|c| c.certified) {
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
            )?
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
