//! Where a search's initial proof and disproof numbers come from: the hand-built estimate
//! ([`super::numbers::initial_numbers`], the guide `rules`), a model learned from the
//! solver's own proofs (the guide `learned`: [`model`], over the inputs of [`features`]), or
//! the hand-built estimate scaled by the game's stage, learned from the same proofs (the guide
//! `calibrated`: [`calibration`]).
//!
//! A guide only estimates the numbers of positions not yet searched. Any positive estimates
//! keep proof-number search sound (they choose which leaf is expanded next, never what a leaf
//! is worth), so the guide changes the work a search does and never its answer; the tests run
//! the oracle's positions with each guide.

pub mod calibration;
pub mod features;
mod file;
pub mod model;
pub mod siblings;

use super::numbers::{initial_numbers, side_to_move_numbers, Numbers};
use super::rules::OpenNode;
use super::Question;
use crate::game::{Move, Position};
use crate::table::prefetch;
use calibration::Calibration;
use features::{Features, Findings};
pub use model::{Model, WeightsError};
use serde::{Deserialize, Serialize};
use siblings::Siblings;
use std::sync::OnceLock;

/// Which estimate gives a new node its numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Guide {
    /// The hand-built estimate: mobility, live lines and threats
    /// ([`super::numbers::initial_numbers`]).
    Rules,
    /// The model learned from the solver's proofs, built into the program
    /// ([`embedded_model`]).
    Learned,
    /// The hand-built estimate, scaled by the game's stage as the solver's proofs say
    /// ([`embedded_calibration`]). The default: with the default engine it settles more of
    /// the reach benchmark's positions, in less time, than the others (BENCHMARKS.md, "The
    /// learned guide").
    #[default]
    Calibrated,
}

/// A guide's source of numbers, ready for a searcher: its table checked and at hand.
#[derive(Clone, Copy, Debug)]
pub enum Estimate<'a> {
    /// The hand-built estimate.
    Rules,
    /// A learned model.
    Learned(&'a Model),
    /// A stage calibration of the hand-built estimate.
    Calibrated(&'a Calibration),
}

impl Guide {
    /// The guide's name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Guide::Rules => "rules",
            Guide::Learned => "learned",
            Guide::Calibrated => "calibrated",
        }
    }

    /// This guide's source of numbers, its built-in table checked.
    pub fn checked(self) -> Result<Estimate<'static>, WeightsError> {
        match self {
            Guide::Rules => Ok(Estimate::Rules),
            Guide::Learned => embedded_model().map(Estimate::Learned),
            Guide::Calibrated => embedded_calibration().map(Estimate::Calibrated),
        }
    }

    /// The source a searcher steers by: this guide's, or the hand-built estimate when the
    /// built-in table fails its check. The front ends check [`Guide::checked`] before a search
    /// starts and say so; a searcher cannot fail, and any estimate gives the same answers.
    pub fn estimate(self) -> Estimate<'static> {
        self.checked().unwrap_or(Estimate::Rules)
    }
}

/// The weights built into the program (`models/guide.bin`, remade by
/// `scripts/train-guide.sh`; see docs/learning.md).
static EMBEDDED_WEIGHTS: &[u8] = include_bytes!("../../../models/guide.bin");

/// The built-in model, read and checked once: it is a constant of the program, so every
/// search shares the one copy (nothing in it ever changes).
pub fn embedded_model() -> Result<&'static Model, WeightsError> {
    static MODEL: OnceLock<Result<Model, WeightsError>> = OnceLock::new();
    read_once(&MODEL, || Model::from_bytes(EMBEDDED_WEIGHTS))
}

/// The calibration built into the program (`models/calibration.bin`, remade by
/// `scripts/train-guide.sh`; see docs/learning.md), read and checked once.
pub fn embedded_calibration() -> Result<&'static Calibration, WeightsError> {
    static TABLE: OnceLock<Result<Calibration, WeightsError>> = OnceLock::new();
    read_once(&TABLE, || Calibration::from_bytes(EMBEDDED_CALIBRATION))
}

/// A built-in table kept in `cell`, read and checked by `read` the first time it is asked
/// for.
fn read_once<T>(
    cell: &'static OnceLock<Result<T, WeightsError>>,
    read: impl FnOnce() -> Result<T, WeightsError>,
) -> Result<&'static T, WeightsError> {
    cell.get_or_init(read).as_ref().map_err(Clone::clone)
}

/// The calibration's file, built into the program.
static EMBEDDED_CALIBRATION: &[u8] = include_bytes!("../../../models/calibration.bin");

