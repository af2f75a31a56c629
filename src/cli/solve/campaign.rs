//! `uttt campaign run`, `status`, `certify` and `reset`: a solve whose PN-DFPN trees the
//! database keeps, so that it can be stopped at any moment and resumed by the same command,
//! what such a campaign has done so far, its certificate, and a fresh start of its trees.

use super::options::{check_files, check_threads, open_table, search_files, search_options};
use super::progress::{progress_mode, with_live_line};
use super::report::{exit_code, number_text, report_certificate_problem, summary_text, SolveJson};
use crate::cli::args::{CampaignCertifyArgs, CampaignRunArgs, CampaignStatusArgs};
use crate::cli::{interrupt, EXIT_CERTIFICATE_FAILED, EXIT_OK};
use crate::db::campaign::guide::KeptGuide;
use crate::db::Database;
use crate::files::{check_writable, NamedPath};
use crate::search::options::DEFAULT_EPSILON;
use crate::search::SolveOptions;
use crate::services::campaign::snapshot::{snapshot_file, SnapshotReport};
use crate::services::campaign::{
    campaign_status, reset_campaign, settled_campaign, Campaign, CampaignError, CampaignRequest,
    CampaignRun, CampaignStatus, Learning, QuestionStatus, SnapshotPlan,
};
use crate::services::certify::{certify_campaign, write_and_check_with};
use crate::services::memory::anonymous_table;
use crate::services::{CertificateFigures, CertificateRequest, SolveReport};
use anyhow::Context;
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Write;

/// Trend samples shown in the text status (the JSON has all of them).
const TREND_SHOWN: usize = 6;

/// The JSON object of `uttt campaign run`: the solve's, with the campaign's status after it
/// (and with `--mpi`, each worker rank's figures).
#[derive(Serialize)]
struct CampaignRunJson<'a> {
    #[serde(flatten)]
    solve: SolveJson<'a>,
    campaign: Option<&'a CampaignStatus>,
    #[serde(skip_serializing_if = "Option::is_none")]
    snapshot: Option<&'a SnapshotReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    learning: Option<&'a Learning>,
    #[cfg(feature = "mpi")]
    #[serde(skip_serializing_if = "Option::is_none")]
    ranks: Option<&'a [crate::distributed::RankReport]>,
}

/// The campaign the arguments ask for (`--db` is required).
fn campaign_request(args: &CampaignRunArgs) -> anyhow::Result<CampaignRequest> {
    let Some(db) = &args.search.db else {
        anyhow::bail!("campaign run needs --db PATH: the database that keeps the campaign");
    };
    let snapshot = if args.no_snapshot || args.search.table_file.is_some() {
        None
    } else {
        let path = snapshot_file(db, args.snapshot.as_deref()).map_err(campaign_error)?;
        Some(SnapshotPlan {
            path,
            every: args.snapshot_every,
        })
    };
    let mut files = search_files(&args.search);
    let snapshot_path = snapshot.as_ref().map(|plan| plan.path.as_path());
    files.extend(snapshot_path.map(|path| NamedPath::written("--snapshot", path)));
    check_files(&files)?;
    let mut options = search_options(&args.search, None)?;
    options.max_plies = args.max_plies;
    Ok(CampaignRequest {
        position: args.position.resolve()?,
        database: db.clone(),
        options,
        db_min_work: args.search.db_min_work,
        snapshot,
        refit: !args.no_refit,
    })
}

/// A campaign's error, with the option that avoids it where one does.
fn campaign_error(error: CampaignError) -> anyhow::Error {
    match error {
        CampaignError::Snapshot { path, source } => anyhow::Error::new(source).context(format!(
            "cannot resume from the table snapshot {} (remove it, name another with \
             --snapshot, or run with --no-snapshot)",
            path.display()
        )),
        CampaignError::WrongEngine(_) => {
            anyhow::Error::new(error).context("leave out --engine (campaigns run pn-dfpn)")
        }
        error => anyhow::Error::new(error),
    }
}

