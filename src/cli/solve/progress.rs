//! Progress displays on stderr: the live line of a single search and a batch's bar. Shown
//! only on a terminal, and never with `--quiet`.

use super::report::number_text;
use crate::search::{LiveStats, Table};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Whether to draw progress: only on a terminal, and not with `--quiet`.
pub fn show_progress(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

/// Runs `work` with a fresh [`LiveStats`], redrawing a live line from it while it runs (when
/// `visible`).
pub fn with_live_line<R: Send>(
    visible: bool,
    table: &Table,
    work: impl FnOnce(&LiveStats) -> R + Send,
) -> R {
    let live = LiveStats::default();
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        if visible {
            scope.spawn(|| watch(&live, &done, table));
        }
        let result = work(&live);
        done.store(true, Ordering::Relaxed);
        result
    })
}

/// Redraws a live line (elapsed, nodes, nodes/s, root φ/δ, table fill) four times a second
/// until `done`.
fn watch(live: &LiveStats, done: &AtomicBool, table: &Table) {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg}  {prefix}") {
        bar.set_style(style);
    }
    let start = Instant::now();
    let mut ticks = 0u64;
    while !done.load(Ordering::Relaxed) {
        let nodes = live.nodes.load(Ordering::Relaxed);
        let seconds = start.elapsed().as_secs_f64();
        // The fill estimate reads thousands of buckets: refresh it every few seconds only.
        if ticks.is_multiple_of(16) {
            bar.set_prefix(format!("table {:.1}%", 100.0 * table.fill()));
        }
        bar.set_message(format!(
            "{seconds:.1} s  {nodes} nodes  {:.0} nodes/s  root φ={} δ={}",
            nodes as f64 / seconds.max(1e-9),
            number_text(live.root_phi.load(Ordering::Relaxed)),
            number_text(live.root_delta.load(Ordering::Relaxed)),
        ));
        bar.tick();
        ticks += 1;
        std::thread::sleep(Duration::from_millis(250));
    }
    bar.finish_and_clear();
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
