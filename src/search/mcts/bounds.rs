//! Score bounds: what is proved of a node's value over the game's three outcomes, and how
//! proofs back up through the tree exactly (score-bounded MCTS, Cazenave & Saffidine 2010).

use crate::game::{Outcome, Player};
use serde::{Deserialize, Serialize};

/// A game result on X's scale: 0 O wins, 1 draw, 2 X wins. X prefers higher scores, O lower.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash, Serialize, Deserialize)]
pub struct Score(u8);

impl Score {
    /// O wins.
    pub const O_WINS: Score = Score(0);
    /// A draw.
    pub const DRAW: Score = Score(1);
    /// X wins.
    pub const X_WINS: Score = Score(2);
    /// Every score, O's win first: [`Score::index`] counts them.
    pub const ALL: [Score; 3] = [Score::O_WINS, Score::DRAW, Score::X_WINS];

    /// `player`'s win.
    pub fn win_for(player: Player) -> Score {
        match player {
            Player::X => Score::X_WINS,
            Player::O => Score::O_WINS,
        }
    }

    /// The score of a finished game (`None` while it is in play).
    pub fn of_outcome(outcome: Outcome) -> Option<Score> {
        match outcome {
            Outcome::InPlay => None,
            Outcome::Won(winner) => Some(Score::win_for(winner)),
            Outcome::Draw => Some(Score::DRAW),
        }
    }

    /// 0, 1 or 2: the index of per-outcome counts.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// What the score is worth to `player`: a win 1, a draw ½, a loss 0.
    pub fn reward_for(self, player: Player) -> f64 {
        let for_x = f64::from(self.0) / 2.0;
        match player {
            Player::X => for_x,
            Player::O => 1.0 - for_x,
        }
    }

    /// Whether `player` prefers this score to `other`.
    pub fn better_for(self, player: Player, other: Score) -> bool {
        match player {
            Player::X => self > other,
            Player::O => self < other,
        }
    }
}

/// What is proved of a node's value: it lies in `low..=high` on X's scale. Both ends meet when
/// the value is proved; `low` = draw says "O cannot win", `high` = draw "X cannot win".
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Bounds {
    /// The least value the node can have.
    pub low: Score,
    /// The greatest value the node can have.
    pub high: Score,
}

impl Bounds {
    /// Nothing proved.
    pub const UNKNOWN: Bounds = Bounds {
        low: Score::O_WINS,
        high: Score::X_WINS,
    };

    /// A proved value.
    pub fn exact(score: Score) -> Bounds {
        Bounds {
            low: score,
            high: score,
        }
    }

    /// The proved value, if both ends meet.
    pub fn value(self) -> Option<Score> {
        (self.low == self.high).then_some(self.low)
    }

    /// Whether the value is proved.
    pub fn is_exact(self) -> bool {
        self.low == self.high
    }

    /// Both facts at once: the tighter end of each side. Two sound bounds of one node always
    /// overlap (its true value lies in both).
    pub fn meet(self, other: Bounds) -> Bounds {
        let met = Bounds {
            low: self.low.max(other.low),
            high: self.high.min(other.high),
        };
        debug_assert!(met.low <= met.high, "{self:?} and {other:?} contradict");
        met
    }

    /// "`player` cannot win" as a bound.
    pub fn cannot_win(player: Player) -> Bounds {
        match player {
            Player::X => Bounds {
                high: Score::DRAW,
                ..Bounds::UNKNOWN
            },
            Player::O => Bounds {
                low: Score::DRAW,
                ..Bounds::UNKNOWN
            },
        }
    }

    /// Whether `player` may still win: its win is within the bounds.
    pub fn allows_win(self, player: Player) -> bool {
        match player {
            Player::X => self.high == Score::X_WINS,
            Player::O => self.low == Score::O_WINS,
        }
    }

    /// The bounds of a node whose side to move is `mover`, from its children's (every legal
    /// move worth playing; at least one).
    ///
    /// Proof. The node's value is the best of its children's values for the mover (the
    /// greatest for X, the least for O), and "best of" is monotone in each argument. Each
    /// child's value lies within its bounds, so the best of the values lies between the best
    /// of the lower ends and the best of the upper ends. This gives the backing-up rules: a
    /// child proved won for the mover proves the node (the best upper and lower end are
    /// both the win); children all proved lost prove the node lost; children all proved, the
    /// best a draw, prove a draw; and a bound such as "X cannot win" in every child of an
    /// X node ("every upper end is a draw") is the node's bound.
    pub fn of_children(mover: Player, children: impl IntoIterator<Item = Bounds>) -> Bounds {
        let mut children = children.into_iter();
        let first = children
            .next()
            .expect("a node in play has a move worth playing");
        children.fold(first, |best, child| match mover {
            Player::X => Bounds {
                low: best.low.max(child.low),
                high: best.high.max(child.high),
            },
            Player::O => Bounds {
                low: best.low.min(child.low),
                high: best.high.min(child.high),
            },
        })
    }

