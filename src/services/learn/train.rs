//! Fitting the guide's pattern table to samples: each output is a sum of the rows present in
//! a position, fitted by AdaGrad, one sample at a time, in a seeded order, on one thread, so
//! the same samples and seed give the same weights on every run.
//!
//! The losses, output by output (see [`crate::search::guide::model::Lane`]):
//! - a proved question's log2 work is the target of its proof cost, a disproved one's of its
//!   disproof cost (squared error);
//! - an unsettled question's log2 work is a lower bound on both costs: only a prediction
//!   below it is wrong (squared error below the bound, none above);
//! - the outcome logits take cross-entropy: a proved "does A win?" says A wins; a disproved
//!   one says only that A does not, and the loss is that of the two outcomes left together.
//!
//! Each sample is seen under a seeded random symmetry of the board each epoch: the work a
//! question takes does not change under the board's symmetries, and the table's patterns do.

use super::{Prepared, Settled};
use crate::game::tables::SYMMETRY_COUNT;
use crate::game::Rng;
use crate::search::guide::features::{Features, ACTIVE_ROWS, ROWS};
use crate::search::guide::model::{Lane, Model, OUTPUTS};

/// How to train.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// The seed of the sample order and of the symmetries.
    pub seed: u64,
    /// Passes over the samples.
    pub epochs: u32,
    /// AdaGrad's step size.
    pub learning_rate: f32,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            seed: 1,
            epochs: 6,
            learning_rate: 0.05,
        }
    }
}

/// The weights being fitted, and AdaGrad's sums of squared gradients.
struct Fit {
    weights: Vec<[f32; OUTPUTS]>,
    squares: Vec<[f32; OUTPUTS]>,
    learning_rate: f32,
}

/// AdaGrad's guard against dividing by zero.
const ADAGRAD_EPSILON: f32 = 1e-6;

impl Fit {
    fn outputs(&self, features: &Features) -> [f32; OUTPUTS] {
        let mut sums = [0.0f32; OUTPUTS];
        for &row in &features.rows {
            for (sum, weight) in sums.iter_mut().zip(&self.weights[row as usize]) {
                *sum += weight;
            }
        }
        sums
    }

    fn step(&mut self, features: &Features, gradient: &[f32; OUTPUTS]) {
        for &row in &features.rows {
            let (weights, squares) = (
                &mut self.weights[row as usize],
                &mut self.squares[row as usize],
            );
            for lane in 0..OUTPUTS {
                let g = gradient[lane];
                if g != 0.0 {
                    squares[lane] += g * g;
                    weights[lane] -=
                        self.learning_rate * g / (squares[lane].sqrt() + ADAGRAD_EPSILON);
                }
            }
        }
    }
}

/// The gradient of a sample's loss with respect to every output, given the outputs.
pub fn gradient(sample: &Prepared, outputs: &[f32; OUTPUTS]) -> [f32; OUTPUTS] {
    let mut gradient = [0.0f32; OUTPUTS];
    let (prove, disprove) = Lane::costs(sample.mine);
    let (prove, disprove) = (prove as usize, disprove as usize);
    match sample.result {
        Settled::Proved => gradient[prove] = outputs[prove] - sample.log2_work,
        Settled::Disproved => gradient[disprove] = outputs[disprove] - sample.log2_work,
        Settled::Unsettled => {
            for lane in [prove, disprove] {
                gradient[lane] = (outputs[lane] - sample.log2_work).min(0.0);
            }
        }
    }
    // The outcome: the attacker's win (proved), or either other outcome (disproved).
    let attacker_win = if sample.mine {
        Lane::WinMine
    } else {
        Lane::WinTheirs
    } as usize;
    let lanes = [
        Lane::WinMine as usize,
        Lane::WinTheirs as usize,
        Lane::Draw as usize,
    ];
    let top = lanes
        .iter()
        .map(|&l| outputs[l])
        .fold(f32::NEG_INFINITY, f32::max);
    let p = lanes.map(|l| (outputs[l] - top).exp());
    let total: f32 = p.iter().sum();
    let p = p.map(|x| x / total);
    let allowed = |lane: usize| match sample.result {
        Settled::Proved => lane == attacker_win,
        Settled::Disproved => lane != attacker_win,
        Settled::Unsettled => true,
    };
    if sample.result != Settled::Unsettled {
        let allowed_mass: f32 = lanes
            .iter()
            .zip(p)
            .filter(|(&l, _)| allowed(l))
            .map(|(_, q)| q)
            .sum::<f32>()
            .max(1e-12);
        for (&lane, q) in lanes.iter().zip(p) {
            let target = if allowed(lane) { q / allowed_mass } else { 0.0 };
            gradient[lane] = q - target;
        }
    }
    gradient
}