/// Runs (or resumes) the campaign the arguments name; returns the exit code.
pub fn run(args: &CampaignRunArgs) -> anyhow::Result<i32> {
    #[cfg(feature = "mpi")]
    if args.mpi {
        if args.snapshot.is_some() {
            anyhow::bail!("--snapshot keeps one process's table: not with --mpi");
        }
        return run_mpi(args);
    }
    let stop = interrupt::stop_flag();
    let request = campaign_request(args)?;
    check_threads(&request.options)?;
    let mut campaign = Campaign::open(&request).map_err(campaign_error)?;
    let mut table = open_table(&args.search)?;
    campaign
        .load_snapshot(&mut table, stop)
        .map_err(campaign_error)?;
    let ran = with_live_line(progress_mode(&args.search), &table, |live| {
        campaign.run(&table, stop, Some(live), None, &warn)
    })
    .map_err(campaign_error)?;
    table.flush(true)?;
    let json = CampaignRunJson {
        solve: SolveJson::of(&ran.report),
        campaign: ran.status.as_ref(),
        snapshot: ran.snapshot.as_ref(),
        learning: ran.learning.as_ref(),
        #[cfg(feature = "mpi")]
        ranks: None,
    };
    let extra = ran
        .snapshot
        .as_ref()
        .map_or_else(String::new, snapshot_text)
        + &ran
            .learning
            .as_ref()
            .map_or_else(String::new, learning_text);
    print_run(&ran, &json, extra, args.search.json)
}

/// Says at once what went wrong beside the search while the run goes on (a snapshot not
/// written, the campaign's guide set aside or not refitted).
fn warn(problem: &str) {
    eprintln!("warning: {problem}");
}

/// What the table snapshot did, in words.
fn snapshot_text(snapshot: &SnapshotReport) -> String {
    let loaded = match snapshot.loaded_entries {
        Some(entries) => format!("{entries} entries loaded ({:.1} s)", snapshot.load_seconds),
        None => "none to load".to_string(),
    };
    let written = match &snapshot.error {
        Some(error) => format!("the last write failed: {error}"),
        None => format!(
            "written {} time{} ({:.1} s), last {} entries in {:.1} MiB",
            snapshot.written,
            if snapshot.written == 1 { "" } else { "s" },
            snapshot.write_seconds,
            snapshot.entries,
            snapshot.bytes as f64 / f64::from(1 << 20)
        ),
    };
    format!(
        "snapshot   {}: {loaded}; {written}\n",
        snapshot.path.display()
    )
}

/// What a run that learns as it goes steered by and refitted, in words.
fn learning_text(learning: &Learning) -> String {
    let steered = match &learning.steered_by {
        Some(kept) => format!("the campaign's refit ({})", guide_figures(kept)),
        None => "the built-in calibration".to_string(),
    };
    let refit = learning.refit.as_ref().map_or_else(String::new, refit_line);
    format!("guide      steered by {steered}\n{refit}")
}

/// A campaign's kept refit in a line: its figures, and what the next run steers by.
fn refit_line(kept: &KeptGuide) -> String {
    let next = if kept.predicts_better {
        "the next run steers by it"
    } else {
        "the next run keeps the built-in calibration"
    };
    format!("refit      {}: {next}\n", guide_figures(kept))
}

/// A kept guide's figures in words: what it was fitted to and its error on the positions held
/// back, beside the built-in table's.
fn guide_figures(kept: &KeptGuide) -> String {
    let error = |e: Option<f64>| e.map_or_else(|| "-".to_string(), |e| format!("{e:.3}"));
    format!(
        "fitted to {} settled positions; on {} held back, log2 error {} built-in, {} refit",
        kept.fitted,
        kept.held_back,
        error(kept.error_before),
        error(kept.error_after)
    )
}

