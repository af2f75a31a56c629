//! The database of solved positions from the search's side: answering a solve from stored
//! facts, turning a solve's answers into facts to store, and keeping a PN-DFPN tree's leaves
//! (and a campaign's whole tree) there ([`DatabaseKeeper`]).

use super::report::{BinaryOutcome, DatabaseReport, SolveReport, Verdict};
use crate::db::campaign::{
    kept_tree_defect, CampaignId, KeptNode, Progress, Question, Totals, TrendSample,
};
use crate::db::{now_seconds, Database, DbError, Fact, Known, Source};
use crate::game::{Move, Position};
use crate::search::numbers::Numbers;
use crate::search::options::SolveOptions;
use crate::search::pn_dfpn::{TreeChange, TreeKeeper};
use crate::search::Question as SearchQuestion;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How a solver uses the database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StorePolicy {
    /// A binary answer is stored when its search took at least this many MID calls.
    pub min_work: u64,
    /// What the stored facts say found them.
    pub source: Source,
}

impl StorePolicy {
    /// The least work worth a stored fact unless told otherwise: cheaper answers are found
    /// again faster than the database is read.
    pub const DEFAULT_MIN_WORK: u64 = 10_000;
}

/// The verdict and best move `known` gives `pos` for the question(s) `options` asks, if it
/// answers them and knows a best move; `None` otherwise (then the position is searched).
///
/// For "does A win?" alone: A's stored answer, or the other player's stored win (then A does
/// not win); within a bound, as [`Known::answer`] says. For the value: the side to move's win, else the other player's win, else both
/// answers "no" (a draw). The best move is the one stored with the deciding answer (see
/// [`facts_of`]).
pub fn verdict_from(
    pos: &Position,
    options: &SolveOptions,
    known: &Known,
) -> Option<(Verdict, Move)> {
    let side = pos.side_to_move();
    // A bounded question is the one question of its attacker, the side to move by default.
    let single = options
        .attacker
        .or(options.max_plies.map(|_| side))
        .map(|attacker| (attacker, known.answer(attacker, options.max_plies)));
    let (verdict, deciding) = match single {
        Some((attacker, answer)) => match answer? {
            answer if answer.wins => (Verdict::Wins(attacker), answer),
            answer => (Verdict::DoesNotWin(attacker), answer),
        },
        None => match (known.of(side), known.of(side.opponent())) {
            (Some(own), _) if own.wins => (Verdict::Wins(side), own),
            (_, Some(other)) if other.wins => (Verdict::Wins(side.opponent()), other),
            (Some(_), Some(other)) => (Verdict::Draw, other),
            _ => return None,
        },
    };
    Some((verdict, deciding.best_move?))
}

/// The facts a finished solve of `report.position` establishes: each binary search that was
/// answered with at least `policy.min_work` MID calls. The report's best move goes with the
/// answer it belongs to, as [`verdict_from`] reads it back: the win proved, the opponent's "no"
/// of a draw (the side to move's move that does not lose), the one answer of a single question.
pub fn facts_of(report: &SolveReport, policy: StorePolicy) -> Vec<Fact> {
    let created = now_seconds();
    let deciding = match report.verdict {
        Verdict::Wins(player) | Verdict::DoesNotWin(player) => Some(player),
        Verdict::Draw => Some(report.to_move().opponent()),
        Verdict::Unknown => None,
    };
    report
        .searches
        .iter()
        .filter(|s| s.outcome != BinaryOutcome::Unknown && s.nodes >= policy.min_work)
        .map(|s| Fact {
            position: report.position,
            attacker: s.attacker,
            wins: s.outcome == BinaryOutcome::Proved,
            within: report.max_plies,
            work: s.nodes,
            best_move: if Some(s.attacker) == deciding {
                report.best_move
            } else {
                None
            },
            source: policy.source,
            created,
        })
        .collect()
}

/// How long a store made while the search runs waits for another process's write before it
/// is put off to the next one: the search's root thread makes them, and must not stall.
const STORE_WAIT: Duration = Duration::from_millis(50);
/// The least time between two tries of a store that failed, but for the last one.
const RETRY_INTERVAL: Duration = Duration::from_millis(250);
/// Facts held back for a later store at most (those of a database that keeps failing): beyond
/// them, the oldest are dropped and counted as not stored.
const MAX_HELD_FACTS: usize = 1 << 20;

