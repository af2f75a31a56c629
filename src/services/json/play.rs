//! The JSON of `uttt play --json` and the server's `/api/play`.

use super::{millis, verdict_label};
use crate::game::{Move, Player, Position, Rules};
use crate::search::mcts::{Bounds, Score};
use crate::services::{Estimate, PlayReport, SolveValue, Verdict};
use serde::Serialize;

/// What is proved of a move's position, as the JSON says it.
fn bounds_words(bounds: Bounds) -> Option<&'static str> {
    bounds.words()
}

/// The value of a move for the player making it.
fn move_value(bounds: Bounds, mover: Player) -> SolveValue {
    match bounds.value() {
        Some(Score::DRAW) => SolveValue::Draw,
        Some(score) if score == Score::win_for(mover) => SolveValue::Win,
        Some(_) => SolveValue::Loss,
        None => SolveValue::Unknown,
    }
}

/// One move at the root in the JSON.
#[derive(Serialize)]
struct PlayedMoveJson {
    #[serde(rename = "move")]
    mv: Move,
    /// Win, loss, draw or unknown for the player making it.
    value: SolveValue,
    /// What is proved when the value is not ("X cannot win"), else null.
    bounds: Option<&'static str>,
    /// Playouts through it.
    playouts: u32,
    /// Its playouts' shares, when it is not proved.
    estimate: Option<Estimate>,
}

/// `uttt play --json`: the move, what is proved, and the estimate where nothing is.
#[derive(Serialize)]
pub struct PlayJson<'a> {
    position: Position,
    /// The rule set, when it is not the common rules.
    #[serde(skip_serializing_if = "Rules::is_common")]
    rules: Rules,
    to_move: Player,
    /// The move played (null when the game is over).
    #[serde(rename = "move")]
    mv: Option<Move>,
    result: String,
    value: SolveValue,
    proved: bool,
    bounds: Option<&'static str>,
    estimate: Option<Estimate>,
    playouts: u64,
    pv: &'a [Move],
    threads: usize,
    time_ms: u64,
    tree_nodes: u64,
    /// Playouts of a tree kept from an earlier move that this search went on from.
    reused_playouts: u64,
    dfpn_nodes: u64,
    moves: Vec<PlayedMoveJson>,
}

impl<'a> PlayJson<'a> {
    /// The JSON view of `report`, searched with `threads` threads.
    pub fn of(report: &'a PlayReport, threads: usize) -> PlayJson<'a> {
        let mover = report.position.side_to_move();
        PlayJson {
            position: report.position,
            rules: report.position.rules(),
            to_move: mover,
            mv: report.chosen,
            result: verdict_label(report.verdict),
            value: report.value(),
            proved: report.verdict != Verdict::Unknown,
            bounds: bounds_words(report.bounds),
            estimate: report.estimate,
            playouts: report.search.playouts,
            pv: &report.search.pv,
            threads,
            time_ms: millis(report.search.elapsed),
            tree_nodes: report.search.tree_nodes,
            reused_playouts: report.search.reused,
            dfpn_nodes: report.search.dfpn_nodes,
            moves: report
                .moves
                .iter()
                .map(|m| PlayedMoveJson {
                    mv: m.mv,
                    value: move_value(m.bounds, mover),
                    bounds: bounds_words(m.bounds),
                    playouts: m.visits,
                    estimate: m.estimate,
                })
                .collect(),
        }
    }
}
