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
    /// (never in place of one), given what the solver did prove: each player of
    /// `cannot_win` was shown not to win there, so that outcome's chance is 0 and the others
    /// are scaled up to make 1. `None` where the static rules settle both questions, the game
    /// is over, nothing is left open, or the built-in weights fail their check.
    pub fn of(
        pos: &Position,
        cannot_win: impl IntoIterator<Item = Player>,
    ) -> Option<OutcomeEstimate> {
        let model = embedded_model().ok()?;
        let mut estimate = outcome(model, pos, &open_features(pos)?);
        for player in cannot_win {
            match player {
                Player::X => estimate.x = 0.0,
                Player::O => estimate.o = 0.0,
            }
        }
        let total = estimate.x + estimate.o + estimate.draw;
        (total > 0.0).then(|| {
            OutcomeEstimate {
                x: estimate.x / total,
                o: estimate.o / total,
                draw: estimate.draw / total,
            }
            .rounded()
        })
    }

    /// To three decimals, which are plenty for an estimate and keep the JSON short.
    fn rounded(self) -> OutcomeEstimate {
        OutcomeEstimate {
            x: rounded(self.x),
            o: rounded(self.o),
            draw: rounded(self.draw),
        }
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

/// The model's inputs at `pos`: the same for both questions (the findings are told from the
/// side to move), so either open question gives them; `None` when the static rules settle
/// both (or the game is over).
fn open_features(pos: &Position) -> Option<Features> {
    [Player::X, Player::O].into_iter().find_map(|attacker| {
        match evaluate(pos, Question::wins(attacker)) {
            Evaluation::Open(node) => Some(Features::of(pos, &Findings::of_node(&node))),
            Evaluation::Solved(_) => None,
        }
    })
}

/// The outcome probabilities `model` gives for `features` of `pos`, unrounded.
fn outcome(model: &Model, pos: &Position, features: &Features) -> OutcomeEstimate {
    let (mine, theirs, draw) = outcome_probabilities(&model.outputs(features));
    let (x, o) = match pos.side_to_move() {
        Player::X => (mine, theirs),
        Player::O => (theirs, mine),
    };
    OutcomeEstimate { x, o, draw }
}

/// What `model` predicts for `pos`.
pub fn predict(model: &Model, pos: &Position) -> Prediction {
    let evaluations =
        [Player::X, Player::O].map(|attacker| (attacker, evaluate(pos, Question::wins(attacker))));
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
    let estimate = open_features(pos).map(|features| outcome(model, pos, &features).rounded());
    Prediction {
        x_wins: question(&evaluations[0]),
        o_wins: question(&evaluations[1]),
        estimate,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rng;

    #[test]
    fn an_estimate_given_a_disproof_leaves_that_outcome_out_and_still_sums_to_one() {
        let mut rng = Rng::new(0x6573_7469);
        let mut seen = 0;
        for game in 0..200 {
            let start = Position::start();
            let pos = rng
                .playout(&start, 10 + game % 40)
                .iter()
                .fold(start, |p, &m| p.play(m));
            let Some(free) = OutcomeEstimate::of(&pos, []) else {
                continue;
            };
            assert_eq!(
                Some(free),
                predict(embedded_model().unwrap(), &pos).estimate
            );
            let sum = |e: OutcomeEstimate| e.x + e.o + e.draw;
            assert!((sum(free) - 1.0).abs() <= 0.002, "{free:?}");
            let no_x = OutcomeEstimate::of(&pos, [Player::X]).unwrap();
            assert_eq!(no_x.x, 0.0);
            assert!((sum(no_x) - 1.0).abs() <= 0.002, "{no_x:?}");
            // The others keep their proportions (to the rounding).
            if free.o > 0.05 && free.draw > 0.05 {
                let ratio = |e: OutcomeEstimate| e.o / e.draw;
                assert!(
                    (ratio(no_x) / ratio(free) - 1.0).abs() < 0.05,
                    "{free:?} {no_x:?}"
                );
            }
            assert_ne!(no_x.lean_for(Player::X), SolveValue::Win);
            // Both disproved: only a draw is left (the value is then known, and no estimate
            // is shown; the arithmetic still holds).
            let neither = OutcomeEstimate::of(&pos, [Player::X, Player::O]).unwrap();
            assert_eq!((neither.x, neither.o, neither.draw), (0.0, 0.0, 1.0));
            seen += 1;
        }
        assert!(seen > 150, "{seen}");
    }

    #[test]
    fn the_lean_is_the_likeliest_outcome_for_each_side() {
        let estimate = OutcomeEstimate {
            x: 0.61,
            o: 0.12,
            draw: 0.27,
        };
        assert_eq!(estimate.lean_for(Player::X), SolveValue::Win);
        assert_eq!(estimate.lean_for(Player::O), SolveValue::Loss);
        let drawish = OutcomeEstimate {
            x: 0.3,
            o: 0.2,
            draw: 0.5,
        };
        assert_eq!(drawish.lean_for(Player::O), SolveValue::Draw);
        assert_eq!(estimate.text(), "X 61 %, O 12 %, draw 27 %");
    }
}
