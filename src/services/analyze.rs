//! Per-move analysis: the value of every legal move of a position, each found by a full
//! three-valued solve of the position after it, all against one table and within one set of
//! limits; then, beside each value left unknown, the estimate of a Monte Carlo tree search
//! that knows what is proved ([`super::play`]).

use super::play::estimate::{Estimate, ESTIMATE_TIME_SHARE};
use super::play::{appraise, Appraisal};
use super::report::{BinaryOutcome, SolveReport, SolveValue, TableReport, Verdict};
use super::solve::{Solver, WinInAnswer, WinInMode};
use crate::game::{Move, Player, Position};
use crate::search::options::SolveOptions;
use crate::table::{Table, TableCounters};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// What one move is worth to the player who makes it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MoveAnalysis {
    /// The move.
    pub mv: Move,
    /// Its value for the player making it (`Unknown` when a limit ended its solve).
    pub value: SolveValue,
    /// The opponent's best reply, when the value is known and the game goes on.
    pub best_reply: Option<Move>,
    /// Wall time spent on this move.
    pub elapsed: Duration,
    /// MID calls spent on this move.
    pub nodes: u64,
    /// How soon the game ends after a winning or losing move, when asked: the plies from
    /// before the move (which counts) to the end with best play.
    #[serde(default)]
    pub win_in: WinInAnswer,
    /// For an analysis within a bound ([`Analysis::within`]): whether the move wins within it
    /// (the move counts); `None` when a limit left that unknown, or when no bound was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wins_within: Option<bool>,
    /// Where the value is unknown (in an analysis without a bound), the outcome
    /// probabilities after the move that a tree search's playouts give, with their number:
    /// an estimate, never a value ([`super::play::appraise`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<Estimate>,
}

/// The analysis of every legal move of a position.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Analysis {
    /// The position analysed.
    pub position: Position,
    /// Every legal move, best first: wins, draws, unknowns, losses; in square order within
    /// each group.
    pub moves: Vec<MoveAnalysis>,
    /// Wall time of the whole analysis.
    pub elapsed: Duration,
    /// MID calls over all moves.
    pub nodes: u64,
    /// Table figures at the end, traffic summed over all moves.
    pub table: TableReport,
    /// The bound each move was asked about, if any: "does this move win within so many plies
    /// (itself included)?" ([`MoveAnalysis::wins_within`]). A move that does is a win; one
    /// that does not keeps an unknown value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<u32>,
    /// Why the analysis could not run its searches, when it could not (the system refused
    /// their threads): then its moves are incomplete, and this is an error, not an answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

impl Analysis {
    /// The side to move in the analysed position.
    pub fn to_move(&self) -> Player {
        self.position.side_to_move()
    }

    /// The position's value for the side to move as far as the moves show it: a winning move
    /// makes it a win; otherwise an unknown move leaves it unknown; otherwise the best of draw
    /// and loss. `Unknown` for a finished game (it has no moves).
    pub fn value(&self) -> SolveValue {
        let has = |value| self.moves.iter().any(|m| m.value == value);
        if has(SolveValue::Win) {
            SolveValue::Win
        } else if self.moves.is_empty() || has(SolveValue::Unknown) {
            SolveValue::Unknown
        } else if has(SolveValue::Draw) {
            SolveValue::Draw
        } else {
            SolveValue::Loss
        }
    }

    /// The moves a limit left unanswered: their value, or within a bound whether they win
    /// within it.
    pub fn unknown_moves(&self) -> impl Iterator<Item = Move> + '_ {
        self.moves
            .iter()
            .filter(|m| match self.within {
                Some(_) => m.wins_within.is_none(),
                None => m.value == SolveValue::Unknown,
            })
            .map(|m| m.mv)
    }
}

/// The order of values in an analysis: best for the mover first.
fn rank(value: SolveValue) -> u8 {
    match value {
        SolveValue::Win => 0,
        SolveValue::Draw => 1,
        SolveValue::Unknown => 2,
        SolveValue::Loss => 3,
    }
}

impl Solver<'_> {
    /// Analyses every legal move of `pos` (see [`analyze`]), with an estimate beside each
    /// value left unknown (see [`add_estimates`]).
    pub fn analyze(&mut self, pos: &Position) -> Analysis {
        self.analyze_win_in(pos, WinInMode::Off)
    }

    /// [`Solver::analyze`], each winning or losing move with its distance as `mode` asks
    /// (see [`Solver::solve_win_in`]), counted from before the move.
    pub fn analyze_win_in(&mut self, pos: &Position, mode: WinInMode) -> Analysis {
        let (options, table) = (self.options(), self.table());
        let estimates = self.estimate_playouts() != Some(0);
        let solved = analyze(pos, options, table, estimates, |child, options| {
            self.solve_with_win_in(child, options, mode)
        });
        add_estimates(solved, options.time_limit, |child, cannot_win, time| {
            appraise(self, child, cannot_win, time)
        })
    }
}

/// An analysis whose solves are done, before its estimates.
struct Solved {
    analysis: Analysis,
    /// Per move (as `analysis.moves`): the players its solve showed not to win after it.
    cannot_win: Vec<Vec<Player>>,
    start: Instant,
}

