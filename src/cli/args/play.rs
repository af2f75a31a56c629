//! Options of `uttt play`.

use super::PositionArgs;
use super::MAX_THREADS_ARG;
use crate::services::units::{parse_duration, parse_size};
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

/// Options of `uttt play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The position to play from.
    #[command(flatten)]
    pub position: PositionArgs,
    /// Search for this long (e.g. 500ms, 2s), counted from the start of the search
    /// [default: 1s, unless --playouts is given].
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    pub time_limit: Option<Duration>,
    /// Stop after this many playouts (a node that the rules, the table or a DFPN look settle
    /// counts as one).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub playouts: Option<u64>,
    /// MID calls of each DFPN look at a node near the end of the game (0: none).
    #[arg(long, value_name = "N", default_value_t = crate::search::mcts::DEFAULT_LEAF_WORK)]
    pub node_limit: u64,
    /// Search threads, sharing one tree (default: the available parallelism).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=MAX_THREADS_ARG))]
    pub threads: Option<u32>,
    /// Seed of the playouts: with one thread and --playouts (no time limit), the same seed
    /// gives the same move and estimate.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Choose among unproved moves at random, with chances growing with their playouts (the
    /// higher, the more varied; 0 plays the most visited): varied games.
    #[arg(long, value_name = "T", default_value_t = 0.0)]
    pub temperature: f64,
    /// Transposition table size for the DFPN looks (K, M, G, T are powers of 1024).
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = parse_size)]
    pub table_mem: u64,
    /// Memory for the search tree (64 bytes a node).
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = parse_size)]
    pub tree_mem: u64,
    /// Keep the table in this file: its proofs serve later runs.
    #[arg(long, value_name = "PATH")]
    pub table_file: Option<PathBuf>,
    /// The database of solved positions: what it knows of the position and of the position
    /// after each move is proved before the search starts.
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}
