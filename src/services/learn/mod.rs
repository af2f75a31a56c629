//! Learning the search's guide from its own proofs: training samples made by solving positions
//! of seeded games ([`data`]), a pattern-table model fitted to them ([`train`]), and how well
//! it predicts the work a question takes beside the hand-built estimate ([`quality`]), and what it
//! says of any position ([`predict`]); and the hand-built estimate's stage calibration fitted to
//! the same samples ([`calibrate`]).
//!
//! The file of samples is JSON Lines, one [`Sample`] a line (docs/learning.md documents it).

pub mod calibrate;
pub mod data;
pub mod predict;
pub mod quality;
pub mod train;

pub use predict::OutcomeEstimate;

use crate::game::{parse_position_under, Player, Position, Rules};
use crate::search::guide::features::{Features, Findings};
use crate::search::rules::{evaluate, Evaluation};
use crate::search::{Numbers, Question};
use serde::{Deserialize, Serialize};

/// How a question ended within its search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Settled {
    /// The attacker wins: `work` is the proof's cost.
    Proved,
    /// The attacker does not win: `work` is the disproof's cost.
    Disproved,
    /// Still open when its search's node limit ran out: `work` is a lower bound on both
    /// costs (a censored label).
    Unsettled,
}

impl Settled {
    /// How a question ended, from the numbers a search left at its position for `attacker`
    /// (numbers for the side to move).
    pub fn of(pos: &Position, attacker: Player, numbers: Numbers) -> Settled {
        if !numbers.is_solved() {
            return Settled::Unsettled;
        }
        let mover_reaches_goal = numbers.phi == 0;
        if mover_reaches_goal == (pos.side_to_move() == attacker) {
            Settled::Proved
        } else {
            Settled::Disproved
        }
    }
}

/// One training sample: a position, a question asked of it ("does `attacker` win?", with no
/// ply bound), how its search ended and the work it took.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    /// The position, in the position notation (with its rule set's name before a colon when
    /// it is not the common rules).
    pub position: String,
    /// The rule set.
    pub rules: Rules,
    /// The player whose win is asked about.
    pub attacker: Player,
    /// How the question ended.
    pub result: Settled,
    /// MID calls spent on it: for a search's root, all of them; for a position settled inside
    /// a search, the calls made under it over every visit.
    pub work: u64,
    /// Whether the position was the root of its search (else a position settled inside one).
    pub root: bool,
    /// The index of the seeded game the position comes from (positions of one game are kept
    /// together when samples are held out).
    pub game: u64,
}

/// A sample read for training: the position and what the model sees of it.
#[derive(Clone, Copy, Debug)]
pub struct Prepared {
    /// The position.
    pub position: Position,
    /// Whether the question is about the side to move's win (else its opponent's).
    pub mine: bool,
    /// How it ended.
    pub result: Settled,
    /// log2 of its work (at least 0).
    pub log2_work: f32,
    /// What the static rules find at the position (the same under every symmetry).
    pub findings: Findings,
    /// The hand-built estimate's numbers for the question (for the side to move).
    pub rules_numbers: Numbers,
    /// The game it comes from.
    pub game: u64,
}

impl Prepared {
    /// The sample read, or `None` when the static rules settle its question (the search never
    /// asks a guide about such a position). An unreadable position is an error naming it.
    pub fn of(sample: &Sample) -> Result<Option<Prepared>, String> {
        let position = parse_position_under(&sample.position, sample.rules)
            .map_err(|e| format!("position `{}`: {e}", sample.position))?;
        Ok(Prepared::of_question(
            position,
            sample.attacker,
            sample.result,
            sample.work,
            sample.game,
        ))
    }

    /// The sample of "does `attacker` win at `position`?", which ended as `result` after
    /// `work` MID calls, from game `game`; `None` when the static rules settle the question.
    pub fn of_question(
        position: Position,
        attacker: Player,
        result: Settled,
        work: u64,
        game: u64,
    ) -> Option<Prepared> {
        let Evaluation::Open(node) = evaluate(&position, Question::wins(attacker)) else {
            return None;
        };
        Some(Prepared {
            position,
            mine: position.side_to_move() == attacker,
            result,
            log2_work: (work.max(1) as f32).log2(),
            findings: Findings::of_node(&node),
            rules_numbers: crate::search::numbers::initial_numbers(&node),
            game,
        })
    }

    /// The model's inputs for this position under symmetry `sym` (0 is the position itself).
    pub fn features(&self, sym: usize) -> Features {
        let pos = if sym == 0 {
            self.position
        } else {
            self.position.transform(sym)
        };
        Features::of(&pos, &self.findings)
    }
}

/// Whether `later` could come after `earlier` in a game: the same rule set, and every stone of
/// `earlier` on `later` (used to keep the benchmarks' positions, and all after them, out of
/// the samples).
pub fn could_follow(later: &Position, earlier: &Position) -> bool {
    later.rules() == earlier.rules()
        && [Player::X, Player::O]
            .iter()
            .all(|&p| earlier.cells(p) & !later.cells(p) == 0)
}