/// How often a campaign samples its root's numbers for the trend, in seconds of its search.
const TREND_INTERVAL_SECONDS: f64 = 10.0;

/// How often a campaign commits what its merges changed. A commit per merged job (hundreds a
/// second, each rewriting the nodes of its path) took the root thread's time from searches on
/// a machine whose cores all search (figures in BENCHMARKS.md); so a stopped campaign loses
/// the jobs in flight and those merged in the last interval.
const COMMIT_INTERVAL: Duration = Duration::from_millis(250);

/// The database as a PN-DFPN tree's keeper (see [`TreeKeeper`]): a leaf whose answer is stored
/// needs no job, a leaf a job solves with at least the policy's work is stored, and in a
/// campaign the tree itself is kept, a transaction every [`COMMIT_INTERVAL`].
pub(super) struct DatabaseKeeper<'a> {
    database: &'a Database,
    policy: StorePolicy,
    /// The search's question: its leaves' facts are answers to it, bounded where it is.
    asked: SearchQuestion,
    campaign: Option<CampaignKeeping>,
    /// Solved leaves' facts whose store failed (another process held the file, say), tried
    /// again with the next store and at the end.
    held: Vec<Fact>,
    /// When a store last failed, if the facts held have not been stored since.
    last_failure: Option<Instant>,
    /// What it did, for the solve's report. A failure never ends the search: what could not
    /// be written is tried again, and the failure told there.
    pub(super) outcome: DatabaseReport,
}

/// A campaign question's bookkeeping while it runs.
struct CampaignKeeping {
    question: Question,
    /// The campaign's position (canonical), the root of the tree.
    root: Position,
    /// Whether this run recorded anything yet.
    recorded: bool,
    /// The tree as loaded, until the search takes it.
    kept: Vec<KeptNode>,
    /// When the last commit was made (its seconds are counted from there).
    last_commit: Instant,
    /// What was merged since the last commit: the changed nodes (the latest of each), the
    /// facts, the jobs and their work.
    pending_nodes: HashMap<u32, KeptNode>,
    pending_facts: Vec<Fact>,
    pending_jobs: u64,
    pending_work: u64,
    /// The question's totals over every run, this one's records included.
    totals: Totals,
    /// The totals' seconds at the last trend sample.
    last_sample: f64,
}