/// Fits a model to `samples` (in their order before the seeded shuffle).
pub fn train(samples: &[Prepared], options: &TrainOptions) -> Model {
    let mut fit = Fit {
        weights: vec![[0.0; OUTPUTS]; ROWS],
        squares: vec![[0.0; OUTPUTS]; ROWS],
        learning_rate: options.learning_rate,
    };
    start_from_the_mean(&mut fit, samples);
    let mut rng = Rng::new(options.seed);
    let mut order: Vec<usize> = (0..samples.len()).collect();
    for _ in 0..options.epochs {
        // Fisher-Yates with the seeded generator.
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        for &index in &order {
            let sample = &samples[index];
            let features = sample.features(rng.below(SYMMETRY_COUNT));
            let outputs = fit.outputs(&features);
            fit.step(&features, &gradient(sample, &outputs));
        }
    }
    Model::quantize(&fit.weights)
}

/// Sets every row of the context (present once in every position) to the mean log2 work of
/// the settled samples, so that the fit starts near the data instead of at zero work.
fn start_from_the_mean(fit: &mut Fit, samples: &[Prepared]) {
    let settled: Vec<f32> = samples
        .iter()
        .filter(|s| s.result != Settled::Unsettled)
        .map(|s| s.log2_work)
        .collect();
    if settled.is_empty() {
        return;
    }
    let mean = settled.iter().sum::<f32>() / settled.len() as f32;
    let context_rows = context_rows(samples);
    for row in context_rows {
        for lane in [
            Lane::ProveMine,
            Lane::DisproveMine,
            Lane::ProveTheirs,
            Lane::DisproveTheirs,
        ] {
            fit.weights[row][lane as usize] = mean;
        }
    }
}

