//! The documented JSON objects of the services' answers (see docs/cli.md, "JSON output"):
//! typed views of a report that serialise as the command line's `--json` prints them, and as
//! the server answers, so that both say the same.

mod play;
mod review;

pub use play::PlayJson;

pub use review::{decision_text, review_lines, verdict_words, PlyJson, ReviewLine, SummaryJson};

use super::play::Estimate;
use super::{Analysis, BinaryOutcome, CertificateFigures, DatabaseReport, SolveReport};
use super::{SolveValue, TableReport, Verdict, WinIn, WinInAnswer};
use crate::certificate::FileCheck;
use crate::game::formats::{
    format_codingame, format_uttt_ai_moves, format_uttt_ai_state, uttt_ai_moves_link,
    uttt_ai_state_link,
};
use crate::game::{Move, Player, Position, Rules};
use crate::search::pn_dfpn::TreeReport;
use serde::Serialize;
use std::time::Duration;

/// The `result` field: `X`, `O`, `draw`, `unknown`, or after a disproved single question
/// `not X` / `not O`.
pub fn verdict_label(verdict: Verdict) -> String {
    match verdict {
        Verdict::Wins(player) => player.letter().to_string(),
        Verdict::Draw => "draw".into(),
        Verdict::DoesNotWin(player) => format!("not {player}"),
        Verdict::Unknown => "unknown".into(),
    }
}

fn millis(duration: Duration) -> u64 {
    duration.as_millis() as u64
}

/// One binary search in the JSON (φ/δ are plain numbers; ∞ is 4294967295).
#[derive(Serialize)]
struct SearchJson {
    attacker: Player,
    outcome: BinaryOutcome,
    time_ms: u64,
    nodes: u64,
    root_phi: u32,
    root_delta: u32,
}

/// How soon a win comes in the JSON: a number of plies when exact, `{"min", "max"}` for a
/// range.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum WinInJson {
    Exact(u32),
    Range { min: u32, max: u32 },
}

impl WinInJson {
    /// The JSON of `answer`: absent when not asked, null when no win.
    pub(super) fn of(answer: WinInAnswer) -> Option<Option<WinInJson>> {
        match answer {
            WinInAnswer::NotAsked => None,
            WinInAnswer::NoWin => Some(None),
            WinInAnswer::Win(WinIn::Exact(plies)) => Some(Some(WinInJson::Exact(plies))),
            WinInAnswer::Win(WinIn::Range { min, max }) => {
                Some(Some(WinInJson::Range { min, max }))
            }
        }
    }
}

/// The documented JSON object of a single solve (also the body of a batch result line).
#[derive(Serialize)]
pub struct SolveJson<'a> {
    position: Position,
    /// The rule set, when it is not the common rules.
    #[serde(skip_serializing_if = "Rules::is_common")]
    rules: Rules,
    to_move: Player,
    result: String,
    /// The bound of a depth-bounded question (`--max-plies`).
    #[serde(skip_serializing_if = "Option::is_none")]
    max_plies: Option<u32>,
    value: SolveValue,
    /// How soon the win comes, when asked (`--win-in`): null for a draw or an unknown value.
    #[serde(skip_serializing_if = "Option::is_none")]
    win_in: Option<Option<WinInJson>>,
    best_move: Option<Move>,
    pv: &'a [Move],
    engine: &'static str,
    threads: usize,
    time_ms: u64,
    nodes: u64,
    nps: u64,
    searches: Vec<SearchJson>,
    table: &'a TableReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    tree: Option<&'a TreeReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    database: Option<&'a DatabaseReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    certificate: Option<&'a CertificateFigures>,
    #[serde(skip_serializing_if = "Option::is_none")]
    certified: Option<bool>,
}

