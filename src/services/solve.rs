//! The one way into a solve: [`Solver`], which answers X wins / O wins / draw with at most two
//! binary searches over one table, then finds a best move and a principal variation from the
//! table; and analyses every move of a position the same way.

use super::analyze::Analysis;
use super::known::{facts_of, verdict_from, DatabaseKeeper, StorePolicy};
use super::report::{
    merge_tree, BinaryOutcome, DatabaseReport, SearchReport, SolveReport, TableReport, Verdict,
};
use crate::db::campaign::CampaignId;
use crate::db::key::{canonical, move_back};
use crate::db::Database;
use crate::game::{Move, Outcome, Player, Position};
use crate::search::dfpn::{Dfpn, Limits, LiveStats};
use crate::search::numbers::Numbers;
use crate::search::options::{Engine, SolveOptions};
use crate::search::pn_dfpn::{self, PnDfpnConfig, RootQuestion, TreeKeeper, TreeReport};
use crate::search::pv::principal_variation;
use crate::search::rules::immediate_win;
use crate::search::shared_dfpn;
use crate::search::workers::local::with_local_workers;
use crate::search::workers::Workers;
use crate::table::{Table, TableCounters};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// A solve's surroundings: its options, the table it searches against (which may hold
/// earlier work), what can stop it, who watches it, and where PN-DFPN's jobs run. Every solve
/// and analysis, from the command line, batches, MPI and the tests, goes through it:
///
/// ```
/// use uttt::game::Position;
/// use uttt::search::{SolveOptions, Solver, Table, Verdict};
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

    /// Analyses every legal move of `pos` (see [`super::analyze`]).
    pub fn analyze(&mut self, pos: &Position) -> Analysis {
        let (options, table) = (self.options, self.table);
        super::analyze::analyze(pos, options, table, |child, options| {
            self.solve_with(child, options)
        })
    }

    /// Solves `pos` with `options` in place of this solver's: from the database when it
    /// knows the answer, else by searching (and then the database learns the answer). A
    /// campaign solves the canonical image of `pos`, where its trees are kept.
    fn solve_with(&mut self, pos: &Position, options: &SolveOptions) -> SolveReport {
        let Some((database, policy)) = self.database else {
            return self.search(pos, options, None);
        };
        if !self.campaign {
            return self.solve_from_database(pos, options, database, policy, None);
        }
        let (_, image, sym) = canonical(pos);
        let mut report = match database.campaign(&image) {
            Ok(campaign) => {
                self.solve_from_database(&image, options, database, policy, Some(campaign))
            }
            Err(error) => {
                let mut report = unsearched_report(&image, options);
                report.database = Some(DatabaseReport {
                    error: Some(error.with_causes()),
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
        if settled_without_search(pos).is_none() {
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
        let keeping = used.error.is_none().then_some(Keeping {
            database,
            policy,
            campaign,
        });
        let mut report = self.search(pos, options, keeping);
        if let Some(searched) = report.database.take() {
            used = searched;
        }
        if used.error.is_none() {
            match database.store(&facts_of(&report, policy)) {
                Ok(stored) => used.stored += stored.new,
                Err(error) => used.error = Some(error.with_causes()),
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
            deadline: options.time_limit.map(|t| Instant::now() + t),
            live: self.live,
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

/// One three-valued solve: the position, how, against what table, and within what.
struct ThreeValued<'s> {
    pos: &'s Position,
    options: &'s SolveOptions,
    table: &'s Table,
    limits: Limits<'s>,
    node_budget: u64,
    keeping: Option<Keeping<'s>>,
}

impl ThreeValued<'_> {
    /// Runs the binary searches the options ask for, then reads the principal variation.
    fn solve(&self, mut workers: Option<&mut (dyn Workers + '_)>) -> SolveReport {
        let (pos, options, table, limits, node_budget) = (
            self.pos,
            self.options,
            self.table,
            self.limits,
            self.node_budget,
        );
        let start = Instant::now();
        let side = pos.side_to_move();
        let mut report = unsearched_report(pos, options);
        let mut counters = TableCounters::default();
        if let Some((verdict, best)) = settled_without_search(pos) {
            report.verdict = verdict;
            report.best_move = best;
            report.pv = best.into_iter().collect();
        } else {
            let questions = match options.attacker {
                Some(attacker) => vec![attacker],
                None => vec![side, side.opponent()],
            };
            let mut decisive = None;
            for attacker in questions {
                let started = Instant::now();
                let budget = node_budget.saturating_sub(report.nodes);
                let run = self.run_binary(attacker, budget, workers.as_deref_mut());
                if let Some(live) = limits.live {
                    live.publish_root(run.numbers);
                }
                counters.add(&run.counters);
                report.nodes += run.nodes;
                if let Some(kept) = run.database {
                    let used = report.database.get_or_insert_with(DatabaseReport::default);
                    used.stored += kept.stored;
                    used.leaves += kept.leaves;
                    used.error = used.error.take().or(kept.error);
                }
                if let Some(tree) = &run.tree {
                    merge_tree(report.tree.get_or_insert_with(TreeReport::default), tree);
                }
                let outcome = binary_outcome(pos, attacker, run.numbers);
                report.searches.push(SearchReport {
                    attacker,
                    outcome,
                    elapsed: started.elapsed(),
                    nodes: run.nodes,
                    root: run.numbers,
                });
                match outcome {
                    BinaryOutcome::Unknown => break,
                    BinaryOutcome::Proved => {
                        report.verdict = Verdict::Wins(attacker);
                        decisive = Some(attacker);
                        break;
                    }
                    BinaryOutcome::Disproved if options.attacker.is_some() => {
                        report.verdict = Verdict::DoesNotWin(attacker);
                        decisive = Some(attacker);
                    }
                    BinaryOutcome::Disproved if attacker != side => {
                        report.verdict = Verdict::Draw;
                        decisive = Some(attacker);
                    }
                    BinaryOutcome::Disproved => {}
                }
            }
            if let Some(attacker) = decisive {
                let mut searcher = Dfpn::new(table, attacker, options.epsilon, limits);
                let budget = node_budget.saturating_sub(report.nodes);
                report.pv = principal_variation(pos, &mut searcher, budget);
                report.best_move = report.pv.first().copied();
                counters.add(&searcher.counters());
                report.nodes += searcher.nodes();
            }
        }
        report.elapsed = start.elapsed();
        report.table = TableReport::of(table, &counters);
        report
    }

    /// Runs one binary search with the chosen engine, its jobs on `workers` when given.
    fn run_binary(
        &self,
        attacker: Player,
        node_budget: u64,
        workers: Option<&mut (dyn Workers + '_)>,
    ) -> BinaryRun {
        let (pos, options, table, limits) = (self.pos, self.options, self.table, self.limits);
        match options.engine {
            Engine::Dfpn => {
                let mut searcher =
                    Dfpn::new(table, attacker, options.epsilon, limits).publishing_root_numbers();
                let numbers = searcher.solve(pos, node_budget);
                BinaryRun {
                    numbers,
                    nodes: searcher.nodes(),
                    counters: searcher.counters(),
                    tree: None,
                    database: None,
                }
            }
            Engine::SharedDfpn => {
                let run = shared_dfpn::search(
                    pos,
                    attacker,
                    options.epsilon,
                    options.threads,
                    table,
                    limits,
                    node_budget,
                );
                BinaryRun {
                    numbers: run.numbers,
                    nodes: run.nodes,
                    counters: run.counters,
                    tree: None,
                    database: None,
                }
            }
            Engine::PnDfpn => {
                let config = PnDfpnConfig {
                    job_work: options.job_work.max(1),
                    split_threshold: options.split_threshold,
                    tree_bytes: options.tree_bytes,
                    epsilon: options.epsilon,
                    job_time: options.job_time,
                };
                let mut keeper = match self.keeping {
                    None => None,
                    Some(Keeping {
                        database,
                        policy,
                        campaign: None,
                    }) => Some(DatabaseKeeper::leaves(database, policy, attacker)),
                    Some(Keeping {
                        database,
                        policy,
                        campaign: Some(campaign),
                    }) => match DatabaseKeeper::campaign(database, policy, campaign, pos, attacker)
                    {
                        Ok(keeper) => Some(keeper),
                        Err(error) => {
                            // Nothing to search with: the campaign's tree could not be read.
                            return BinaryRun {
                                numbers: Numbers::UNIT,
                                nodes: 0,
                                counters: TableCounters::default(),
                                tree: None,
                                database: Some(DatabaseReport {
                                    error: Some(error.with_causes()),
                                    ..DatabaseReport::default()
                                }),
                            };
                        }
                    },
                };
                let question = RootQuestion {
                    root: *pos,
                    attacker,
                };
                let mut search = |workers: &mut dyn Workers| {
                    let keeper = keeper.as_mut().map(|k| k as &mut dyn TreeKeeper);
                    pn_dfpn::search(
                        question,
                        &config,
                        table,
                        limits,
                        node_budget,
                        workers,
                        keeper,
                    )
                };
                let run = match workers {
                    Some(workers) => search(workers),
                    None => with_local_workers(
                        table,
                        options.threads,
                        limits.deadline,
                        limits.live,
                        search,
                    ),
                };
                let database = keeper.map(|mut keeper| {
                    keeper.finish(run.numbers);
                    keeper.outcome
                });
                BinaryRun {
                    numbers: run.numbers,
                    nodes: run.nodes,
                    counters: run.counters,
                    tree: Some(run.tree),
                    database,
                }
            }
        }
    }
}

/// The result of one binary search by any engine.
struct BinaryRun {
    numbers: Numbers,
    nodes: u64,
    counters: TableCounters,
    tree: Option<TreeReport>,
    /// What the database keeper did, when the search had one.
    database: Option<DatabaseReport>,
}

/// The report of a solve of `pos` with `options` before anything is known or searched: the
/// start both a search and an answer from the database fill in.
fn unsearched_report(pos: &Position, options: &SolveOptions) -> SolveReport {
    SolveReport {
        position: *pos,
        verdict: Verdict::Unknown,
        best_move: None,
        pv: Vec::new(),
        engine: options.engine,
        threads: options.worker_threads(),
        elapsed: Duration::ZERO,
        nodes: 0,
        searches: Vec::new(),
        table: TableReport::default(),
        tree: None,
        database: None,
    }
}

/// A finished game, or one the side to move wins this move: the verdict and the winning move.
/// Such positions need no search.
fn settled_without_search(pos: &Position) -> Option<(Verdict, Option<Move>)> {
    match pos.outcome() {
        Outcome::Won(winner) => Some((Verdict::Wins(winner), None)),
        Outcome::Draw => Some((Verdict::Draw, None)),
        Outcome::InPlay => {
            immediate_win(pos).map(|mv| (Verdict::Wins(pos.side_to_move()), Some(mv)))
        }
    }
}

/// Whether the numbers of the root (for its side to move) answer "does `attacker` win?".
fn binary_outcome(pos: &Position, attacker: Player, numbers: Numbers) -> BinaryOutcome {
    let side_reaches_goal = match (numbers.phi, numbers.delta) {
        (0, _) => true,
        (_, 0) => false,
        _ => return BinaryOutcome::Unknown,
    };
    if side_reaches_goal == (pos.side_to_move() == attacker) {
        BinaryOutcome::Proved
    } else {
        BinaryOutcome::Disproved
    }
}
