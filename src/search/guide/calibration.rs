//! The calibrated guide's table: the hand-built numbers ([`initial_numbers`]), each scaled by a
//! factor of the game's stage learned from the solver's own proofs.
//!
//! The hand-built numbers choose well among a node's children (BENCHMARKS.md, "The learned
//! guide": they pick the cheapest child as often as the pattern table does) but say nothing of
//! how much game is left, so a position of twenty stones gets numbers as small as one of
//! seventy. The table corrects that: for each stage (how many small boards are closed, how
//! many stones are down, whether the attacker is to move) and each side's number, the typical
//! log2 ratio of the real work to the hand-built number. Children of one node share their
//! stage but for one stone (and a board the move closes), so the factor keeps the hand-built
//! choice among them and changes the size of the numbers across the tree. It costs one table
//! read per number, nothing like the pattern table's twenty-two rows.
//!
//! The file: a header (magic, version, cells, 1, a reserved word, checksum; see
//! [`super::file`]) and one little-endian `i16` a cell, the log2 factor in [`FIXED_ONE`] units.

use super::file::{checksum, framed, payload_of, WeightsError};
use super::model::FIXED_ONE;
use crate::game::Position;
use crate::search::numbers::{attacker_numbers, initial_numbers, side_to_move_numbers, Numbers};
use crate::search::rules::OpenNode;
use std::fmt;

/// Small boards that may be closed: 0 to 9.
const CLOSED_COUNTS: usize = 10;
/// Stones that may be down: 0 to 81.
const STONE_COUNTS: usize = 82;
/// Cells of the table: for each number (the attacker's proof number, its disproof number),
/// whether the attacker is to move, the closed boards and the stones.
pub const CELLS: usize = 2 * 2 * CLOSED_COUNTS * STONE_COUNTS;

/// Magic bytes at the start of a calibration file.
const MAGIC: &[u8; 8] = b"UTTTCALI";
/// The calibration file's format version.
const VERSION: u32 = 1;

/// Scaled numbers are capped where the learned guide's estimates are
/// ([`super::MAX_LOG2_ESTIMATE`]), well below the numbers' saturation, so that sums of many
/// still compare.
const MAX_NUMBER: u64 = 1 << super::MAX_LOG2_ESTIMATE;

/// Which of a question's two numbers a cell scales, in the attacker's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The proof number (the work to show the attacker wins).
    Proof = 0,
    /// The disproof number.
    Disproof = 1,
}

impl Side {
    /// The side whose number the table's cell `cell` scales (see [`Stage::cell`]).
    pub fn of_cell(cell: usize) -> Side {
        if cell < CELLS / 2 {
            Side::Proof
        } else {
            Side::Disproof
        }
    }
}

/// The stage of a position as the table sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stage {
    /// Whether the question's attacker is the side to move.
    pub attacker_to_move: bool,
    /// Small boards closed (won or full), 0 to 9.
    pub closed_boards: u32,
    /// Stones on the board, 0 to 81.
    pub stones: u32,
}

impl Stage {
    /// The stage of `pos` for a question whose attacker is (or is not) to move.
    pub fn of(pos: &Position, attacker_to_move: bool) -> Stage {
        Stage {
            attacker_to_move,
            closed_boards: pos.closed_boards().count_ones(),
            stones: pos.stone_count(),
        }
    }

    /// The table's cell of this stage for `side`: the proof side's cells come first, each
    /// stage's disproof cell half the table after its proof cell.
    pub fn cell(self, side: Side) -> usize {
        (side as usize) * (CELLS / 2) + self.index()
    }

    /// This stage's place among the stages (its proof cell).
    fn index(self) -> usize {
        let closed = (self.closed_boards as usize).min(CLOSED_COUNTS - 1);
        let stones = (self.stones as usize).min(STONE_COUNTS - 1);
        (usize::from(self.attacker_to_move) * CLOSED_COUNTS + closed) * STONE_COUNTS + stones
    }
}

