//! Rendering of search results: the documented JSON objects, the text summaries, and the exit
//! codes. The search hands over typed data; every word a user reads is chosen here.

use super::super::args::SearchArgs;
use super::super::{EXIT_INCOMPLETE, EXIT_OK};
use crate::game::{Move, Rules};
use crate::search::numbers::INFINITY;
use crate::services::board::{render_board, Mark};
pub use crate::services::json::{verdict_label, verdict_words, AnalysisJson, SolveJson};
use crate::services::CertificateFigures;
use crate::services::{
    Analysis, BinaryOutcome, DatabaseReport, SolveReport, SolveValue, TableReport, Verdict, WinIn,
    WinInAnswer,
};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

/// A value as a word: `win`, `loss`, `draw`, `unknown` (as in the JSON).
pub fn value_word(value: SolveValue) -> &'static str {
    match value {
        SolveValue::Win => "win",
        SolveValue::Loss => "loss",
        SolveValue::Draw => "draw",
        SolveValue::Unknown => "unknown",
    }
}

/// A proof or disproof number for people: `∞` for infinity.
pub fn number_text(n: u32) -> String {
    if n == INFINITY {
        "∞".into()
    } else {
        n.to_string()
    }
}

/// The exit code for a solve: 0 when the question was answered, 1 when a limit left it open.
pub fn exit_code(verdict: Verdict) -> i32 {
    if verdict.is_answered() {
        EXIT_OK
    } else {
        EXIT_INCOMPLETE
    }
}

fn seconds(duration: Duration) -> f64 {
    duration.as_secs_f64()
}

/// Makes a certificate's problem loud on stderr: it is a bug of the solver (or the file
/// could not be written).
pub fn report_certificate_problem(figures: Option<&CertificateFigures>, read: &[&Path]) {
    let Some(problem) = figures.and_then(|f| f.problem.as_ref()) else {
        return;
    };
    if read.is_empty() {
        eprintln!("BUG: {problem}");
        return;
    }
    // Answers from a database or a table file are trusted as the search's own: one damaged
    // or written by hand misleads the search, which the certificate then shows.
    let files: Vec<String> = read.iter().map(|path| path.display().to_string()).collect();
    eprintln!(
        "error: {problem}\nThe run read {}: a damaged or tampered file there is the likelier \
         cause than a bug in uttt; solve again without it to tell.",
        files.join(" and ")
    );
}

/// The files a search trusts as it trusts itself: the database and the table file.
pub fn trusted_files(args: &SearchArgs) -> Vec<&Path> {
    [args.db.as_deref(), args.table_file.as_deref()]
        .into_iter()
        .flatten()
        .collect()
}

/// The `rules` line of a text summary: none for the common rules.
pub fn rules_line(rules: Rules) -> String {
    match rules {
        Rules::Common => String::new(),
        Rules::WonBoardsOpen => "rules      open (won boards stay open until full)\n".into(),
        Rules::CodinGame => "rules      codingame (no line: more won boards win)\n".into(),
    }
}

/// The certificate line(s) of a summary, when one was asked for.
pub fn certificate_text(figures: Option<&CertificateFigures>) -> String {
    let Some(f) = figures else {
        return "certificate none (the value is unknown)\n".into();
    };
    let place = f.path.as_ref().map_or_else(
        || "a temporary file".to_string(),
        |p| p.display().to_string(),
    );
    if f.not_written.is_some() {
        return format!("certificate {place}: NOT WRITTEN (see stderr)\n");
    }
    let mut out = format!(
        "certificate {place}: {} block{}, {} bytes, written in {:.3} s\n",
        f.blocks,
        if f.blocks == 1 { "" } else { "s" },
        f.bytes,
        f.write_ms as f64 / 1000.0
    );
    if let Some(certified) = f.certified {
        let _ = writeln!(
            out,
            "certified  {}",
            if certified {
                format!(
                    "yes: verified independently, {} positions in {:.3} s",
                    f.positions.unwrap_or(0),
                    f.verify_ms.unwrap_or(0) as f64 / 1000.0
                )
            } else {
                "NO: the certificate does not verify (a bug; see stderr)".to_string()
            }
        );
    }
    out
}

/// The table line of a summary.
pub fn table_text(t: &TableReport) -> String {
    let hit_rate = if t.lookups > 0 {
        100.0 * t.hits as f64 / t.lookups as f64
    } else {
        0.0
    };
    format!(
        "{} MiB ({} MiB in use), {} entries, {:.1}% full, {} lookups ({hit_rate:.1}% hits), {} stores, {} replacements",
        t.bytes >> 20,
        t.active_bytes >> 20,
        t.entries,
        100.0 * t.fill,
        t.lookups,
        t.stores,
        t.replacements
    )
}

/// The bound a win or a failed win of a depth-bounded question is about, in words
/// (` within 30 plies`); empty for other verdicts and for unbounded questions.
fn within_words(verdict: Verdict, max_plies: Option<u32>) -> String {
    match (verdict, max_plies) {
        (Verdict::Wins(_) | Verdict::DoesNotWin(_), Some(plies)) => {
            format!(" within {}", crate::game::plies_words(plies))
        }
        _ => String::new(),
    }
}

