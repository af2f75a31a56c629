//! `uttt play POSITION`: a move chosen by Monte Carlo tree search that knows what is proved,
//! as a summary or one JSON object.

use super::options::{check_files, open_table_in};
use super::report::{move_text, rules_line, value_word};
use crate::cli::args::PlayArgs;
use crate::cli::interrupt;
use crate::db::Database;
use crate::files::NamedPath;
use crate::search::dfpn::Limits;
use crate::search::mcts::MctsOptions;
use crate::services::json::{verdict_label, PlayJson};
use crate::services::{PlayOptions, PlayReport, TreePlayer};
use std::fmt::Write as _;
use std::io::Write;
use std::time::Duration;

/// The time limit of a play with neither `--time-limit` nor `--playouts`.
const DEFAULT_PLAY_TIME: Duration = Duration::from_secs(1);

/// Runs `uttt play`; returns the exit code (0 whenever a move is named or the game is over).
pub fn run(args: &PlayArgs) -> anyhow::Result<i32> {
    let files: Vec<NamedPath> = (args.table_file.as_deref())
        .map(|path| NamedPath::written("--table-file", path))
        .into_iter()
        .chain(
            args.db
                .as_deref()
                .map(|path| NamedPath::written("--db", path)),
        )
        .collect();
    check_files(&files)?;
    if !(args.temperature >= 0.0 && args.temperature.is_finite()) {
        anyhow::bail!("--temperature must be 0 or more, not {}", args.temperature);
    }
    let pos = args.position.resolve()?;
    let options = play_options(args);
    let stop = interrupt::stop_flag();
    let mut table = open_table_in(
        args.table_file.as_deref(),
        args.table_mem,
        options.search.time_limit,
    )?;
    let database = args.db.as_deref().map(Database::open).transpose()?;
    let limits = Limits::stop_only(stop);
    let report = TreePlayer::new().choose(&pos, &table, database.as_ref(), &options, limits)?;
    table.flush(true)?;
    let threads = options.search.threads;
    let text = if args.json {
        serde_json::to_string(&PlayJson::of(&report, threads))? + "\n"
    } else {
        play_text(&report, threads)
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(interrupt::exit_code().unwrap_or(crate::cli::EXIT_OK))
}

/// The search options the arguments ask for.
fn play_options(args: &PlayArgs) -> PlayOptions {
    let defaults = MctsOptions::default();
    let time_limit = match (args.time_limit, args.playouts) {
        (None, None) => Some(DEFAULT_PLAY_TIME),
        (limit, _) => limit,
    };
    PlayOptions {
        search: MctsOptions {
            threads: args.threads.map_or(defaults.threads, |t| t as usize),
            seed: args.seed,
            playouts: args.playouts,
            time_limit,
            leaf_work: args.node_limit,
            tree_bytes: args.tree_mem,
            ..defaults
        },
        temperature: (args.temperature > 0.0).then_some(args.temperature),
    }
}

/// The summary: the move, what is proved, the estimate (said to be one) and the figures.
fn play_text(report: &PlayReport, threads: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "position   {}", report.position);
    out += &rules_line(report.position.rules());
    let bounds = report
        .bounds
        .words()
        .map_or_else(String::new, |words| format!(", proved: {words}"));
    let _ = writeln!(
        out,
        "result     {}{bounds}  ({} to move: {})",
        verdict_label(report.verdict),
        report.position.side_to_move(),
        value_word(report.value())
    );
    let _ = writeln!(out, "move       {}", move_text(report.chosen));
    if let Some(estimate) = &report.estimate {
        let _ = writeln!(out, "estimate   {} (not a value)", estimate.text());
    }
    if !report.search.pv.is_empty() {
        let _ = writeln!(
            out,
            "pv         {}",
            crate::game::format_moves(&report.search.pv)
        );
    }
    let search = &report.search;
    let _ = writeln!(
        out,
        "search     {} playouts in {:.3} s ({threads} thread{}), tree {} nodes, DFPN looks {} nodes",
        search.playouts,
        search.elapsed.as_secs_f64(),
        if threads == 1 { "" } else { "s" },
        search.tree_nodes,
        search.dfpn_nodes
    );
    out
}