/// Analyses every legal move of `pos` with `options`, solving the position after each move
/// with `solve` (a [`super::Solver`]'s) against `table`. `options.time_limit` and
/// `options.node_limit` bound the whole analysis, shared out over the moves: each move gets
/// an equal share of what is left when its turn comes, so that a move settled early leaves
/// its time to the moves after it (before, the first move took the whole limit and the rest
/// got nothing). With `estimates` (and no bound), the solves share all but a quarter of the
/// time limit ([`ESTIMATE_TIME_SHARE`]), which [`add_estimates`] spends. Moves not finished
/// within their share stay `Unknown`, and so do all moves after the solver's stop flag is
/// raised. `options.attacker` is ignored. Without `options.max_plies` every move gets its full
/// value; with it, the one question whether the move wins within that many plies, itself
/// included (so within 0 none does).
fn analyze(
    pos: &Position,
    options: &SolveOptions,
    table: &Table,
    estimates: bool,
    mut solve: impl FnMut(&Position, &SolveOptions) -> SolveReport,
) -> Solved {
    let start = Instant::now();
    let mover = pos.side_to_move();
    let mut nodes = 0u64;
    let mut counters = TableCounters::default();
    let mut moves: Vec<MoveAnalysis> = Vec::new();
    let mut cannot_win = Vec::new();
    let mut failure = None;
    let legal = pos.legal_moves();
    let solve_time = match options.max_plies {
        None if estimates => options.time_limit.map(|t| t - t / ESTIMATE_TIME_SHARE),
        _ => options.time_limit,
    };
    for (index, mv) in legal.enumerate() {
        // This move's share of what is left of the analysis's limits bounds its solve.
        let moves_left = (legal.len() - index) as u32;
        let per_move = SolveOptions {
            // The mover's one question after its move, with the move's ply spent.
            attacker: options.max_plies.map(|_| mover),
            max_plies: options.max_plies.map(|plies| plies.saturating_sub(1)),
            time_limit: solve_time.map(|t| t.saturating_sub(start.elapsed()) / moves_left),
            node_limit: options
                .node_limit
                .map(|n| n.saturating_sub(nodes) / u64::from(moves_left)),
            ..options.clone()
        };
        if options.max_plies == Some(0) {
            // No move wins within no plies: asked of the position after it, "within 0" would
            // be whether the move itself won.
            moves.push(MoveAnalysis {
                mv,
                value: SolveValue::Unknown,
                best_reply: None,
                elapsed: Duration::ZERO,
                nodes: 0,
                win_in: WinInAnswer::NotAsked,
                wins_within: Some(false),
                estimate: None,
            });
            cannot_win.push(Vec::new());
            continue;
        }
        let after = pos.play(mv);
        let report = solve(&after, &per_move);
        if report.failure.is_some() {
            failure = report.failure;
            break;
        }
        nodes += report.nodes;
        counters.add(&report.table.counters());
        // What the solve did prove when a limit stopped it: a question it settled.
        cannot_win.push(
            report
                .searches
                .iter()
                .filter(|search| search.outcome == BinaryOutcome::Disproved)
                .map(|search| search.attacker)
                .collect(),
        );
        moves.push(MoveAnalysis {
            mv,
            value: report.verdict.value_for(mover),
            estimate: None,
            best_reply: report.best_move,
            elapsed: report.elapsed,
            nodes: report.nodes,
            win_in: report.win_in.one_ply_earlier(),
            wins_within: options.max_plies.and_then(|_| match report.verdict {
                Verdict::Wins(winner) => Some(winner == mover),
                // A draw answers a bounded question only where the move ended the game.
                Verdict::DoesNotWin(_) | Verdict::Draw => Some(false),
                Verdict::Unknown => None,
            }),
        });
    }
    Solved {
        analysis: Analysis {
            position: *pos,
            moves,
            elapsed: start.elapsed(),
            nodes,
            table: TableReport::of(table, &counters),
            within: options.max_plies,
            failure,
        },
        cannot_win,
        start,
    }
}

/// The analysis `solved` finished: each move left unknown (without a bound) gets what
/// `appraise` finds of the position after it, given the players its solve showed not to win
/// there, within an equal share of what is left of `time_limit` when its turn comes. Where
/// that search proves the value, the move gets the value (and a best reply) instead of an
/// estimate: it is exact, and never contradicts the solve, which proved nothing more. Then the
/// moves are sorted, best first.
fn add_estimates(
    solved: Solved,
    time_limit: Option<Duration>,
    mut appraise: impl FnMut(&Position, &[Player], Option<Duration>) -> Option<Appraisal>,
) -> Analysis {
    let Solved {
        mut analysis,
        cannot_win,
        start,
    } = solved;
    let mover = analysis.to_move();
    if analysis.within.is_none() {
        let unknown: Vec<usize> = (0..analysis.moves.len())
            .filter(|&i| analysis.moves[i].value == SolveValue::Unknown)
            .collect();
        for (done, &i) in unknown.iter().enumerate() {
            let left = (unknown.len() - done) as u32;
            let time = time_limit.map(|t| t.saturating_sub(start.elapsed()) / left);
            let entry = &mut analysis.moves[i];
            let after = analysis.position.play(entry.mv);
            let Some(found) = appraise(&after, &cannot_win[i], time) else {
                continue;
            };
            entry.nodes += found.nodes;
            entry.elapsed += found.elapsed;
            analysis.nodes += found.nodes;
            if found.verdict.is_answered() {
                entry.value = found.verdict.value_for(mover);
                entry.best_reply = found.best_move;
            } else {
                entry.estimate = found.estimate;
            }
        }
    }
    analysis.moves.sort_by_key(|m| (rank(m.value), m.mv));
    analysis.elapsed = start.elapsed();
    analysis
}
