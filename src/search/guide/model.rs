//! The learned guide's model: a pattern table (an n-tuple network) whose rows, one for each
//! part of a position ([`super::features`]), are summed into seven outputs, and the file that
//! holds it.
//!
//! The outputs, all from the side to move's point of view:
//! - log2 of the work (MID calls) to prove, and to disprove, "the side to move wins";
//! - the same two for "its opponent wins";
//! - three logits for the outcome: the side to move wins, its opponent wins, a draw.
//!
//! Weights are fixed-point (`i16`, [`FIXED_ONE`] to a unit), so the table is small enough to
//! stay in cache while the search reads it at every new node, and the sums are exact
//! integers: the same weights give the same estimates on every machine. The search reads only
//! the two costs of the question it asks, so each question's costs are kept apart from the
//! other's and from the outcome's logits: 4 bytes a row.

use super::features::{Features, ROWS};
pub use super::file::WeightsError;
use super::file::{checksum, framed, payload_of};
use std::fmt;

/// Outputs of the model (see the module's documentation): [`Lane`] names them.
pub const OUTPUTS: usize = 7;
/// Weights stored for each row in the file: the outputs and one unused.
const STRIDE: usize = 8;
/// The cost outputs (the first four) and the outcome's (the last three, and one unused).
const HALF: usize = 4;
/// The fixed-point unit: a stored weight of this many is 1.0.
pub const FIXED_ONE: f32 = 256.0;

/// The model's outputs, by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// log2 of the work to prove "the side to move wins".
    ProveMine = 0,
    /// log2 of the work to disprove it.
    DisproveMine = 1,
    /// log2 of the work to prove "its opponent wins".
    ProveTheirs = 2,
    /// log2 of the work to disprove it.
    DisproveTheirs = 3,
    /// Logit of a win for the side to move.
    WinMine = 4,
    /// Logit of a win for its opponent.
    WinTheirs = 5,
    /// Logit of a draw.
    Draw = 6,
}

impl Lane {
    /// The lanes of the costs of the question "does the side to move win?" (`mine`) or "does
    /// its opponent win?": (prove, disprove).
    pub fn costs(mine: bool) -> (Lane, Lane) {
        if mine {
            (Lane::ProveMine, Lane::DisproveMine)
        } else {
            (Lane::ProveTheirs, Lane::DisproveTheirs)
        }
    }
}

/// Magic bytes at the start of a weights file.
const MAGIC: &[u8; 8] = b"UTTTGUID";
/// The weights file's format version.
const VERSION: u32 = 2;

/// The model: for each input row, its fixed-point weights of the costs of each question and,
/// apart, of the outcome's three logits.
///
/// Each question's two costs are a table of their own (4 bytes a row): a search asks one
/// question at a time, so only that question's table is in the processor's cache at all,
/// half the bytes of the four costs together.
#[derive(Clone, PartialEq, Eq)]
pub struct Model {
    /// (prove, disprove) of "the side to move wins", for each row.
    mine: Box<[[i16; 2]]>,
    /// (prove, disprove) of "its opponent wins".
    theirs: Box<[[i16; 2]]>,
    outcomes: Box<[[i16; HALF]]>,
}

impl fmt::Debug for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Model({} rows, checksum {:016x})",
            self.mine.len(),
            self.checksum()
        )
    }
}

impl Model {
    /// The length of a model's file: its header and a row of weights per input row. A reader
    /// of a file a user names reads no more than this (and one byte to tell a longer file).
    pub const FILE_BYTES: usize = super::file::HEADER_BYTES + ROWS * STRIDE * 2;

    /// The model of real-valued weights (one row of [`OUTPUTS`] for each input row, at least
    /// [`ROWS`] of them), rounded to fixed point and clamped to its range.
    pub fn quantize(weights: &[[f32; OUTPUTS]]) -> Model {
        assert_eq!(weights.len(), ROWS, "one row of weights for each input row");
        let fixed = |weight: f32| {
            (weight * FIXED_ONE)
                .round()
                .clamp(f32::from(i16::MIN), f32::from(i16::MAX)) as i16
        };
        let rows: Vec<[i16; STRIDE]> = weights
            .iter()
            .map(|row| std::array::from_fn(|lane| row.get(lane).map_or(0, |&w| fixed(w))))
            .collect();
        Model::of_rows(&rows)
    }

