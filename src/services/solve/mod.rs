//! The one way into a solve: [`Solver`], which answers X wins / O wins / draw with at most two
//! binary searches over one table, then finds a best move and a principal variation from the
//! table; and analyses every move of a position the same way.

mod distance;
mod three_valued;

pub use distance::{Distance, DistanceBudget, WinIn, WinInAnswer, WinInMode};

use super::known::{facts_of, verdict_from, StorePolicy};
use super::report::{DatabaseReport, SolveReport, TableReport};
use crate::db::campaign::CampaignId;
use crate::db::key::{canonical, move_back};
use crate::db::Database;
use crate::game::{Move, Player, Position};
use crate::search::dfpn::{Limits, LiveStats};
use crate::search::guide::calibration::Calibration;
use crate::search::options::{Engine, SolveOptions};
use crate::search::workers::Workers;
use crate::table::{Table, TableCounters};
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use three_valued::{settled_without_search, unsearched_report, ThreeValued};

/// A solve's surroundings: its options, the table it searches against (which may hold
/// earlier work), what can stop it, who watches it, and where PN-DFPN's jobs run. Every solve
/// and analysis, from the command line, batches, MPI and the tests, goes through it:
///
/// ```
/// use uttt::game::Position;
/// use uttt::search::SolveOptions;
/// use uttt::services::{Solver, Verdict};
/// use uttt::table::Table;
///
/// let options = SolveOptions {
///     node_limit: Some(10_000),
///     ..SolveOptions::default()
/// };
/// let table = Table::new(16 << 20).unwrap();
/// let report = Solver::new(&options, &table).solve(&Position::start());
/// assert_eq!(report.verdict, Verdict::Unknown, "the opening is far beyond 10,000 nodes");
/// ```
pub struct Solver<'a> {
    options: &'a SolveOptions,
    table: &'a Table,
    stop: Option<&'a AtomicBool>,
    live: Option<&'a LiveStats>,
    workers: Option<&'a mut (dyn Workers + 'a)>,
    database: Option<(&'a Database, StorePolicy)>,
    campaign: bool,
    calibration: Option<&'a Calibration>,
    estimate_playouts: Option<u64>,
}