/// How soon a win comes, in words (` in 9`, ` in 19–23 plies`); empty when not asked or no
/// win.
pub fn win_in_words(answer: WinInAnswer) -> String {
    match answer {
        WinInAnswer::Win(WinIn::Exact(plies)) => format!(" in {plies}"),
        WinInAnswer::Win(WinIn::Range { min, max }) => format!(" in {min}–{max} plies"),
        WinInAnswer::NotAsked | WinInAnswer::NoWin => String::new(),
    }
}

/// The human-readable summary of a solve.
pub fn summary_text(report: &SolveReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "position   {}", report.position);
    out += &rules_line(report.position.rules());
    let _ = writeln!(
        out,
        "result     {}{}{}  ({} to move: {})",
        verdict_words(report.verdict),
        within_words(report.verdict, report.max_plies),
        win_in_words(report.win_in),
        report.to_move(),
        value_word(report.value())
    );
    let _ = writeln!(out, "best move  {}", move_text(report.best_move));
    if !report.pv.is_empty() {
        let _ = writeln!(out, "pv         {}", crate::game::format_moves(&report.pv));
    }
    let threads = report.threads;
    let _ = writeln!(
        out,
        "time       {:.3} s   nodes {}   {} nodes/s   engine {} ({threads} thread{})",
        seconds(report.elapsed),
        report.nodes,
        report.nodes_per_second(),
        report.engine.name(),
        if threads == 1 { "" } else { "s" }
    );
    let _ = writeln!(out, "table      {}", table_text(&report.table));
    for s in &report.searches {
        let _ = writeln!(
            out,
            "search     does {} win{}? {} in {:.3} s, {} nodes, root φ={} δ={}",
            s.attacker,
            within_words(Verdict::Wins(s.attacker), report.max_plies),
            outcome_word(s.outcome),
            seconds(s.elapsed),
            s.nodes,
            number_text(s.root.phi),
            number_text(s.root.delta)
        );
    }
    if let Some(database) = &report.database {
        let _ = writeln!(out, "database   {}", database_text(database));
    }
    out
}

/// What the database did, in words: what it answered and stored, then any failure (which
/// never changed the answer).
pub(super) fn database_text(database: &DatabaseReport) -> String {
    let mut text = match (database.answered, database.leaves) {
        (true, _) => "the answer came from the database (no search)".to_string(),
        (false, 0) => format!("{} new facts stored", database.stored),
        (false, leaves) => format!(
            "{} new facts stored, {leaves} tree leaves answered from it",
            database.stored
        ),
    };
    if database.failed_stores > 0 {
        let stores = plural(database.failed_stores, "store", "stores");
        text += &format!("; {stores} failed and tried again");
    }
    if database.unstored > 0 {
        text += &format!(
            "; {} NOT stored",
            plural(database.unstored, "fact", "facts")
        );
    }
    if let Some(error) = &database.error {
        text += &format!(" (the database failed: {error})");
    }
    text
}

/// `count` followed by the noun's singular or plural.
fn plural(count: u64, one: &str, more: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { more })
}

fn outcome_word(outcome: BinaryOutcome) -> &'static str {
    match outcome {
        BinaryOutcome::Proved => "yes (proved)",
        BinaryOutcome::Disproved => "no (disproved)",
        BinaryOutcome::Unknown => "unknown",
    }
}

/// A move, or `-` for none.
pub fn move_text(mv: Option<Move>) -> String {
    mv.map_or_else(|| "-".into(), |m| m.to_string())
}

/// The mark of a move of `value` on the analysis board: W, D, L or ?, coloured win green, draw
/// yellow, loss magenta (red is X's).
fn value_mark(value: SolveValue) -> Mark {
    let (symbol, ansi) = match value {
        SolveValue::Win => ('W', "1;32"),
        SolveValue::Draw => ('D', "1;33"),
        SolveValue::Loss => ('L', "1;35"),
        SolveValue::Unknown => ('?', "2"),
    };
    Mark { symbol, ansi }
}

