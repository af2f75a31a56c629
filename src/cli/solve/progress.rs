//! Progress displays on stderr: the live line of a single search (with a bar over a review's
//! positions) and a batch's bar. Shown on a terminal unless `--quiet`; with `--progress`, a
//! solve's, analysis's or review's progress also goes to a stderr that is not a terminal, one
//! line per second.

use super::report::number_text;
use crate::cli::args::SearchArgs;
use crate::search::LiveStats;
use crate::table::Table;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// Not at all.
    Hidden,
    /// Redrawn in place on a terminal.
    Live,
    /// As lines, for a log.
    Lines,
}

/// How the arguments ask for progress: live on a terminal unless `--quiet`; as lines on
/// anything else with `--progress`.
pub fn progress_mode(args: &SearchArgs) -> Progress {
    if args.quiet {
        Progress::Hidden
    } else if std::io::stderr().is_terminal() {
        Progress::Live
    } else if args.progress {
        Progress::Lines
    } else {
        Progress::Hidden
    }
}

/// Runs `work` with a fresh [`LiveStats`], showing progress from it while it runs as `mode`
/// says.
pub fn with_live_line<R: Send>(
    mode: Progress,
    table: &Table,
    work: impl FnOnce(&LiveStats) -> R + Send,
) -> R {
    show_while(mode, table, None, work)
}

/// How far a walk over a known number of positions (a review's) has got, for its display.
#[derive(Debug, Default)]
pub struct Walk {
    /// Positions the walk may visit.
    pub total: u64,
    /// Positions done.
    pub done: AtomicU64,
    /// The ply of the position being solved.
    pub ply: AtomicU64,
}

/// [`with_live_line`] for a walk: the display also shows `walk`'s positions done (as a bar on
/// a terminal) and the current ply.
pub fn with_walk_line<R: Send>(
    mode: Progress,
    table: &Table,
    walk: &Walk,
    work: impl FnOnce(&LiveStats) -> R + Send,
) -> R {
    show_while(mode, table, Some(walk), work)
}

fn show_while<R: Send>(
    mode: Progress,
    table: &Table,
    walk: Option<&Walk>,
    work: impl FnOnce(&LiveStats) -> R + Send,
) -> R {
    let live = LiveStats::default();
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        // The display's thread; should the system refuse it, the work goes on unwatched.
        let display = std::thread::Builder::new();
        let started = match mode {
            Progress::Hidden => Ok(()),
            Progress::Live => display
                .spawn_scoped(scope, || watch(&live, walk, &done, table))
                .map(drop),
            Progress::Lines => display
                .spawn_scoped(scope, || log_lines(&live, walk, &done, table))
                .map(drop),
        };
        if let Err(error) = started {
            eprintln!("warning: no progress display: cannot start its thread: {error}");
        }
        let result = work(&live);
        done.store(true, Ordering::Relaxed);
        result
    })
}

/// The progress message: elapsed, nodes, nodes/s, root φ/δ, and for PN-DFPN the root tree's
/// nodes and the jobs merged; for a walk, first the ply being solved.
fn progress_message(live: &LiveStats, walk: Option<&Walk>, start: Instant) -> String {
    let nodes = live.nodes.load(Ordering::Relaxed);
    let seconds = start.elapsed().as_secs_f64();
    let root = live.root();
    let mut message = match walk {
        Some(walk) => format!("ply {}  ", walk.ply.load(Ordering::Relaxed)),
        None => String::new(),
    };
    message += &format!(
        "{seconds:.1} s  {nodes} nodes  {:.0} nodes/s  root φ={} δ={}",
        nodes as f64 / seconds.max(1e-9),
        number_text(root.phi),
        number_text(root.delta),
    );
    let jobs = live.jobs.load(Ordering::Relaxed);
    if jobs > 0 {
        let tree = live.tree_nodes.load(Ordering::Relaxed);
        message += &format!("  tree {tree} nodes  {jobs} jobs");
    }
    message
}

/// Redraws a live line (a walk's bar, the progress message and the table's fill) four times a
/// second until `done`.
fn watch(live: &LiveStats, walk: Option<&Walk>, done: &AtomicBool, table: &Table) {
    let (length, template) = match walk {
        Some(walk) => (
            Some(walk.total),
            "{spinner} {bar:20} {pos}/{len} positions  {msg}  {prefix}",
        ),
        None => (None, "{spinner} {msg}  {prefix}"),
    };
    let bar = ProgressBar::with_draw_target(length, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    let start = Instant::now();
    let mut ticks = 0u64;
    while !done.load(Ordering::Relaxed) {
        // The fill estimate reads thousands of buckets: refresh it every few seconds only.
        if ticks.is_multiple_of(16) {
            bar.set_prefix(format!("table {:.1}%", 100.0 * table.fill()));
        }
        if let Some(walk) = walk {
            bar.set_position(walk.done.load(Ordering::Relaxed));
        }
        bar.set_message(progress_message(live, walk, start));
        bar.tick();
        ticks += 1;
        std::thread::sleep(Duration::from_millis(250));
    }
    bar.finish_and_clear();
}

/// Writes the progress message (after a walk's positions done) and the table's fill as a line
/// to stderr once a second until `done` (checked every 50 ms, so that a solve's end is not held
/// up).
fn log_lines(live: &LiveStats, walk: Option<&Walk>, done: &AtomicBool, table: &Table) {
    let start = Instant::now();
    let mut next = start + Duration::from_secs(1);
    while !done.load(Ordering::Relaxed) {
        if Instant::now() >= next {
            let positions = walk.map_or(String::new(), |walk| {
                format!(
                    "{}/{} positions  ",
                    walk.done.load(Ordering::Relaxed),
                    walk.total
                )
            });
            eprintln!(
                "progress {positions}{}  table {:.1}%",
                progress_message(live, walk, start),
                100.0 * table.fill()
            );
            next += Duration::from_secs(1);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A batch's bar over `total` positions, or a hidden one.
pub fn batch_bar(total: u64, visible: bool) -> ProgressBar {
    if !visible {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len}  {msg}  eta {eta}") {
        bar.set_style(style);
    }
    bar
}
