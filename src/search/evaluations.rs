//! A searcher's cache of static evaluations (see [`EvaluationCache`]).

use super::rules::{evaluate, Evaluation};
use super::Question;
use crate::game::Position;
use crate::table::numbers::Numbers;

/// Slots of a searcher's cache of static evaluations (48 bytes each: 384 KiB).
const EVALUATION_SLOTS: usize = 1 << 13;

/// A searcher's cache of the static evaluations ([`evaluate`]) of the positions it peeks at,
/// direct-mapped by table key.
///
/// A MID call evaluates every child of its node each time it is entered, and most children
/// are leaves, never searched and never stored: about half the positions evaluated in a
/// search were evaluated before, and this cache answers about 30 % of the evaluations; a
/// larger one answers few more and costs more in cache misses (BENCHMARKS.md). A slot holds
/// the key it answers for, and an evaluation depends only on the position and the question
/// (which the key stands for), so what the cache keeps or drops changes only the time, never
/// the search.
pub struct EvaluationCache {
    /// (table key, evaluation) by the key's low bits; key 0 marks an empty slot.
    slots: Vec<(u64, Evaluation)>,
}

impl Default for EvaluationCache {
    fn default() -> EvaluationCache {
        EvaluationCache::new()
    }
}

impl EvaluationCache {
    /// An empty cache.
    pub fn new() -> EvaluationCache {
        EvaluationCache {
            slots: vec![(0, Evaluation::Solved(Numbers::UNIT)); EVALUATION_SLOTS],
        }
    }

    /// The evaluation of `pos` (table key `key`) for `question`: from the cache, or evaluated
    /// (then cached).
    pub fn evaluate(&mut self, pos: &Position, key: u64, question: Question) -> Evaluation {
        let slot = &mut self.slots[key as usize % EVALUATION_SLOTS];
        // A position whose key is 0 is evaluated every time.
        if slot.0 == key && key != 0 {
            return slot.1;
        }
        let evaluation = evaluate(pos, question);
        *slot = (key, evaluation);
        evaluation
    }
}
