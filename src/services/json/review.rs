//! The JSON Lines of a review (`uttt review --json`, and the array `/api/review` answers): one
//! object per ply, then a summary, and the sentence that says where the game was decided.

use super::{verdict_label, WinInJson};
use crate::game::{Move, Player, Position};
use crate::search::SolveOptions;
use crate::services::play::Estimate;
use crate::services::review::{Decision, Mark, PlyReview, Review, WalkEnd};
use crate::services::WinInAnswer;
use crate::services::{SolveValue, TableReport, Verdict};
use serde::Serialize;

/// A verdict in words: `X wins`, `draw`, `O does not win`, `unknown`.
pub fn verdict_words(verdict: Verdict) -> String {
    match verdict {
        Verdict::Wins(player) => format!("{player} wins"),
        Verdict::Draw => "draw".into(),
        Verdict::DoesNotWin(player) => format!("{player} does not win"),
        Verdict::Unknown => "unknown".into(),
    }
}

/// A game value for `player` as a past-tense verb: what a move that reached it did.
fn reached_verb(value: Verdict, player: Player) -> &'static str {
    match value.value_for(player) {
        SolveValue::Win => "kept the win",
        SolveValue::Draw => "drew",
        SolveValue::Loss => "lost",
        SolveValue::Unknown => "reached an unknown position",
    }
}

/// What a move that keeps `value` does for `player`: `wins`, `draws`, `loses`.
fn keeping_verb(value: Verdict, player: Player) -> &'static str {
    match value.value_for(player) {
        SolveValue::Win => "wins",
        SolveValue::Draw => "draws",
        SolveValue::Loss | SolveValue::Unknown => "loses",
    }
}

/// Where the result was decided, in a sentence, e.g. "decided at ply 20: X played `ah` and
/// drew; `ab` wins".
pub fn decision_text(review: &Review) -> String {
    match review.decision() {
        Decision::At(ply) => {
            let entry = &review.plies[ply];
            let mover = entry.to_move();
            let after = review.plies[ply + 1].value;
            let played = entry.played.map_or_else(String::new, |m| m.to_string());
            let better = match entry.better_move {
                Some(better) => format!("`{better}` {}", keeping_verb(entry.value, mover)),
                None => format!(
                    "{} had a move that {}",
                    mover,
                    keeping_verb(entry.value, mover)
                ),
            };
            format!(
                "decided at ply {ply}: {mover} played `{played}` and {}; {better}",
                reached_verb(after, mover)
            )
        }
        Decision::AtOrBefore(ply) => format!(
            "decided at ply {ply} or earlier: {} from there on, every move kept it (the value \
             before ply {ply} is unknown)",
            verdict_words(review.plies[ply].value)
        ),
        Decision::FromStart => format!(
            "decided from the start: {}, and every move kept it",
            verdict_words(review.plies[0].value)
        ),
        Decision::Unknown => {
            "not decided within the limits: the final position's value is unknown".into()
        }
    }
}

/// One ply of the review's lines (`"type": "ply"`).
#[derive(Serialize)]
pub struct PlyJson {
    #[serde(rename = "type")]
    kind: &'static str,
    ply: usize,
    position: Position,
    to_move: Player,
    reviewed: bool,
    value: String,
    best_move: Option<Move>,
    #[serde(rename = "move")]
    played: Option<Move>,
    mark: Option<Mark>,
    better_move: Option<Move>,
    time_ms: u64,
    nodes: u64,
    from_database: bool,
    deduced: bool,
    /// How soon the game ends from here, when asked (`--win-in`).
    #[serde(skip_serializing_if = "Option::is_none")]
    win_in: Option<Option<WinInJson>>,
    /// When asked: the move played kept its mover's win but made it further off.
    #[serde(skip_serializing_if = "Option::is_none")]
    slower_win: Option<bool>,
    /// Where the value is unknown, the outcome probabilities that a tree search's playouts
    /// give, with their number: an estimate beside the value, never one.
    #[serde(skip_serializing_if = "Option::is_none")]
    estimate: Option<Estimate>,
}

impl PlyJson {
    fn of(p: &PlyReview) -> PlyJson {
        PlyJson {
            kind: "ply",
            ply: p.ply,
            position: p.position,
            to_move: p.to_move(),
            reviewed: p.reviewed,
            value: verdict_label(p.value),
            best_move: p.best_move,
            played: p.played,
            mark: p.mark,
            better_move: p.better_move,
            time_ms: p.elapsed.as_millis() as u64,
            nodes: p.nodes,
            from_database: p.from_database,
            deduced: p.deduced,
            win_in: WinInJson::of(p.win_in),
            slower_win: (p.win_in != WinInAnswer::NotAsked).then_some(p.slower_win),
            estimate: p.estimate,
        }
    }
}

/// The closing summary of the review's lines (`"type": "summary"`).
#[derive(Serialize)]
pub struct SummaryJson<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    result: String,
    game_over: bool,
    decision: &'static str,
    decided_at: Option<usize>,
    text: String,
    mistakes: Vec<usize>,
    blunders: Vec<usize>,
    earliest_reviewed: Option<usize>,
    walk_end: WalkEnd,
    positions_reviewed: usize,
    engine: &'static str,
    threads: usize,
    time_limit_ms: Option<u64>,
    time_ms: u64,
    nodes: u64,
    table: &'a TableReport,
}

/// One line of a review's JSON: a ply, or the summary that closes them.
#[derive(Serialize)]
#[serde(untagged)]
pub enum ReviewLine<'a> {
    /// A position of the game.
    Ply(PlyJson),
    /// The summary, last.
    Summary(SummaryJson<'a>),
}

/// The lines of `review`, made with `options`: one per ply, then the summary.
pub fn review_lines<'a>(review: &'a Review, options: &SolveOptions) -> Vec<ReviewLine<'a>> {
    let plies_marked = |mark: Mark| -> Vec<usize> {
        review
            .plies
            .iter()
            .filter(|p| p.mark == Some(mark))
            .map(|p| p.ply)
            .collect()
    };
    let (decision, decided_at) = match review.decision() {
        Decision::At(ply) => ("at", Some(ply)),
        Decision::AtOrBefore(ply) => ("at_or_before", Some(ply)),
        Decision::FromStart => ("from_start", Some(0)),
        Decision::Unknown => ("unknown", None),
    };
    let summary = SummaryJson {
        kind: "summary",
        result: verdict_label(review.result()),
        game_over: review.plies.last().is_some_and(|p| p.position.is_over()),
        decision,
        decided_at,
        text: decision_text(review),
        mistakes: plies_marked(Mark::Mistake),
        blunders: plies_marked(Mark::Blunder),
        earliest_reviewed: review.earliest_reviewed(),
        walk_end: review.end,
        positions_reviewed: review.positions_reviewed(),
        engine: options.engine.name(),
        threads: options.worker_threads(),
        time_limit_ms: options.time_limit.map(|t| t.as_millis() as u64),
        time_ms: review.elapsed.as_millis() as u64,
        nodes: review.nodes(),
        table: &review.table,
    };
    review
        .plies
        .iter()
        .map(|p| ReviewLine::Ply(PlyJson::of(p)))
        .chain(std::iter::once(ReviewLine::Summary(summary)))
        .collect()
}