    /// The model of whole rows (as the file holds them).
    fn of_rows(rows: &[[i16; STRIDE]]) -> Model {
        let lanes = |first: usize| {
            rows.iter()
                .map(|row| [row[first], row[first + 1]])
                .collect()
        };
        Model {
            mine: lanes(Lane::ProveMine as usize),
            theirs: lanes(Lane::ProveTheirs as usize),
            outcomes: rows
                .iter()
                .map(|row| std::array::from_fn(|lane| row[HALF + lane]))
                .collect(),
        }
    }

    /// Row `row` whole, as the file holds it.
    fn row(&self, row: usize) -> [i16; STRIDE] {
        in_file_order(self.mine[row], self.theirs[row], self.outcomes[row])
    }

    /// The weight of `lane` in input row `row`, as a real number.
    pub fn weight(&self, row: usize, lane: usize) -> f32 {
        f32::from(self.row(row)[lane]) / FIXED_ONE
    }

    /// The sums of the rows present in a position, in one table of weights, in fixed point.
    fn sums<const LANES: usize>(table: &[[i16; LANES]], features: &Features) -> [i32; LANES] {
        let mut sums = [0i32; LANES];
        for &row in &features.rows {
            for (sum, &weight) in sums.iter_mut().zip(&table[row as usize]) {
                *sum += i32::from(weight);
            }
        }
        sums
    }

    /// Every output for a position, as real numbers (see [`Lane`]).
    pub fn outputs(&self, features: &Features) -> [f32; OUTPUTS] {
        let sums = in_file_order(
            Model::sums(&self.mine, features),
            Model::sums(&self.theirs, features),
            Model::sums(&self.outcomes, features),
        );
        std::array::from_fn(|lane| sums[lane] as f32 / FIXED_ONE)
    }

    /// The cost weights of one question, (prove, disprove) for each row: "does the side to
    /// move win?" (`mine`) or "does its opponent win?".
    pub fn question_table(&self, mine: bool) -> &[[i16; 2]] {
        if mine {
            &self.mine
        } else {
            &self.theirs
        }
    }

    /// The predicted log2 work to prove and to disprove one question: "does the side to move
    /// win?" (`mine`) or "does its opponent win?", in fixed point ([`FIXED_ONE`] to a unit).
    pub fn fixed_costs(&self, features: &Features, mine: bool) -> (i32, i32) {
        let [prove, disprove] = Model::sums(self.question_table(mine), features);
        (prove, disprove)
    }

    /// [`Model::fixed_costs`] as real numbers (log2 of the work).
    pub fn costs(&self, features: &Features, mine: bool) -> (f32, f32) {
        let (prove, disprove) = self.fixed_costs(features, mine);
        (prove as f32 / FIXED_ONE, disprove as f32 / FIXED_ONE)
    }

    /// The file: a header (magic, version, rows, weights per row, checksum) and the weights,
    /// little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        framed(
            MAGIC,
            [VERSION, self.mine.len() as u32, STRIDE as u32],
            &self.payload(),
        )
    }

    /// The model in a weights file, checked: its magic, layout, length and checksum.
    pub fn from_bytes(bytes: &[u8]) -> Result<Model, WeightsError> {
        let payload = payload_of(
            bytes,
            MAGIC,
            [VERSION, ROWS as u32, STRIDE as u32],
            ROWS * STRIDE * 2,
        )?;
        let rows: Vec<[i16; STRIDE]> = payload
            .chunks_exact(STRIDE * 2)
            .map(|chunk| {
                std::array::from_fn(|lane| {
                    i16::from_le_bytes([chunk[2 * lane], chunk[2 * lane + 1]])
                })
            })
            .collect();
        Ok(Model::of_rows(&rows))
    }

    /// The weights as the file holds them: every row whole, little-endian.
    fn payload(&self) -> Vec<u8> {
        (0..self.mine.len())
            .flat_map(|row| self.row(row).into_iter().flat_map(i16::to_le_bytes))
            .collect()
    }

    /// The checksum of the weights, as the file's header holds it.
    pub fn checksum(&self) -> u64 {
        checksum(&self.payload())
    }
}