/// Work estimates are capped at 2^this, well below the numbers' saturation, so that sums of
/// many estimates still compare.
const MAX_LOG2_ESTIMATE: i32 = 24;

/// 2^(`log2` / [`model::FIXED_ONE`]) for a fixed-point log2 of work, clamped to
/// 1..=2^[`MAX_LOG2_ESTIMATE`]: the whole part shifts and the fraction is taken linearly
/// between the two powers of two around it (at most 6.2 % above the exact power, which is far
/// finer than the model's own error; integers alone keep it cheap at every new node).
fn work_of_log2(log2: i32) -> u32 {
    let unit = model::FIXED_ONE as i32;
    let log2 = log2.clamp(0, MAX_LOG2_ESTIMATE * unit);
    let (whole, fraction) = (log2 / unit, log2 % unit);
    // (1 + fraction) · 2^whole, in units of 1/unit, rounded to the nearest whole unit.
    let scaled = ((unit + fraction) as u64) << whole;
    ((scaled + (unit as u64) / 2) / unit as u64).max(1) as u32
}

/// The numbers of an open node of an unbounded question (for its side to move) by `model`:
/// the predicted work to prove and to disprove the question, each at least 1.
pub fn learned_numbers(model: &Model, pos: &Position, node: &OpenNode) -> Numbers {
    let features = Features::of(pos, &Findings::of_node(node));
    // The guide's questions are told from the side to move; this node's attacker is it or
    // its opponent.
    numbers_of_costs(node, model.fixed_costs(&features, node.attacker_to_move))
}

/// The numbers of `node` whose question's fixed-point log2 work to prove and to disprove
/// (for the question's attacker) is `costs`.
fn numbers_of_costs(node: &OpenNode, (prove, disprove): (i32, i32)) -> Numbers {
    side_to_move_numbers(
        work_of_log2(prove),
        work_of_log2(disprove),
        node.attacker_to_move,
    )
}

/// A node whose children are estimated one after another ([`Estimator::child_numbers`]):
/// its position and, once the first child needs it, what the children's estimates share.
pub struct Family<'p, 'm> {
    parent: &'p Position,
    siblings: Option<Siblings<'m>>,
}

impl<'p> Family<'p, '_> {
    /// The family of the children of `parent`.
    pub fn of(parent: &'p Position) -> Self {
        Family {
            parent,
            siblings: None,
        }
    }
}

/// Slots of a searcher's cache of learned estimates (16 bytes each: a quarter megabyte).
const ESTIMATE_SLOTS: usize = 1 << 14;

/// A searcher's source of initial numbers: the hand-built estimate, its stage calibration, or
/// a model with a small cache of its estimates.
///
/// The cache is why a model can pay: a DFPN call estimates every child not yet in the table
/// again each time it is entered (children never searched are never stored), and a model's
/// estimate costs many times the hand-built one. The cache is the searcher's own (no state is
/// shared) and direct-mapped by table key; a slot holds the key it answers for, so a lookup
/// never returns another position's estimate. Any estimate keeps the search sound, so what
/// the cache keeps or drops changes only the work.
pub struct Estimator<'a> {
    estimate: Estimate<'a>,
    /// (table key, numbers) by the key's low bits; empty without a model.
    cache: Vec<(u64, Numbers)>,
}