impl<'a> Solver<'a> {
    /// A solver with `options` against `table`, which nothing stops but its options' limits,
    /// nobody watches, and whose PN-DFPN jobs run on local threads.
    pub fn new(options: &'a SolveOptions, table: &'a Table) -> Solver<'a> {
        Solver {
            options,
            table,
            stop: None,
            live: None,
            workers: None,
            database: None,
            campaign: false,
            calibration: None,
            estimate_playouts: None,
        }
    }

    /// This solver, consulting `database` before it searches (a stored answer comes back
    /// without a search) and storing what it settles there, as `policy` says.
    pub fn with_database(mut self, database: &'a Database, policy: StorePolicy) -> Solver<'a> {
        self.database = Some((database, policy));
        self
    }

    /// This solver as a campaign (`uttt campaign run`): besides what
    /// [`Solver::with_database`] does, each question's PN-DFPN tree is kept in the database
    /// as it grows (a transaction every quarter second), and a later solve of the position (or
    /// of any symmetric image of it) goes on from it. The tree is kept whole, solved subtrees
    /// included, and searched in the position's canonical orientation; the report is given in
    /// the position's own.
    ///
    /// # Panics
    /// Without a database, or when the options' engine is not [`Engine::PnDfpn`] (the only one
    /// with a tree to keep).
    pub fn as_campaign(mut self) -> Solver<'a> {
        assert!(self.database.is_some(), "a campaign is kept in a database");
        assert_eq!(
            self.options.engine,
            Engine::PnDfpn,
            "only PN-DFPN has a tree to keep"
        );
        self.campaign = true;
        self
    }

    /// This solver, its guide `calibrated` reading `calibration` instead of the built-in table
    /// (a campaign's refit, see [`crate::services::campaign`]) in this process: in its
    /// searches, its PN-DFPN tree and its local worker threads. Jobs run on
    /// [`Solver::jobs_on`]'s workers read the built-in table. Other guides ignore it. Like any
    /// guide, it changes the work, never the answer.
    pub fn calibrated_by(mut self, calibration: &'a Calibration) -> Solver<'a> {
        self.calibration = Some(calibration);
        self
    }

    /// This solver, giving each estimate beside a value that `analyze` or `review` leaves
    /// unknown `playouts` (0: no estimates) instead of the default: a quarter of the time
    /// limit, or 10,000 playouts without one (see `services::play::estimate`). A time limit
    /// still bounds them.
    pub fn estimating_with(mut self, playouts: Option<u64>) -> Solver<'a> {
        self.estimate_playouts = playouts;
        self
    }

    /// The playouts asked of each estimate (see [`Solver::estimating_with`]).
    pub fn estimate_playouts(&self) -> Option<u64> {
        self.estimate_playouts
    }

    /// The flag that stops this solver's searches, if any.
    pub fn stop_flag(&self) -> Option<&'a AtomicBool> {
        self.stop
    }

    /// This solver, ending its searches early (with `unknown`) once `stop` is raised.
    pub fn stopped_by(mut self, stop: &'a AtomicBool) -> Solver<'a> {
        self.stop = Some(stop);
        self
    }

    /// This solver, publishing its progress to `live` for a display.
    pub fn watched_by(mut self, live: &'a LiveStats) -> Solver<'a> {
        self.live = Some(live);
        self
    }

    /// This solver, running PN-DFPN's jobs on `workers` (a table per thread, or other
    /// processes) instead of local threads; the searches of the principal variation still run
    /// here, against the table.
    ///
    /// # Panics
    /// When the options' engine is not [`Engine::PnDfpn`], the only one that runs jobs.
    pub fn jobs_on(mut self, workers: &'a mut (dyn Workers + 'a)) -> Solver<'a> {
        assert_eq!(
            self.options.engine,
            Engine::PnDfpn,
            "only PN-DFPN runs jobs elsewhere"
        );
        self.workers = Some(workers);
        self
    }

    /// The options this solver searches with.
    pub fn options(&self) -> &'a SolveOptions {
        self.options
    }

    /// The table this solver searches against.
    pub fn table(&self) -> &'a Table {
        self.table
    }

    /// Whether this solver's stop flag is raised: its searches end early, and so should a
    /// service that runs one after another.
    pub fn is_stopped(&self) -> bool {
        self.stop
            .is_some_and(|stop| stop.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Solves `pos` within the options' limits.
    pub fn solve(&mut self, pos: &Position) -> SolveReport {
        let options = self.options;
        self.solve_with(pos, options)
    }

    /// Asks only "does `attacker` win `pos`?" within the options' limits (as
    /// [`SolveOptions::attacker`] does): `Wins(attacker)`, `DoesNotWin(attacker)` or `Unknown`.
    pub fn solve_question(&mut self, pos: &Position, attacker: Player) -> SolveReport {
        let options = SolveOptions {
            attacker: Some(attacker),
            ..self.options.clone()
        };
        self.solve_with(pos, &options)
    }

    /// Solves `pos` as [`Solver::solve`] does, asking first whether `first` wins (see
    /// [`SolveOptions::first_question`]; a question bounded by [`SolveOptions::max_plies`] is
    /// the one question it asks, and `first` changes nothing then).
    pub fn solve_asking_first(&mut self, pos: &Position, first: Player) -> SolveReport {
        let options = SolveOptions {
            first_question: Some(first),
            ..self.options.clone()
        };
        self.solve_with(pos, &options)
    }

    /// Solves `pos` with `options` in place of this solver's: from the database when it
    /// knows the answer, else by searching (and then the database learns the answer). A
    /// campaign solves the canonical image of `pos`, where its trees are kept. A question
    /// bounded by [`SolveOptions::max_plies`] is answered from and stored as bounded facts
    /// (see [`crate::db::Bounds`]).
    fn solve_with(&mut self, pos: &Position, options: &SolveOptions) -> SolveReport {
        let Some((database, policy)) = self.database else {
            return self.search(pos, options, None);
        };
        if !self.campaign {
            return self.solve_from_database(pos, options, database, policy, None);
        }
        let (_, image, sym) = canonical(pos);
        let mut report = match database.campaign(&image, options.max_plies) {
            Ok(campaign) => {
                self.solve_from_database(&image, options, database, policy, Some(campaign))
            }
            Err(error) => {
                let mut report = unsearched_report(&image, options);
                report.database = Some(DatabaseReport {
                    error: Some(error.with_causes()),
                    unreadable: true,
                    ..DatabaseReport::default()
                });
                report
            }
        };
        report.pv = line_back(pos, sym, &report.pv);
        report.best_move = report
            .best_move
            .and_then(|mv| line_back(pos, sym, &[mv]).first().copied());
        report.position = *pos;
        report
    }

    /// [`Solver::solve_with`] with `database`: its answer if it has one, else a search (with
    /// the database keeping its tree's leaves, or its whole tree in `campaign`) whose answers
    /// it then learns.
    fn solve_from_database(
        &mut self,
        pos: &Position,
        options: &SolveOptions,
        database: &Database,
        policy: StorePolicy,
        campaign: Option<CampaignId>,
    ) -> SolveReport {
        let start = Instant::now();
        let mut used = DatabaseReport::default();
        if settled_without_search(pos, options.max_plies).is_none() {
            match database.lookup(pos) {
                Ok(known) => {
                    if let Some((verdict, best)) = verdict_from(pos, options, &known) {
                        used.answered = true;
                        let mut report = unsearched_report(pos, options);
                        report.elapsed = start.elapsed();
                        report.table = TableReport::of(self.table, &TableCounters::default());
                        report.verdict = verdict;
                        report.best_move = Some(best);
                        report.pv = vec![best];
                        report.database = Some(used);
                        return report;
                    }
                }
                Err(error) => used.error = Some(error.with_causes()),
            }
        }
        // A database that failed to answer is still asked for the tree's leaves and given the
        // answers: a failure (another process held the file, say) need not last, and never
        // changes the search's answer.
        let keeping = Keeping {
            database,
            policy,
            campaign,
        };
        let mut report = self.search(pos, options, Some(keeping));
        if let Some(searched) = report.database.take() {
            used = DatabaseReport {
                error: searched.error.or(used.error),
                ..searched
            };
        }
        let facts = facts_of(&report, policy);
        match database.store(&facts) {
            Ok(stored) => used.stored += stored.new,
            Err(error) => {
                used.error = Some(error.with_causes());
                used.unstored += facts.len() as u64;
            }
        }
        report.database = Some(used);
        report
    }

    /// Searches `pos` with `options`, PN-DFPN's trees kept in the database as `keeping` says.
    fn search(
        &mut self,
        pos: &Position,
        options: &SolveOptions,
        keeping: Option<Keeping<'_>>,
    ) -> SolveReport {
        let never = AtomicBool::new(false);
        let limits = Limits {
            stop: self.stop.unwrap_or(&never),
            deadline: options
                .time_limit
                .and_then(|t| Instant::now().checked_add(t)),
            live: self.live,
            calibration: self.calibration,
        };
        let node_budget = options.node_limit.unwrap_or(u64::MAX);
        let run = ThreeValued {
            pos,
            options,
            table: self.table,
            limits,
            node_budget,
            keeping,
        };
        run.solve(self.workers.as_deref_mut())
    }
}

/// How a search keeps what it finds in the database: its PN-DFPN trees' solved leaves (and
/// asks it for leaves solved before), and for a campaign the trees themselves.
#[derive(Clone, Copy)]
struct Keeping<'a> {
    database: &'a Database,
    policy: StorePolicy,
    campaign: Option<CampaignId>,
}

/// The moves of `pos` that symmetry `sym` maps to `image_line` (a line of moves from
/// `pos.transform(sym)`), as far as they are legal.
fn line_back(pos: &Position, sym: usize, image_line: &[Move]) -> Vec<Move> {
    let mut line = Vec::with_capacity(image_line.len());
    let mut here = *pos;
    for &image_move in image_line {
        let Some(mv) = move_back(&here, sym, image_move) else {
            break;
        };
        line.push(mv);
        here = here.play(mv);
    }
    line
}
