//! What the searches do with proof and disproof numbers: the initial estimates of a new
//! node, the 1+ε trick, choosing the most-proving child and its thresholds. The numbers
//! themselves, and their saturating sum, are the table's ([`crate::table::numbers`]).

pub use crate::table::numbers::{add, Numbers, INFINITY, MAX_FINITE};

use super::rules::OpenNode;

/// The numbers of a position not yet searched, estimated from what the static rules saw
/// there (df-pn+ style). Any positive estimates keep DFPN sound: they only steer which leaf is
/// expanded next.
///
/// In the attacker's terms (its proof number pn, its disproof number dn), each side's number
/// is built the same way from that side's point of view:
/// * **Mobility**: the side to move needs one good move, its opponent must refute them all, so
///   the side to move's number is 1 and the other is 2 · (moves worth searching).
/// * **Live lines**: each number is multiplied by the count of big-board lines the *other*
///   side could still complete. A disproof ends only when every line of the attacker is
///   spoiled (the dead-attacker rule) or the game ends, so each live line of the attacker is
///   more the defender must do; symmetrically, each live line of the defender is a way for it
///   to win (which disproves the attacker as surely) that a proof must keep shut. Under a ply
///   bound the attacker's lines are those it can still complete in time, each weighed by the
///   moves it leaves to spare ([`super::rules::room_in_time`]): a line with no move to spare
///   is spoiled by one defender stone.
/// * **Threats**: when the attacker has a winning board (see
///   [`super::rules::winning_boards`]) its mobility part of pn is halved (rounded up) before the
///   line factor, and when the defender has one, dn is halved after it: that side may end the
///   game itself.
///
/// Each part, and the order of halving and the line factor, was chosen by DFPN node counts
/// (`scripts/compare-nodes.sh`; the figures are in BENCHMARKS.md).
pub fn initial_numbers(node: &OpenNode) -> Numbers {
    let mobility = 2 * node.moves.len() as u32;
    let (mut pn, mut dn) = if node.attacker_to_move {
        (1, mobility)
    } else {
        (mobility, 1)
    };
    if node.attacker_threatens {
        pn = pn.div_ceil(2);
    }
    pn *= node.defender_lines.max(1);
    dn *= node.attacker_lines.max(1);
    if node.defender_threatens {
        dn = dn.div_ceil(2);
    }
    side_to_move_numbers(pn, dn, node.attacker_to_move)
}

/// A node's numbers for its side to move, from the attacker's proof number `pn` and disproof
/// number `dn`: φ is the attacker's proof number where the attacker is to move, its disproof
/// number where the defender is.
#[inline]
pub fn side_to_move_numbers(pn: u32, dn: u32, attacker_to_move: bool) -> Numbers {
    if attacker_to_move {
        Numbers { phi: pn, delta: dn }
    } else {
        Numbers { phi: dn, delta: pn }
    }
}

/// The attacker's (proof, disproof) numbers in `numbers`, a node's numbers for its side to
/// move (the inverse of [`side_to_move_numbers`]).
#[inline]
pub fn attacker_numbers(numbers: Numbers, attacker_to_move: bool) -> (u32, u32) {
    if attacker_to_move {
        (numbers.phi, numbers.delta)
    } else {
        (numbers.delta, numbers.phi)
    }
}

/// The threshold just above `delta2` by the 1+ε trick: `ceil(delta2 · (1 + ε))`, at least
/// `delta2 + 1`, saturating at [`MAX_FINITE`] (∞ stays ∞).
pub fn one_plus_epsilon(delta2: u32, epsilon: f64) -> u32 {
    if delta2 >= MAX_FINITE {
        return delta2;
    }
    let grown = (f64::from(delta2) * (1.0 + epsilon)).ceil();
    let grown = if grown >= f64::from(MAX_FINITE) {
        MAX_FINITE
    } else {
        grown as u32
    };
    grown.max(delta2 + 1)
}

/// The outcome of choosing the most-proving child.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Selection {
    /// Index of the child with the smallest δ (the first on ties).
    pub best: usize,
    /// The second smallest δ (∞ with a single child).
    pub delta2: u32,
    /// The sum of the other children's φ (saturating).
    pub others_phi: u32,
    /// The parent's numbers: φ = min δ over children, δ = sum of φ over children.
    pub parent: Numbers,
}

/// Chooses the most-proving of `count` children (at least one), whose numbers for their own
/// side to move `numbers(i)` gives.
pub fn select_child(count: usize, numbers: impl Fn(usize) -> Numbers) -> Selection {
    let (mut best, mut delta1, mut delta2, mut phi_sum) = (0, INFINITY, INFINITY, 0);
    for i in 0..count {
        let n = numbers(i);
        if n.delta < delta1 {
            delta2 = delta1;
            delta1 = n.delta;
            best = i;
        } else if n.delta < delta2 {
            delta2 = n.delta;
        }
        phi_sum = add(phi_sum, n.phi);
    }
    let best_numbers = numbers(best);
    // A saturated sum cannot be un-added: recount without the best child then.
    let others_phi = if phi_sum < MAX_FINITE && best_numbers.phi != INFINITY {
        phi_sum - best_numbers.phi
    } else {
        (0..count)
            .filter(|&i| i != best)
            .fold(0, |acc, i| add(acc, numbers(i).phi))
    };
    Selection {
        best,
        delta2,
        others_phi,
        parent: Numbers {
            phi: best_numbers.delta,
            delta: add(others_phi, best_numbers.phi),
        },
    }
}

