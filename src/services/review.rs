//! Game review: where a game was won and lost. The positions of a game are solved from its end
//! backwards, each solve against the same table (and database) as the later ones, so that it
//! starts from what they learned, and bounded by the value of the position after it (see
//! `settle`); each move played is then marked by what it did to the value of the position for
//! the player who made it.

use crate::game::{Move, Player, Position};
use crate::services::{SolveReport, SolveValue, Solver, TableReport, Verdict};
use crate::table::TableCounters;
use serde::{Deserialize, Serialize};
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
}

impl PlyReview {
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
}

/// The value a solve settled: a win or a draw, else unknown (a review asks both questions, so
/// a single question's answer never comes back; if it did, it would not settle the value).
fn settled_value(report: &SolveReport) -> Verdict {
    match report.verdict {
        Verdict::Wins(_) | Verdict::Draw => report.verdict,
        Verdict::DoesNotWin(_) | Verdict::Unknown => Verdict::Unknown,
    }
}

/// How a position's value was found.
enum Settled {
    /// It is the next position's: the move played keeps its mover's win.
    Deduced,
    /// By a solve (or the database), with the value it settles and a move that keeps it.
    Solved(Box<SolveReport>, Verdict, Option<Move>),
}

/// Settles `pos`, where `played` was played to reach a position of value `next`. A move can
/// only lower its mover's value, so the next position's value bounds this one's from below
/// for the mover: if it is a win for the mover, so is `pos` (no search); if it is a draw,
/// the opponent cannot win `pos`, and the one question "does the mover win?" settles it (a
/// "no" is a draw). Otherwise `pos` gets a full solve; after a loss for the mover it asks
/// first whether the opponent wins, since a move played is rarely a blunder, and a "yes"
/// makes the other question needless.
fn settle(solver: &mut Solver<'_>, pos: &Position, played: Option<Move>, next: Verdict) -> Settled {
    let mover = pos.side_to_move();
    match (played, next.value_for(mover)) {
        (Some(_), SolveValue::Win) => Settled::Deduced,
        (Some(_), SolveValue::Draw) => {
            let report = solver.solve_question(pos, mover);
            // A "no" leaves every move short of a win; the move played keeps the draw.
            let (value, best) = match report.verdict {
                Verdict::Wins(winner) => (Verdict::Wins(winner), report.best_move),
                Verdict::DoesNotWin(_) => (Verdict::Draw, played),
                Verdict::Draw | Verdict::Unknown => (Verdict::Unknown, None),
            };
            Settled::Solved(Box::new(report), value, best)
        }
        (played, next_for_mover) => {
            let report = if played.is_some() && next_for_mover == SolveValue::Loss {
                solver.solve_asking_first(pos, mover.opponent())
            } else {
                solver.solve(pos)
            };
            let value = settled_value(&report);
            let best = report.best_move.filter(|_| value != Verdict::Unknown);
            Settled::Solved(Box::new(report), value, best)
        }
    }
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

/// The mark of a move by `mover` that took the game from a position of value `before` to one
/// of value `after`. A move cannot raise its mover's value (the value is the best over the
/// moves); a solver that says otherwise has a bug, which is not hidden as a good mark.
fn mark_of(mover: Player, before: Verdict, after: Verdict) -> Mark {
    match (rank_for(before, mover), rank_for(after, mover)) {
        (Some(b), Some(a)) if a == b => Mark::Best,
        (Some(2), Some(0)) => Mark::Blunder,
        (Some(b), Some(a)) if a + 1 == b => Mark::Mistake,
        (Some(b), Some(a)) => panic!(
            "a move by {mover} raised its value from rank {b} to {a}: the solves contradict each other"
        ),
        _ => Mark::Unknown,
    }
}

/// Reviews the game of `moves` played from the start: solves its positions from the last back
/// with `solver` (whose options bound each solve), as far as `limits` allow, telling
/// `on_event` what it does; then marks each move whose positions on both sides were solved.
///
/// # Panics
/// When a move is illegal where it is played (the caller reads games with the notation's
/// checks), or when two solves contradict each other (see `mark_of`).
pub fn review(
    moves: &[Move],
    solver: &mut Solver<'_>,
    limits: ReviewLimits,
    mut on_event: impl FnMut(ReviewEvent),
) -> Review {
    let start = Instant::now();
    let mut positions = vec![Position::start()];
    for &mv in moves {
        let here = positions[positions.len() - 1];
        assert!(here.is_legal(mv), "move {mv} is illegal at {here}");
        positions.push(here.play(mv));
    }
    let mut plies: Vec<PlyReview> = positions
        .iter()
        .enumerate()
        .map(|(ply, &position)| PlyReview {
            ply,
            position,
            reviewed: false,
            value: Verdict::Unknown,
            best_move: None,
            played: moves.get(ply).copied(),
            mark: None,
            better_move: None,
            elapsed: Duration::ZERO,
            nodes: 0,
            from_database: false,
            deduced: false,
        })
        .collect();
    let mut end = WalkEnd::Start;
    let mut unknowns = 0;
    let mut counters = TableCounters::default();
    for ply in (0..plies.len()).rev() {
        on_event(ReviewEvent::Solving { ply });
        let next = plies
            .get(ply + 1)
            .map_or(Verdict::Unknown, |next| next.value);
        let entry = &mut plies[ply];
        entry.reviewed = true;
        match settle(solver, &entry.position, entry.played, next) {
            Settled::Deduced => {
                entry.value = next;
                entry.best_move = entry.played;
                entry.deduced = true;
            }
            Settled::Solved(report, value, best) => {
                counters.add(&report.table.counters());
                entry.value = value;
                entry.best_move = best;
                entry.elapsed = report.elapsed;
                entry.nodes = report.nodes;
                entry.from_database = report.database.as_ref().is_some_and(|d| d.answered);
            }
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
    for ply in 0..plies.len() - 1 {
        let (before, after) = (&plies[ply], &plies[ply + 1]);
        let mark = mark_of(before.to_move(), before.value, after.value);
        let better = matches!(mark, Mark::Mistake | Mark::Blunder)
            .then_some(before.best_move)
            .flatten();
        plies[ply].mark = Some(mark);
        plies[ply].better_move = better;
    }
    Review {
        plies,
        end,
        elapsed: start.elapsed(),
        table: TableReport::of(solver.table(), &counters),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_follow_the_movers_value() {
        use Verdict::{Draw, Unknown, Wins};
        let (x, o) = (Player::X, Player::O);
        assert_eq!(mark_of(x, Wins(x), Wins(x)), Mark::Best);
        assert_eq!(mark_of(x, Wins(x), Draw), Mark::Mistake);
        assert_eq!(mark_of(x, Wins(x), Wins(o)), Mark::Blunder);
        assert_eq!(mark_of(x, Draw, Wins(o)), Mark::Mistake);
        assert_eq!(mark_of(x, Draw, Draw), Mark::Best);
        assert_eq!(mark_of(x, Wins(o), Wins(o)), Mark::Best);
        assert_eq!(mark_of(o, Wins(o), Draw), Mark::Mistake);
        assert_eq!(mark_of(o, Draw, Wins(x)), Mark::Mistake);
        assert_eq!(mark_of(o, Wins(o), Wins(x)), Mark::Blunder);
        assert_eq!(mark_of(x, Unknown, Draw), Mark::Unknown);
        assert_eq!(mark_of(x, Wins(x), Unknown), Mark::Unknown);
    }

    #[test]
    #[should_panic(expected = "contradict")]
    fn a_move_that_raises_its_movers_value_is_a_contradiction() {
        mark_of(Player::X, Verdict::Draw, Verdict::Wins(Player::X));
    }
}