/// The table of log2 factors, one a cell, and the factors themselves in fixed point.
#[derive(Clone, PartialEq, Eq)]
pub struct Calibration {
    /// log2 of each cell's factor, in [`FIXED_ONE`] units (what the file holds).
    log2: Box<[i16]>,
    /// Each stage's (proof, disproof) factors times [`FACTOR_ONE`], rounded: one read of 8
    /// bytes gives a node both (the whole table is 13 KB, and stays in cache).
    factors: Box<[[u32; 2]]>,
}

/// The fixed-point unit of [`Calibration::factors`].
const FACTOR_ONE: u64 = 1 << 16;
/// The largest log2 factor, either way: 2^15 times [`FACTOR_ONE`] still fits in a `u32`.
const MAX_LOG2_FACTOR: f64 = 15.0;

impl fmt::Debug for Calibration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Calibration(checksum {:016x})", self.checksum())
    }
}

impl Calibration {
    /// The table of the log2 factors `log2` (one a cell, [`CELLS`] of them, as real numbers),
    /// rounded to fixed point and clamped to factors between 2^-15 and 2^15.
    pub fn of_log2(log2: &[f64]) -> Calibration {
        assert_eq!(log2.len(), CELLS, "a calibration has one factor a cell");
        let limit = MAX_LOG2_FACTOR * f64::from(FIXED_ONE);
        Calibration::of_fixed(
            log2.iter()
                .map(|&v| (v * f64::from(FIXED_ONE)).round().clamp(-limit, limit) as i16)
                .collect(),
        )
    }

    /// The table of fixed-point log2 factors (a file's cells may hold any `i16`: they are
    /// clamped as [`Calibration::of_log2`] clamps).
    fn of_fixed(log2: Box<[i16]>) -> Calibration {
        let factor = |v: i16| {
            let log2 =
                (f64::from(v) / f64::from(FIXED_ONE)).clamp(-MAX_LOG2_FACTOR, MAX_LOG2_FACTOR);
            (log2.exp2() * FACTOR_ONE as f64).round() as u32
        };
        let half = CELLS / 2;
        let factors = (0..half)
            .map(|stage| [factor(log2[stage]), factor(log2[half + stage])])
            .collect();
        Calibration { log2, factors }
    }

    /// log2 of the factor of `side` at `stage`.
    pub fn log2_factor(&self, stage: Stage, side: Side) -> f64 {
        f64::from(self.log2[stage.cell(side)]) / f64::from(FIXED_ONE)
    }

    /// Every cell's log2 factor, as [`Calibration::log2_factor`] gives it, in the cells' order
    /// ([`Stage::cell`]).
    pub fn log2_factors(&self) -> Vec<f64> {
        self.log2
            .iter()
            .map(|&v| f64::from(v) / f64::from(FIXED_ONE))
            .collect()
    }

    /// The numbers of the open node `node` at `pos` (for its side to move): the hand-built
    /// ones, each scaled by its cell's factor, at least 1 and at most 2^24.
    pub fn numbers(&self, pos: &Position, node: &OpenNode) -> Numbers {
        let hand_built = initial_numbers(node);
        let [proof, disproof] = self.factors[Stage::of(pos, node.attacker_to_move).index()];
        let scale = |number: u32, factor: u32| {
            let scaled = (u64::from(number) * u64::from(factor) + FACTOR_ONE / 2) / FACTOR_ONE;
            scaled.clamp(1, MAX_NUMBER) as u32
        };
        let (pn, dn) = attacker_numbers(hand_built, node.attacker_to_move);
        side_to_move_numbers(scale(pn, proof), scale(dn, disproof), node.attacker_to_move)
    }

