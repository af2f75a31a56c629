//! Game review: where a game was won and lost. The positions of a game are solved from its end
//! backwards, each solve against the same table (and database) as the later ones, so that it
//! starts from what they learned, and bounded by the value of the position after it (see
//! `settle`); each move played is then marked by what it did to the value of the position for
//! the player who made it.

mod settle;

use self::settle::{settle, Knowledge};
use super::play::appraise;
use super::play::estimate::{Estimate, ESTIMATE_TIME_SHARE};
use super::report::{SolveValue, TableReport, Verdict};
use super::solve::{Solver, WinIn, WinInAnswer, WinInMode};
use crate::game::{Move, Player, Position};
use crate::table::TableCounters;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::{Duration, Instant};

/// What a move did to the value of the game for the player who made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    /// It kept the value (every move of a lost position keeps it).
    Best,
    /// A win became a draw, or a draw a loss.
    Mistake,
    /// A win became a loss.
    Blunder,
    /// The value before or after it is unknown.
    Unknown,
}

/// One position of a reviewed game: the position before ply `ply`'s move (or the final one).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PlyReview {
    /// Moves played before this position (0 is the start).
    pub ply: usize,
    /// The position.
    pub position: Position,
    /// Whether the walk solved it (it stops before the start after enough unknowns).
    pub reviewed: bool,
    /// Its value: `Wins`, `Draw`, or `Unknown` (not reviewed, or a limit ended its solve).
    pub value: Verdict,
    /// A move that keeps the value, when the value is known and the game goes on (and the
    /// solve had time to find one).
    pub best_move: Option<Move>,
    /// The move the game played here; `None` at the final position.
    pub played: Option<Move>,
    /// What the move played did; `None` at the final position.
    pub mark: Option<Mark>,
    /// For a mistake or a blunder, a move that would have kept the value (when known).
    pub better_move: Option<Move>,
    /// Wall time of this position's solve.
    pub elapsed: Duration,
    /// MID calls of this position's solve.
    pub nodes: u64,
    /// The database answered it without a search.
    pub from_database: bool,
    /// Its value followed from the next position's without a search: the move played keeps
    /// its mover's win there.
    pub deduced: bool,
    /// How soon the game ends from here with best play, when asked (a win's distance).
    #[serde(default)]
    pub win_in: WinInAnswer,
    /// The move played kept its mover's win but made it further off: both distances exact,
    /// the one after the move plus the move more than the one before (as a slower mate).
    #[serde(default)]
    pub slower_win: bool,
    /// Where the value is unknown (and the game goes on), the outcome probabilities that a
    /// tree search's playouts give, with their number: an estimate, never a value
    /// ([`appraise`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<Estimate>,
}

impl PlyReview {
    /// Ply `ply`'s position, with the move `played` from it, not reviewed yet.
    fn unreviewed(ply: usize, position: Position, played: Option<Move>) -> PlyReview {
        PlyReview {
            ply,
            position,
            reviewed: false,
            value: Verdict::Unknown,
            best_move: None,
            played,
            mark: None,
            better_move: None,
            elapsed: Duration::ZERO,
            nodes: 0,
            from_database: false,
            deduced: false,
            win_in: WinInAnswer::NotAsked,
            slower_win: false,
            estimate: None,
        }
    }

    /// The side to move in this position.
    pub fn to_move(&self) -> Player {
        self.position.side_to_move()
    }
}

/// Why the walk back through the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WalkEnd {
    /// It reached the start.
    Start,
    /// [`ReviewLimits::unknowns_in_a_row`] positions in a row were left unknown.
    Unknowns,
    /// The solver's stop flag was raised (Ctrl-C, SIGTERM).
    Stopped,
}

/// How many unknown positions in a row end a walk back unless told otherwise: past them the
/// positions only get harder.
pub const DEFAULT_UNKNOWNS_IN_A_ROW: usize = 2;

/// The default time limit of each position's solve in a review (the command line's and the
/// Python package's).
pub const DEFAULT_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// When the walk back gives up (each position's own limits are the solver's options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReviewLimits {
    /// Stop after this many unknown positions in a row; `None` walks on to the start.
    pub unknowns_in_a_row: Option<usize>,
}

