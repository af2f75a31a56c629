//! Settling one position of a reviewed game: what is known of it from the position after it,
//! and the one solve (or none) that the rest needs.

use crate::game::{Move, Player, Position};
use crate::services::report::{BinaryOutcome, SolveReport, Verdict};
use crate::services::solve::Solver;

/// What is known of a position: the answers to "does X win?" and "does O win?" (indexed by
/// [`Player::index`]), `None` while open. Both "no" is a draw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Knowledge {
    wins: [Option<bool>; 2],
}

impl Knowledge {
    /// The answer to "does `player` win?", if known.
    pub(super) fn get(self, player: Player) -> Option<bool> {
        self.wins[player.index()]
    }

    pub(super) fn set(&mut self, player: Player, wins: bool) {
        self.wins[player.index()] = Some(wins);
    }

    /// The value, where the answers settle it.
    pub(super) fn value(self) -> Verdict {
        match self.wins {
            [Some(true), _] => Verdict::Wins(Player::X),
            [_, Some(true)] => Verdict::Wins(Player::O),
            [Some(false), Some(false)] => Verdict::Draw,
            _ => Verdict::Unknown,
        }
    }

    /// Adds what a solve answered: its verdict, and each binary search it finished (a solve
    /// that a limit ended may still have answered one question).
    pub(super) fn learn(&mut self, report: &SolveReport) {
        for search in &report.searches {
            match search.outcome {
                BinaryOutcome::Proved => self.set(search.attacker, true),
                BinaryOutcome::Disproved => self.set(search.attacker, false),
                BinaryOutcome::Unknown => {}
            }
        }
        match report.verdict {
            Verdict::Wins(player) => self.set(player, true),
            Verdict::DoesNotWin(player) => self.set(player, false),
            Verdict::Draw => self.wins = [Some(false), Some(false)],
            Verdict::Unknown => {}
        }
    }

    /// What the position before a move by `mover` knows from the position after it (`next`)
    /// before any search. A move can only lower its mover's value, and the move played is
    /// one of the mover's choices: if the mover wins after it, the mover wins before it; if
    /// the opponent does not win after it, the opponent does not win before it.
    fn before_move(mover: Player, next: Knowledge) -> Knowledge {
        let mut known = Knowledge::default();
        if next.get(mover) == Some(true) {
            known.set(mover, true);
        }
        if next.get(mover.opponent()) == Some(false) {
            known.set(mover.opponent(), false);
        }
        known
    }
}

/// How a position was settled: what is known of it, a move that keeps its value (when
/// known), and the solve that ran (none when the next position settled it).
pub(super) struct Settled {
    pub(super) known: Knowledge,
    pub(super) best_move: Option<Move>,
    pub(super) report: Option<SolveReport>,
}

/// Settles `pos`, where `played` was played to reach a position of which `next` is known.
/// What the next position settles (see [`Knowledge::before_move`]) is not searched again: a
/// mover's win needs no search, and where the opponent cannot win the one question "does the
/// mover win?" settles the position (a "no" is a draw). Otherwise `pos` gets a full solve,
/// which asks first whether the opponent wins when the opponent wins the next position (a
/// move played is rarely a blunder, and a "yes" makes the other question needless).
pub(super) fn settle(
    solver: &mut Solver<'_>,
    pos: &Position,
    played: Option<Move>,
    next: Knowledge,
) -> Settled {
    let mover = pos.side_to_move();
    let prior = match played {
        Some(_) => Knowledge::before_move(mover, next),
        None => Knowledge::default(),
    };
    if prior.value() != Verdict::Unknown {
        return Settled {
            known: prior,
            best_move: played,
            report: None,
        };
    }
    let report = if prior.get(mover.opponent()) == Some(false) {
        solver.solve_question(pos, mover)
    } else if played.is_some() && next.get(mover.opponent()) == Some(true) {
        solver.solve_asking_first(pos, mover.opponent())
    } else {
        solver.solve(pos)
    };
    let mut known = prior;
    known.learn(&report);
    let value = known.value();
    let best_move = if value == Verdict::Unknown {
        None
    } else if report.verdict == value {
        report.best_move
    } else {
        // Settled with the next position's answer: the move played keeps the value.
        played
    };
    Settled {
        known,
        best_move,
        report: Some(report),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_knows_what_the_move_played_keeps() {
        let (x, o) = (Player::X, Player::O);
        let mut next = Knowledge::default();
        next.set(x, true);
        assert_eq!(Knowledge::before_move(x, next).value(), Verdict::Wins(x));
        assert_eq!(Knowledge::before_move(o, next), Knowledge::default());
        let mut next = Knowledge::default();
        next.set(o, false);
        let before = Knowledge::before_move(x, next);
        assert_eq!((before.get(x), before.get(o)), (None, Some(false)));
        assert_eq!(Knowledge::before_move(o, next), Knowledge::default());
        let draw = Knowledge {
            wins: [Some(false), Some(false)],
        };
        assert_eq!(draw.value(), Verdict::Draw);
        let before = Knowledge::before_move(x, draw);
        assert_eq!((before.get(x), before.get(o)), (None, Some(false)));
    }
}
