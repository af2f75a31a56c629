//! Shared-table DFPN: several DFPN searchers from the root, one per thread, against one table,
//! each with its own ε (the first the given one, the next twice it, then three times, ...).
//! Each searcher is a complete, sound DFPN: what one stores (proofs, disproofs, numbers) the
//! others read, so they split the work where their paths part and skip what another solved.
//! The first searcher to solve the root ends the search; the answer is that searcher's, so it
//! is the same as any one searcher's would be. Different ε make the paths part: searchers
//! with the same ε over the same table would mostly follow one another.

use super::dfpn::{Dfpn, Limits};
use super::numbers::Numbers;
use super::options::SolveOptions;
use super::threads::{join_gated, spawn_gated, ThreadError};
use super::Question;
use crate::game::Position;
use crate::table::{Table, TableCounters};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How often the calling thread passes an outside stop on to the searchers.
const STOP_POLL: Duration = Duration::from_millis(10);

/// What a shared-table search found.
pub struct SharedRun {
    /// The root's numbers: a solving searcher's, else the first searcher's.
    pub numbers: Numbers,
    /// MID calls over all searchers.
    pub nodes: u64,
    /// Table traffic over all searchers.
    pub counters: TableCounters,
}

/// Searches `question` at `root` with `options.threads` DFPN searchers (at least one; with
/// the options' ε and guide)
/// against `table`, within `limits` and `node_budget` MID calls in all (split evenly). A thread
/// the system refuses ends it before any search.
pub fn search(
    root: &Position,
    question: Question,
    options: &SolveOptions,
    table: &Table,
    limits: Limits,
    node_budget: u64,
) -> Result<SharedRun, ThreadError> {
    let (epsilon, threads) = (options.epsilon, options.threads.max(1));
    let estimate = limits.estimate(options.guide);
    // Raised when one searcher solves the root or when `limits.stop` is raised.
    let done = AtomicBool::new(false);
    let shared_limits = Limits {
        stop: &done,
        ..limits
    };
    let share = (node_budget / threads as u64).max(1);
    let runs: Vec<(Numbers, u64, TableCounters)> = std::thread::scope(|scope| {
        let handles = spawn_gated(scope, threads, |i| {
            let done = &done;
            move || {
                let mut searcher =
                    Dfpn::new(table, question, epsilon * (1 + i) as f64, shared_limits)
                        .guided_by(estimate);
                if i == 0 {
                    searcher = searcher.publishing_root_numbers();
                }
                let numbers = searcher.solve(root, share);
                if numbers.is_solved() {
                    done.store(true, Ordering::Relaxed);
                }
                (numbers, searcher.nodes(), searcher.counters())
            }
        })?;
        while !handles.iter().all(|h| h.is_finished()) {
            if limits.stop.load(Ordering::Relaxed) {
                done.store(true, Ordering::Relaxed);
            }
            std::thread::sleep(STOP_POLL);
        }
        Ok::<_, ThreadError>(handles.into_iter().map(join_gated).collect())
    })?;
    let mut counters = TableCounters::default();
    for run in &runs {
        counters.add(&run.2);
    }
    Ok(SharedRun {
        numbers: runs
            .iter()
            .find(|run| run.0.is_solved())
            .map_or(runs[0].0, |run| run.0),
        nodes: runs.iter().map(|run| run.1).sum(),
        counters,
    })
}
