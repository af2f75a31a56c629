//! Where a search's initial proof and disproof numbers come from: the hand-built estimate
//! ([`super::numbers::initial_numbers`], the guide `rules`) or a model learned from the
//! solver's own proofs (the guide `learned`: [`model`], over the inputs of [`features`]).
//!
//! A guide only estimates the numbers of positions not yet searched. Any positive estimates
//! keep proof-number search sound (they choose which leaf is expanded next, never what a leaf
//! is worth), so the guide changes the work a search does and never its answer; the tests run
//! the oracle's positions with each guide.

pub mod features;
pub mod model;

use super::numbers::{initial_numbers, Numbers};
use super::rules::OpenNode;
use crate::game::Position;
use features::{Features, Findings};
pub use model::{Model, WeightsError};
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// Which estimate gives a new node its numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Guide {
    /// The hand-built estimate: mobility, live lines and threats
    /// ([`super::numbers::initial_numbers`]).
    #[default]
    Rules,
    /// The model learned from the solver's proofs, built into the program
    /// ([`embedded_model`]).
    Learned,
}

impl Guide {
    /// The guide's name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Guide::Rules => "rules",
            Guide::Learned => "learned",
        }
    }

    /// The model this guide reads, checked (none for the hand-built estimate).
    pub fn model(self) -> Result<Option<&'static Model>, WeightsError> {
        match self {
            Guide::Rules => Ok(None),
            Guide::Learned => embedded_model().map(Some),
        }
    }

    /// The model a searcher steers by: this guide's, or none (the hand-built estimate) when
    /// the guide is `rules` or the built-in weights fail their check. The front ends check
    /// [`Guide::model`] before a search starts and say so; a searcher cannot fail, and any
    /// estimate gives the same answers.
    pub fn searching_model(self) -> Option<&'static Model> {
        self.model().ok().flatten()
    }
}

/// The weights built into the program (`models/guide.bin`, remade by
/// `scripts/train-guide.sh`; see docs/learning.md).
static EMBEDDED_WEIGHTS: &[u8] = include_bytes!("../../../models/guide.bin");

/// The built-in model, read and checked once: it is a constant of the program, so every
/// search shares the one copy (nothing in it ever changes).
pub fn embedded_model() -> Result<&'static Model, WeightsError> {
    static MODEL: OnceLock<Result<Model, WeightsError>> = OnceLock::new();
    MODEL
        .get_or_init(|| Model::from_bytes(EMBEDDED_WEIGHTS))
        .as_ref()
        .map_err(Clone::clone)
}

/// Work estimates are capped at 2^this, well below the numbers' saturation, so that sums of
/// many estimates still compare.
const MAX_LOG2_ESTIMATE: f32 = 24.0;

/// The numbers of an open node of an unbounded question (for its side to move) by `model`:
/// the predicted work to prove and to disprove the question, each at least 1.
pub fn learned_numbers(model: &Model, pos: &Position, node: &OpenNode) -> Numbers {
    let features = Features::of(pos, &Findings::of_node(node));
    // The guide's questions are told from the side to move; this node's attacker is it or
    // its opponent.
    let (prove, disprove) = model.costs(&features, node.attacker_to_move);
    let work = |log2: f32| log2.clamp(0.0, MAX_LOG2_ESTIMATE).exp2().round() as u32;
    let (pn, dn) = (work(prove).max(1), work(disprove).max(1));
    if node.attacker_to_move {
        Numbers { phi: pn, delta: dn }
    } else {
        Numbers { phi: dn, delta: pn }
    }
}

/// The initial numbers of an open node under a guide's model (`None`: the hand-built
/// estimate). Bounded questions always take the hand-built estimate: the model was trained on
/// unbounded questions and knows nothing of a deadline.
pub fn estimate(model: Option<&Model>, pos: &Position, node: &OpenNode, bounded: bool) -> Numbers {
    match model {
        Some(model) if !bounded => learned_numbers(model, pos, node),
        _ => initial_numbers(node),
    }
}