impl<'a> SolveJson<'a> {
    /// The JSON view of `report`.
    pub fn of(report: &'a SolveReport) -> SolveJson<'a> {
        SolveJson {
            position: report.position,
            rules: report.position.rules(),
            to_move: report.to_move(),
            result: verdict_label(report.verdict),
            max_plies: report.max_plies,
            value: report.value(),
            win_in: WinInJson::of(report.win_in),
            best_move: report.best_move,
            pv: &report.pv,
            engine: report.engine.name(),
            threads: report.threads,
            time_ms: millis(report.elapsed),
            nodes: report.nodes,
            nps: report.nodes_per_second(),
            searches: report
                .searches
                .iter()
                .map(|s| SearchJson {
                    attacker: s.attacker,
                    outcome: s.outcome,
                    time_ms: millis(s.elapsed),
                    nodes: s.nodes,
                    root_phi: s.root.phi,
                    root_delta: s.root.delta,
                })
                .collect(),
            table: &report.table,
            tree: report.tree.as_ref(),
            database: report.database.as_ref(),
            certificate: None,
            certified: None,
        }
    }

    /// With the figures of the certificate written for the report, if any.
    pub fn with_certificate(mut self, figures: Option<&'a CertificateFigures>) -> SolveJson<'a> {
        self.certificate = figures;
        self.certified = figures.and_then(|f| f.certified);
        self
    }
}

/// One move of an analysis in the JSON.
#[derive(Serialize)]
struct MoveJson {
    #[serde(rename = "move")]
    mv: Move,
    value: SolveValue,
    best_reply: Option<Move>,
    /// How soon the game ends after the move, when asked (`--win-in`).
    #[serde(skip_serializing_if = "Option::is_none")]
    win_in: Option<Option<WinInJson>>,
    /// Within the analysis's bound (`--max-plies`): whether the move wins within it, `null`
    /// when unknown; absent without a bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    wins_within: Option<Option<bool>>,
    /// Where the value is unknown, the outcome probabilities that a tree search's playouts
    /// give, with their number: an estimate beside the value, never one.
    #[serde(skip_serializing_if = "Option::is_none")]
    estimate: Option<Estimate>,
    time_ms: u64,
    nodes: u64,
}

/// The documented JSON object of `uttt analyze`.
#[derive(Serialize)]
pub struct AnalysisJson<'a> {
    position: Position,
    #[serde(skip_serializing_if = "Rules::is_common")]
    rules: Rules,
    to_move: Player,
    value: SolveValue,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_plies: Option<u32>,
    moves: Vec<MoveJson>,
    unknown_moves: Vec<Move>,
    engine: &'static str,
    threads: usize,
    time_ms: u64,
    nodes: u64,
    table: &'a TableReport,
}

impl<'a> AnalysisJson<'a> {
    /// The JSON view of `analysis`, made with `engine` on `threads` threads.
    pub fn of(analysis: &'a Analysis, engine: &'static str, threads: usize) -> AnalysisJson<'a> {
        AnalysisJson {
            position: analysis.position,
            rules: analysis.position.rules(),
            to_move: analysis.to_move(),
            value: analysis.value(),
            max_plies: analysis.within,
            moves: analysis
                .moves
                .iter()
                .map(|m| MoveJson {
                    mv: m.mv,
                    value: m.value,
                    best_reply: m.best_reply,
                    win_in: WinInJson::of(m.win_in),
                    wins_within: analysis.within.map(|_| m.wins_within),
                    estimate: m.estimate,
                    time_ms: millis(m.elapsed),
                    nodes: m.nodes,
                })
                .collect(),
            unknown_moves: analysis.unknown_moves().collect(),
            engine,
            threads,
            time_ms: millis(analysis.elapsed),
            nodes: analysis.nodes,
            table: &analysis.table,
        }
    }
}

/// A position (and a game's moves) in the other programs' notations, which close won boards:
/// none under the rule set where won boards stay open.
#[derive(Serialize)]
pub struct NotationsJson {
    uttt_ai_state: String,
    uttt_ai_link: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uttt_ai_moves: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    uttt_ai_moves_link: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    codingame: Option<String>,
}

impl NotationsJson {
    /// `pos` in the other notations, with `moves` (a game from the start, not empty) when the
    /// position was given as one; `None` where those notations cannot write it.
    pub fn of(pos: &Position, moves: Option<&[Move]>) -> Option<NotationsJson> {
        pos.rules().won_boards_close().then(|| NotationsJson {
            uttt_ai_state: format_uttt_ai_state(pos),
            uttt_ai_link: uttt_ai_state_link(pos),
            uttt_ai_moves: moves.map(format_uttt_ai_moves),
            uttt_ai_moves_link: moves.map(uttt_ai_moves_link),
            codingame: moves.map(format_codingame),
        })
    }
}

/// One block of a certificate's check in the JSON.
#[derive(Serialize)]
struct BlockJson {
    block: usize,
    claim: String,
    position: Position,
    #[serde(skip_serializing_if = "Rules::is_common")]
    rules: Rules,
    verified: bool,
    positions: u64,
    bytes: usize,
    referenced: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// The documented JSON object of `uttt verify`: every block's check and what they prove.
#[derive(Serialize)]
pub struct VerifyJson {
    file: String,
    verified: bool,
    blocks: Vec<BlockJson>,
    proves: Vec<String>,
    time_ms: u64,
}

impl VerifyJson {
    /// The JSON view of `check`, the check of the certificate `file` names.
    pub fn of(file: String, check: &FileCheck) -> VerifyJson {
        VerifyJson {
            file,
            verified: check.all_verified(),
            blocks: check
                .blocks
                .iter()
                .enumerate()
                .map(|(i, b)| BlockJson {
                    block: i + 1,
                    claim: b.claim.to_string(),
                    position: b.position,
                    rules: b.position.rules(),
                    verified: b.result.is_ok(),
                    positions: b.result.as_ref().map_or(0, |v| v.positions),
                    bytes: b.result.as_ref().map_or(0, |v| v.bytes),
                    referenced: b.referenced,
                    error: b.result.as_ref().err().map(ToString::to_string),
                })
                .collect(),
            proves: check.proves().iter().map(ToString::to_string).collect(),
            time_ms: millis(check.elapsed),
        }
    }
}