/// One row's lanes in the file's order ([`Lane`], then the unused one), from the tables the
/// model keeps them in: the two costs of each question and the outcome's logits.
fn in_file_order<T: Copy>(mine: [T; 2], theirs: [T; 2], outcomes: [T; HALF]) -> [T; STRIDE] {
    let [prove_mine, disprove_mine] = mine;
    let [prove_theirs, disprove_theirs] = theirs;
    let [win_mine, win_theirs, draw, unused] = outcomes;
    [
        prove_mine,
        disprove_mine,
        prove_theirs,
        disprove_theirs,
        win_mine,
        win_theirs,
        draw,
        unused,
    ]
}

/// Probabilities of the three outcomes from the model's logits, from the side to move's
/// point of view: (it wins, its opponent wins, a draw).
pub fn outcome_probabilities(outputs: &[f32; OUTPUTS]) -> (f64, f64, f64) {
    let logits = [
        outputs[Lane::WinMine as usize],
        outputs[Lane::WinTheirs as usize],
        outputs[Lane::Draw as usize],
    ]
    .map(f64::from);
    let top = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let weights = logits.map(|logit| (logit - top).exp());
    let total: f64 = weights.iter().sum();
    (weights[0] / total, weights[1] / total, weights[2] / total)
}

#[cfg(test)]
mod tests {
    use super::super::file::HEADER_BYTES;
    use super::*;

    fn sample_model() -> Model {
        let weights: Vec<[f32; OUTPUTS]> = (0..ROWS)
            .map(|row| std::array::from_fn(|lane| ((row * 7 + lane) % 23) as f32 / 8.0 - 1.0))
            .collect();
        Model::quantize(&weights)
    }

    #[test]
    fn a_weights_file_round_trips_and_a_damaged_one_is_refused_by_name() {
        let model = sample_model();
        let bytes = model.to_bytes();
        assert_eq!(Model::from_bytes(&bytes).unwrap(), model);

        let mut flipped = bytes.clone();
        flipped[HEADER_BYTES + 1234] ^= 4;
        assert!(matches!(
            Model::from_bytes(&flipped),
            Err(WeightsError::Checksum { .. })
        ));
        let message = Model::from_bytes(&flipped).unwrap_err().to_string();
        assert!(message.contains("damaged"), "{message}");

        assert_eq!(
            Model::from_bytes(&bytes[..bytes.len() - 2]),
            Err(WeightsError::Length {
                expected: bytes.len(),
                found: bytes.len() - 2
            })
        );
        assert_eq!(Model::from_bytes(b"hello"), Err(WeightsError::NotWeights));
        let mut other_version = bytes.clone();
        other_version[8] = 9;
        assert!(matches!(
            Model::from_bytes(&other_version),
            Err(WeightsError::Layout { version: 9, .. })
        ));
    }

    #[test]
    fn quantized_weights_are_within_half_a_step_and_clamped() {
        let mut weights = vec![[0.0f32; OUTPUTS]; ROWS];
        weights[3] = [0.3, -0.7, 1000.0, -1000.0, 0.001, 2.5, -2.5];
        let model = Model::quantize(&weights);
        for lane in [0, 1, 4, 5, 6] {
            assert!((model.weight(3, lane) - weights[3][lane]).abs() <= 0.5 / FIXED_ONE);
        }
        assert_eq!(model.weight(3, 2), f32::from(i16::MAX) / FIXED_ONE);
        assert_eq!(model.weight(3, 3), f32::from(i16::MIN) / FIXED_ONE);
    }

    #[test]
    fn outcome_probabilities_sum_to_one_and_follow_the_logits() {
        let mut outputs = [0.0; OUTPUTS];
        outputs[Lane::WinMine as usize] = 2.0;
        outputs[Lane::Draw as usize] = -1.0;
        let (mine, theirs, draw) = outcome_probabilities(&outputs);
        assert!((mine + theirs + draw - 1.0).abs() < 1e-12);
        assert!(mine > theirs && theirs > draw);
    }
}