impl<'a> DatabaseKeeper<'a> {
    /// A keeper of leaves only, for a search of `asked` (bounded or not): the tree is not kept.
    pub(super) fn leaves(
        database: &'a Database,
        policy: StorePolicy,
        asked: SearchQuestion,
    ) -> DatabaseKeeper<'a> {
        DatabaseKeeper {
            database,
            policy,
            asked,
            campaign: None,
            held: Vec::new(),
            last_failure: None,
            outcome: DatabaseReport::default(),
        }
    }

    /// A keeper of the campaign `campaign`'s tree for the question `asked` ("does A win?",
    /// bounded or not) at `root` (its canonical position); its first record counts a new run
    /// (a question settled in an earlier run is only read again, and records nothing). Takes
    /// the campaign's lease for `database` unless it holds it (refused while another process
    /// runs the campaign).
    pub(super) fn campaign(
        database: &'a Database,
        policy: StorePolicy,
        campaign: CampaignId,
        root: &Position,
        asked: SearchQuestion,
    ) -> Result<DatabaseKeeper<'a>, DbError> {
        let question = Question {
            campaign,
            attacker: asked.attacker,
        };
        // One writer per campaign: the lease before the tree (held already by a campaign run).
        database.hold_lease(campaign)?;
        let kept = database.kept_tree(question)?;
        // The search takes the tree whole, following its links and replaying its moves.
        if let Some(defect) = kept_tree_defect(&kept, root) {
            return Err(database.damaged_tree(defect));
        }
        let totals = database.totals(question)?;
        Ok(DatabaseKeeper {
            campaign: Some(CampaignKeeping {
                question,
                root: *root,
                recorded: false,
                pending_nodes: HashMap::new(),
                pending_facts: Vec::new(),
                pending_jobs: 0,
                pending_work: 0,
                kept,
                last_commit: Instant::now(),
                totals,
                last_sample: f64::NEG_INFINITY,
            }),
            ..DatabaseKeeper::leaves(database, policy, asked)
        })
    }

    /// Ends the search's keeping: what is held back is stored (waiting as long as a store
    /// may), and a campaign's run records its last seconds and a trend sample of the root's
    /// `numbers` (nothing for a run that merged nothing). What still cannot be stored is counted
    /// in the report as not stored.
    pub(super) fn finish(&mut self, root: Numbers) {
        // A run whose first record failed still has its changes pending: they get the last,
        // longest try too.
        let searched = self
            .campaign
            .as_ref()
            .is_some_and(|c| c.recorded || !c.pending_nodes.is_empty() || c.pending_jobs > 0);
        if searched {
            self.record_campaign(&[], &[], 0, root, true);
        }
        if !self.held.is_empty() {
            self.store_held(Vec::new(), crate::db::BUSY_TIMEOUT);
        }
        let held_by_campaign = self.campaign.as_ref().map_or(0, |keeping| {
            keeping.pending_facts.len() + keeping.pending_nodes.len()
        });
        self.outcome.unstored += (self.held.len() + held_by_campaign) as u64;
    }

    /// Stores `facts` after those held back, waiting at most `wait`; on a failure they are
    /// all held back for the next try, and the failure is told in the report.
    fn store_held(&mut self, facts: Vec<Fact>, wait: Duration) {
        self.held.extend(facts);
        // After a failure, the facts wait a while before the next try: a database that keeps
        // failing is not handed the whole backlog at every merge.
        let resting = self
            .last_failure
            .is_some_and(|at| at.elapsed() < RETRY_INTERVAL && wait < crate::db::BUSY_TIMEOUT);
        if resting {
            return;
        }
        match self.database.store_waiting(&self.held, wait) {
            Ok(stored) => {
                self.outcome.stored += stored.new;
                self.held.clear();
                self.last_failure = None;
            }
            Err(error) => {
                self.last_failure = Some(Instant::now());
                self.outcome.failed_stores += 1;
                self.outcome.error = Some(error.with_causes());
                let excess = self.held.len().saturating_sub(MAX_HELD_FACTS);
                self.held.drain(..excess);
                self.outcome.unstored += excess as u64;
            }
        }
    }

    /// Keeps one merge's changes of a campaign (a job's, when `work` is not zero): gathered,
    /// and committed in one transaction at most every [`COMMIT_INTERVAL`], at once when the
    /// root is solved or `force` asks for it (with a trend sample of the `root`'s numbers
    /// when one is due or forced).
    fn record_campaign(
        &mut self,
        nodes: &[KeptNode],
        facts: &[Fact],
        work: u64,
        root: Numbers,
        force: bool,
    ) -> bool {
        let Some(keeping) = self.campaign.as_mut() else {
            return true;
        };
        // A run's first record is committed at once, so that a run counts only with a tree.
        let begins_run = !std::mem::replace(&mut keeping.recorded, true);
        for node in nodes {
            keeping.pending_nodes.insert(node.id, *node);
        }
        keeping.pending_facts.extend_from_slice(facts);
        keeping.pending_jobs += u64::from(work > 0);
        keeping.pending_work += work;
        let due_commit = keeping.last_commit.elapsed() >= COMMIT_INTERVAL;
        if !(force || begins_run || root.is_solved() || due_commit) {
            return true;
        }
        let seconds = keeping.last_commit.elapsed().as_secs_f64();
        let (total_seconds, total_nodes) = (
            keeping.totals.seconds + seconds,
            keeping.totals.nodes + keeping.pending_work,
        );
        let due = total_seconds - keeping.last_sample >= TREND_INTERVAL_SECONDS;
        // The question's answer, in the same transaction as the merge that settled it: a
        // campaign stopped right after still knows it (the solve adds the best move later).
        if root.is_solved() {
            let side_reaches_goal = root.phi == 0;
            keeping.pending_facts.push(Fact {
                position: keeping.root,
                attacker: self.asked.attacker,
                wins: side_reaches_goal == (keeping.root.side_to_move() == self.asked.attacker),
                within: self.asked.plies_left(&keeping.root),
                work: total_nodes,
                best_move: None,
                source: self.policy.source,
                created: now_seconds(),
            });
        }
        let sample = (due || force).then_some(TrendSample {
            seconds: total_seconds,
            nodes: total_nodes,
            phi: root.phi,
            delta: root.delta,
        });
        // Kept until the commit succeeds, so that a failed one is tried again whole.
        let mut nodes: Vec<KeptNode> = keeping.pending_nodes.values().copied().collect();
        nodes.sort_by_key(|n| n.id);
        let progress = Progress {
            nodes: &nodes,
            facts: &keeping.pending_facts,
            jobs: keeping.pending_jobs,
            work: keeping.pending_work,
            seconds,
            sample,
            begins_run,
        };
        // The last commit of a run waits as long as a store may; the others are put off
        // when another process holds the file.
        let wait = if force {
            crate::db::BUSY_TIMEOUT
        } else {
            STORE_WAIT
        };
        match self
            .database
            .record_waiting(keeping.question, &progress, wait)
        {
            Ok(stored) => {
                keeping.pending_nodes.clear();
                keeping.last_commit = Instant::now();
                keeping.totals.seconds = total_seconds;
                keeping.totals.nodes = total_nodes;
                keeping.totals.jobs += keeping.pending_jobs;
                if sample.is_some() {
                    keeping.last_sample = total_seconds;
                }
                keeping.pending_facts.clear();
                keeping.pending_jobs = 0;
                keeping.pending_work = 0;
                self.outcome.stored += stored.new;
                true
            }
            Err(error) => {
                // A lost lease: another process runs the campaign now, so this run writes
                // nothing more and its search ends (what it committed stays; what it did not is
                // counted as not stored, which makes the run's end an error). Any other failure
                // is tried again at the next merge: the nodes, facts, jobs and work wait for it,
                // and a run's first record not made is made then.
                let lost = matches!(error, DbError::LeaseLost { .. });
                if !lost {
                    keeping.recorded = !begins_run;
                    if root.is_solved() {
                        keeping.pending_facts.pop();
                    }
                }
                self.outcome.failed_stores += 1;
                self.outcome.error = Some(error.with_causes());
                !lost
            }
        }
    }
}

