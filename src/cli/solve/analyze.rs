//! `uttt analyze POSITION`: the value of every legal move.

use super::options::{
    check_files, check_threads, open_database, open_table, search_files, search_options,
    use_database,
};
use super::progress::{progress_mode, with_live_line};
use super::report::{analysis_text, AnalysisJson};
use crate::cli::args::AnalyzeArgs;
use crate::cli::use_colour;
use crate::cli::{interrupt, EXIT_INCOMPLETE, EXIT_OK};
use crate::db::Source;
use crate::services::Solver;
use std::io::Write;

/// Analyses the position the arguments name and prints every move's value; returns the exit
/// code: 0 when every move is settled, 1 when a limit left some unknown.
pub fn run(args: &AnalyzeArgs) -> anyhow::Result<i32> {
    let stop = interrupt::stop_flag();
    let pos = args.position.resolve()?;
    if pos.is_over() {
        anyhow::bail!("the game is over in this position ({pos}): there are no moves to analyse");
    }
    let mut options = search_options(&args.search, None)?;
    check_threads(&options)?;
    options.max_plies = args.max_plies;
    check_files(&search_files(&args.search))?;
    let mut table = open_table(&args.search)?;
    let database = open_database(&args.search)?;
    let analysis = with_live_line(progress_mode(&args.search), &table, |live| {
        let solver = Solver::new(&options, &table)
            .stopped_by(stop)
            .watched_by(live)
            .estimating_with(args.estimate_playouts);
        use_database(solver, database.as_ref(), &args.search, Source::Analyze)
            .analyze_win_in(&pos, args.win_in.mode())
    });
    if let Some(failure) = &analysis.failure {
        anyhow::bail!("the analysis could not run: {failure}");
    }
    table.flush(true)?;
    let text = if args.search.json {
        let json = AnalysisJson::of(&analysis, options.engine.name(), options.worker_threads());
        serde_json::to_string(&json)? + "\n"
    } else {
        analysis_text(&analysis, use_colour())
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(if let Some(code) = interrupt::exit_code() {
        code
    } else if analysis.unknown_moves().next().is_some() {
        EXIT_INCOMPLETE
    } else {
        EXIT_OK
    })
}
