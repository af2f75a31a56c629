//! Fitting the calibrated guide's table ([`Calibration`]) to samples: for each stage and each
//! side's number, the mean log2 ratio of the real work to the hand-built number, then spread
//! and shifted as the search prefers.
//!
//! - **The mean:** over the settled samples of each cell (a proof's work against the
//!   attacker's proof number, a disproof's against its disproof number), drawn toward the mean
//!   of all that side's samples by [`PRIOR_SAMPLES`] of them, so that a cell seen a few times
//!   keeps near the average. Unsettled samples say only "at least", and are left out.
//! - **The shape:** each side's cells are spread about the mean of its cells (each cell
//!   counted once, however many samples it holds) by that side's spread, and the proof side is
//!   raised by half the shift and the disproof side lowered by as much.
//!   A mean fitted to the work is not what steers DFPN best: the defaults were chosen by node
//!   counts on 42 positions of seeded games apart from the benchmarks' (BENCHMARKS.md, "The
//!   learned guide").
//!
//! The sums run over the samples in their order in f64, so the same samples and shape give the
//! same table, byte for byte.
//!
//! A campaign refits the built-in table to what it settled ([`refit_means`], from the table's
//! means with the shape undone, [`unshaped`]) and measures both on held-back samples
//! ([`log2_error`]); see [`crate::services::campaign::refit`].

use super::{Prepared, Settled};
use crate::search::guide::calibration::{Calibration, Side, Stage, CELLS};
use crate::search::numbers::attacker_numbers;

/// How strongly a cell's mean is drawn toward its side's: as if it held this many more
/// samples at that mean.
pub const PRIOR_SAMPLES: f64 = 50.0;

/// How the fitted means are spread and shifted (see the module's documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape {
    /// The factor of the proof side's deviations from its mean.
    pub proof_spread: f64,
    /// The factor of the disproof side's deviations from its mean.
    pub disproof_spread: f64,
    /// log2 of how much larger proof numbers are made against disproof numbers.
    pub proof_shift: f64,
}

impl Default for Shape {
    /// The shape chosen by node counts.
    fn default() -> Self {
        Shape {
            proof_spread: 0.5,
            disproof_spread: 1.0,
            proof_shift: 1.0,
        }
    }
}

/// Fits the table to `samples` (each settled one counted once) in `shape`. A side with no
/// settled sample keeps factors of 1 (log2 0).
pub fn calibrate(samples: &[Prepared], shape: Shape) -> Calibration {
    let sums = Residuals::of(samples);
    let side_means = [Side::Proof, Side::Disproof].map(|side| sums.side_mean(side));
    let prior: Vec<f64> = (0..CELLS)
        .map(|cell| side_means[Side::of_cell(cell) as usize])
        .collect();
    shaped(&sums.drawn_toward(&prior), shape)
}

/// The means, before the shape, of `base` (a table fitted in `shape`) refitted to `samples`:
/// each cell's mean is drawn toward `base`'s own ([`unshaped`]) instead of toward its side's,
/// so that a cell the new samples do not reach keeps what `base` learned, and one they reach
/// often moves toward them. [`shaped`] makes the table of them. What a campaign does between
/// its runs ([`crate::services::campaign::refit`]).
pub fn refit_means(base: &Calibration, samples: &[Prepared], shape: Shape) -> Vec<f64> {
    Residuals::of(samples).drawn_toward(&unshaped(base, shape))
}

/// The fitted means (the log2 ratio of the real work to the hand-built number, a cell) that
/// [`shaped`] in `shape` made into `table`, up to the table's rounding: each side's cells
/// are spread about their mean and shifted, so that mean less the shift is the centre, and
/// the spread is undone about it. A side of spread 0 gives its centre everywhere.
pub fn unshaped(table: &Calibration, shape: Shape) -> Vec<f64> {
    let log2 = table.log2_factors();
    let half = CELLS / 2;
    let mut means = vec![0.0; CELLS];
    for (side, cells) in [(Side::Proof, 0..half), (Side::Disproof, half..CELLS)] {
        let (spread, shift) = spread_and_shift(side, shape);
        let centre = log2[cells.clone()].iter().sum::<f64>() / half as f64 - shift;
        for cell in cells {
            means[cell] = if spread == 0.0 {
                centre
            } else {
                centre + (log2[cell] - shift - centre) / spread
            };
        }
    }
    means
}

/// The root of the mean squared error of `means` (fitted means, one a cell, as [`unshaped`]
/// gives them) as predictions of the settled samples' log2 work, over the hand-built number;
/// `None` without a settled sample. How a campaign tells whether a refit predicts better on
/// samples held back from it.
pub fn log2_error(means: &[f64], samples: &[Prepared]) -> Option<f64> {
    let (mut squares, mut count) = (0.0, 0usize);
    for sample in samples {
        if let Some((cell, residual)) = residual_of(sample) {
            squares += (residual - means[cell]).powi(2);
            count += 1;
        }
    }
    (count > 0).then(|| (squares / count as f64).sqrt())
}