    /// The file: a header (magic, version, cells, 1, checksum) and the cells, little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        framed(MAGIC, [VERSION, CELLS as u32, 1], &self.payload())
    }

    /// The table in a calibration file, checked: its magic, layout, length and checksum.
    pub fn from_bytes(bytes: &[u8]) -> Result<Calibration, WeightsError> {
        let payload = payload_of(bytes, MAGIC, [VERSION, CELLS as u32, 1], CELLS * 2)?;
        Ok(Calibration::of_fixed(
            payload
                .chunks_exact(2)
                .map(|pair| i16::from_le_bytes([pair[0], pair[1]]))
                .collect(),
        ))
    }

    fn payload(&self) -> Vec<u8> {
        self.log2.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    /// The checksum of the cells, as the file's header holds it.
    pub fn checksum(&self) -> u64 {
        checksum(&self.payload())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Player, Rng};
    use crate::search::guide::file::HEADER_BYTES;
    use crate::search::rules::{evaluate, Evaluation};
    use crate::search::Question;

    fn open_nodes(count: usize) -> Vec<(Position, OpenNode)> {
        let mut rng = Rng::new(0x6361_6c69);
        let mut found = Vec::new();
        while found.len() < count {
            let start = Position::start();
            let plies = 10 + rng.below(50);
            let moves = rng.playout(&start, plies);
            let pos = moves.iter().fold(start, |p, &m| p.play(m));
            for attacker in [Player::X, Player::O] {
                if let Evaluation::Open(node) = evaluate(&pos, Question::wins(attacker)) {
                    found.push((pos, node));
                }
            }
        }
        found
    }

    #[test]
    fn a_zero_table_gives_the_hand_built_numbers_and_a_factor_scales_its_own_side() {
        let zero = Calibration::of_log2(&[0.0; CELLS]);
        let mut doubled_proofs = vec![0.0; CELLS];
        for (cell, v) in doubled_proofs.iter_mut().enumerate() {
            if cell < CELLS / 2 {
                *v = 1.0;
            }
        }
        let doubled_proofs = Calibration::of_log2(&doubled_proofs);
        for (pos, node) in open_nodes(300) {
            let hand_built = initial_numbers(&node);
            assert_eq!(zero.numbers(&pos, &node), hand_built);
            let (pn, dn) = attacker_numbers(hand_built, node.attacker_to_move);
            let scaled = doubled_proofs.numbers(&pos, &node);
            let (spn, sdn) = attacker_numbers(scaled, node.attacker_to_move);
            assert_eq!(
                (spn, sdn),
                (2 * pn, dn),
                "{}",
                crate::game::format_position(&pos)
            );
        }
    }

    #[test]
    fn numbers_stay_positive_and_capped_whatever_the_factors() {
        for extreme in [-40.0, 40.0] {
            let table = Calibration::of_log2(&[extreme; CELLS]);
            for (pos, node) in open_nodes(100) {
                let n = table.numbers(&pos, &node);
                assert!((1..=MAX_NUMBER as u32).contains(&n.phi), "{n:?}");
                assert!((1..=MAX_NUMBER as u32).contains(&n.delta), "{n:?}");
            }
        }
    }

    #[test]
    fn the_file_comes_back_whole_and_a_damaged_one_is_refused() {
        let log2: Vec<f64> = (0..CELLS).map(|i| (i % 37) as f64 / 7.0 - 2.0).collect();
        let table = Calibration::of_log2(&log2);
        let bytes = table.to_bytes();
        assert_eq!(Calibration::from_bytes(&bytes), Ok(table.clone()));
        let mut damaged = bytes.clone();
        damaged[HEADER_BYTES + 11] ^= 0x40;
        assert!(matches!(
            Calibration::from_bytes(&damaged),
            Err(WeightsError::Checksum { .. })
        ));
        assert_eq!(
            Calibration::from_bytes(&bytes[..bytes.len() - 2]),
            Err(WeightsError::Length {
                expected: bytes.len(),
                found: bytes.len() - 2
            })
        );
        assert_eq!(
            Calibration::from_bytes(b"UTTTGUID and more"),
            Err(WeightsError::NotWeights)
        );
        let mut other_version = bytes;
        other_version[8] = 9;
        assert!(matches!(
            Calibration::from_bytes(&other_version),
            Err(WeightsError::Layout { version: 9, .. })
        ));
    }
}