/// Rank 0's part of `campaign run --mpi`: the campaign, its jobs run by the worker ranks
/// (which only serve jobs, and need no database).
#[cfg(feature = "mpi")]
fn run_mpi(args: &CampaignRunArgs) -> anyhow::Result<i32> {
    use super::mpi::{as_the_worker_ranks_searched, ranks_text, with_mpi_ranks};
    let stop = interrupt::stop_flag();
    let ran = with_mpi_ranks(
        &args.search,
        None,
        &args.mpi_options,
        |options, table, workers| {
            let mut request = campaign_request(args)?;
            request.options = SolveOptions {
                max_plies: args.max_plies,
                ..options.clone()
            };
            // The worker ranks' tables are not rank 0's: no snapshot.
            request.snapshot = None;
            let campaign = Campaign::open(&request).map_err(campaign_error)?;
            campaign
                .run(table, stop, None, Some(workers), &warn)
                .map_err(campaign_error)
        },
    )?;
    let Some((mut ran, ranks)) = ran else {
        return Ok(EXIT_OK);
    };
    as_the_worker_ranks_searched(&mut ran.report, &ranks);
    let json = CampaignRunJson {
        solve: SolveJson::of(&ran.report),
        campaign: ran.status.as_ref(),
        snapshot: None,
        learning: None,
        ranks: Some(&ranks),
    };
    print_run(&ran, &json, ranks_text(&ranks), args.search.json)
}

/// Prints a campaign run's result (the summary, `extra` lines, the status; or `json`) and
/// returns its exit code: a database that failed is an error.
fn print_run(
    ran: &CampaignRun,
    json: &CampaignRunJson,
    extra: String,
    as_json: bool,
) -> anyhow::Result<i32> {
    let report: &SolveReport = &ran.report;
    if let Some(failure) = &report.failure {
        anyhow::bail!("the search could not run: {failure}");
    }
    let text = if as_json {
        serde_json::to_string(json)? + "\n"
    } else {
        // The run's own lines say what it learned, so the status's kept refit is not repeated.
        summary_text(report) + &extra + &json.campaign.map_or_else(String::new, status_text)
    };
    std::io::stdout().write_all(text.as_bytes())?;
    // A failure that retries mended is told in the summary; one that lost work, or left
    // nothing to search, is an error.
    if let Some(database) = &report.database {
        let failed = database.unreadable || database.unstored > 0;
        if let (Some(error), true) = (&database.error, failed) {
            anyhow::bail!("the campaign's database failed: {error}");
        }
    }
    Ok(interrupt::exit_code().unwrap_or_else(|| exit_code(report.verdict)))
}

/// "no campaign on P (within N plies) in FILE".
fn no_campaign(args: &CampaignStatusArgs, pos: &crate::game::Position) -> String {
    let within = args
        .max_plies
        .map_or(String::new(), |plies| format!(" within {plies} plies"));
    format!("no campaign on {pos}{within} in {}", args.db.display())
}