/// Where the game's result was settled, as far as the reviewed plies show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// The move at this ply was the last mistake or blunder: the value after it held to the end.
    At(usize),
    /// The value is known from this ply on and every move after it kept it, but the value
    /// before it is unknown: the result was settled here or earlier.
    AtOrBefore(usize),
    /// The start's value held through every move.
    FromStart,
    /// The final position's value is unknown itself (a game stopped before its end).
    Unknown,
}

/// A reviewed game: every position from the start to the end, the walk's end, and its cost.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Review {
    /// One entry per position, ply 0 (the start) to the final one.
    pub plies: Vec<PlyReview>,
    /// Why the walk ended.
    pub end: WalkEnd,
    /// Wall time of the whole review.
    pub elapsed: Duration,
    /// Table figures at the end, traffic summed over all solves.
    pub table: TableReport,
}

impl Review {
    /// The earliest ply the walk solved, if any.
    pub fn earliest_reviewed(&self) -> Option<usize> {
        self.plies.iter().find(|p| p.reviewed).map(|p| p.ply)
    }

    /// Positions the walk solved.
    pub fn positions_reviewed(&self) -> usize {
        self.plies.iter().filter(|p| p.reviewed).count()
    }

    /// MID calls over all solves.
    pub fn nodes(&self) -> u64 {
        self.plies.iter().map(|p| p.nodes).sum()
    }

    /// The value of the final position.
    pub fn result(&self) -> Verdict {
        self.plies.last().map_or(Verdict::Unknown, |p| p.value)
    }

    /// The moves marked mistake or blunder, in the order played.
    pub fn errors(&self) -> impl Iterator<Item = &PlyReview> {
        self.plies
            .iter()
            .filter(|p| matches!(p.mark, Some(Mark::Mistake | Mark::Blunder)))
    }

    /// Where the result was settled: walking back from the end over moves that kept the value,
    /// the first move that did not, or the first unknown value.
    pub fn decision(&self) -> Decision {
        if self.result() == Verdict::Unknown {
            return Decision::Unknown;
        }
        for ply in self.plies.iter().rev().skip(1) {
            match ply.mark {
                Some(Mark::Best) => {}
                Some(Mark::Mistake | Mark::Blunder) => return Decision::At(ply.ply),
                Some(Mark::Unknown) | None => return Decision::AtOrBefore(ply.ply + 1),
            }
        }
        Decision::FromStart
    }
}

/// What the walk is doing, for a progress display.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReviewEvent {
    /// The solve of the position at this ply begins.
    Solving {
        /// Its ply.
        ply: usize,
    },
    /// The position at this ply is solved (or left unknown).
    Solved {
        /// Its ply.
        ply: usize,
        /// Its value.
        value: Verdict,
    },
    /// After the walk: the search of the estimate beside this ply's unknown value begins.
    Estimating {
        /// Its ply.
        ply: usize,
    },
}

/// How a value ranks for `player`: a loss 0, a draw 1, a win 2; `None` when unknown.
fn rank_for(value: Verdict, player: Player) -> Option<u8> {
    match value.value_for(player) {
        SolveValue::Loss => Some(0),
        SolveValue::Draw => Some(1),
        SolveValue::Win => Some(2),
        SolveValue::Unknown => None,
    }
}

/// Two answers of a review that cannot both be right: the move played at `ply` raised its
/// mover's value, which no move can do (the value of a position is the best over its moves).
/// One of the two positions' answers is wrong: a wrong fact in the database (`uttt db import`
/// takes facts it cannot check; `uttt db check` finds them), or a bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolvesDisagree {
    /// The ply of the move (the position before it).
    pub ply: usize,
    /// The move played there.
    pub played: Move,
    /// The player who made it.
    pub mover: Player,
    /// The value of the position before the move.
    pub before: Verdict,
    /// The value of the position after it.
    pub after: Verdict,
}

