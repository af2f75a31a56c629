//! How well an estimate predicts the work a question takes, on samples it was not fitted to:
//! the rank correlation of predicted and real cost, for the learned model beside the
//! hand-built initial numbers on the same samples.

use super::{Prepared, Settled};
use crate::search::guide::model::{outcome_probabilities, Model};
use crate::search::numbers::attacker_numbers;
use serde::{Deserialize, Serialize};

/// Rank correlations on one kind of settled question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostQuality {
    /// Samples of that kind.
    pub samples: usize,
    /// Spearman's rank correlation of the model's predicted cost with the real cost.
    pub learned: f64,
    /// The same for the hand-built estimate (its proof or disproof number).
    pub rules: f64,
}

/// The quality of a model on a set of samples.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Quality {
    /// Samples measured (those the static rules leave open).
    pub samples: usize,
    /// Proved questions: predicted proof cost against the work the proof took.
    pub proofs: CostQuality,
    /// Disproved questions: predicted disproof cost against the work the disproof took.
    pub disproofs: CostQuality,
    /// Of the settled questions, how often the model's likeliest outcome agrees with what the
    /// search found (a proof names the outcome; a disproof rules one out, and agrees when the
    /// likeliest is another).
    pub outcome_agreement: f64,
}

/// Measures `model` on `samples`.
pub fn measure(model: &Model, samples: &[Prepared]) -> Quality {
    let mut proofs = Pairs::default();
    let mut disproofs = Pairs::default();
    let (mut agreeing, mut settled) = (0usize, 0usize);
    for sample in samples {
        let features = sample.features(0);
        let (prove, disprove) = model.costs(&features, sample.mine);
        // The hand-built numbers are for the side to move; the attacker's (pn, dn) follow.
        let (pn, dn) = attacker_numbers(sample.rules_numbers, sample.mine);
        let outputs = model.outputs(&features);
        let (mine, theirs, draw) = outcome_probabilities(&outputs);
        let attacker_likeliest = if sample.mine {
            mine >= theirs && mine >= draw
        } else {
            theirs >= mine && theirs >= draw
        };
        match sample.result {
            Settled::Proved => {
                proofs.push(prove, pn, sample.log2_work);
                agreeing += usize::from(attacker_likeliest);
                settled += 1;
            }
            Settled::Disproved => {
                disproofs.push(disprove, dn, sample.log2_work);
                agreeing += usize::from(!attacker_likeliest);
                settled += 1;
            }
            Settled::Unsettled => {}
        }
    }
    Quality {
        samples: samples.len(),
        proofs: proofs.quality(),
        disproofs: disproofs.quality(),
        outcome_agreement: agreeing as f64 / settled.max(1) as f64,
    }
}

/// Predictions of both estimates beside the real costs.
#[derive(Default)]
struct Pairs {
    learned: Vec<f64>,
    rules: Vec<f64>,
    real: Vec<f64>,
}

impl Pairs {
    fn push(&mut self, learned_log2: f32, rules_number: u32, real_log2: f32) {
        self.learned.push(f64::from(learned_log2));
        self.rules.push(f64::from(rules_number));
        self.real.push(f64::from(real_log2));
    }

    fn quality(&self) -> CostQuality {
        CostQuality {
            samples: self.real.len(),
            learned: spearman(&self.learned, &self.real),
            rules: spearman(&self.rules, &self.real),
        }
    }
}

/// Ranks from 1, ties sharing the mean of their ranks.
fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        let mean_rank = (start + end + 1) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = mean_rank;
        }
        start = end;
    }
    ranks
}

/// Spearman's rank correlation (Pearson's over ranks, ties averaged); 0 when either side
/// does not vary.
pub fn spearman(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    let (ra, rb) = (ranks(a), ranks(b));
    let n = ra.len() as f64;
    if n < 2.0 {
        return 0.0;
    }
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let (mut cov, mut va, mut vb) = (0.0, 0.0, 0.0);
    for (x, y) in ra.iter().zip(&rb) {
        cov += (x - ma) * (y - mb);
        va += (x - ma) * (x - ma);
        vb += (y - mb) * (y - mb);
    }
    if va == 0.0 || vb == 0.0 {
        0.0
    } else {
        cov / (va * vb).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spearman_sees_order_not_scale_and_averages_ties() {
        let a = [1.0, 2.0, 3.0, 4.0];
        assert!((spearman(&a, &[10.0, 200.0, 3000.0, 40000.0]) - 1.0).abs() < 1e-12);
        assert!((spearman(&a, &[4.0, 3.0, 2.0, 1.0]) + 1.0).abs() < 1e-12);
        assert_eq!(ranks(&[5.0, 1.0, 5.0, 2.0]), vec![3.5, 1.0, 3.5, 2.0]);
        assert_eq!(spearman(&a, &[7.0; 4]), 0.0);
        // A hand-worked value: ranks (1,2,3,4,5) against (2,1,4,3,5): 1 - 6·4/(5·24) = 0.8.
        let b = [2.0, 1.0, 4.0, 3.0, 5.0];
        assert!((spearman(&[1.0, 2.0, 3.0, 4.0, 5.0], &b) - 0.8).abs() < 1e-12);
    }
}
