//! Trapped: the side to move has no move that escapes the opponent's win in two. The attacker's
//! threats of the send rule, one ply deeper than the win in two: wherever the defender goes, the
//! board it sends the attacker to hands the attacker a forcing move.

use super::{safe_moves, win_in_two};
use crate::game::{MoveSet, Position};

/// Whether every move of `safe` (the side to move's [`safe_moves`]) lets the opponent win in
/// two ([`win_in_two`]); true for an empty `safe`.
///
/// Proof that the opponent then wins: a legal move outside `safe` hands the opponent a win at
/// once ([`safe_moves`]). After a move of `safe` the game is still in play (checked) and the
/// opponent, to move, has a win in two: a safe move after which every reply lets it win at
/// once (the proof is [`win_in_two`]'s). So every legal move of the side to move ends in the
/// opponent's win within three plies; a win meets the opponent's goal as attacker or as
/// defender. (A move that ends the game, with a win of the side to move, a full board or,
/// under CodinGame's rules, a count, is safe and leaves the game over: never trapped.) The
/// proof reads only the rules of the moves and of lines of won boards, as those two rules'
/// proofs do, so it holds under every rule set; a question with a ply bound needs the three
/// plies within its bound, and [`super::evaluate`] asks this only with four or more left.
///
/// Cost: the moves of `safe` are played out one by one until one escapes; each costs the
/// opponent's safe moves and its win in two there, which turns most of its moves away by
/// masks alone.
pub fn trapped(pos: &Position, safe: MoveSet) -> bool {
    safe.into_iter().all(|mv| {
        let after = pos.play(mv);
        !after.is_over() && win_in_two(&after, safe_moves(&after)).is_some()
    })
}