impl fmt::Display for SolvesDisagree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let words = |value: Verdict| match value {
            Verdict::Wins(player) => format!("a win for {player}"),
            Verdict::Draw => "a draw".into(),
            Verdict::DoesNotWin(player) => format!("no win for {player}"),
            Verdict::Unknown => "an unknown value".into(),
        };
        write!(
            f,
            "the solves disagree at ply {} (move {}): {} played {} from {} to {}, but a move \
             cannot raise its mover's value; one of the two answers is wrong (a wrong fact in \
             the database, which `uttt db check` finds, or a bug)",
            self.ply,
            self.ply + 1,
            self.mover,
            self.played,
            words(self.before),
            words(self.after)
        )
    }
}

impl std::error::Error for SolvesDisagree {}

/// The mark of a move by `mover` that took the game from a position of value `before` to one
/// of value `after`; `None` when the move raised its mover's value, which no move can do: the
/// two answers contradict each other (see [`SolvesDisagree`]), and that is not hidden as a
/// good mark.
fn mark_of(mover: Player, before: Verdict, after: Verdict) -> Option<Mark> {
    match (rank_for(before, mover), rank_for(after, mover)) {
        (Some(b), Some(a)) if a == b => Some(Mark::Best),
        (Some(2), Some(0)) => Some(Mark::Blunder),
        (Some(b), Some(a)) if a + 1 == b => Some(Mark::Mistake),
        (Some(_), Some(_)) => None,
        _ => Some(Mark::Unknown),
    }
}

/// Beside each value of `plies` that the walk left unknown where the game goes on, the
/// estimate of a tree search ([`appraise`]) within a quarter of `solver`'s time limit
/// ([`ESTIMATE_TIME_SHARE`]), given any question its solve settled (`known`). Where that search
/// proves the value instead, the ply gets the value and a best move: exact, so it never
/// contradicts the walk's answers, which proved nothing more.
fn add_estimates(
    plies: &mut [PlyReview],
    known: &[Knowledge],
    solver: &Solver<'_>,
    on_event: &mut impl FnMut(ReviewEvent),
) {
    let time = solver.options().time_limit.map(|t| t / ESTIMATE_TIME_SHARE);
    for entry in plies.iter_mut() {
        let open = entry.reviewed && entry.value == Verdict::Unknown && !entry.position.is_over();
        if !open || solver.is_stopped() {
            continue;
        }
        on_event(ReviewEvent::Estimating { ply: entry.ply });
        let cannot_win: Vec<Player> = [Player::X, Player::O]
            .into_iter()
            .filter(|&player| known[entry.ply].get(player) == Some(false))
            .collect();
        let Some(found) = appraise(solver, &entry.position, &cannot_win, time) else {
            return;
        };
        entry.elapsed += found.elapsed;
        entry.nodes += found.nodes;
        if found.verdict.is_answered() {
            entry.value = found.verdict;
            entry.best_move = found.best_move;
        } else {
            entry.estimate = found.estimate;
        }
    }
}

/// Marks each move of the reviewed `plies` by the values on both sides of it (with a better
/// move for a mistake or a blunder, and a winning move that made the win further off
/// flagged); refuses a move whose values contradict each other.
fn mark_moves(plies: &mut [PlyReview]) -> Result<(), SolvesDisagree> {
    for ply in 0..plies.len().saturating_sub(1) {
        let (before, after) = (&plies[ply], &plies[ply + 1]);
        let mover = before.to_move();
        let mark = mark_of(mover, before.value, after.value).ok_or(SolvesDisagree {
            ply,
            played: before
                .played
                .expect("every position but the last has its move"),
            mover,
            before: before.value,
            after: after.value,
        })?;
        let better = matches!(mark, Mark::Mistake | Mark::Blunder)
            .then_some(before.best_move)
            .flatten();
        let exact = |p: &PlyReview| match p.win_in {
            WinInAnswer::Win(WinIn::Exact(plies)) => Some(plies),
            _ => None,
        };
        let slower = mark == Mark::Best
            && before.value == Verdict::Wins(mover)
            && matches!((exact(before), exact(after)), (Some(b), Some(a)) if a + 1 > b);
        plies[ply].mark = Some(mark);
        plies[ply].better_move = better;
        plies[ply].slower_win = slower;
    }
    Ok(())
}

