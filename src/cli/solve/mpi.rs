//! `uttt solve --mpi` (and `uttt campaign run --mpi`): one position solved by every rank of an
//! MPI job (see [`crate::distributed`]). Rank 0 prints the answer (and, with `--db`, alone
//! consults and fills the database); the other ranks print nothing.

use super::options::{open_database, open_table, search_options, use_database};
use super::report::{exit_code, summary_text, SolveJson};
use crate::cli::args::{AssignmentArg, MpiArgs, PlayerArg, SearchArgs, SolveArgs};
use crate::cli::{interrupt, EXIT_OK, EXIT_USAGE};
use crate::db::Source;
use crate::distributed::{
    ask_for_large_eager_messages, attach_send_buffer, cpu_shortfall_warning, gather_worker_ranks,
    machine_table, report_table_use, send_worker_rank_setup, serve, worker_ranks, Assignment,
    MpiWorkers, RankReport, TableUse, WorkerRankSetup,
};
use crate::search::{Engine, SolveOptions};
use crate::services::memory::fits_in_memory;
use crate::services::units::show_bytes;
use crate::services::{SolveReport, Solver};
use crate::table::Table;
use mpi::traits::*;
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Write;

/// The JSON of an MPI solve: the single-solve object and each worker rank's figures.
#[derive(Serialize)]
struct MpiJson<'a> {
    #[serde(flatten)]
    solve: SolveJson<'a>,
    ranks: &'a [RankReport],
}

