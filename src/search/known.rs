//! The database of solved positions from the search's side: answering a solve from stored
//! facts, and turning a solve's answers into facts to store.

use super::options::SolveOptions;
use super::report::{BinaryOutcome, SolveReport, Verdict};
use crate::db::{Fact, Known, Source};
use crate::game::{Move, Position};
use std::time::{SystemTime, UNIX_EPOCH};

/// How a solver uses the database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StorePolicy {
    /// A binary answer is stored when its search took at least this many MID calls.
    pub min_work: u64,
    /// What the stored facts say found them.
    pub source: Source,
}

/// The verdict and best move `known` gives `pos` for the question(s) `options` asks, if it
/// answers them and knows a best move; `None` otherwise (then the position is searched).
///
/// For "does A win?" alone: A's stored answer, or the other player's stored win (then A does
/// not win). For the value: the side to move's win, else the other player's win, else both
/// answers "no" (a draw). The best move is the one stored with the deciding answer (see
/// [`facts_of`]).
pub fn verdict_from(
    pos: &Position,
    options: &SolveOptions,
    known: &Known,
) -> Option<(Verdict, Move)> {
    let side = pos.side_to_move();
    let (verdict, deciding) = match options.attacker {
        Some(attacker) => match (known.of(attacker), known.of(attacker.opponent())) {
            (Some(answer), _) if answer.wins => (Verdict::Wins(attacker), answer),
            (Some(answer), _) => (Verdict::DoesNotWin(attacker), answer),
            (None, Some(other)) if other.wins => (Verdict::DoesNotWin(attacker), other),
            _ => return None,
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
/// answered with at least `policy.min_work` MID calls. The report's best move goes with the last
/// search's answer, which decided the verdict (a win proved, the second "no" of a draw, the one
/// answer of a single question).
pub fn facts_of(report: &SolveReport, policy: StorePolicy) -> Vec<Fact> {
    let created = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let last = report.searches.len().saturating_sub(1);
    report
        .searches
        .iter()
        .enumerate()
        .filter(|(_, s)| s.outcome != BinaryOutcome::Unknown && s.nodes >= policy.min_work)
        .map(|(i, s)| Fact {
            position: report.position,
            attacker: s.attacker,
            wins: s.outcome == BinaryOutcome::Proved,
            work: s.nodes,
            best_move: if i == last && report.verdict.is_answered() {
                report.best_move
            } else {
                None
            },
            source: policy.source,
            created,
        })
        .collect()
}
