//! `uttt solve --file`: every position of a file, JSON Lines or a table, with a progress bar.
//!
//! Positions are solved `--jobs` at a time on a rayon pool, all against one table allocated
//! once for the batch; results are printed in file order as soon as they are contiguous.

use super::args::SolveArgs;
use super::solve_cmd::{open_table, show_progress, solve_options};
use super::{interrupt, EXIT_INCOMPLETE, EXIT_INTERRUPTED, EXIT_OK};
use crate::game::{parse_position_arg, Position};
use crate::search::{solve, SolveReport, SolveValue};
use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::Path;
use std::time::Instant;

/// One non-blank, non-comment line of the input.
struct Entry {
    line: usize,
    parsed: Result<(Position, Option<String>), String>,
}

/// What became of one entry.
enum Outcome {
    Solved {
        report: Box<SolveReport>,
        expected: Option<String>,
    },
    Bad(String),
}

/// Reads the input and splits each line into a position and an optional expected value.
fn read_entries(path: &Path) -> anyhow::Result<Vec<Entry>> {
    let reader: Box<dyn BufRead> = if path == Path::new("-") {
        Box::new(std::io::stdin().lock())
    } else {
        let file =
            std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        Box::new(std::io::BufReader::new(file))
    };
    let mut entries = Vec::new();
    for (index, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {}", path.display()))?;
        let text = strip_comment(&line);
        if text.is_empty() {
            continue;
        }
        entries.push(Entry {
            line: index + 1,
            parsed: parse_entry(text),
        });
    }
    Ok(entries)
}

/// The line without its comment: `#` opens one at the start of a line or after whitespace
/// (inside the notation `#` marks a drawn board and is never preceded by whitespace).
fn strip_comment(line: &str) -> &str {
    let text = line.trim();
    if text.starts_with('#') {
        return "";
    }
    match text.find(" #").or_else(|| text.find("\t#")) {
        Some(at) => text[..at].trim(),
        None => text,
    }
}

/// `POSITION [X|O|draw]`: the position in any accepted form, then optionally its value.
fn parse_entry(text: &str) -> Result<(Position, Option<String>), String> {
    let (position, expected) = match text.rsplit_once(char::is_whitespace) {
        Some((rest, last)) if matches!(last, "X" | "O" | "draw") => {
            (rest.trim(), Some(last.to_string()))
        }
        _ => (text, None),
    };
    let pos = parse_position_arg(position).map_err(|e| e.to_string())?;
    Ok((pos, expected))
}

/// Runs the batch; returns the exit code.
pub fn run(args: &SolveArgs, path: &Path) -> anyhow::Result<i32> {
    let entries = read_entries(path)?;
    let mut options = solve_options(args)?;
    let mut table = open_table(args, None)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = args.jobs.map_or(cores, |j| j as usize);
    if args.threads.is_none() {
        // Each position gets its share of the cores unless --threads says otherwise.
        options.threads = options.threads.min((cores / jobs).max(1));
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs).build()?;
    let stop = interrupt::stop_flag();
    let bar = progress_bar(entries.len() as u64, show_progress(args.quiet));
    let start = Instant::now();
    let (sender, receiver) = crossbeam_channel::unbounded::<(usize, Outcome)>();
    let mut summary = Summary::default();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        let table = &table;
        let options = &options;
        let entries = &entries;
        scope.spawn(move || {
            pool.install(|| {
                use rayon::prelude::*;
                entries
                    .par_iter()
                    .enumerate()
                    .for_each_with(sender, |sender, (i, entry)| {
                        let outcome = match &entry.parsed {
                            Err(message) => Outcome::Bad(message.clone()),
                            Ok(_) if stop.load(std::sync::atomic::Ordering::Relaxed) => return,
                            Ok((pos, expected)) => Outcome::Solved {
                                report: Box::new(solve(pos, options, table, stop)),
                                expected: expected.clone(),
                            },
                        };
                        let _ = sender.send((i, outcome));
                    });
            });
        });
        // Print in file order: hold results until every earlier one has arrived.
        let mut pending = BTreeMap::new();
        let mut next = 0;
        for (i, outcome) in receiver {
            pending.insert(i, outcome);
            while let Some(outcome) = pending.remove(&next) {
                let line = entries[next].line;
                summary.count(&outcome);
                emit(&mut out, line, &outcome, args.json)?;
                bar.inc(1);
                bar.set_message(summary.brief());
                next += 1;
            }
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    summary.time_ms = start.elapsed().as_millis() as u64;
    summary.interrupted = interrupt::interrupted();
    if args.json {
        writeln!(out, "{}", summary.to_json())?;
    } else {
        writeln!(out, "{}", summary.text())?;
    }
    out.flush()?;
    table.flush(true)?;
    Ok(if summary.interrupted {
        EXIT_INTERRUPTED
    } else if summary.all_good() {
        EXIT_OK
    } else {
        EXIT_INCOMPLETE
    })
}

fn progress_bar(total: u64, visible: bool) -> ProgressBar {
    if !visible {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len}  {msg}  eta {eta}") {
        bar.set_style(style);
    }
    bar
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
        Outcome::Solved { report, expected } if as_json => {
            let mut object = serde_json::to_value(report)?;
            if let Value::Object(map) = &mut object {
                map.insert("type".into(), json!("result"));
                map.insert("line".into(), json!(line));
                if let Some(expected) = expected {
                    map.insert("expected".into(), json!(expected));
                    map.insert("matches".into(), json!(expected == &report.result));
                }
            }
            writeln!(out, "{object}")?
        }
        Outcome::Solved { report, expected } => {
            let check = match expected {
                Some(e) if e == &report.result => "ok".to_string(),
                Some(e) => format!("MISMATCH (expected {e})"),
                None => String::new(),
            };
            writeln!(
                out,
                "{line:>6}  {:<8} {:<5} {:>9.3} s {:>12} nodes  {check}",
                report.result,
                report.best_move.as_deref().unwrap_or("-"),
                report.time_ms as f64 / 1000.0,
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
    time_ms: u64,
    interrupted: bool,
}

impl Summary {
    fn count(&mut self, outcome: &Outcome) {
        match outcome {
            Outcome::Bad(_) => self.errors += 1,
            Outcome::Solved { report, expected } => {
                self.positions += 1;
                if report.value == SolveValue::Unknown && !report.result.starts_with("not ") {
                    self.unknown += 1;
                } else {
                    self.solved += 1;
                }
                if expected.as_ref().is_some_and(|e| e != &report.result) {
                    self.mismatches += 1;
                }
            }
        }
    }

    fn all_good(&self) -> bool {
        self.unknown == 0 && self.mismatches == 0 && self.errors == 0
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
            "time_ms": self.time_ms,
            "interrupted": self.interrupted,
        })
    }

    fn text(&self) -> String {
        format!(
            "{} positions: {} solved, {} unknown, {} mismatches, {} bad lines, {:.3} s{}",
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
