//! `uttt solve`: one position, a summary or one JSON object.

use super::args::{EngineArg, PlayerArg, SolveArgs};
use super::{EXIT_INCOMPLETE, EXIT_OK};
use crate::game::{Player, Position};
use crate::search::solve::settled_without_search;
use crate::search::{solve, Engine, SolveOptions, SolveReport, SolveValue, Table};
use std::sync::atomic::AtomicBool;

/// Runs `uttt solve` on a single position.
pub fn run(args: &SolveArgs) -> anyhow::Result<i32> {
    let pos = args.position.resolve()?;
    let options = solve_options(args)?;
    let mut table = open_table(args, &pos)?;
    let stop = AtomicBool::new(false);
    let report = solve(&pos, &options, &table, &stop);
    table.flush(true)?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print_summary(&report);
    }
    Ok(
        if report.value == SolveValue::Unknown && !report.result.starts_with("not ") {
            EXIT_INCOMPLETE
        } else {
            EXIT_OK
        },
    )
}

/// The search options the arguments ask for.
pub fn solve_options(args: &SolveArgs) -> anyhow::Result<SolveOptions> {
    if !(args.epsilon >= 0.0 && args.epsilon <= 16.0) {
        anyhow::bail!("--epsilon must be between 0 and 16, not {}", args.epsilon);
    }
    Ok(SolveOptions {
        engine: match args.engine {
            EngineArg::Dfpn => Engine::Dfpn,
        },
        threads: 1,
        epsilon: args.epsilon,
        time_limit: args.time_limit,
        node_limit: args.node_limit,
        attacker: args.attacker.map(|a| match a {
            PlayerArg::X => Player::X,
            PlayerArg::O => Player::O,
        }),
    })
}

/// The table the arguments ask for; the smallest one when `pos` needs no search.
pub fn open_table(args: &SolveArgs, pos: &Position) -> anyhow::Result<Table> {
    match &args.table_file {
        Some(path) => Table::open_file(path, args.table_mem),
        None if settled_without_search(pos).is_some() => Table::new(0),
        None => Table::new(args.table_mem),
    }
}

/// Prints the human-readable summary of a solve.
pub fn print_summary(report: &SolveReport) {
    let result = match report.result.as_str() {
        "X" | "O" => format!("{} wins", report.result),
        "draw" => "draw".to_string(),
        other => other.to_string(),
    };
    println!("position   {}", report.position);
    println!(
        "result     {result}  ({} to move: {:?})",
        report.to_move, report.value
    );
    println!("best move  {}", report.best_move.as_deref().unwrap_or("-"));
    if !report.pv.is_empty() {
        println!("pv         {}", report.pv.join(" "));
    }
    println!(
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
    println!(
        "table      {} MiB, {} entries, {:.1}% full, {} lookups ({hit_rate:.1}% hits), {} stores, {} replacements",
        t.bytes >> 20,
        t.entries,
        100.0 * t.fill,
        t.lookups,
        t.stores,
        t.replacements
    );
    for s in &report.searches {
        println!(
            "search     does {} win? {:?} in {:.3} s, {} nodes, root φ={} δ={}",
            s.attacker,
            s.outcome,
            s.time_ms as f64 / 1000.0,
            s.nodes,
            s.root_phi,
            s.root_delta
        );
    }
}
