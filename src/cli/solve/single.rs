//! `uttt solve POSITION`: one position, a summary or one JSON object.

use super::options::{check_threads, open_database, open_table, search_options, use_database};
use super::progress::{progress_mode, with_live_line};
use super::report::{
    certificate_text, exit_code, report_certificate_problem, summary_text, trusted_files, SolveJson,
};
use crate::cli::args::SolveArgs;
use crate::cli::{interrupt, EXIT_CERTIFICATE_FAILED};
use crate::db::Source;
use crate::files::check_writable;
use crate::search::workers::private::with_private_tables;
use crate::search::{Engine, SolveOptions};
use crate::services::memory::shortfall;
use crate::services::units::show_bytes;
use crate::services::{write_and_check, CertificateFigures, CertificateRequest, Solver};
use crate::table::Table;
use anyhow::Context;
use std::io::Write;

/// Solves the position the arguments name and prints the result; returns the exit code.
pub fn run(args: &SolveArgs) -> anyhow::Result<i32> {
    let stop = interrupt::stop_flag();
    let pos = args.resolve_position()?;
    let mut options = search_options(&args.search, args.attacker)?;
    check_threads(&options)?;
    options.max_plies = args.max_plies;
    let private_tables = if args.private_tables {
        private_tables(&options, args.search.table_mem)?
    } else {
        Vec::new()
    };
    if let Some(path) = &args.certificate {
        // Before the search, so that its answer is not found in vain.
        check_writable(path)
            .with_context(|| format!("cannot write certificate {}", path.display()))?;
    }
    let mut table = open_table(&args.search)?;
    let database = open_database(&args.search)?;
    let db = database.as_ref();
    let report = with_live_line(progress_mode(&args.search), &table, |live| {
        if args.private_tables {
            with_private_tables(&private_tables, Some(live), |workers| {
                let solver = Solver::new(&options, &table)
                    .stopped_by(stop)
                    .watched_by(live)
                    .jobs_on(workers);
                use_database(solver, db, &args.search, Source::Solve)
                    .solve_win_in(&pos, args.win_in.mode())
            })
            .map_err(anyhow::Error::from)
        } else {
            let solver = Solver::new(&options, &table)
                .stopped_by(stop)
                .watched_by(live);
            Ok(use_database(solver, db, &args.search, Source::Solve)
                .solve_win_in(&pos, args.win_in.mode()))
        }
    })?;
    if let Some(failure) = &report.failure {
        anyhow::bail!("the search could not run: {failure}");
    }
    let request = CertificateRequest {
        path: args.certificate.as_deref(),
        verify: args.verify,
    };
    let wanted = args.certificate.is_some() || args.verify;
    // A certificate that cannot be written (a full disk) costs no answer: the answer is
    // printed, and then the error.
    let figures = if wanted {
        match write_and_check(&report, &table, options.epsilon, stop, &request, "solve") {
            Ok(figures) => figures,
            Err(error) => Some(CertificateFigures::not_written(
                args.certificate.clone(),
                &error,
            )),
        }
    } else {
        None
    };
    report_certificate_problem(figures.as_ref(), &trusted_files(&args.search));
    table.flush(true)?;
    let text = if args.search.json {
        let json = SolveJson::of(&report).with_certificate(figures.as_ref());
        serde_json::to_string(&json)? + "\n"
    } else if wanted {
        summary_text(&report) + &certificate_text(figures.as_ref())
    } else {
        summary_text(&report)
    };
    std::io::stdout().write_all(text.as_bytes())?;
    if let Some(error) = figures.as_ref().and_then(|f| f.not_written.as_ref()) {
        anyhow::bail!("{error} (the answer above stands; it has no certificate)");
    }
    Ok(if let Some(code) = interrupt::exit_code() {
        code
    } else if figures.is_some_and(|f| f.certified == Some(false)) {
        EXIT_CERTIFICATE_FAILED
    } else {
        exit_code(report.verdict)
    })
}

/// A table of `bytes` for each worker thread of `options`, if the memory available holds
/// them and the root's table as well.
fn private_tables(options: &SolveOptions, bytes: u64) -> anyhow::Result<Vec<Table>> {
    if options.engine != Engine::PnDfpn {
        anyhow::bail!("--private-tables needs the pn-dfpn engine, whose workers own them");
    }
    let threads = options.worker_threads();
    let needed = bytes.saturating_mul(threads as u64 + 1);
    if let Some(available) = shortfall(needed) {
        anyhow::bail!(
            "--private-tables: {threads} worker tables and the root's, of --table-mem {} each, \
             do not fit in the {} of memory available (lower --table-mem or --threads)",
            show_bytes(bytes),
            show_bytes(available)
        );
    }
    Ok((0..threads)
        .map(|_| Table::new(bytes))
        .collect::<Result<_, _>>()?)
}