/// Reviews the game of `moves` played from `first` (the empty board of the game's rule set):
/// solves its positions from the last back
/// with `solver` (whose options bound each solve), as far as `limits` allow, telling
/// `on_event` what it does; then marks each move whose positions on both sides were solved.
/// Two answers that contradict each other (a move that raised its mover's value) are an error,
/// since every mark would be in doubt.
///
/// # Panics
/// When a move is illegal where it is played (the caller reads games with the notation's
/// checks).
pub fn review(
    first: &Position,
    moves: &[Move],
    solver: &mut Solver<'_>,
    limits: ReviewLimits,
    on_event: impl FnMut(ReviewEvent),
) -> Result<Review, SolvesDisagree> {
    review_win_in(first, moves, solver, limits, WinInMode::Off, on_event)
}

/// [`review`], each won position with its distance as `mode` asks (within its own solve's
/// limits, after it: see [`Solver::solve_win_in`]), and each winning move that made the win
/// further off flagged ([`PlyReview::slower_win`]).
pub fn review_win_in(
    first: &Position,
    moves: &[Move],
    solver: &mut Solver<'_>,
    limits: ReviewLimits,
    mode: WinInMode,
    mut on_event: impl FnMut(ReviewEvent),
) -> Result<Review, SolvesDisagree> {
    let start = Instant::now();
    let mut positions = vec![*first];
    for &mv in moves {
        let here = positions[positions.len() - 1];
        assert!(here.is_legal(mv), "move {mv} is illegal at {here}");
        positions.push(here.play(mv));
    }
    let mut plies: Vec<PlyReview> = positions
        .iter()
        .enumerate()
        .map(|(ply, &position)| PlyReview::unreviewed(ply, position, moves.get(ply).copied()))
        .collect();
    let mut end = WalkEnd::Start;
    let mut unknowns = 0;
    let mut counters = TableCounters::default();
    let mut known = vec![Knowledge::default(); plies.len()];
    for ply in (0..plies.len()).rev() {
        on_event(ReviewEvent::Solving { ply });
        let next = known.get(ply + 1).copied().unwrap_or_default();
        let entry = &mut plies[ply];
        entry.reviewed = true;
        let settled = settle(solver, &entry.position, entry.played, next);
        known[ply] = settled.known;
        entry.value = settled.known.value();
        entry.best_move = settled.best_move;
        match &settled.report {
            Some(report) => {
                counters.add(&report.table.counters());
                entry.elapsed = report.elapsed;
                entry.nodes = report.nodes;
                entry.from_database = report.database.as_ref().is_some_and(|d| d.answered);
            }
            None => entry.deduced = true,
        }
        if mode != WinInMode::Off {
            entry.win_in = match entry.value {
                Verdict::Wins(winner) => {
                    let options = solver.options();
                    let began = Instant::now();
                    let distance = solver.distance_after(
                        &entry.position,
                        winner,
                        options,
                        entry.nodes,
                        began,
                        mode,
                    );
                    entry.nodes += distance.nodes;
                    entry.elapsed += distance.elapsed;
                    WinInAnswer::Win(distance.win_in)
                }
                _ => WinInAnswer::NoWin,
            };
        }
        on_event(ReviewEvent::Solved {
            ply,
            value: entry.value,
        });
        if solver.is_stopped() {
            end = WalkEnd::Stopped;
            break;
        }
        unknowns = if entry.value == Verdict::Unknown {
            unknowns + 1
        } else {
            0
        };
        if ply > 0
            && limits
                .unknowns_in_a_row
                .is_some_and(|limit| unknowns >= limit)
        {
            end = WalkEnd::Unknowns;
            break;
        }
    }
    if end != WalkEnd::Stopped {
        add_estimates(&mut plies, &known, solver, &mut on_event);
    }
    mark_moves(&mut plies)?;
    Ok(Review {
        plies,
        end,
        elapsed: start.elapsed(),
        table: TableReport::of(solver.table(), &counters),
    })
}

#[cfg(test)]
mod tests;