/// `side`'s spread and shift (log2) in `shape`: the proof side is raised by half the shift,
/// the disproof side lowered by as much.
fn spread_and_shift(side: Side, shape: Shape) -> (f64, f64) {
    match side {
        Side::Proof => (shape.proof_spread, shape.proof_shift / 2.0),
        Side::Disproof => (shape.disproof_spread, -shape.proof_shift / 2.0),
    }
}

/// A settled sample's cell and log2 ratio of its work to its side's hand-built number; `None`
/// for an unsettled one (its work is only a lower bound).
fn residual_of(sample: &Prepared) -> Option<(usize, f64)> {
    // `mine`: the attacker is to move.
    let (proof, disproof) = attacker_numbers(sample.rules_numbers, sample.mine);
    let (side, number) = match sample.result {
        Settled::Proved => (Side::Proof, proof),
        Settled::Disproved => (Side::Disproof, disproof),
        Settled::Unsettled => return None,
    };
    let residual = f64::from(sample.log2_work) - f64::from(number.max(1)).log2();
    Some((
        Stage::of(&sample.position, sample.mine).cell(side),
        residual,
    ))
}

/// The residuals of some samples, summed by cell and by side (in the samples' order, in f64).
struct Residuals {
    sums: Vec<f64>,
    counts: Vec<f64>,
    side_sums: [f64; 2],
    side_counts: [f64; 2],
}

impl Residuals {
    fn of(samples: &[Prepared]) -> Residuals {
        let mut residuals = Residuals {
            sums: vec![0.0; CELLS],
            counts: vec![0.0; CELLS],
            side_sums: [0.0; 2],
            side_counts: [0.0; 2],
        };
        for (cell, residual) in samples.iter().filter_map(residual_of) {
            residuals.sums[cell] += residual;
            residuals.counts[cell] += 1.0;
            let side = Side::of_cell(cell) as usize;
            residuals.side_sums[side] += residual;
            residuals.side_counts[side] += 1.0;
        }
        residuals
    }

    /// The mean residual of `side`, 0 without a sample.
    fn side_mean(&self, side: Side) -> f64 {
        let side = side as usize;
        if self.side_counts[side] > 0.0 {
            self.side_sums[side] / self.side_counts[side]
        } else {
            0.0
        }
    }

    /// Each cell's mean, drawn toward `prior[cell]` as if it held [`PRIOR_SAMPLES`] more
    /// samples there.
    fn drawn_toward(&self, prior: &[f64]) -> Vec<f64> {
        (0..CELLS)
            .map(|cell| {
                (self.sums[cell] + PRIOR_SAMPLES * prior[cell])
                    / (self.counts[cell] + PRIOR_SAMPLES)
            })
            .collect()
    }
}

