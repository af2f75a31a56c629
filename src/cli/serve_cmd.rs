//! `uttt serve`: the analysis board and its JSON API (see [`crate::server`]), until Ctrl-C or
//! SIGTERM, which stop the running searches and end the server with 130 or 143.

use super::args::ServeArgs;
use super::interrupt;
use crate::search::SolveOptions;
use crate::server::{AllowedHosts, Listening, Players, Searches, ServerConfig};
use crate::services::memory::anonymous_table;
use std::io::Write;
use std::net::SocketAddr;

/// Serves until a signal stops it; returns the exit code (130 or 143).
pub fn run(args: &ServeArgs) -> anyhow::Result<i32> {
    let stop = interrupt::stop_flag();
    let table = anonymous_table(args.table_mem)?;
    let defaults = SolveOptions::default();
    let options = SolveOptions {
        threads: args.threads.map_or(defaults.threads, |t| t as usize),
        time_limit: Some(args.time_limit),
        node_limit: args.node_limit,
        guide: args.guide.checked()?,
        ..defaults
    };
    // A thread count the system cannot start is refused before the server listens (a
    // request that meets a refusal later answers 500).
    crate::search::threads::check_startable(options.threads)?;
    let config = ServerConfig {
        address: SocketAddr::new(args.bind, args.port),
        rules: args.rule_set.rules,
        max_searches: args.max_searches as usize,
        allowed_hosts: AllowedHosts::new(&args.allow_host),
        // For the test that a panic in a request answers 500 and the server goes on.
        inject_panic: std::env::var_os("UTTT_SERVE_INJECT_PANIC").is_some_and(|v| v == "1"),
    };
    let listening = Listening::bind(config.address)?;
    let address = listening.address().unwrap_or(config.address);
    // The first line says where, for a person or a script that started it with port 0.
    println!("uttt serve: http://{address}/ (Ctrl-C to stop)");
    std::io::stdout().flush()?;
    let database = match &args.db {
        Some(path) => Some(crate::db::Database::open(path)?),
        None => None,
    };
    let searches = Searches {
        options,
        table: &table,
        database: database.as_ref(),
        stop,
        players: Players::new(),
    };
    listening.serve(&config, &searches);
    Ok(interrupt::exit_code().unwrap_or(super::EXIT_OK))
}
