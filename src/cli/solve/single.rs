//! `uttt solve POSITION`: one position, a summary or one JSON object.

use super::options::{open_table, search_options};
use super::progress::{show_progress, with_live_line};
use super::report::{exit_code, summary_text, SolveJson};
use crate::cli::args::{PositionArgs, SolveArgs};
use crate::cli::{interrupt, EXIT_INTERRUPTED};
use crate::search::solve_watched;
use std::io::Write;

/// Solves the position the arguments name and prints the result; returns the exit code.
pub fn run(args: &SolveArgs) -> anyhow::Result<i32> {
    let position = PositionArgs {
        position: args.position.clone().unwrap_or_default(),
        moves: args.moves.clone(),
    };
    let pos = position.resolve()?;
    let options = search_options(&args.search, args.attacker)?;
    let mut table = open_table(&args.search)?;
    let stop = interrupt::stop_flag();
    let report = with_live_line(show_progress(args.search.quiet), &table, |live| {
        solve_watched(&pos, &options, &table, stop, Some(live))
    });
    table.flush(true)?;
    let text = if args.search.json {
        serde_json::to_string(&SolveJson::of(&report))? + "\n"
    } else {
        summary_text(&report)
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(if interrupt::interrupted() {
        EXIT_INTERRUPTED
    } else {
        exit_code(report.verdict)
    })
}
