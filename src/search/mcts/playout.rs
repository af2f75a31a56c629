//! Playouts: a game played out from a leaf of the tree to its end by a cheap policy that is not
//! blind. It takes a winning move when there is one and never hands the opponent a win on its
//! next move while another move exists. Both are mask tests ([`immediate_win`],
//! [`safe_moves`]), cheap enough for every ply; the static rules' full evaluation is not.

use super::bounds::Score;
use crate::game::{MoveSet, Position, Rng};
use crate::search::rules::{immediate_win, safe_moves};

/// Plays `pos` out to the end of the game with the policy above, choosing uniformly among the
/// moves it allows with `rng`; returns the final score.
pub fn playout(pos: &Position, rng: &mut Rng) -> Score {
    let mut pos = *pos;
    loop {
        if let Some(score) = Score::of_outcome(pos.outcome()) {
            return score;
        }
        let mv = match immediate_win(&pos) {
            Some(win) => win,
            None => {
                let safe = safe_moves(&pos);
                // Every move hands the opponent a win: any of them will do.
                let pool = if safe.is_empty() {
                    pos.legal_moves()
                } else {
                    safe
                };
                random_member(pool, rng)
            }
        };
        pos = pos.play(mv);
    }
}

/// A uniformly chosen move of `moves`, which is not empty.
pub fn random_member(moves: MoveSet, rng: &mut Rng) -> crate::game::Move {
    let mut index = rng.below(moves.len());
    let low = moves.0 as u64;
    let low_count = low.count_ones() as usize;
    let (mut bits, offset) = if index < low_count {
        (low, 0)
    } else {
        index -= low_count;
        ((moves.0 >> 64) as u64, 64)
    };
    for _ in 0..index {
        bits &= bits - 1;
    }
    crate::game::Move::from_square(offset + bits.trailing_zeros() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::parse_position;

    #[test]
    fn random_members_are_members_and_each_is_drawn() {
        let moves = MoveSet((1u128 << 3) | (1u128 << 63) | (1u128 << 64) | (1u128 << 80));
        let mut rng = Rng::new(5);
        let mut seen = MoveSet::EMPTY;
        for _ in 0..200 {
            let mv = random_member(moves, &mut rng);
            assert!(moves.contains(mv));
            seen.0 |= 1u128 << mv.square();
        }
        assert_eq!(seen, moves);
    }

    #[test]
    fn a_playout_takes_the_winning_move() {
        // X has won boards a and b and plays anywhere: completing board c wins at once.
        let pos = parse_position(
            "X;XX.......;XXX....../XXX....../XX......./O..O...../.O..O..../..O..O.../O.......O/........./.........",
        )
        .unwrap();
        for seed in 0..50 {
            assert_eq!(playout(&pos, &mut Rng::new(seed)), Score::X_WINS);
        }
    }

    #[test]
    fn playouts_reach_an_end_from_the_start() {
        let mut rng = Rng::new(1);
        let mut counts = [0; 3];
        for _ in 0..300 {
            counts[playout(&Position::start(), &mut rng).index()] += 1;
        }
        assert!(counts.iter().all(|&n| n > 0), "{counts:?}");
    }
}