/// The rows of the context part of the table that the samples use (the row in every
/// position's [`Features`] after the counts of moves, stones and lines).
fn context_rows(samples: &[Prepared]) -> Vec<usize> {
    let mut rows: Vec<usize> = samples
        .iter()
        .map(|s| s.features(0).rows[ACTIVE_ROWS - 2] as usize)
        .collect();
    rows.sort_unstable();
    rows.dedup();
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rules;
    use crate::services::learn::data::{generate, DataOptions};
    use crate::services::learn::Sample;
    use std::sync::atomic::AtomicBool;

    fn small_samples(threads: usize) -> Vec<Sample> {
        samples_of_games(0..12, threads)
    }

    fn samples_of_games(games: std::ops::Range<u64>, threads: usize) -> Vec<Sample> {
        samples_with(games, threads, 0)
    }

    fn samples_with(
        games: std::ops::Range<u64>,
        threads: usize,
        keep_unsettled: u64,
    ) -> Vec<Sample> {
        let options = DataOptions {
            games: games.end - games.start,
            first_game: games.start,
            seed: 99,
            node_limit: 3_000,
            stones: 30..=50,
            rules: Rules::ALL.to_vec(),
            threads,
            table_bytes: 1 << 20,
            keep_work: 16,
            keep_unsettled,
        };
        let mut samples = Vec::new();
        generate(&options, &[], &AtomicBool::new(false), &mut |made| {
            samples.extend_from_slice(made);
            Ok(())
        })
        .unwrap();
        samples
    }

    #[test]
    fn the_same_samples_and_seed_give_the_same_weights_and_the_threads_change_nothing() {
        let samples = small_samples(2);
        assert_eq!(
            samples,
            small_samples(1),
            "samples depend on the options alone"
        );
        assert!(samples.iter().any(|s| s.root) && samples.iter().any(|s| !s.root));
        // A run made in two parts is the run made at once.
        let mut parts = samples_of_games(0..5, 2);
        parts.extend(samples_of_games(5..12, 1));
        assert_eq!(parts, samples, "games 0..5 then 5..12 are games 0..12");
        assert!(samples.iter().any(|s| s.game >= 5) && samples.iter().any(|s| s.game < 5));
        let prepared: Vec<Prepared> = samples
            .iter()
            .filter_map(|s| Prepared::of(s).unwrap())
            .collect();
        assert!(prepared.len() > 100, "{}", prepared.len());
        let options = TrainOptions {
            epochs: 2,
            ..TrainOptions::default()
        };
        let first = train(&prepared, &options);
        let second = train(&prepared, &options);
        assert_eq!(first.to_bytes(), second.to_bytes());
        let other_seed = train(
            &prepared,
            &TrainOptions {
                seed: 2,
                ..options.clone()
            },
        );
        assert_ne!(
            first.to_bytes(),
            other_seed.to_bytes(),
            "the seed orders the samples"
        );
    }

    #[test]
    fn open_positions_inside_searches_come_as_bounds_beside_the_same_other_samples() {
        let plain = samples_of_games(0..6, 2);
        let with_open = samples_with(0..6, 2, 2);
        let open = |s: &&Sample| !s.root && s.result == Settled::Unsettled;
        assert!(!plain.iter().any(|s| open(&s)));
        let others: Vec<Sample> = with_open.iter().filter(|s| !open(s)).cloned().collect();
        assert_eq!(others, plain, "the other samples do not change");
        let opens: Vec<&Sample> = with_open.iter().filter(open).collect();
        assert!(opens.len() > 10, "{}", opens.len());
        // Each open position is one the search spent work on, and was not its root.
        assert!(opens.iter().all(|s| s.work >= 1));
        assert!(opens.iter().all(|s| !plain
            .iter()
            .any(|p| p.root && p.position == s.position && p.attacker == s.attacker)));
        // Fewer are kept as the draw thins them.
        assert!(samples_with(0..6, 2, 64).len() < with_open.len());
    }

    #[test]
    fn settled_labels_pull_their_own_cost_and_bounds_only_push_up() {
        let pos = crate::game::Position::start().play(crate::game::Move::from_square(40));
        let findings = crate::search::guide::features::Findings::of_position(&pos, 9);
        let sample = |mine, result, log2_work| Prepared {
            position: pos,
            mine,
            result,
            log2_work,
            findings,
            rules_numbers: crate::search::Numbers::UNIT,
            game: 0,
        };
        let outputs = [5.0, 5.0, 5.0, 5.0, 0.0, 0.0, 0.0];
        let g = gradient(&sample(true, Settled::Proved, 7.0), &outputs);
        assert_eq!(&g[..4], &[-2.0, 0.0, 0.0, 0.0]);
        // A proof of the side to move's win makes that outcome likelier.
        assert!(g[Lane::WinMine as usize] < 0.0 && g[Lane::Draw as usize] > 0.0);
        let g = gradient(&sample(false, Settled::Disproved, 3.0), &outputs);
        assert_eq!(&g[..4], &[0.0, 0.0, 0.0, 2.0]);
        // Disproving the opponent's win says only that it does not win.
        assert!(g[Lane::WinTheirs as usize] > 0.0);
        assert!(g[Lane::WinMine as usize] < 0.0 && g[Lane::Draw as usize] < 0.0);
        let above = gradient(&sample(true, Settled::Unsettled, 4.0), &outputs);
        assert_eq!(
            above, [0.0; OUTPUTS],
            "a bound below the prediction says nothing"
        );
        let below = gradient(&sample(true, Settled::Unsettled, 8.0), &outputs);
        assert_eq!(&below[..4], &[-3.0, -3.0, 0.0, 0.0]);
    }
}