impl TreeKeeper for DatabaseKeeper<'_> {
    fn kept_tree(&mut self) -> Vec<KeptNode> {
        self.campaign
            .as_mut()
            .map(|keeping| std::mem::take(&mut keeping.kept))
            .unwrap_or_default()
    }

    fn keeps_tree(&self) -> bool {
        self.campaign.is_some()
    }

    fn known(&mut self, leaf: &Position) -> Option<Numbers> {
        let known = match self.database.lookup(leaf) {
            Ok(known) => known,
            Err(error) => {
                self.outcome.error = Some(error.with_causes());
                return None;
            }
        };
        let attacker = self.asked.attacker;
        let attacker_wins = known.answer(attacker, self.asked.plies_left(leaf))?.wins;
        self.outcome.leaves += 1;
        // Numbers are for the side to move, whose goal is the attacker's win or its failure.
        let side_reaches_goal = attacker_wins == (leaf.side_to_move() == attacker);
        Some(if side_reaches_goal {
            Numbers::PROVED
        } else {
            Numbers::DISPROVED
        })
    }

    fn record(&mut self, change: &TreeChange) -> bool {
        let facts: Vec<Fact> = change
            .solved
            .filter(|leaf| leaf.work >= self.policy.min_work)
            .map(|leaf| Fact {
                position: leaf.position,
                attacker: self.asked.attacker,
                wins: (leaf.numbers.phi == 0)
                    == (leaf.position.side_to_move() == self.asked.attacker),
                within: self.asked.plies_left(&leaf.position),
                work: leaf.work,
                best_move: leaf.best_move,
                source: self.policy.source,
                created: now_seconds(),
            })
            .into_iter()
            .collect();
        if self.campaign.is_some() {
            return self.record_campaign(change.nodes, &facts, change.work, change.root, false);
        }
        if !facts.is_empty() || !self.held.is_empty() {
            self.store_held(facts, STORE_WAIT);
        }
        true
    }
}