impl<'a> Estimator<'a> {
    /// The estimator of `estimate`.
    pub fn new(estimate: Estimate<'a>) -> Estimator<'a> {
        let cache = match estimate {
            Estimate::Learned(_) => vec![(0, Numbers::UNIT); ESTIMATE_SLOTS],
            Estimate::Rules | Estimate::Calibrated(_) => Vec::new(),
        };
        Estimator { estimate, cache }
    }

    /// Starts loading the cache slot of `key`, for an [`Estimator::child_numbers`] (or
    /// [`Estimator::numbers`]) call soon after: a search asks for the estimates of a node's
    /// children together.
    pub fn prefetch(&self, key: u64) {
        if !self.cache.is_empty() {
            prefetch(&self.cache[key as usize % ESTIMATE_SLOTS]);
        }
    }

    /// The initial numbers of the open node `node` at `pos`, whose table key for `question`
    /// is `key`. Bounded questions always take the hand-built estimate: the model and the
    /// calibration were fitted to unbounded questions and know nothing of a deadline.
    pub fn numbers(
        &mut self,
        key: u64,
        pos: &Position,
        node: &OpenNode,
        question: Question,
    ) -> Numbers {
        self.cached(key, pos, node, question, |model| {
            learned_numbers(model, pos, node)
        })
    }

    /// [`Estimator::numbers`] of `child`, reached from the parent of `family` by `mv`: the
    /// same numbers, computed from what the parent's children share ([`Siblings`]).
    pub fn child_numbers(
        &mut self,
        key: u64,
        family: &mut Family<'_, 'a>,
        mv: Move,
        child: &Position,
        node: &OpenNode,
        question: Question,
    ) -> Numbers {
        self.cached(key, child, node, question, |model| {
            let siblings = family
                .siblings
                .get_or_insert_with(|| Siblings::of(model, family.parent, node.attacker_to_move));
            let costs = siblings.fixed_costs(model, mv, child, &Findings::of_node(node));
            numbers_of_costs(node, costs)
        })
    }

    /// The numbers of `node` at `pos` (key `key`): a model's from the cache, or by `learned`
    /// (then cached); the calibrated or hand-built estimate's directly (they cost less than
    /// the cache); by hand where the question is bounded.
    fn cached(
        &mut self,
        key: u64,
        pos: &Position,
        node: &OpenNode,
        question: Question,
        learned: impl FnOnce(&'a Model) -> Numbers,
    ) -> Numbers {
        if question.deadline.is_some() {
            return initial_numbers(node);
        }
        let model = match self.estimate {
            Estimate::Rules => return initial_numbers(node),
            Estimate::Calibrated(calibration) => return calibration.numbers(pos, node),
            Estimate::Learned(model) => model,
        };
        let slot = &mut self.cache[key as usize % ESTIMATE_SLOTS];
        // Key 0 marks an empty slot; a position whose key is 0 is estimated every time.
        if slot.0 == key && key != 0 {
            return slot.1;
        }
        let numbers = learned(model);
        *slot = (key, numbers);
        numbers
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Player, Rng};
    use crate::search::rules::{evaluate, Evaluation};
    use crate::search::table_key;

    #[test]
    fn work_of_a_fixed_point_log2_is_near_its_power_of_two_and_clamped() {
        let unit = model::FIXED_ONE as i32;
        for log2 in 0..=MAX_LOG2_ESTIMATE * unit {
            let exact = (log2 as f64 / f64::from(unit)).exp2();
            let work = f64::from(work_of_log2(log2));
            // Linear between powers of two: never below the power and at most 6.2 % above it
            // (give or take the rounding to whole work, which matters only near 1).
            assert!(
                work >= exact - 0.5 && work <= exact * 1.062 + 0.5,
                "{log2}: {work}"
            );
        }
        assert_eq!(work_of_log2(-5 * unit), 1);
        assert_eq!(work_of_log2(0), 1);
        assert_eq!(work_of_log2(10 * unit), 1024);
        assert_eq!(work_of_log2(99 * unit), 1 << MAX_LOG2_ESTIMATE);
    }

    #[test]
    fn the_estimators_answer_from_their_tables_and_by_hand_when_bounded() {
        let model = embedded_model().expect("the built-in weights pass their check");
        let mut rng = Rng::new(0x6573_7469);
        let calibration =
            embedded_calibration().expect("the built-in calibration passes its check");
        let mut learned = Estimator::new(Estimate::Learned(model));
        let mut hand_built = Estimator::new(Estimate::Rules);
        let mut calibrated = Estimator::new(Estimate::Calibrated(calibration));
        let mut differ = 0;
        for game in 0..300 {
            let start = Position::start();
            let moves = rng.playout(&start, 20 + game % 40);
            let pos = moves.iter().fold(start, |p, &m| p.play(m));
            let question = Question::wins(Player::X);
            let Evaluation::Open(node) = evaluate(&pos, question) else {
                continue;
            };
            let key = table_key(&pos, question);
            let expected = learned_numbers(model, &pos, &node);
            assert!(expected.phi >= 1 && expected.delta >= 1);
            // Twice: computed, then from the cache.
            for _ in 0..2 {
                assert_eq!(learned.numbers(key, &pos, &node, question), expected);
            }
            let rules = initial_numbers(&node);
            assert_eq!(hand_built.numbers(key, &pos, &node, question), rules);
            let bounded = Question::wins_within(Player::X, &pos, 9);
            assert_eq!(learned.numbers(key, &pos, &node, bounded), rules);
            assert_eq!(
                calibrated.numbers(key, &pos, &node, question),
                calibration.numbers(&pos, &node)
            );
            assert_eq!(calibrated.numbers(key, &pos, &node, bounded), rules);
            differ += usize::from(expected != rules);
        }
        assert!(differ > 100, "the model's numbers are its own: {differ}");
    }
}
