//! `uttt review GAME`: a game's positions solved from the end backwards (see
//! [`crate::services::review`]), printed as a table of plies or as JSON Lines.

use super::options::{
    check_files, check_threads, open_database, open_table, search_files, search_options,
    use_database,
};
use super::progress::{progress_mode, with_walk_line, Walk};
use super::report::{move_text, table_text, verdict_label, verdict_words, win_in_words};
use crate::cli::args::{ReviewArgs, DEFAULT_REVIEW_TIME_LIMIT};
use crate::cli::{interrupt, EXIT_INCOMPLETE, EXIT_OK};
use crate::db::Source;
use crate::files::lines::{is_stopped, open_input, read_at_most};
use crate::files::NamedPath;
use crate::game::notation::split_moves;
use crate::game::NotationError;
use crate::game::{parse_game_arg_under, shown, Move, Outcome, Position};
use crate::search::SolveOptions;
use crate::services::json::{decision_text, review_lines};
use crate::services::review::{review_win_in, Mark, Review, ReviewEvent, ReviewLimits, WalkEnd};
use crate::services::{Solver, Verdict};
use anyhow::Context;
use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Reviews the game the arguments name and prints it; returns the exit code: 0 when every
/// position's value is known, 1 when some are not (a limit, or the walk stopped early), 128 +
/// the signal's number when a signal stopped it.
pub fn run(args: &ReviewArgs) -> anyhow::Result<i32> {
    let stop = interrupt::stop_flag();
    let mut files = search_files(&args.search);
    files.extend(
        args.file
            .as_deref()
            .map(|path| NamedPath::read("--file", path)),
    );
    check_files(&files)?;
    let moves = read_game(args)?;
    let start = Position::start_under(args.rule_set.rules);
    let mut options = search_options(&args.search, None)?;
    check_threads(&options)?;
    options.time_limit = options.time_limit.or(Some(DEFAULT_REVIEW_TIME_LIMIT));
    let mut table = open_table(&args.search)?;
    let database = open_database(&args.search)?;
    let limits = ReviewLimits {
        unknowns_in_a_row: (!args.all).then_some(args.stop_after as usize),
    };
    let walk = Walk {
        total: moves.len() as u64 + 1,
        ..Walk::default()
    };
    let review = with_walk_line(progress_mode(&args.search), &table, &walk, |live| {
        let solver = Solver::new(&options, &table)
            .stopped_by(stop)
            .watched_by(live)
            .estimating_with(args.estimate_playouts);
        let mut solver = use_database(solver, database.as_ref(), &args.search, Source::Review);
        let mode = args.win_in.mode();
        review_win_in(
            &start,
            &moves,
            &mut solver,
            limits,
            mode,
            |event| match event {
                ReviewEvent::Solving { ply } | ReviewEvent::Estimating { ply } => {
                    walk.ply.store(ply as u64, Ordering::Relaxed)
                }
                ReviewEvent::Solved { .. } => {
                    walk.done.fetch_add(1, Ordering::Relaxed);
                }
            },
        )
    });
    // The table keeps what the solves learned even when their answers disagree.
    table.flush(true)?;
    let review = review?;
    let text = if args.search.json {
        review_json(&review, &options)?
    } else {
        review_text(&review, &options, limits)
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(if let Some(code) = interrupt::exit_code() {
        code
    } else if review.plies.iter().all(|p| p.value != Verdict::Unknown) {
        EXIT_OK
    } else {
        EXIT_INCOMPLETE
    })
}

/// The most bytes a game's text may have: a game of 81 moves with a comment on every line is
/// a few kilobytes; what is larger is not a game, and is not read into memory.
const MAX_GAME_BYTES: u64 = 1 << 20;

/// All of the file `path` (`-`: stdin; named `name` in errors), at most [`MAX_GAME_BYTES`] of
/// it. Waiting for a writer (a FIFO) or for the bytes ends at Ctrl-C, SIGTERM or after `limit`.
fn read_bounded(path: &Path, name: &str, limit: Option<Duration>) -> anyhow::Result<String> {
    let stop = interrupt::stop_flag();
    let deadline = limit.and_then(|limit| Instant::now().checked_add(limit));
    let read = open_input(path, stop, deadline, deadline)
        .and_then(|input| read_at_most(input, MAX_GAME_BYTES))
        .map_err(|error| {
            // The time limit, not a signal (whose exit code the error keeps either way).
            let timed_out = is_stopped(&error) && interrupt::exit_code().is_none();
            let context = match limit.filter(|_| timed_out) {
                Some(limit) => format!(
                    "cannot read {name}: nothing came within {} s (--time-limit)",
                    limit.as_secs_f64()
                ),
                None => format!("cannot read {name}"),
            };
            anyhow::Error::new(error).context(context)
        })?;
    let bytes =
        read.with_context(|| format!("{name} is longer than {MAX_GAME_BYTES} bytes: not a game"))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        anyhow::anyhow!("{name} is not UTF-8 text (byte {} is not)", at + 1)
    })
}

