//! Per-move analysis: the value of every legal move of a position, each found by a full
//! three-valued solve of the position after it, all against one table and within one set of
//! limits.

use super::learn::OutcomeEstimate;
use super::report::{BinaryOutcome, SolveReport, SolveValue, TableReport, Verdict};
use super::WinInAnswer;
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
    /// Where the value is unknown (in an analysis without a bound), the learned model's
    /// outcome probabilities after the move: an estimate, never a value
    /// ([`OutcomeEstimate::of`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<OutcomeEstimate>,
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

/// Analyses every legal move of `pos` with `options`, solving the position after each move
/// with `solve` (a [`super::Solver`]'s) against `table`. `options.time_limit` and
/// `options.node_limit` bound the whole analysis, shared out over the moves: each move gets
/// an equal share of what is left when its turn comes, so that a move settled early leaves
/// its time to the moves after it (before, the first move took the whole limit and the rest
/// got nothing). Moves not finished within their share stay `Unknown`, and so do all moves
/// after the solver's stop flag is raised. `options.attacker` is ignored. Without
/// `options.max_plies` every move gets its full value; with it, the one question whether the
/// move wins within that many plies, itself included (so within 0 none does).
pub(super) fn analyze(
    pos: &Position,
    options: &SolveOptions,
    table: &Table,
    mut solve: impl FnMut(&Position, &SolveOptions) -> SolveReport,
) -> Analysis {
    let start = Instant::now();
    let mover = pos.side_to_move();
    let mut nodes = 0u64;
    let mut counters = TableCounters::default();
    let mut moves: Vec<MoveAnalysis> = Vec::new();
    let legal = pos.legal_moves();
    for (index, mv) in legal.enumerate() {
        // This move's share of what is left of the analysis's limits bounds its solve.
        let moves_left = (legal.len() - index) as u32;
        let per_move = SolveOptions {
            // The mover's one question after its move, with the move's ply spent.
            attacker: options.max_plies.map(|_| mover),
            max_plies: options.max_plies.map(|plies| plies.saturating_sub(1)),
            time_limit: options
                .time_limit
                .map(|t| t.saturating_sub(start.elapsed()) / moves_left),
            node_limit: options
                .node_limit
                .map(|n| n.saturating_sub(nodes) / u64::from(moves_left)),
            ..options.clone()
        };
        let move_analysis = if options.max_plies == Some(0) {
            // No move wins within no plies: asked of the position after it, "within 0" would
            // be whether the move itself won.
            MoveAnalysis {
                mv,
                value: SolveValue::Unknown,
                best_reply: None,
                elapsed: Duration::ZERO,
                nodes: 0,
                win_in: WinInAnswer::NotAsked,
                wins_within: Some(false),
                estimate: None,
            }
        } else {
            let after = pos.play(mv);
            let report = solve(&after, &per_move);
            nodes += report.nodes;
            counters.add(&report.table.counters());
            let value = report.verdict.value_for(mover);
            // An unknown value gets the learned estimate, given what the solve did prove
            // (a question it settled before a limit stopped the other). Not within a bound:
            // there an unknown value may be an answer ("does not win within N").
            let disproved = report
                .searches
                .iter()
                .filter(|search| search.outcome == BinaryOutcome::Disproved)
                .map(|search| search.attacker);
            let estimate = (value == SolveValue::Unknown && options.max_plies.is_none())
                .then(|| OutcomeEstimate::of(&after, disproved))
                .flatten();
            MoveAnalysis {
                mv,
                value,
                estimate,
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
            }
        };
        moves.push(move_analysis);
    }
    moves.sort_by_key(|m| (rank(m.value), m.mv));
    Analysis {
        position: *pos,
        moves,
        elapsed: start.elapsed(),
        nodes,
        table: TableReport::of(table, &counters),
        within: options.max_plies,
    }
}
