//! One three-valued solve of one position: at most two binary searches with the chosen engine
//! (its PN-DFPN trees kept in the database as the solver says), then the principal variation.

use super::super::known::DatabaseKeeper;
use super::super::report::{
    merge_tree, BinaryOutcome, DatabaseReport, SearchReport, SolveReport, TableReport, Verdict,
};
use super::{Keeping, WinInAnswer};
use crate::game::{Move, Outcome, Player, Position};
use crate::search::dfpn::{Dfpn, Limits};
use crate::search::numbers::Numbers;
use crate::search::options::{Engine, SolveOptions};
use crate::search::pn_dfpn::{self, PnDfpnConfig, RootQuestion, TreeKeeper, TreeReport};
use crate::search::pv::principal_variation;
use crate::search::rules::immediate_win;
use crate::search::shared_dfpn;
use crate::search::threads::ThreadError;
use crate::search::workers::local::with_local_workers;
use crate::search::workers::Workers;
use crate::table::{Table, TableCounters};
use std::time::{Duration, Instant};

/// One three-valued solve: the position, how, against what table, and within what.
pub(super) struct ThreeValued<'s> {
    pub(super) pos: &'s Position,
    pub(super) options: &'s SolveOptions,
    pub(super) table: &'s Table,
    pub(super) limits: Limits<'s>,
    pub(super) node_budget: u64,
    pub(super) keeping: Option<Keeping<'s>>,
}

impl ThreeValued<'_> {
    /// Runs the binary searches the options ask for, then reads the principal variation.
    pub(super) fn solve(&self, mut workers: Option<&mut (dyn Workers + '_)>) -> SolveReport {
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
        if let Some((verdict, best)) = settled_without_search(pos, options.max_plies) {
            report.verdict = verdict;
            report.best_move = best;
            report.pv = best.into_iter().collect();
        } else {
            let questions = match options.attacker {
                Some(attacker) => vec![attacker],
                None if options.max_plies.is_some() => vec![side],
                None => {
                    let first = options.first_question.unwrap_or(side);
                    vec![first, first.opponent()]
                }
            };
            let mut decisive = None;
            for (index, &attacker) in questions.iter().enumerate() {
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
                    used.add(kept);
                }
                if let Some(tree) = &run.tree {
                    merge_tree(report.tree.get_or_insert_with(TreeReport::default), tree);
                }
                if run.failure.is_some() {
                    report.failure = run.failure;
                    break;
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
                    BinaryOutcome::Disproved if questions.len() == 1 => {
                        report.verdict = Verdict::DoesNotWin(attacker);
                        decisive = Some(attacker);
                    }
                    BinaryOutcome::Disproved if index + 1 == questions.len() => {
                        // Both players fail: a draw, whose best move is the side to move's
                        // refutation of the opponent's win (a move that does not lose).
                        report.verdict = Verdict::Draw;
                        decisive = Some(side.opponent());
                    }
                    BinaryOutcome::Disproved => {}
                }
            }
            if let Some(attacker) = decisive {
                let question = options.question(pos, attacker);
                let mut searcher = Dfpn::new(table, question, options.epsilon, limits)
                    .guided_by(limits.estimate(options.guide));
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
        let question = options.question(pos, attacker);
        match options.engine {
            Engine::Dfpn => {
                let mut searcher = Dfpn::new(table, question, options.epsilon, limits)
                    .guided_by(limits.estimate(options.guide))
                    .publishing_root_numbers();
                let numbers = searcher.solve(pos, node_budget);
                BinaryRun {
                    numbers,
                    nodes: searcher.nodes(),
                    counters: searcher.counters(),
                    tree: None,
                    database: None,
                    failure: None,
                }
            }
            Engine::SharedDfpn => {
                match shared_dfpn::search(pos, question, options, table, limits, node_budget) {
                    Ok(run) => BinaryRun {
                        numbers: run.numbers,
                        nodes: run.nodes,
                        counters: run.counters,
                        tree: None,
                        database: None,
                        failure: None,
                    },
                    Err(error) => BinaryRun::refused(&error),
                }
            }
            Engine::PnDfpn => {
                let config = PnDfpnConfig {
                    job_work: options.job_work.max(1),
                    split_threshold: options.split_threshold,
                    tree_bytes: options.tree_bytes,
                    epsilon: options.epsilon,
                    job_time: options.job_time,
                    guide: options.guide,
                };
                let mut keeper = match self.keeping {
                    None => None,
                    Some(Keeping {
                        database,
                        policy,
                        campaign: None,
                    }) => Some(DatabaseKeeper::leaves(database, policy, question)),
                    Some(Keeping {
                        database,
                        policy,
                        campaign: Some(campaign),
                    }) => match DatabaseKeeper::campaign(database, policy, campaign, pos, question)
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
                                    unreadable: true,
                                    ..DatabaseReport::default()
                                }),
                                failure: None,
                            };
                        }
                    },
                };
                let question = RootQuestion {
                    root: *pos,
                    question,
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
                    None => match with_local_workers(table, options.threads, limits, search) {
                        Ok(run) => run,
                        Err(error) => return BinaryRun::refused(&error),
                    },
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
                    failure: None,
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
    /// Why it could not search (see [`SolveReport::failure`]).
    failure: Option<String>,
}

impl BinaryRun {
    /// A run that never searched: the system refused its threads.
    fn refused(error: &ThreadError) -> BinaryRun {
        BinaryRun {
            numbers: Numbers::UNIT,
            nodes: 0,
            counters: TableCounters::default(),
            tree: None,
            database: None,
            failure: Some(error.to_string()),
        }
    }
}

/// The report of a solve of `pos` with `options` before anything is known or searched: the
/// start both a search and an answer from the database fill in.
pub(super) fn unsearched_report(pos: &Position, options: &SolveOptions) -> SolveReport {
    SolveReport {
        position: *pos,
        verdict: Verdict::Unknown,
        max_plies: options.max_plies,
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
        win_in: WinInAnswer::NotAsked,
        failure: None,
    }
}

/// A finished game, or one the side to move wins this move (within `max_plies`, if bounded):
/// the verdict and the winning move. Such positions need no search.
pub(super) fn settled_without_search(
    pos: &Position,
    max_plies: Option<u32>,
) -> Option<(Verdict, Option<Move>)> {
    match pos.outcome() {
        Outcome::Won(winner) => Some((Verdict::Wins(winner), None)),
        Outcome::Draw => Some((Verdict::Draw, None)),
        Outcome::InPlay if max_plies == Some(0) => None,
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