    /// Whether a child with these bounds can no longer change its parent's value, which
    /// `parent` bounds and whose side to move is `mover`: it is proved (nothing to learn), or
    /// its best for the mover is no better than what the mover is already sure of. Such a
    /// child is never sampled again.
    ///
    /// Proof that the parent's value does not depend on such a child: the parent's value is
    /// the mover's best over its children, at least the parent's lower end for the mover
    /// (X: `parent.low`). A child whose value is at most that end can change the best only
    /// by being the best, and then the best equals the end, which another child already
    /// guarantees or the parent's own static proof does; so its exact value never matters.
    pub fn settled_for(self, parent: Bounds, mover: Player) -> bool {
        self.is_exact()
            || match mover {
                Player::X => self.high <= parent.low,
                Player::O => self.low >= parent.high,
            }
    }

    /// `score` held within these bounds: a playout's result below a node whose value is
    /// known to be at least a draw counts as a draw, and so on.
    pub fn clamp(self, score: Score) -> Score {
        score.max(self.low).min(self.high)
    }

    /// `reward` (for `player`: a win 1, a draw ½) held within what these bounds allow.
    pub fn clamp_reward(self, reward: f64, player: Player) -> f64 {
        let (a, b) = (self.low.reward_for(player), self.high.reward_for(player));
        reward.clamp(a.min(b), a.max(b))
    }

    /// What is proved, in words, when the value is not: "X cannot win", "O cannot win", or
    /// `None` when nothing (or everything) is proved.
    pub fn words(self) -> Option<&'static str> {
        if self.is_exact() {
            return None;
        }
        match (self.low, self.high) {
            (_, Score::DRAW) => Some("X cannot win"),
            (Score::DRAW, _) => Some("O cannot win"),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_bounds() -> Vec<Bounds> {
        let mut all = Vec::new();
        for low in Score::ALL {
            for high in Score::ALL {
                if low <= high {
                    all.push(Bounds { low, high });
                }
            }
        }
        all
    }

    #[test]
    fn children_bounds_contain_every_value_they_allow() {
        // For every pair of children's bounds and every pair of values within them, the
        // parent's value (the mover's best) lies within the backed-up bounds, and both ends
        // are reached by some choice of values (the bounds are as tight as they can be).
        for mover in [Player::X, Player::O] {
            for a in all_bounds() {
                for b in all_bounds() {
                    let parent = Bounds::of_children(mover, [a, b]);
                    let mut reached = Vec::new();
                    for va in Score::ALL
                        .into_iter()
                        .filter(|s| a.low <= *s && *s <= a.high)
                    {
                        for vb in Score::ALL
                            .into_iter()
                            .filter(|s| b.low <= *s && *s <= b.high)
                        {
                            let best = if va.better_for(mover, vb) { va } else { vb };
                            assert!(parent.low <= best && best <= parent.high);
                            reached.push(best);
                        }
                    }
                    assert!(reached.contains(&parent.low) && reached.contains(&parent.high));
                }
            }
        }
    }

    #[test]
    fn a_settled_child_never_decides_its_parent() {
        // Whatever value a settled child takes, the parent's value is the same as the best of
        // the others (or the parent's sure end, which its other children give).
        for mover in [Player::X, Player::O] {
            for a in all_bounds() {
                for b in all_bounds() {
                    let parent = Bounds::of_children(mover, [a, b]);
                    if !a.settled_for(parent, mover) || a.is_exact() {
                        continue;
                    }
                    for vb in Score::ALL
                        .into_iter()
                        .filter(|s| b.low <= *s && *s <= b.high)
                    {
                        let values: Vec<Score> = Score::ALL
                            .into_iter()
                            .filter(|s| a.low <= *s && *s <= a.high)
                            .map(|va| if va.better_for(mover, vb) { va } else { vb })
                            .collect();
                        assert!(values.windows(2).all(|w| w[0] == w[1]), "{a:?} {b:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn words_name_the_one_proved_side() {
        assert_eq!(Bounds::cannot_win(Player::X).words(), Some("X cannot win"));
        assert_eq!(Bounds::cannot_win(Player::O).words(), Some("O cannot win"));
        assert_eq!(Bounds::UNKNOWN.words(), None);
        assert_eq!(Bounds::exact(Score::DRAW).words(), None);
        assert_eq!(
            Bounds::cannot_win(Player::X).meet(Bounds::cannot_win(Player::O)),
            Bounds::exact(Score::DRAW)
        );
        assert_eq!(
            Bounds::cannot_win(Player::X).clamp(Score::X_WINS),
            Score::DRAW
        );
    }
}
