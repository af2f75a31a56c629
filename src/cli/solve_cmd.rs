//! `uttt solve`: one position, a summary or one JSON object.

use super::args::{EngineArg, PlayerArg, PositionArgs, SolveArgs};
use super::{interrupt, EXIT_INCOMPLETE, EXIT_INTERRUPTED, EXIT_OK};
use crate::game::{Player, Position};
use crate::search::solve::settled_without_search;
use crate::search::{
    solve_watched, Engine, LiveStats, SolveOptions, SolveReport, SolveValue, Table,
};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Runs `uttt solve`: a single position, or a batch with `--file`.
pub fn run(args: &SolveArgs) -> anyhow::Result<i32> {
    if let Some(path) = &args.file {
        return super::batch::run(args, path);
    }
    let position = PositionArgs {
        position: args.position.clone().unwrap_or_default(),
        moves: args.moves.clone(),
    };
    let pos = position.resolve()?;
    let options = solve_options(args)?;
    let mut table = open_table(args, Some(&pos))?;
    let stop = interrupt::stop_flag();
    let live = LiveStats::default();
    let done = AtomicBool::new(false);
    let report = std::thread::scope(|scope| {
        if show_progress(args.quiet) {
            scope.spawn(|| watch(&live, &done, &table));
        }
        let report = solve_watched(&pos, &options, &table, stop, Some(&live));
        done.store(true, Ordering::Relaxed);
        report
    });
    table.flush(true)?;
    let text = if args.json {
        serde_json::to_string(&report)? + "\n"
    } else {
        summary_text(&report)
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(if interrupt::interrupted() {
        EXIT_INTERRUPTED
    } else if report.value == SolveValue::Unknown && !report.result.starts_with("not ") {
        EXIT_INCOMPLETE
    } else {
        EXIT_OK
    })
}

/// Whether to draw progress: only on a terminal, and not with `--quiet`.
pub fn show_progress(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
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
        let fill = if ticks % 16 == 0 {
            Some(table.fill())
        } else {
            None
        };
        if let Some(fill) = fill {
            bar.set_prefix(format!("table {:.1}%", 100.0 * fill));
        }
        bar.set_message(format!(
            "{seconds:.1} s  {nodes} nodes  {:.0} nodes/s  root φ={} δ={}",
            nodes as f64 / seconds.max(1e-9),
            live.root_phi.load(Ordering::Relaxed),
            live.root_delta.load(Ordering::Relaxed),
        ));
        bar.tick();
        ticks += 1;
        std::thread::sleep(Duration::from_millis(250));
    }
    bar.finish_and_clear();
}

/// The search options the arguments ask for.
pub fn solve_options(args: &SolveArgs) -> anyhow::Result<SolveOptions> {
    if !(args.epsilon >= 0.0 && args.epsilon <= 16.0) {
        anyhow::bail!("--epsilon must be between 0 and 16, not {}", args.epsilon);
    }
    Ok(SolveOptions {
        engine: match args.engine {
            EngineArg::Dfpn => Engine::Dfpn,
            EngineArg::PnDfpn => Engine::PnDfpn,
        },
        threads: match args.engine {
            EngineArg::Dfpn => 1,
            EngineArg::PnDfpn => args.threads.map_or_else(
                || std::thread::available_parallelism().map_or(1, |n| n.get()),
                |t| t as usize,
            ),
        },
        epsilon: args.epsilon,
        time_limit: args.time_limit,
        node_limit: args.node_limit,
        attacker: args.attacker.map(|a| match a {
            PlayerArg::X => Player::X,
            PlayerArg::O => Player::O,
        }),
        job_work: args.job_work.max(1),
        split_threshold: args.split_threshold,
        tree_bytes: args.tree_mem,
    })
}

/// The table the arguments ask for; the smallest one when a single `pos` needs no search.
pub fn open_table(args: &SolveArgs, pos: Option<&Position>) -> anyhow::Result<Table> {
    let settled = pos.is_some_and(|p| settled_without_search(p).is_some());
    match &args.table_file {
        Some(path) => Table::open_file(path, args.table_mem),
        None if settled => Table::new(0),
        None => Table::new(args.table_mem),
    }
}

/// The human-readable summary of a solve.
pub fn summary_text(report: &SolveReport) -> String {
    let mut out = String::new();
    let result = match report.result.as_str() {
        "X" | "O" => format!("{} wins", report.result),
        "draw" => "draw".to_string(),
        other => other.to_string(),
    };
    let _ = writeln!(out, "position   {}", report.position);
    let _ = writeln!(
        out,
        "result     {result}  ({} to move: {:?})",
        report.to_move, report.value
    );
    let _ = writeln!(
        out,
        "best move  {}",
        report.best_move.as_deref().unwrap_or("-")
    );
    if !report.pv.is_empty() {
        let _ = writeln!(out, "pv         {}", report.pv.join(" "));
    }
    let _ = writeln!(
        out,
        "time       {:.3} s   nodes {}   {} nodes/s   engine {} ({} thread{})",
        report.time_ms as f64 / 1000.0,
        report.nodes,
        report.nps,
        report.engine,
        report.threads,
        if report.threads == 1 { "" } else { "s" }
    );
    let t = &report.table;
    let hit_rate = if t.lookups > 0 {
        100.0 * t.hits as f64 / t.lookups as f64
    } else {
        0.0
    };
    let _ = writeln!(
        out,
        "table      {} MiB, {} entries, {:.1}% full, {} lookups ({hit_rate:.1}% hits), {} stores, {} replacements",
        t.bytes >> 20,
        t.entries,
        100.0 * t.fill,
        t.lookups,
        t.stores,
        t.replacements
    );
    for s in &report.searches {
        let _ = writeln!(
            out,
            "search     does {} win? {:?} in {:.3} s, {} nodes, root φ={} δ={}",
            s.attacker,
            s.outcome,
            s.time_ms as f64 / 1000.0,
            s.nodes,
            s.root_phi,
            s.root_delta
        );
    }
    out
}
