//! What the learned model says of one position, as plain data: for each question its
//! predicted log2 work to prove and to disprove it (or how the static rules settle it), and
//! the outcome probabilities. An estimate, never a value: nothing here is proved.

use super::Settled;
use crate::game::{Player, Position};
use crate::search::guide::embedded_model;
use crate::search::guide::features::{Features, Findings};
use crate::search::guide::model::{outcome_probabilities, Model};
use crate::search::rules::{evaluate, Evaluation};
use crate::search::Question;
use crate::services::SolveValue;
use serde::{Deserialize, Serialize};

/// The model's view of one question of a position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum QuestionEstimate {
    /// The static rules settle it: no search, so nothing to predict.
    Settled {
        /// How they settle it.
        settled: Settled,
    },
    /// Predicted work (MID calls) to settle it each way, as log2.
    Cost {
        /// log2 of the predicted work to prove it.
        prove_log2: f64,
        /// log2 of the predicted work to disprove it.
        disprove_log2: f64,
    },
}

/// The model's outcome probabilities (they sum to 1).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutcomeEstimate {
    /// X wins.
    pub x: f64,
    /// O wins.
    pub o: f64,
    /// A draw.
    pub draw: f64,
}

impl OutcomeEstimate {
    /// The built-in model's estimate at `pos`, shown beside a value the solver left unknown
    /// (never in place of one): `None` where the static rules settle both questions, the game
    /// is over, or the built-in weights fail their check.
    pub fn of(pos: &Position) -> Option<OutcomeEstimate> {
        let model = embedded_model().ok()?;
        predict(model, pos).estimate
    }

    /// The outcome it finds likeliest for the side `player` ([`SolveValue::Unknown`] never):
    /// its lean.
    pub fn lean_for(&self, player: Player) -> SolveValue {
        let (mine, theirs) = match player {
            Player::X => (self.x, self.o),
            Player::O => (self.o, self.x),
        };
        if mine >= theirs && mine >= self.draw {
            SolveValue::Win
        } else if theirs >= self.draw {
            SolveValue::Loss
        } else {
            SolveValue::Draw
        }
    }

    /// The estimate in words: `X 61 %, O 12 %, draw 27 %`.
    pub fn text(&self) -> String {
        let percent = |p: f64| (p * 100.0).round();
        format!(
            "X {} %, O {} %, draw {} %",
            percent(self.x),
            percent(self.o),
            percent(self.draw)
        )
    }
}

/// The model's view of a position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// "Does X win?"
    pub x_wins: QuestionEstimate,
    /// "Does O win?"
    pub o_wins: QuestionEstimate,
    /// The outcome probabilities; `None` when the static rules settle both questions (or the
    /// game is over).
    pub estimate: Option<OutcomeEstimate>,
}

/// Three decimals are plenty for an estimate, and keep the JSON short.
fn rounded(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

/// What `model` predicts for `pos`.
pub fn predict(model: &Model, pos: &Position) -> Prediction {
    let evaluations =
        [Player::X, Player::O].map(|attacker| (attacker, evaluate(pos, Question::wins(attacker))));
    // The inputs are the same for both questions (the findings are told from the side to
    // move), so either open question gives them.
    let features = evaluations
        .iter()
        .find_map(|(_, evaluation)| match evaluation {
            Evaluation::Open(node) => Some(Features::of(pos, &Findings::of_node(node))),
            Evaluation::Solved(_) => None,
        });
    let question = |(attacker, evaluation): &(Player, Evaluation)| match evaluation {
        Evaluation::Open(node) => {
            let features = Features::of(pos, &Findings::of_node(node));
            let (prove, disprove) = model.costs(&features, pos.side_to_move() == *attacker);
            QuestionEstimate::Cost {
                prove_log2: rounded(f64::from(prove)),
                disprove_log2: rounded(f64::from(disprove)),
            }
        }
        Evaluation::Solved(numbers) => QuestionEstimate::Settled {
            settled: Settled::of(pos, *attacker, *numbers),
        },
    };
    let estimate = features.map(|features| {
        let (mine, theirs, draw) = outcome_probabilities(&model.outputs(&features));
        let (x, o) = match pos.side_to_move() {
            Player::X => (mine, theirs),
            Player::O => (theirs, mine),
        };
        OutcomeEstimate {
            x: rounded(x),
            o: rounded(o),
            draw: rounded(draw),
        }
    });
    Prediction {
        x_wins: question(&evaluations[0]),
        o_wins: question(&evaluations[1]),
        estimate,
    }
}
