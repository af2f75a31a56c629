//! The options of the commands that keep work in a database: `uttt campaign` and `uttt db`.

#[cfg(feature = "mpi")]
use super::MpiArgs;
use super::{PositionArgs, SearchArgs, MAX_THREADS_ARG};
use crate::services::units::{parse_duration, parse_size};
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::time::Duration;

/// The `uttt campaign` subcommands.
#[derive(Subcommand, Debug)]
pub enum CampaignCommand {
    /// Runs (or resumes) the campaign on a position until it is settled or a limit is reached;
    /// Ctrl-C, `kill -9` or a power cut lose the jobs in flight and the last quarter second.
    Run(CampaignRunArgs),
    /// Where the campaign on a position stands: each question's root numbers, tree, work and
    /// trend.
    Status(CampaignStatusArgs),
    /// Writes a (version 2) proof certificate of a settled campaign's answer: a block for the
    /// top of its trees, whose leaves refer to blocks of their own.
    Certify(CampaignCertifyArgs),
    /// Drops the campaign's kept trees (a damaged one, say), so that the next run starts them
    /// anew; the facts it settled, its totals and its trend stay. Refused while it runs.
    Reset(CampaignStatusArgs),
}

/// Options of `uttt campaign certify`.
#[derive(Args, Debug)]
pub struct CampaignCertifyArgs {
    /// The campaign's position (any symmetric image of it).
    #[command(flatten)]
    pub position: PositionArgs,
    /// The database the campaign is kept in.
    #[arg(long, value_name = "PATH")]
    pub db: PathBuf,
    /// Where to write the certificate.
    #[arg(long, value_name = "PATH")]
    pub certificate: PathBuf,
    /// Check the certificate with the independent verifier after writing it.
    #[arg(long)]
    pub verify: bool,
    /// Transposition table size for the pieces solved again.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size)]
    pub table_mem: u64,
    /// Pieces solved again and written at once, sharing the table (default: the available
    /// parallelism).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=MAX_THREADS_ARG))]
    pub threads: Option<u32>,
    /// One JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Options of `uttt campaign run`.
#[derive(Args, Debug)]
pub struct CampaignRunArgs {
    /// The position to settle.
    #[command(flatten)]
    pub position: PositionArgs,
    /// How to search (`--db` is required; the engine is pn-dfpn).
    #[command(flatten)]
    pub search: SearchArgs,
    /// Run over MPI (start with `mpirun -np N`, N ≥ 2): rank 0 keeps the campaign in the
    /// database, every other rank runs `--threads` DFPN workers against its machine's
    /// `--table-mem` table and needs no access to the database.
    #[cfg(feature = "mpi")]
    #[arg(long, conflicts_with = "table_file")]
    pub mpi: bool,
    /// How the worker ranks share jobs and tables.
    #[cfg(feature = "mpi")]
    #[command(flatten)]
    pub mpi_options: MpiArgs,
    /// Keep a snapshot of the table in this file: loaded when a run starts, written every
    /// --snapshot-every and when the run ends, so that a run stopped by a crash or `kill -9`
    /// resumes with what its table knew at the last snapshot [default: the database's path
    /// with `.table` added; none with --table-file, whose table is a file already, or --mpi]
    #[arg(long, value_name = "PATH", conflicts_with = "table_file")]
    pub snapshot: Option<PathBuf>,
    /// Keep no snapshot of the table.
    #[arg(long, conflicts_with = "snapshot")]
    pub no_snapshot: bool,
    /// How often the table's snapshot is written while the campaign runs (never sooner after
    /// one than ten times the time it took to write).
    #[arg(long, value_name = "TIME", default_value = "10s", value_parser = parse_duration)]
    pub snapshot_every: Duration,
    /// Ask only "does the side to move win within N plies?": a campaign of that question, with
    /// trees of its own (0 to 81 plies).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=81))]
    pub max_plies: Option<u32>,
    /// Do not learn as it goes: steer by the built-in calibration, and do not refit it to
    /// what the campaign settled after the run (by default a run with the guide `calibrated`
    /// steers by the campaign's own refit where that predicts better, and refits after it;
    /// not with --mpi or --max-plies).
    #[arg(long)]
    pub no_refit: bool,
}

/// Options of `uttt campaign status` and `uttt campaign reset`.
#[derive(Args, Debug)]
pub struct CampaignStatusArgs {
    /// The campaign's position (any symmetric image of it).
    #[command(flatten)]
    pub position: PositionArgs,
    /// The database the campaign is kept in.
    #[arg(long, value_name = "PATH")]
    pub db: PathBuf,
    /// The campaign of the questions within N plies (`campaign run --max-plies N`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=81))]
    pub max_plies: Option<u32>,
    /// One JSON object.
    #[arg(long)]
    pub json: bool,
}

/// The `uttt db` subcommands.
#[derive(Subcommand, Debug)]
pub enum DbCommand {
    /// Counts and sizes.
    Stats(DbStatsArgs),
    /// Every fact as JSON Lines on stdout.
    Export(DbPathArg),
    /// Facts from a JSON Lines file (`-` for stdin), as `export` writes them; creates the
    /// database if missing. Facts already there change nothing; a contradicting fact is refused.
    Import(DbImportArgs),
    /// Solves stored facts again and reports any that disagree.
    Check(DbCheckArgs),
}

/// A database file.
#[derive(Args, Debug)]
pub struct DbPathArg {
    /// The database file.
    pub path: PathBuf,
}

/// Options of `uttt db stats`.
#[derive(Args, Debug)]
pub struct DbStatsArgs {
    /// The database file.
    pub path: PathBuf,
    /// One JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Options of `uttt db import`.
#[derive(Args, Debug)]
pub struct DbImportArgs {
    /// The database file (created if missing).
    pub path: PathBuf,
    /// The JSON Lines file of facts (`-` for stdin).
    pub file: PathBuf,
}

/// Options of `uttt db check`.
#[derive(Args, Debug)]
pub struct DbCheckArgs {
    /// The database file.
    pub path: PathBuf,
    /// Check every fact (by default a sample of `--sample`).
    #[arg(long, conflicts_with = "sample")]
    pub all: bool,
    /// How many facts to check, spread evenly over the database.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub sample: usize,
    /// Give each check up to this long (an unfinished check is reported as such).
    #[arg(long, value_name = "TIME", default_value = "60s", value_parser = parse_duration)]
    pub time_limit: Duration,
    /// Transposition table size for the checks.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size)]
    pub table_mem: u64,
}
