//! The estimate beside a value the proof left unknown: what the playouts of a search that
//! knows what is proved say of a position, calibrated ([`super::calibration`]), with the
//! number of playouts behind it, and what such a search may spend. Plain data: `analyze` and
//! `review` get one by [`super::appraise`].

use super::calibration::Calibration;
use crate::game::{Player, Rules};
use crate::search::mcts::{Bounds, Score};
use crate::services::learn::OutcomeEstimate;
use crate::services::report::SolveValue;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The probabilities of the three outcomes that the playouts' results give, calibrated (see
/// [`calibration`]): an estimate, never a value.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// X's win.
    pub x: f64,
    /// O's win.
    pub o: f64,
    /// A draw.
    pub draw: f64,
    /// The playouts behind it.
    pub playouts: u64,
    /// The playouts' own shares of the outcomes, before calibration.
    pub shares: Shares,
}

/// Shares of the three outcomes among playouts.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shares {
    /// X's wins.
    pub x: f64,
    /// O's wins.
    pub o: f64,
    /// Draws.
    pub draw: f64,
}

impl Estimate {
    /// The estimate of a position under `rules` whose value lies within `bounds`, from its
    /// playouts' results `counts` (by [`Score::index`]); `None` without any.
    pub fn of_counts(counts: [u64; 3], bounds: Bounds, rules: Rules) -> Option<Estimate> {
        let total: u64 = counts.iter().sum();
        if total == 0 {
            return None;
        }
        let raw = counts.map(|count| count as f64 / total as f64);
        let p = Calibration::of(rules).apply(raw, total, bounds);
        Some(Estimate {
            x: p[Score::X_WINS.index()],
            o: p[Score::O_WINS.index()],
            draw: p[Score::DRAW.index()],
            playouts: total,
            shares: Shares {
                x: raw[Score::X_WINS.index()],
                o: raw[Score::O_WINS.index()],
                draw: raw[Score::DRAW.index()],
            },
        })
    }

    /// The estimate in words: `X 61 %, O 12 %, draw 27 %, from 5000 playouts`.
    pub fn text(&self) -> String {
        format!(
            "{}, from {} playouts",
            self.outcomes().text(),
            self.playouts
        )
    }

    /// The outcome it finds likeliest for the side `player` ([`SolveValue::Unknown`] never):
    /// its lean.
    pub fn lean_for(&self, player: Player) -> SolveValue {
        self.outcomes().lean_for(player)
    }

    /// Its three probabilities alone.
    fn outcomes(&self) -> OutcomeEstimate {
        OutcomeEstimate {
            x: self.x,
            o: self.o,
            draw: self.draw,
        }
    }

    /// What it gives `player`: its win 1, a draw ½.
    pub fn reward_for(&self, player: Player) -> f64 {
        let wins = match player {
            Player::X => self.x,
            Player::O => self.o,
        };
        wins + 0.5 * self.draw
    }
}

/// What one estimate's search may spend: playouts, time, or both (the first reached ends it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EstimateBudget {
    /// Playouts (each node the looks settle counts as one).
    pub playouts: Option<u64>,
    /// Wall time, from the search's start.
    pub time_limit: Option<Duration>,
}

/// Playouts of an estimate when no time limit bounds it (and none are asked for): about
/// 50 ms on one thread from the opening, and fewer than 1 in 200 of its share off by the
/// playouts' chance alone.
pub const DEFAULT_ESTIMATE_PLAYOUTS: u64 = 10_000;

/// The share of a time limit that `analyze` and `review` keep for the estimates beside the
/// values they leave unknown (one quarter).
pub const ESTIMATE_TIME_SHARE: u32 = 4;

impl EstimateBudget {
    /// The budget of an estimate given `playouts` (asked for, or `None`) and the `time` it may
    /// take (or `None`): without either, [`DEFAULT_ESTIMATE_PLAYOUTS`]. `None` when no
    /// estimate is wanted: 0 playouts asked, or no time left.
    pub fn of(playouts: Option<u64>, time: Option<Duration>) -> Option<EstimateBudget> {
        if playouts == Some(0) || time.is_some_and(|t| t.is_zero()) {
            return None;
        }
        Some(EstimateBudget {
            playouts: playouts.or(time.is_none().then_some(DEFAULT_ESTIMATE_PLAYOUTS)),
            time_limit: time,
        })
    }
}