/// Runs this process's part of an MPI solve; returns its exit code.
pub fn run(args: &SolveArgs) -> anyhow::Result<i32> {
    let stop = interrupt::stop_flag();
    let ran = with_mpi_ranks(
        &args.search,
        args.attacker,
        &args.mpi_options,
        |options, table, workers| {
            let pos = args.resolve_position()?;
            // Rank 0 alone reads and writes the database: the worker ranks only search the
            // jobs it sends them, so they need no access to the file.
            let database = open_database(&args.search)?;
            // A bounded question's jobs carry its bound to the worker ranks (see `Job`).
            let options = SolveOptions {
                max_plies: args.max_plies,
                ..options.clone()
            };
            let solver = Solver::new(&options, table)
                .stopped_by(stop)
                .jobs_on(workers);
            Ok(
                use_database(solver, database.as_ref(), &args.search, Source::Solve)
                    .solve_win_in(&pos, args.win_in.mode()),
            )
        },
    )?;
    let Some((mut report, ranks)) = ran else {
        return Ok(EXIT_OK);
    };
    as_the_worker_ranks_searched(&mut report, &ranks);
    let text = if args.search.json {
        let json = MpiJson {
            solve: SolveJson::of(&report),
            ranks: &ranks,
        };
        serde_json::to_string(&json)? + "\n"
    } else {
        summary_text(&report) + &ranks_text(&ranks)
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(interrupt::exit_code().unwrap_or_else(|| exit_code(report.verdict)))
}

/// An MPI solve's report made to say what searched: the worker ranks' threads, and their
/// tables (each counted once, however many ranks share it) rather than rank 0's, which only
/// the root tree's own steps use. The table's traffic counters are every rank's already: each
/// job's result carries its own.
pub(super) fn as_the_worker_ranks_searched(report: &mut SolveReport, ranks: &[RankReport]) {
    report.threads = ranks.iter().map(|r| r.threads).sum();
    let tables = TableUse::of_tables(ranks);
    let table = &mut report.table;
    table.bytes = tables.bytes;
    table.active_bytes = tables.active_bytes;
    table.entries = tables.entries;
    table.fill = tables.fill;
}

/// Each worker rank's figures, a line each.
pub fn ranks_text(ranks: &[RankReport]) -> String {
    let mut text = String::new();
    for r in ranks {
        let _ = writeln!(
            text,
            "rank {:<5} {} jobs ({} moved from another table), {} nodes, {:.0}% busy, \
             table of rank {} ({:.1}% full), messages in/out {}/{} ({}/{})",
            r.rank,
            r.jobs,
            r.jobs_moved,
            r.nodes,
            r.busy_pct,
            r.table_rank,
            100.0 * r.table.fill,
            r.to_rank.messages,
            r.from_rank.messages,
            show_bytes(r.to_rank.bytes),
            show_bytes(r.from_rank.bytes),
        );
    }
    text
}

/// Runs this process's part of an MPI job with the search options `search` asks for: a
/// worker rank serves jobs against its machine's table (or its own, as `mpi` says) until rank
/// 0 says stop, and returns `None`; rank 0 calls `root` with the options, its table and the
/// transport to the worker ranks, and returns what `root` returns with each worker rank's
/// figures (the table is flushed, and the worker ranks stopped, on every path).
pub fn with_mpi_ranks<R>(
    search: &SearchArgs,
    attacker: Option<PlayerArg>,
    mpi: &MpiArgs,
    root: impl FnOnce(&SolveOptions, &Table, &mut MpiWorkers) -> anyhow::Result<R>,
) -> anyhow::Result<Option<(R, Vec<RankReport>)>> {
    ask_for_large_eager_messages();
    let (mut universe, _) = mpi::initialize_with_threading(mpi::Threading::Funneled)
        .ok_or_else(|| anyhow::anyhow!("MPI was initialised already"))?;
    let world = universe.world();
    if world.size() < 2 {
        anyhow::bail!(
            "--mpi needs at least two ranks (rank 0 runs the root tree, the others the \
             workers): start it with `mpirun -np N` and N ≥ 2"
        );
    }
    let options = search_options(search, attacker)?;
    if options.engine != Engine::PnDfpn {
        anyhow::bail!("--mpi runs the pn-dfpn engine only");
    }
    if let Some(worker_ranks) = worker_ranks(&world) {
        // Each worker rank searches with its own `--threads` (by default its machine's
        // parallelism), and tells rank 0.
        let threads = options.threads;
        let send_buffer = attach_send_buffer(&mut universe, &[threads]);
        // Ctrl-C belongs to rank 0: a worker rank keeps serving until rank 0 says stop.
        let _ = interrupt::stop_flag();
        let rank = world.rank() as usize;
        let cpus = std::thread::available_parallelism().map_or(threads, |n| n.get());
        if let Some(warning) = cpu_shortfall_warning(rank, threads, cpus) {
            eprintln!("{warning}");
        }
        let table = fits_in_memory(search.table_mem).and_then(|()| {
            let shared = if mpi.table_per_rank {
                None
            } else {
                machine_table(&worker_ranks, rank, search.table_mem)
            };
            match shared {
                Some(shared) => Ok(shared),
                None => open_table(search).map(|table| (table, rank)),
            }
        });
        let (table, table_rank) = table.unwrap_or_else(|error| {
            // Every rank must go, or rank 0 would wait for this one for ever.
            eprintln!("error: rank {rank}: {error:#}");
            world.abort(EXIT_USAGE)
        });
        send_worker_rank_setup(
            &world,
            WorkerRankSetup {
                table_rank,
                threads,
            },
        );
        serve(&world, &table, threads, send_buffer);
        report_table_use(&world, &table, send_buffer);
        return Ok(None);
    }
    let setups = gather_worker_ranks(&world);
    let worker_threads: Vec<usize> = setups.iter().map(|s| s.threads).collect();
    let send_buffer = attach_send_buffer(&mut universe, &worker_threads);
    let assignment = match mpi.mpi_assignment {
        AssignmentArg::Locality => Assignment::Locality,
        AssignmentArg::RoundRobin => Assignment::RoundRobin,
    };
    // Created first, so that the worker ranks are told to stop on every path out of here.
    let mut workers = MpiWorkers::new(&world, assignment, send_buffer, &setups);
    let mut table = open_table(search)?;
    let result = root(&options, &table, &mut workers)?;
    let ranks = workers.finish();
    table.flush(true)?;
    Ok(Some((result, ranks)))
}