/// Where a game's text came from, for error messages.
enum Origin<'a> {
    Argument,
    Stdin,
    File(&'a std::path::Path),
}

/// The moves of the game the arguments give, read in any notation; a position without its
/// moves is refused, since a review needs the moves that were played.
fn read_game(args: &ReviewArgs) -> anyhow::Result<Vec<Move>> {
    let rules = args.rule_set.rules;
    // A file (a FIFO) is waited for at most as long as one position's search; stdin as long
    // as it takes (a person may be typing the game).
    let limit = args.search.time_limit.unwrap_or(DEFAULT_REVIEW_TIME_LIMIT);
    let (text, origin) = match (&args.game, &args.file) {
        (Some(game), _) if game == "-" => {
            let text = read_bounded(Path::new("-"), "stdin", None)?;
            (without_comments(&text), Origin::Stdin)
        }
        (Some(game), _) => (game.clone(), Origin::Argument),
        (None, Some(path)) => {
            let name = format!("the game file {}", path.display());
            (
                without_comments(&read_bounded(path, &name, Some(limit))?),
                Origin::File(path),
            )
        }
        (None, None) => anyhow::bail!("give a game, `-` for stdin, or --file PATH"),
    };
    let game = parse_game_arg_under(&text, rules).map_err(|error| match origin {
        Origin::Argument => anyhow::anyhow!("invalid game `{}`: {error}", shown(&text)),
        Origin::Stdin => located(&error, &text, "stdin"),
        Origin::File(path) => located(&error, &text, &path.display().to_string()),
    })?;
    game.moves.ok_or_else(|| {
        anyhow::anyhow!(
            "a review needs a game, the moves from the start (a move list, a uttt.ai move list \
             or link, or CodinGame moves), not a position without its moves"
        )
    })
}