/// The table of the fitted `means` in `shape`: each side's cells spread about their mean
/// (each cell counted once) and shifted.
pub fn shaped(means: &[f64], shape: Shape) -> Calibration {
    let half = CELLS / 2;
    let centres = [
        means[..half].iter().sum::<f64>() / half as f64,
        means[half..].iter().sum::<f64>() / half as f64,
    ];
    let log2: Vec<f64> = (0..CELLS)
        .map(|cell| {
            let side = Side::of_cell(cell);
            let (spread, shift) = spread_and_shift(side, shape);
            let centre = centres[side as usize];
            centre + spread * (means[cell] - centre) + shift
        })
        .collect();
    Calibration::of_log2(&log2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Player, Rng};
    use crate::services::learn::Sample;

    fn samples(count: usize) -> Vec<Prepared> {
        let mut rng = Rng::new(0x6669_7473);
        let mut found = Vec::new();
        while found.len() < count {
            let start = crate::game::Position::start();
            let plies = 12 + rng.below(50);
            let moves = rng.playout(&start, plies);
            let pos = moves.iter().fold(start, |p, &m| p.play(m));
            let result = [Settled::Proved, Settled::Disproved, Settled::Unsettled][rng.below(3)];
            let sample = Sample {
                position: crate::game::format_position(&pos),
                rules: pos.rules(),
                attacker: [Player::X, Player::O][rng.below(2)],
                result,
                work: 1 + rng.below(100_000) as u64,
                root: false,
                game: found.len() as u64,
            };
            if let Some(ready) = Prepared::of(&sample).expect("a position of a playout") {
                found.push(ready);
            }
        }
        found
    }

    #[test]
    fn unshaping_a_fitted_table_gives_back_its_means_and_a_refit_on_nothing_the_table() {
        let data = samples(400);
        let shape = Shape::default();
        let fitted = calibrate(&data, shape);
        let means = unshaped(&fitted, shape);
        // Shaped again, the means make the same table, give or take the rounding to fixed
        // point (a spread of 0.5 doubles a rounding of 1/512 on the way back).
        let again = shaped(&means, shape).log2_factors();
        for (a, b) in fitted.log2_factors().iter().zip(&again) {
            assert!((a - b).abs() <= 1.0 / 256.0, "{a} {b}");
        }
        let refitted = shaped(&refit_means(&fitted, &[], shape), shape).log2_factors();
        for (a, b) in fitted.log2_factors().iter().zip(&refitted) {
            assert!((a - b).abs() <= 1.0 / 256.0, "{a} {b}");
        }
    }

    #[test]
    fn a_refit_moves_the_cells_its_samples_reach_and_keeps_the_others() {
        let first = samples(1)[0];
        let stage = Stage::of(&first.position, first.mine);
        let (proof, _) = attacker_numbers(first.rules_numbers, first.mine);
        let residual = 12.0 - f64::from(proof).log2();
        // A base whose every cell is log2 1 (flat shape: means and factors agree).
        let flat = Shape {
            proof_spread: 1.0,
            disproof_spread: 1.0,
            proof_shift: 0.0,
        };
        let base = Calibration::of_log2(&vec![1.0; CELLS]);
        let proved = |count| {
            vec![
                Prepared {
                    result: Settled::Proved,
                    log2_work: 12.0,
                    ..first
                };
                count
            ]
        };
        // 50 samples against the prior's 50: halfway from the base's mean to theirs.
        let means = refit_means(&base, &proved(50), flat);
        let cell = stage.cell(Side::Proof);
        assert!((means[cell] - (1.0 + residual) / 2.0).abs() < 0.01);
        assert!((means[stage.cell(Side::Disproof)] - 1.0).abs() < 0.01);
        let other = Stage {
            stones: (stage.stones + 7) % 82,
            ..stage
        };
        assert!((means[other.cell(Side::Proof)] - 1.0).abs() < 0.01);
        // The error of a table of means on samples: 0 at their residual, 1 a log2 away, and
        // none without a settled sample.
        let mut exact = means.clone();
        exact[cell] = residual;
        assert!(log2_error(&exact, &proved(5)).unwrap() < 1e-6);
        exact[cell] = residual + 1.0;
        assert!((log2_error(&exact, &proved(5)).unwrap() - 1.0).abs() < 1e-6);
        let open = vec![
            Prepared {
                result: Settled::Unsettled,
                ..first
            };
            3
        ];
        assert_eq!(log2_error(&exact, &open), None);
    }

    #[test]
    fn the_same_samples_and_shape_give_the_same_bytes() {
        let data = samples(400);
        let once = calibrate(&data, Shape::default()).to_bytes();
        assert_eq!(once, calibrate(&data, Shape::default()).to_bytes());
        let other = Shape {
            proof_shift: 0.0,
            ..Shape::default()
        };
        assert_ne!(once, calibrate(&data, other).to_bytes());
    }

    #[test]
    fn a_cell_of_many_samples_takes_their_mean_and_the_shape_spreads_and_shifts_it() {
        // Every sample proved, at one stage: the cell's mean is the residual itself, drawn
        // toward the side's mean by nothing (all samples are in the cell).
        let first = samples(1)[0];
        let data = vec![
            Prepared {
                result: Settled::Proved,
                log2_work: 10.0,
                ..first
            };
            60
        ];
        let (proof, _) = attacker_numbers(first.rules_numbers, first.mine);
        let residual = 10.0 - f64::from(proof).log2();
        let stage = Stage::of(&first.position, first.mine);
        let flat = Shape {
            proof_spread: 1.0,
            disproof_spread: 1.0,
            proof_shift: 0.0,
        };
        let fitted = calibrate(&data, flat);
        assert!((fitted.log2_factor(stage, Side::Proof) - residual).abs() < 0.01);
        // No disproof was seen: factors of 1.
        assert_eq!(fitted.log2_factor(stage, Side::Disproof), 0.0);
        let shifted = calibrate(
            &data,
            Shape {
                proof_shift: 2.0,
                ..flat
            },
        );
        assert!((shifted.log2_factor(stage, Side::Proof) - (residual + 1.0)).abs() < 0.01);
        assert!((shifted.log2_factor(stage, Side::Disproof) + 1.0).abs() < 0.01);
        // Another stage of the proof side holds no sample: it sits at the side's mean, whatever
        // the spread.
        let empty = Stage {
            closed_boards: (stage.closed_boards + 5) % 10,
            ..stage
        };
        assert!((fitted.log2_factor(empty, Side::Proof) - residual).abs() < 0.01);
    }
}