/// Prints where the campaign the arguments name stands; returns the exit code.
pub fn status(args: &CampaignStatusArgs) -> anyhow::Result<i32> {
    let pos = args.position.resolve()?;
    let database = Database::open_existing(&args.db)?;
    let status = campaign_status(&database, &pos, args.max_plies)?
        .with_context(|| no_campaign(args, &pos))?;
    let text = if args.json {
        serde_json::to_string(&status)? + "\n"
    } else {
        status_text(&status) + &status.guide.as_ref().map_or_else(String::new, refit_line)
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(EXIT_OK)
}

/// Drops the kept trees of the campaign the arguments name; returns the exit code.
pub fn reset(args: &CampaignStatusArgs) -> anyhow::Result<i32> {
    let pos = args.position.resolve()?;
    let database = Database::open_existing(&args.db)?;
    let dropped = reset_campaign(&database, &pos, args.max_plies)?
        .with_context(|| no_campaign(args, &pos))?;
    let text = if args.json {
        serde_json::json!({ "nodes_dropped": dropped }).to_string() + "\n"
    } else {
        format!(
            "dropped the campaign's kept trees ({dropped} nodes); its facts, totals and trend \
             stay, and the next run starts its trees anew\n"
        )
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(EXIT_OK)
}

/// Writes (and with `--verify` checks) the certificate of a settled campaign's answer;
/// returns the exit code.
pub fn certify(args: &CampaignCertifyArgs) -> anyhow::Result<i32> {
    let stop = interrupt::stop_flag();
    let pos = args.position.resolve()?;
    check_files(&[
        NamedPath::written("--db", &args.db),
        NamedPath::written("--certificate", &args.certificate),
    ])?;
    check_writable(&args.certificate)
        .with_context(|| format!("cannot write certificate {}", args.certificate.display()))?;
    let database = Database::open_existing(&args.db)?;
    let settled = settled_campaign(&database, &pos)?.with_context(|| {
        format!(
            "no settled campaign on {pos} in {}: run `uttt campaign run` until it answers",
            args.db.display()
        )
    })?;
    let table = anonymous_table(args.table_mem)?;
    let threads = args
        .threads
        .map_or_else(|| SolveOptions::default().threads, |t| t as usize);
    let request = CertificateRequest {
        path: Some(&args.certificate),
        verify: args.verify,
    };
    let figures = write_and_check_with(&pos, &request, "campaign", || {
        certify_campaign(&pos, &settled, &table, DEFAULT_EPSILON, threads, stop)
    })?;
    report_certificate_problem(figures.as_ref(), &[args.db.as_path()]);
    let Some(figures) = figures else {
        // Stopped before the certificate was complete: nothing was written.
        return Ok(interrupt::exit_code().unwrap_or(crate::cli::EXIT_INCOMPLETE));
    };
    let text = if args.json {
        serde_json::to_string(&figures)? + "\n"
    } else {
        certify_text(&figures)
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(if figures.certified == Some(false) {
        EXIT_CERTIFICATE_FAILED
    } else {
        EXIT_OK
    })
}

/// What `campaign certify` wrote, in words.
fn certify_text(figures: &CertificateFigures) -> String {
    let mut out = String::new();
    if let Some(path) = &figures.path {
        let _ = writeln!(out, "certificate {}", path.display());
    }
    let _ = writeln!(
        out,
        "blocks      {} ({} move bytes), written in {:.3} s, {} nodes searched again",
        figures.blocks,
        figures.bytes,
        figures.write_ms as f64 / 1000.0,
        figures.research_nodes
    );
    if let Some(certified) = figures.certified {
        let _ = writeln!(
            out,
            "certified   {}  ({} positions, {:.3} s)",
            if certified { "yes" } else { "NO" },
            figures.positions.unwrap_or(0),
            figures.verify_ms.unwrap_or(0) as f64 / 1000.0
        );
    }
    out
}

/// The campaign's status in words: its position, then each question (its kept refit is
/// [`refit_line`]'s).
fn status_text(status: &CampaignStatus) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "campaign   {}", status.position);
    let within = status
        .max_plies
        .map_or(String::new(), |plies| format!(" within {plies} plies"));
    for question in &status.questions {
        out += &question_text(question, &within);
    }
    out
}

/// One question's status in words; `within` is its bound in words (` within 9 plies`).
fn question_text(q: &QuestionStatus, within: &str) -> String {
    let mut out = String::new();
    let answer = match q.answer {
        Some(true) => "yes (proved)",
        Some(false) => "no (disproved)",
        None if q.totals.runs == 0 => "not searched",
        None => "open",
    };
    let _ = writeln!(out, "question   does {} win{within}? {answer}", q.attacker);
    if let Some(root) = q.root {
        let _ = writeln!(
            out,
            "  tree     root φ={} δ={}, {} nodes, depth {}, {} open leaves",
            number_text(root.phi),
            number_text(root.delta),
            q.tree_nodes,
            q.depth,
            q.open_leaves
        );
    }
    if q.totals.runs > 0 {
        let _ = writeln!(
            out,
            "  work     {} run{}, {} jobs, {} nodes, {:.1} s",
            q.totals.runs,
            if q.totals.runs == 1 { "" } else { "s" },
            q.totals.jobs,
            q.totals.nodes,
            q.totals.seconds
        );
    }
    let shown = &q.trend[q.trend.len().saturating_sub(TREND_SHOWN)..];
    if !shown.is_empty() {
        let samples: Vec<String> = shown
            .iter()
            .map(|s| {
                format!(
                    "{:.0} s φ={} δ={}",
                    s.seconds,
                    number_text(s.phi),
                    number_text(s.delta)
                )
            })
            .collect();
        let _ = writeln!(out, "  trend    {}", samples.join("; "));
    }
    out
}