/// The human-readable analysis: the board with each legal move's value in its cell (coloured
/// when `colour`), then the table of moves.
pub fn analysis_text(analysis: &Analysis, colour: bool) -> String {
    let mover = analysis.to_move();
    let legend = match analysis.within {
        None => format!(
            "W/D/L: the move wins, draws, loses for {mover}; ? unknown; w/d/l (faint): \
             unknown, where the search's estimate leans (not a value)."
        ),
        Some(plies) => {
            format!("W: the move wins within {plies} plies for {mover}; - not; ? unknown.")
        }
    };
    let mut out = render_board(&analysis.position, colour, &legend, |mv| {
        let found = analysis.moves.iter().find(|m| m.mv == mv);
        let value = found.map_or(SolveValue::Unknown, |m| m.value);
        match found.and_then(|m| m.wins_within) {
            // A move that does not win within the bound: its value is unknown, but it is
            // answered.
            Some(false) => Mark {
                symbol: '-',
                ansi: "2",
            },
            _ => match found.and_then(|m| m.estimate) {
                // Faint and lower case: an estimate, never a value.
                Some(estimate) if value == SolveValue::Unknown => Mark {
                    symbol: value_mark(estimate.lean_for(mover))
                        .symbol
                        .to_ascii_lowercase(),
                    ansi: "2",
                },
                _ => value_mark(value),
            },
        }
    });
    out.push('\n');
    let _ = writeln!(out, "position   {}", analysis.position);
    let _ = writeln!(
        out,
        "value      {} for {} (the best of its moves)",
        value_word(analysis.value()),
        analysis.to_move()
    );
    // With `--win-in`, a column of how soon each move's game ends.
    let asked = analysis
        .moves
        .iter()
        .any(|m| m.win_in != WinInAnswer::NotAsked);
    let within_column = analysis
        .within
        .map(|plies| format!("{:<10}", format!("within {plies}")));
    let _ = writeln!(
        out,
        "move  value    {}{}reply       time        nodes",
        if asked { "in      " } else { "" },
        within_column.as_deref().unwrap_or("")
    );
    for m in &analysis.moves {
        let distance = match m.win_in {
            WinInAnswer::Win(WinIn::Exact(plies)) => format!("{plies:<8}"),
            WinInAnswer::Win(WinIn::Range { min, max }) => format!("{:<8}", format!("{min}–{max}")),
            WinInAnswer::NoWin => format!("{:<8}", "-"),
            WinInAnswer::NotAsked => String::new(),
        };
        let within = match (analysis.within, m.wins_within) {
            (None, _) => String::new(),
            (Some(_), Some(true)) => format!("{:<10}", "yes"),
            (Some(_), Some(false)) => format!("{:<10}", "no"),
            (Some(_), None) => format!("{:<10}", "?"),
        };
        // An unknown move's estimate follows its figures, marked as one.
        let estimate = m
            .estimate
            .map_or_else(String::new, |e| format!("   estimate {}", e.text()));
        let _ = writeln!(
            out,
            "{:<5} {:<8} {distance}{within}{:<5} {:>9.3} s {:>12}{estimate}",
            m.mv.to_string(),
            value_word(m.value),
            move_text(m.best_reply),
            seconds(m.elapsed),
            m.nodes
        );
    }
    let unknown: Vec<Move> = analysis.unknown_moves().collect();
    if !unknown.is_empty() {
        let estimates = if analysis.moves.iter().any(|m| m.estimate.is_some()) {
            "; an estimate is what a tree search's playouts say, calibrated, not a value"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "unknown    {} (a limit ended their solves{estimates})",
            crate::game::format_moves(&unknown)
        );
    }
    let _ = writeln!(
        out,
        "time       {:.3} s   nodes {}",
        seconds(analysis.elapsed),
        analysis.nodes
    );
    let _ = writeln!(out, "table      {}", table_text(&analysis.table));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Position;
    use crate::services::MoveAnalysis;

    /// An analysis of the opening's centre board as if its centre won, a corner drew, an edge
    /// lost and the rest were unknown.
    fn analysis() -> Analysis {
        let start = Position::start();
        let values = [
            (Move::new(4, 4), SolveValue::Win),
            (Move::new(4, 0), SolveValue::Draw),
            (Move::new(4, 1), SolveValue::Loss),
        ];
        let moves = start
            .legal_moves()
            .map(|mv| MoveAnalysis {
                mv,
                value: values
                    .iter()
                    .find(|v| v.0 == mv)
                    .map_or(SolveValue::Unknown, |v| v.1),
                best_reply: None,
                elapsed: Duration::ZERO,
                nodes: 0,
                win_in: WinInAnswer::NotAsked,
                wins_within: None,
                estimate: None,
            })
            .collect();
        Analysis {
            position: start,
            moves,
            elapsed: Duration::ZERO,
            nodes: 0,
            table: TableReport::default(),
            within: None,
            failure: None,
        }
    }

    #[test]
    fn the_analysis_board_colours_each_value_and_only_when_asked() {
        let coloured = analysis_text(&analysis(), true);
        assert!(coloured.contains("\x1b[1;32mW\x1b[0m"), "{coloured}");
        assert!(coloured.contains("\x1b[1;33mD\x1b[0m"), "{coloured}");
        assert!(coloured.contains("\x1b[1;35mL\x1b[0m"), "{coloured}");
        assert_eq!(coloured.matches("\x1b[2m?\x1b[0m").count(), 81 - 3);
        let plain = analysis_text(&analysis(), false);
        assert!(!plain.contains('\x1b'), "{plain}");
        // The first row of boards d, e and f.
        assert_eq!(plain.lines().nth(5), Some("      ? ? ? | D L ? | ? ? ?"));
    }
}