/// `text` with each line's `#` comment blanked out (so that columns stay where they were).
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|line| match line.find('#') {
            Some(at) => format!("{}{}", &line[..at], " ".repeat(line[at..].chars().count())),
            None => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// An error reading the game in `text` (from `source`), with the line and column it is at.
fn located(error: &NotationError, text: &str, source: &str) -> anyhow::Error {
    // Errors count columns from 1 in the trimmed text, and moves from 1 in the list.
    let leading = text.len() - text.trim_start().len();
    let trimmed = text.trim();
    let (offset, what) = match error {
        NotationError::Position(e) => (column_offset(trimmed, e.column), e.to_string()),
        NotationError::Format(e) => (
            column_offset(trimmed, e.column),
            format!("{}: {}", e.notation, e.reason),
        ),
        NotationError::Moves(e) => (
            split_moves(trimmed).nth(e.index - 1).map_or(0, |token| {
                token.as_ptr() as usize - trimmed.as_ptr() as usize
            }),
            e.to_string(),
        ),
        NotationError::Empty => return anyhow::anyhow!("{source}: no game (it is empty)"),
    };
    let before = &text[..leading + offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    anyhow::anyhow!("invalid game in {source}, line {line}, column {column}: {what}")
}

/// The byte offset in `text` of 1-based character `column` (the end for one past it).
fn column_offset(text: &str, column: usize) -> usize {
    text.char_indices()
        .nth(column.saturating_sub(1))
        .map_or(text.len(), |(at, _)| at)
}

/// A move's mark as a word (as in the JSON).
fn mark_word(mark: Mark) -> &'static str {
    match mark {
        Mark::Best => "best",
        Mark::Mistake => "mistake",
        Mark::Blunder => "blunder",
        Mark::Unknown => "unknown",
    }
}

/// The final position's result: how the game ended, or its value if it goes on.
fn result_text(review: &Review) -> String {
    let Some(last) = review.plies.last() else {
        return String::new();
    };
    match last.position.outcome() {
        Outcome::Won(player) => format!("{player} won (ply {})", last.ply),
        Outcome::Draw => format!("drawn (ply {})", last.ply),
        Outcome::InPlay => format!(
            "{} with best play from ply {} (the game stops there, {} to move)",
            verdict_words(last.value),
            last.ply,
            last.to_move()
        ),
    }
}

/// How far the walk went back and why it stopped.
fn walk_text(review: &Review, limits: ReviewLimits) -> String {
    let Some(earliest) = review.earliest_reviewed() else {
        return "nothing reviewed".into();
    };
    let last = review.plies.len() - 1;
    let why = match review.end {
        WalkEnd::Start => "reached the start".to_string(),
        WalkEnd::Unknowns => format!(
            "stopped after {} unknown position{} in a row; --all walks on to the start",
            limits.unknowns_in_a_row.unwrap_or(0),
            if limits.unknowns_in_a_row == Some(1) {
                ""
            } else {
                "s"
            }
        ),
        WalkEnd::Stopped => "stopped by a signal".to_string(),
    };
    format!(
        "plies {last} back to {earliest} ({} positions; {} from the database): {why}",
        review.positions_reviewed(),
        review.plies.iter().filter(|p| p.from_database).count()
    )
}

/// The mistakes and blunders, one phrase each, e.g. `ply 20 X ah mistake (ab)`.
fn errors_text(review: &Review) -> String {
    let phrases: Vec<String> = review
        .errors()
        .map(|p| {
            format!(
                "ply {} {} {} {}{}",
                p.ply,
                p.to_move(),
                p.played.map_or_else(String::new, |m| m.to_string()),
                p.mark.map_or("", mark_word),
                p.better_move
                    .map_or_else(String::new, |m| format!(" (better {m})"))
            )
        })
        .collect();
    if phrases.is_empty() {
        "none among the marked moves".into()
    } else {
        phrases.join(", ")
    }
}

/// The human-readable review: one row per reviewed ply, then the summary.
fn review_text(review: &Review, options: &SolveOptions, limits: ReviewLimits) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "ply  to move  value     move  mark      better       time        nodes"
    );
    if let Some(earliest) = review.earliest_reviewed().filter(|&e| e > 0) {
        let _ = writeln!(out, "0-{}  not reviewed", earliest - 1);
    }
    for p in review.plies.iter().filter(|p| p.reviewed) {
        let _ = writeln!(
            out,
            "{:>3}  {:<7}  {:<8}  {:<4}  {:<8}  {:<6}  {:>9.3} s {:>12}{}",
            p.ply,
            p.to_move().to_string(),
            verdict_label(p.value) + &win_in_words(p.win_in),
            move_text(p.played),
            // A winning move that made the win further off, as a slower mate is marked.
            if p.slower_win {
                "slower"
            } else {
                p.mark.map_or("-", mark_word)
            },
            move_text(p.better_move),
            p.elapsed.as_secs_f64(),
            p.nodes,
            if p.from_database {
                "  (database)".to_string()
            } else if p.deduced {
                "  (from the next position)".to_string()
            } else {
                // Marked as what it is: the playouts' estimate, not a value.
                p.estimate
                    .map_or_else(String::new, |e| format!("  estimate {}", e.text()))
            }
        );
    }
    let _ = writeln!(out, "decision   {}", decision_text(review));
    let _ = writeln!(out, "result     {}", result_text(review));
    let _ = writeln!(out, "errors     {}", errors_text(review));
    let _ = writeln!(out, "walk       {}", walk_text(review, limits));
    let _ = writeln!(
        out,
        "time       {:.3} s   nodes {}   {} on {} threads, {} per position",
        review.elapsed.as_secs_f64(),
        review.nodes(),
        options.engine.name(),
        options.worker_threads(),
        options.time_limit.map_or_else(
            || "no limit".into(),
            |t| format!("{:.3} s", t.as_secs_f64())
        )
    );
    let _ = writeln!(out, "table      {}", table_text(&review.table));
    out
}

/// The review as JSON Lines: one object per ply (`"type": "ply"`), then a summary.
fn review_json(review: &Review, options: &SolveOptions) -> anyhow::Result<String> {
    let mut out = String::new();
    for line in review_lines(review, options) {
        out += &serde_json::to_string(&line)?;
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rules;

    #[test]
    fn comments_are_blanked_in_place() {
        let text = "4 4 # centre\n3 3\n# a note\n";
        let stripped = without_comments(text);
        assert_eq!(stripped, "4 4         \n3 3\n        ");
    }

    #[test]
    fn errors_in_a_file_name_the_line_and_column() {
        let text = without_comments("# a game\n4 4\n3 3\n9 1\n");
        let error = parse_game_arg_under(&text, Rules::Common).unwrap_err();
        let message = located(&error, &text, "game.txt").to_string();
        assert!(
            message.starts_with("invalid game in game.txt, line 4, column 1: CodinGame"),
            "{message}"
        );
        let text = "ee ea\nae zz\n";
        let error = parse_game_arg_under(text, Rules::Common).unwrap_err();
        let message = located(&error, text, "game.txt").to_string();
        assert!(
            message.starts_with("invalid game in game.txt, line 2, column 4: move 4 `zz`"),
            "{message}"
        );
    }
}
