//! How soon a win comes: the number of plies to the end of the game with best play, the winner
//! winning as soon as it can and the loser holding out as long as it can (the winning move
//! counts: a side to move that wins at once wins in 1).
//!
//! Found with the depth-bounded questions "does the winner win within N plies?", asked for N
//! from the least upwards; the first N proved is the distance, since every bound below was
//! disproved before it. Under the rule sets where a game is won only by a line of boards, a
//! win falls on one of the winner's moves, so N steps by two: with the winner to move the
//! distance is odd, with the loser to move even (a bound between two of them proves no more
//! than the lower). Where the count of boards decides a game with no line (CodinGame's), the
//! loser's move that closes the last board can end it in the winner's favour, so N steps by
//! one. When a limit stops the questions first, what is proved is a range: at least the least
//! bound not disproved, at most the last ply on which the win can fall before the cells run
//! out.

use super::Solver;
use crate::game::{Player, Position};
use crate::search::options::tighter;
use crate::search::SolveOptions;
use crate::services::report::{SolveReport, Verdict};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// The distance of a proved win, as far as it is proved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WinIn {
    /// Exactly this many plies: a win within them is proved, and none within fewer.
    Exact(u32),
    /// Between `min` and `max` plies: no win within fewer than `min` plies (the least the
    /// questions had not ruled out when a limit stopped them); a win within `max`.
    Range {
        /// The least distance not ruled out.
        min: u32,
        /// The most.
        max: u32,
    },
}

/// How much of a win's distance a solve finds (`--win-in`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WinInMode {
    /// None: the plain solve.
    #[default]
    Off,
    /// What a fifth more of the plain solve's nodes proves (at least [`RANGE_MIN_NODES`]): the
    /// distance if it is short, else a range.
    Range,
    /// The exact distance, within the solve's own limits.
    Exact,
}

/// The least node budget of [`WinInMode::Range`]: a few milliseconds, so that the distance of
/// a win found at once is found too.
pub const RANGE_MIN_NODES: u64 = 10_000;

/// A solve's answer to "how soon?".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum WinInAnswer {
    /// Not asked (`--win-in off`).
    #[default]
    NotAsked,
    /// Asked, but the answer is no win (a draw, or unknown).
    NoWin,
    /// The distance of the win, as far as proved.
    Win(WinIn),
}

impl WinInAnswer {
    /// The answer one ply earlier, for the move that led here: a win's distance counts the
    /// move too.
    pub fn one_ply_earlier(self) -> WinInAnswer {
        match self {
            WinInAnswer::Win(WinIn::Exact(plies)) => WinInAnswer::Win(WinIn::Exact(plies + 1)),
            WinInAnswer::Win(WinIn::Range { min, max }) => WinInAnswer::Win(WinIn::Range {
                min: min + 1,
                max: max + 1,
            }),
            other => other,
        }
    }
}

/// What a distance search may spend, besides its solver's stop flag.
#[derive(Clone, Copy, Debug, Default)]
pub struct DistanceBudget {
    /// When it must end.
    pub deadline: Option<Instant>,
    /// The most nodes over all its questions.
    pub nodes: Option<u64>,
}

/// What a distance search found and cost.
#[derive(Clone, Copy, Debug)]
pub struct Distance {
    /// The distance.
    pub win_in: WinIn,
    /// MID calls over its questions.
    pub nodes: u64,
    /// Its wall time.
    pub elapsed: Duration,
}

/// The least number of plies in which `winner` can win `pos`: 0 once the game is over, else
/// 1, or 2 with the loser to move where only a line wins.
fn least_distance(pos: &Position, winner: Player) -> u32 {
    if pos.is_over() {
        0
    } else if pos.side_to_move() == winner || pos.rules().win_step() == 1 {
        1
    } else {
        2
    }
}

/// The most plies in which `winner` can win `pos`: the last ply a win can fall on (see
/// [`crate::game::Rules::win_step`]) before the board's cells run out.
fn most_distance(pos: &Position, winner: Player) -> u32 {
    let least = least_distance(pos, winner);
    let left = 81u32.saturating_sub(pos.stone_count());
    if left < least {
        least
    } else {
        left - (left - least) % pos.rules().win_step()
    }
}