/// The selected child's thresholds under the parent's: φ may grow until the parent's δ
/// reaches its threshold, δ until it passes the second-best sibling by the 1+ε trick.
pub fn child_thresholds(parent: Numbers, selection: &Selection, epsilon: f64) -> Numbers {
    Numbers {
        phi: if parent.delta == INFINITY {
            INFINITY
        } else {
            parent.delta.saturating_sub(selection.others_phi)
        },
        delta: parent.phi.min(one_plus_epsilon(selection.delta2, epsilon)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::MoveSet;

    /// The estimate as the attacker's (pn, dn), for `moves` moves, the attacker's and the
    /// defender's live lines, and which sides have winning boards.
    fn attacker_estimate(
        moves: u32,
        to_move: bool,
        lines: (u32, u32),
        threatens: (bool, bool),
    ) -> (u32, u32) {
        let numbers = initial_numbers(&OpenNode {
            moves: MoveSet((1u128 << moves) - 1),
            attacker_to_move: to_move,
            attacker_lines: lines.0,
            defender_lines: lines.1,
            attacker_threatens: threatens.0,
            defender_threatens: threatens.1,
        });
        assert!(numbers.phi >= 1 && numbers.delta >= 1, "{numbers:?}");
        assert!(numbers.phi < MAX_FINITE && numbers.delta < MAX_FINITE);
        if to_move {
            (numbers.phi, numbers.delta)
        } else {
            (numbers.delta, numbers.phi)
        }
    }

    #[test]
    fn initial_estimates_follow_mobility_live_lines_and_threats() {
        let none = (false, false);
        // The side to move needs one move; its opponent must refute every one.
        assert_eq!(attacker_estimate(5, true, (1, 0), none), (1, 10));
        assert_eq!(attacker_estimate(5, false, (1, 1), none), (10, 1));
        // Each live line of a side makes the other side's goal look dearer.
        assert_eq!(attacker_estimate(5, true, (3, 1), none), (1, 30));
        assert_eq!(attacker_estimate(5, false, (8, 1), none), (10, 8));
        assert_eq!(attacker_estimate(5, true, (3, 4), none), (4, 30));
        assert_eq!(attacker_estimate(5, false, (2, 3), none), (30, 2));
        // A side that could win with one move makes its own goal look cheaper, never below 1.
        assert_eq!(attacker_estimate(5, true, (3, 1), (false, true)), (1, 15));
        assert_eq!(attacker_estimate(5, false, (1, 1), (false, true)), (10, 1));
        assert_eq!(attacker_estimate(81, true, (8, 1), (false, true)), (1, 648));
        assert_eq!(attacker_estimate(5, false, (2, 3), (true, false)), (15, 2));
        assert_eq!(attacker_estimate(5, true, (2, 3), (true, true)), (3, 10));
    }

    #[test]
    fn sums_saturate_below_infinity_and_infinity_absorbs() {
        assert_eq!(add(MAX_FINITE, 1), MAX_FINITE);
        assert_eq!(add(MAX_FINITE, MAX_FINITE), MAX_FINITE);
        assert_eq!(add(MAX_FINITE - 5, 3), MAX_FINITE - 2);
        assert_eq!(add(INFINITY, 0), INFINITY);
        assert_eq!(add(0, INFINITY), INFINITY);
        assert_eq!(add(2, 3), 5);
    }

    #[test]
    fn epsilon_threshold_grows_and_never_overflows() {
        assert_eq!(one_plus_epsilon(1, 0.25), 2);
        assert_eq!(one_plus_epsilon(8, 0.25), 10);
        assert_eq!(one_plus_epsilon(0, 0.25), 1);
        assert_eq!(one_plus_epsilon(MAX_FINITE - 1, 0.25), MAX_FINITE);
        assert_eq!(one_plus_epsilon(MAX_FINITE, 0.25), MAX_FINITE);
        assert_eq!(one_plus_epsilon(INFINITY, 0.25), INFINITY);
    }

    #[test]
    fn selection_picks_smallest_delta_and_sums_the_rest() {
        let children = [
            Numbers { phi: 3, delta: 5 },
            Numbers { phi: 2, delta: 4 },
            Numbers {
                phi: MAX_FINITE,
                delta: 4,
            },
        ];
        let s = select_child(3, |i| children[i]);
        assert_eq!((s.best, s.delta2), (1, 4));
        assert_eq!(s.others_phi, MAX_FINITE);
        assert_eq!(
            s.parent,
            Numbers {
                phi: 4,
                delta: MAX_FINITE
            }
        );
        let t = child_thresholds(
            Numbers {
                phi: INFINITY,
                delta: INFINITY,
            },
            &s,
            0.25,
        );
        assert_eq!(
            t,
            Numbers {
                phi: INFINITY,
                delta: 5
            }
        );
    }

    #[test]
    fn pack_round_trips() {
        for n in [
            Numbers::PROVED,
            Numbers::DISPROVED,
            Numbers::UNIT,
            Numbers { phi: 12, delta: 99 },
        ] {
            assert_eq!(Numbers::unpack(n.pack()), n);
            assert_eq!(n.flipped().flipped(), n);
        }
    }
}
