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
    let mut sums = vec![0.0f64; CELLS];
    let mut counts = vec![0.0f64; CELLS];
    let mut side_sums = [0.0f64; 2];
    let mut side_counts = [0.0f64; 2];
    for sample in samples {
        // `mine`: the attacker is to move.
        let (proof, disproof) = attacker_numbers(sample.rules_numbers, sample.mine);
        let (side, number) = match sample.result {
            Settled::Proved => (Side::Proof, proof),
            Settled::Disproved => (Side::Disproof, disproof),
            Settled::Unsettled => continue,
        };
        let residual = f64::from(sample.log2_work) - f64::from(number.max(1)).log2();
        let cell = Stage::of(&sample.position, sample.mine).cell(side);
        sums[cell] += residual;
        counts[cell] += 1.0;
        side_sums[side as usize] += residual;
        side_counts[side as usize] += 1.0;
    }
    let side_means = [0, 1].map(|s| {
        if side_counts[s] > 0.0 {
            side_sums[s] / side_counts[s]
        } else {
            0.0
        }
    });
    // The cells of the proof side come first (see `Stage::cell`).
    let side_of = |cell: usize| usize::from(cell >= CELLS / 2);
    let drawn: Vec<f64> = (0..CELLS)
        .map(|cell| {
            let mean = side_means[side_of(cell)];
            (sums[cell] + PRIOR_SAMPLES * mean) / (counts[cell] + PRIOR_SAMPLES)
        })
        .collect();
    let half = CELLS / 2;
    let centres = [
        drawn[..half].iter().sum::<f64>() / half as f64,
        drawn[half..].iter().sum::<f64>() / half as f64,
    ];
    let log2: Vec<f64> = (0..CELLS)
        .map(|cell| {
            let side = side_of(cell);
            let (spread, shift) = if side == Side::Proof as usize {
                (shape.proof_spread, shape.proof_shift / 2.0)
            } else {
                (shape.disproof_spread, -shape.proof_shift / 2.0)
            };
            centres[side] + spread * (drawn[cell] - centres[side]) + shift
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