impl Solver<'_> {
    /// Solves `pos` (see [`Solver::solve`]) and, for a win, finds its distance as `mode`
    /// asks, within what is left of the options' limits; the report's nodes and time include
    /// the distance's.
    pub fn solve_win_in(&mut self, pos: &Position, mode: WinInMode) -> SolveReport {
        let options = self.options;
        self.solve_with_win_in(pos, options, mode)
    }

    /// [`Solver::solve_win_in`] with `options` in place of the solver's.
    pub(in crate::services) fn solve_with_win_in(
        &mut self,
        pos: &Position,
        options: &SolveOptions,
        mode: WinInMode,
    ) -> SolveReport {
        let start = Instant::now();
        let mut report = self.solve_with(pos, options);
        if mode == WinInMode::Off {
            return report;
        }
        let Verdict::Wins(winner) = report.verdict else {
            report.win_in = WinInAnswer::NoWin;
            return report;
        };
        let distance = self.distance_after(pos, winner, options, report.nodes, start, mode);
        report.win_in = WinInAnswer::Win(distance.win_in);
        report.nodes += distance.nodes;
        report.elapsed += distance.elapsed;
        report
    }

    /// The distance of `winner`'s win of `pos`, just proved by a solve with `options` that
    /// began at `start` and took `solve_nodes`, within what is left of the options' limits
    /// and, for [`WinInMode::Range`], a fifth more nodes (at least [`RANGE_MIN_NODES`]).
    pub fn distance_after(
        &mut self,
        pos: &Position,
        winner: Player,
        options: &SolveOptions,
        solve_nodes: u64,
        start: Instant,
        mode: WinInMode,
    ) -> Distance {
        let left = options.node_limit.map(|n| n.saturating_sub(solve_nodes));
        let share = match mode {
            WinInMode::Range => Some((solve_nodes / 5).max(RANGE_MIN_NODES)),
            WinInMode::Exact | WinInMode::Off => None,
        };
        let budget = DistanceBudget {
            deadline: options
                .time_limit
                .and_then(|limit| start.checked_add(limit)),
            nodes: tighter(left, share),
        };
        self.distance_with(pos, winner, options, budget)
    }

    /// The distance of `winner`'s win of `pos`, which the caller has proved (an unbounded
    /// solve's `Wins(winner)`), within `budget` (see the module's comment).
    pub fn distance_to_win(
        &mut self,
        pos: &Position,
        winner: Player,
        budget: DistanceBudget,
    ) -> Distance {
        let options = self.options;
        self.distance_with(pos, winner, options, budget)
    }

    /// [`Solver::distance_to_win`] with `options` (their engine and tuning; the limits are
    /// `budget`'s) in place of the solver's.
    fn distance_with(
        &mut self,
        pos: &Position,
        winner: Player,
        options: &SolveOptions,
        budget: DistanceBudget,
    ) -> Distance {
        let start = Instant::now();
        let most = most_distance(pos, winner);
        let mut plies = least_distance(pos, winner);
        let step = pos.rules().win_step();
        let mut nodes = 0u64;
        let win_in = loop {
            if plies >= most || pos.is_over() {
                // The unbounded win, which the caller proved, is a win within `most`.
                break WinIn::Exact(plies.min(most));
            }
            let options = SolveOptions {
                attacker: Some(winner),
                max_plies: Some(plies),
                time_limit: budget
                    .deadline
                    .map(|deadline| deadline.saturating_duration_since(Instant::now())),
                node_limit: budget.nodes.map(|most| most.saturating_sub(nodes)),
                ..options.clone()
            };
            if options.time_limit == Some(Duration::ZERO) || options.node_limit == Some(0) {
                break WinIn::Range {
                    min: plies,
                    max: most,
                };
            }
            let report = self.solve_with(pos, &options);
            nodes += report.nodes;
            match report.verdict {
                Verdict::Wins(player) if player == winner => break WinIn::Exact(plies),
                Verdict::DoesNotWin(_) | Verdict::Wins(_) | Verdict::Draw => plies += step,
                Verdict::Unknown => {
                    break WinIn::Range {
                        min: plies,
                        max: most,
                    }
                }
            }
        };
        Distance {
            win_in,
            nodes,
            elapsed: start.elapsed(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bounds_follow_the_parity_of_who_moves() {
        let start = Position::start();
        assert_eq!(least_distance(&start, Player::X), 1);
        assert_eq!(least_distance(&start, Player::O), 2);
        // 81 cells: X's wins fall on odd plies, the last being 81.
        assert_eq!(most_distance(&start, Player::X), 81);
        assert_eq!(most_distance(&start, Player::O), 80);
        let after: Position = "ee".parse().unwrap();
        // 80 cells left, O to move: O's wins on odd plies (79 at most), X's on even (80).
        assert_eq!(most_distance(&after, Player::O), 79);
        assert_eq!(most_distance(&after, Player::X), 80);
        // Where the count of boards decides, a win can fall on any ply.
        let codingame = Position::start_under(crate::game::Rules::CodinGame);
        assert_eq!(least_distance(&codingame, Player::O), 1);
        assert_eq!(most_distance(&codingame, Player::O), 81);
    }
}
