//! The commands that search: `uttt solve` (one position or a batch), `uttt analyze`,
//! `uttt play`, `uttt review` and `uttt campaign`.
//!
//! `options` turns arguments into typed search options and a table; `single`, `batch`,
//! `analyze` and `review` run the searches (with `--db`, through the database of solved
//! positions); `report` renders their typed results as text or JSON and chooses exit codes;
//! `progress` draws the live displays.

mod analyze;
pub(crate) mod batch;
mod campaign;
pub(crate) mod entries;
#[cfg(feature = "mpi")]
pub(crate) mod mpi;
mod options;
mod play;
mod progress;
mod report;
mod review;
mod single;

use super::args::{AnalyzeArgs, CampaignCommand, PlayArgs, ReviewArgs, SolveArgs};
use crate::files::NamedPath;
use std::path::Path;

/// Runs `uttt solve`: a single position, or a batch with `--file`.
pub fn run_solve(args: &SolveArgs) -> anyhow::Result<i32> {
    let mut files = options::search_files(&args.search);
    let input = args.file.as_deref().filter(|path| *path != Path::new("-"));
    files.extend(input.map(|path| NamedPath::read("--file", path)));
    files.extend(
        args.certificate
            .as_deref()
            .map(|path| NamedPath::written("--certificate", path)),
    );
    options::check_files(&files)?;
    #[cfg(feature = "mpi")]
    if args.mpi {
        return mpi::run(args);
    }
    match &args.file {
        Some(path) => batch::run(args, path),
        None => single::run(args),
    }
}

/// Runs a `uttt campaign` subcommand.
pub fn run_campaign(command: &CampaignCommand) -> anyhow::Result<i32> {
    match command {
        CampaignCommand::Run(args) => campaign::run(args),
        CampaignCommand::Status(args) => campaign::status(args),
        CampaignCommand::Certify(args) => campaign::certify(args),
        CampaignCommand::Reset(args) => campaign::reset(args),
    }
}

/// Runs `uttt analyze`.
pub fn run_analyze(args: &AnalyzeArgs) -> anyhow::Result<i32> {
    analyze::run(args)
}

/// Runs `uttt play`.
pub fn run_play(args: &PlayArgs) -> anyhow::Result<i32> {
    play::run(args)
}

/// Runs `uttt review`.
pub fn run_review(args: &ReviewArgs) -> anyhow::Result<i32> {
    review::run(args)
}
