//! The options of `uttt serve`.

use super::MAX_THREADS_ARG;
use super::{GuideArg, RuleSetArg};
use crate::search::guide::Guide;
use crate::services::units::{parse_duration, parse_size};
use clap::Args;
use std::time::Duration;

/// Options of `uttt serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The port to listen on (0: any free port, printed at the start).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on: 127.0.0.1 (this machine only) unless another is given.
    #[arg(long, value_name = "ADDRESS", default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    /// A host name requests may be addressed to (repeatable), besides localhost, the loopback
    /// addresses and the address a client connected to: the name this machine is reached by
    /// when --bind makes it reachable from elsewhere. Requests addressed to any other name are
    /// refused, so that a page elsewhere cannot reach the server through a name that resolves
    /// here (DNS rebinding).
    #[arg(long, value_name = "NAME")]
    pub allow_host: Vec<String>,
    /// The database of solved positions that every search consults and fills (created if
    /// missing): the one file the server opens.
    #[arg(long, value_name = "PATH")]
    pub db: Option<std::path::PathBuf>,
    /// The rule set of positions that name none.
    #[command(flatten)]
    pub rule_set: RuleSetArg,
    /// Where new nodes' proof numbers come from in every search: `rules` (the hand-built
    /// estimate), `learned` (the model trained on the solver's own proofs) or `calibrated`
    /// (the hand-built estimate scaled by the game's stage, as those proofs say).
    #[arg(long, value_enum, default_value_t = GuideArg::from(Guide::default()))]
    pub guide: GuideArg,
    /// Search threads of each search (default: the available parallelism).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=MAX_THREADS_ARG))]
    pub threads: Option<u32>,
    /// The one transposition table of every request.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size)]
    pub table_mem: u64,
    /// The longest any search may take; a request's `time_limit` may ask for less.
    #[arg(long, value_name = "TIME", default_value = "10s", value_parser = parse_duration)]
    pub time_limit: Duration,
    /// The most nodes any search may take (each position's, in a review); a request's
    /// `node_limit` may ask for less.
    #[arg(long, value_name = "N")]
    pub node_limit: Option<u64>,
    /// The most searches at once; a search asked for beyond them gets 503.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub max_searches: u32,
}
