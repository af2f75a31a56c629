//! The calibration of the tree search's estimate: random playouts end in draws at their own
//! rate, not at best play's, and lean harder or softer than the real odds; a small model per
//! rule set, fitted to positions whose values long solves proved, turns a search's shares of
//! playout results into probabilities:
//!
//! p_k = softmax_k(bias_k + sharpness · ln(share_k + 1 / playouts)),
//!
//! with the outcomes the search proved impossible left out (their p_k is 0). The fits live in
//! `models/estimate.json`, remade by `scripts/estimate_set.py fit` (see docs/learning.md); a
//! rule set without one keeps its shares (bias 0, sharpness 1). An estimate, calibrated or
//! not, is never a value.

use crate::game::Rules;
use crate::search::mcts::{Bounds, Score};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The fits, as `scripts/estimate_set.py fit` writes them.
static EMBEDDED: &str = include_str!("../../../models/estimate.json");

/// One rule set's fit.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
pub struct Calibration {
    /// Added to each outcome's log share, by outcome.
    pub bias: Outcomes,
    /// What the log shares are multiplied by (1: as they are; more: sharper).
    pub sharpness: f64,
}

/// A number for each outcome.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
pub struct Outcomes {
    /// X wins.
    pub x: f64,
    /// O wins.
    pub o: f64,
    /// A draw.
    pub draw: f64,
}

impl Outcomes {
    fn get(&self, score: Score) -> f64 {
        match score {
            Score::X_WINS => self.x,
            Score::O_WINS => self.o,
            _ => self.draw,
        }
    }
}

impl Calibration {
    /// No change: the shares as they are.
    pub const IDENTITY: Calibration = Calibration {
        bias: Outcomes {
            x: 0.0,
            o: 0.0,
            draw: 0.0,
        },
        sharpness: 1.0,
    };

    /// The built-in fit of `rules` (the identity where there is none).
    pub fn of(rules: Rules) -> Calibration {
        static FITS: OnceLock<BTreeMap<String, Calibration>> = OnceLock::new();
        let fits = FITS.get_or_init(|| {
            serde_json::from_str(EMBEDDED).expect("models/estimate.json is checked by a test")
        });
        fits.get(rules.name())
            .copied()
            .unwrap_or(Calibration::IDENTITY)
    }

    /// The probabilities of the outcomes (by [`Score::index`]: O's win, a draw, X's win) from
    /// their shares of `playouts` playouts of a position whose value lies within `bounds`.
    pub fn apply(&self, shares: [f64; 3], playouts: u64, bounds: Bounds) -> [f64; 3] {
        let floor = 1.0 / playouts.max(1) as f64;
        let allowed = |score: Score| bounds.low <= score && score <= bounds.high;
        let logit = |score: Score| {
            self.bias.get(score) + self.sharpness * (shares[score.index()] + floor).ln()
        };
        let top = Score::ALL
            .into_iter()
            .filter(|&s| allowed(s))
            .map(logit)
            .fold(f64::NEG_INFINITY, f64::max);
        let weights = Score::ALL.map(|s| {
            if allowed(s) {
                (logit(s) - top).exp()
            } else {
                0.0
            }
        });
        let total: f64 = weights.iter().sum();
        weights.map(|w| w / total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Player;

    #[test]
    fn the_built_in_fits_read_and_give_probabilities() {
        for rules in Rules::ALL {
            let fit = Calibration::of(rules);
            let p = fit.apply([0.2, 0.3, 0.5], 1000, Bounds::UNKNOWN);
            assert!(
                (p.iter().sum::<f64>() - 1.0).abs() < 1e-9,
                "{rules:?}: {p:?}"
            );
            assert!(p.iter().all(|&x| x > 0.0));
        }
    }

    #[test]
    fn the_identity_keeps_shares_and_bounds_rule_out_outcomes() {
        let p = Calibration::IDENTITY.apply([0.2, 0.3, 0.5], 1_000_000, Bounds::UNKNOWN);
        for (got, want) in p.iter().zip([0.2, 0.3, 0.5]) {
            assert!((got - want).abs() < 1e-4, "{p:?}");
        }
        // X cannot win: X's share goes, the rest scaled to make 1.
        let p = Calibration::IDENTITY.apply(
            [0.25, 0.25, 0.5],
            1_000_000,
            Bounds::cannot_win(Player::X),
        );
        assert_eq!(p[Score::X_WINS.index()], 0.0);
        assert!((p[Score::O_WINS.index()] - 0.5).abs() < 1e-4, "{p:?}");
    }

    #[test]
    fn a_fit_shifts_and_sharpens_as_its_numbers_say() {
        let fit = Calibration {
            bias: Outcomes {
                x: 0.0,
                o: 0.0,
                draw: 1.0,
            },
            sharpness: 2.0,
        };
        // Equal shares: only the bias speaks, e to 1 for the draw.
        let p = fit.apply([1.0 / 3.0; 3], 1_000_000, Bounds::UNKNOWN);
        let e = std::f64::consts::E;
        assert!(
            (p[Score::DRAW.index()] - e / (e + 2.0)).abs() < 1e-6,
            "{p:?}"
        );
    }
}
