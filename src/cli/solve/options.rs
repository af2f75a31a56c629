//! From command-line arguments to the search's typed options and its table.

use super::super::args::{EngineArg, PlayerArg, SearchArgs};
use crate::cli::interrupt;
use crate::db::{Database, Source};
use crate::files::{check_distinct, NamedPath};
use crate::game::Player;
use crate::search::{Engine, SolveOptions};
use crate::services::memory::anonymous_table;
use crate::services::{Solver, StorePolicy};
use crate::table::Table;
use std::time::Instant;

impl From<PlayerArg> for Player {
    fn from(arg: PlayerArg) -> Player {
        match arg {
            PlayerArg::X => Player::X,
            PlayerArg::O => Player::O,
        }
    }
}

impl From<EngineArg> for Engine {
    fn from(arg: EngineArg) -> Engine {
        match arg {
            EngineArg::Dfpn => Engine::Dfpn,
            EngineArg::PnDfpn => Engine::PnDfpn,
            EngineArg::SharedDfpn => Engine::SharedDfpn,
        }
    }
}

/// The search options the arguments ask for: [`SolveOptions::default`] with every option the
/// user gave put over it.
pub fn search_options(
    args: &SearchArgs,
    attacker: Option<PlayerArg>,
) -> anyhow::Result<SolveOptions> {
    if !(args.epsilon >= 0.0 && args.epsilon <= 16.0) {
        anyhow::bail!("--epsilon must be between 0 and 16, not {}", args.epsilon);
    }
    let defaults = SolveOptions::default();
    let threads = args.threads.map_or(defaults.threads, |t| t as usize);
    Ok(SolveOptions {
        engine: args.engine.map_or(defaults.engine, Engine::from),
        threads,
        epsilon: args.epsilon,
        time_limit: args.time_limit,
        node_limit: args.node_limit,
        attacker: attacker.map(Player::from),
        max_plies: None,
        first_question: None,
        job_work: args.job_work.max(1),
        split_threshold: args.split_threshold,
        tree_bytes: args.tree_mem,
        job_time: args.job_time,
        guide: args.guide.checked()?,
    })
}

/// Refuses `options`' thread count when the system cannot start it, in its words, before any
/// work: for a search of this process's threads (not an MPI rank's, which must not leave the
/// others waiting: a worker rank that is refused searches on one thread, see
/// `crate::distributed::rank::serve`).
pub fn check_threads(options: &SolveOptions) -> anyhow::Result<()> {
    Ok(crate::search::threads::check_startable(options.threads)?)
}

/// The files the search options name: the table file and the database, both written.
pub fn search_files(args: &SearchArgs) -> Vec<NamedPath<'_>> {
    let table = args.table_file.as_deref();
    let db = args.db.as_deref();
    (table
        .map(|path| NamedPath::written("--table-file", path))
        .into_iter())
    .chain(db.map(|path| NamedPath::written("--db", path)))
    .collect()
}

/// Refuses a run whose outputs are among its other files (see [`check_distinct`]): before
/// anything is opened for writing.
pub fn check_files(paths: &[NamedPath]) -> anyhow::Result<()> {
    Ok(check_distinct(paths)?)
}

/// The table the arguments ask for: in `--table-file` if given, else anonymous memory (if it
/// fits in the memory available). The check of a table file as it opens heeds Ctrl-C, SIGTERM
/// and `--time-limit` (counted from now); entries it had to clear are told as a warning.
pub fn open_table(args: &SearchArgs) -> anyhow::Result<Table> {
    open_table_in(args.table_file.as_deref(), args.table_mem, args.time_limit)
}

/// [`open_table`] from its three options: `--table-file`, `--table-mem` and `--time-limit`
/// (for the commands whose options are not [`SearchArgs`]).
pub fn open_table_in(
    file: Option<&std::path::Path>,
    bytes: u64,
    time_limit: Option<std::time::Duration>,
) -> anyhow::Result<Table> {
    let Some(path) = file else {
        return anonymous_table(bytes);
    };
    let deadline = time_limit.and_then(|limit| Instant::now().checked_add(limit));
    let table = Table::open_file(path, bytes, interrupt::stop_flag(), deadline)?;
    crate::cli::bus_error::watch_table_file(path, table.mapped_range());
    if table.cleared_on_open() > 0 {
        eprintln!(
            "warning: table file {}: {} entries left mid-write by a crash, or damaged, were \
             cleared",
            path.display(),
            table.cleared_on_open()
        );
    }
    Ok(table)
}

/// The database the arguments name (`--db`), opened (and created if missing).
pub fn open_database(args: &SearchArgs) -> anyhow::Result<Option<Database>> {
    Ok(match &args.db {
        Some(path) => Some(Database::open(path)?),
        None => None,
    })
}

/// `solver`, consulting and filling `database` (if any) as the arguments say, its new facts
/// marked as found by `source`.
pub fn use_database<'a>(
    solver: Solver<'a>,
    database: Option<&'a Database>,
    args: &SearchArgs,
    source: Source,
) -> Solver<'a> {
    match database {
        Some(database) => {
            let policy = StorePolicy {
                min_work: args.db_min_work,
                source,
            };
            solver.with_database(database, policy)
        }
        None => solver,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::{Cli, Command};
    use clap::Parser;

    #[test]
    fn the_command_line_defaults_are_the_search_defaults() {
        let cli = Cli::try_parse_from(["uttt", "solve", "start"]).unwrap();
        let Command::Solve(args) = cli.command else {
            panic!("a solve command");
        };
        let options = search_options(&args.search, args.attacker).unwrap();
        let defaults = SolveOptions::default();
        assert_eq!(options.engine, defaults.engine);
        assert_eq!(options.threads, defaults.threads);
        assert_eq!(options.epsilon, defaults.epsilon);
        assert_eq!(options.job_work, defaults.job_work);
        assert_eq!(options.split_threshold, defaults.split_threshold);
        assert_eq!(options.tree_bytes, defaults.tree_bytes);
        assert_eq!(options.time_limit, None);
        assert_eq!(options.node_limit, None);
        assert_eq!(options.attacker, None);
    }
}
