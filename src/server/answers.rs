//! What the server answers a request with, from the services: the show of a position, and the
//! JSON of a solve, an analysis, a review or a move played (the same as the command's
//! `--json`), a certificate as a file, and a certificate's check.

use super::api::Request;
use super::http::Answer;
use super::players::{Players, PLAY_TREE_BYTES};
use crate::certificate::{check_bytes_until, write_block, CheckError};
use crate::db::{Database, Source};
use crate::game::notation::{board_mark, cell_mark};
use crate::game::{Move, Outcome, Player, Position, Rules};
use crate::search::dfpn::Limits;
use crate::search::mcts::MctsOptions;
use crate::search::options::tighter;
use crate::search::{LiveStats, SolveOptions};
use crate::services::json::review_lines;
use crate::services::json::PlayJson;
use crate::services::review::{
    review_win_in, ReviewEvent, ReviewLimits, DEFAULT_UNKNOWNS_IN_A_ROW,
};
use crate::services::{
    certify, verdict_label, AnalysisJson, NotationsJson, PlayOptions, SolveJson, Solver,
    StorePolicy, VerifyJson,
};
use crate::table::Table;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The JSON of `/api/show`: what a board needs to draw a position and take a click.
#[derive(Serialize)]
pub struct ShowJson {
    position: Position,
    /// Always given: the page passes it back with every request, since the notation of a
    /// position does not name its rule set.
    rules: Rules,
    to_move: Player,
    /// `X`, `O` or `draw` once the game is over, else null.
    result: Option<String>,
    /// The 81 cells, board by board in reading order, each `X`, `O` or `.`.
    cells: String,
    /// The 9 boards: `X`, `O` (won), `#` (drawn or full) or `.` (open).
    boards: String,
    /// The boards the side to move may play in (none once the game is over).
    playable_boards: Vec<usize>,
    legal_moves: Vec<Move>,
    /// The game's moves from the start, when the text gave them (a move list, `start`, a
    /// uttt.ai move list or CodinGame moves); null for a position without its moves. A review
    /// needs them.
    moves: Option<Vec<Move>>,
    /// The position (and game) in uttt.ai's and CodinGame's notations, as `uttt show --json`
    /// gives them; null under the rule set where won boards stay open.
    notations: Option<NotationsJson>,
}

impl ShowJson {
    /// The view of `position`, reached by `moves` if known.
    pub fn of(position: Position, moves: Option<Vec<Move>>) -> ShowJson {
        let cells = (0..9)
            .flat_map(|board| (0..9).map(move |cell| cell_mark(&position, board, cell)))
            .collect();
        let boards = (0..9).map(|board| board_mark(&position, board)).collect();
        let legal_moves: Vec<Move> = position.legal_moves().collect();
        let mut playable_boards: Vec<usize> = legal_moves.iter().map(|m| m.board()).collect();
        playable_boards.dedup();
        let game = moves.as_deref().filter(|moves| !moves.is_empty());
        ShowJson {
            position,
            rules: position.rules(),
            to_move: position.side_to_move(),
            result: match position.outcome() {
                Outcome::InPlay => None,
                Outcome::Won(player) => Some(player.letter().to_string()),
                Outcome::Draw => Some("draw".into()),
            },
            cells,
            boards,
            playable_boards,
            legal_moves,
            notations: NotationsJson::of(&position, game),
            moves,
        }
    }
}

/// How far a request's work has got, for its progress events.
#[derive(Default)]
pub struct Progress {
    /// The searches' live figures (nodes, the root's numbers).
    pub live: LiveStats,
    /// A review: positions solved so far.
    pub positions_done: AtomicU64,
    /// A review: the ply of the position being solved.
    pub ply: AtomicU64,
}

/// A progress event's data.
#[derive(Serialize)]
pub struct ProgressJson {
    elapsed_ms: u64,
    nodes: u64,
    /// A review's positions solved so far, and the ply being solved (null otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    positions_done: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ply: Option<u64>,
}

impl Progress {
    /// The progress of `request` after `elapsed`, as an event's data.
    pub fn json(&self, request: &Request, elapsed: Duration) -> ProgressJson {
        let review = matches!(request, Request::Review { .. });
        ProgressJson {
            elapsed_ms: elapsed.as_millis() as u64,
            nodes: self.live.nodes.load(Ordering::Relaxed),
            positions_done: review.then(|| self.positions_done.load(Ordering::Relaxed)),
            ply: review.then(|| self.ply.load(Ordering::Relaxed)),
        }
    }
}

/// The answer of `/api/show`: the view of `position`, reached by `moves` if known.
pub fn show(position: Position, moves: Option<Vec<Move>>) -> Answer {
    json(&ShowJson::of(position, moves))
}

/// An answer of `value` as JSON, with status 200.
fn json<T: Serialize>(value: &T) -> Answer {
    Answer::json(
        200,
        serde_json::to_string(value).expect("answers serialise"),
    )
}

/// What the searches of the server share: the options every request starts from, the one
/// table, the database (if any), and the flag that stops every search (Ctrl-C, SIGTERM).
pub struct Searches<'a> {
    /// The options of every search; a request's `time_limit` and `node_limit` may only
    /// tighten their limits.
    pub options: SolveOptions,
    /// The one table of every request.
    pub table: &'a Table,
    /// The database of solved positions every search consults and fills (`--db`).
    pub database: Option<&'a Database>,
    /// Raised to stop every running search.
    pub stop: &'a AtomicBool,
    /// The trees of the games played (`/api/play`), kept from move to move.
    pub players: Players,
}

impl Searches<'_> {
    /// The options of `request`'s searches: the server's, with the request's limits where it
    /// asks for less.
    pub fn options_for(&self, request: &Request) -> SolveOptions {
        let budget = request.budget();
        SolveOptions {
            time_limit: tighter(self.options.time_limit, budget.time_limit),
            node_limit: tighter(self.options.node_limit, budget.node_limit),
            ..self.options.clone()
        }
    }

    /// Answers `request`, a search or a check of the certificate `body` (a show is [`show`]'s),
    /// stopping its work once `stop` is raised and publishing how far it got to `progress`.
    pub fn answer(
        &self,
        request: &Request,
        body: &[u8],
        stop: &AtomicBool,
        progress: &Progress,
    ) -> Answer {
        let options = self.options_for(request);
        match request {
            Request::Page | Request::Show { .. } => {
                Answer::error(500, "not a request answered by a search")
            }
            Request::Verify { name } => self.verify(name, body, stop),
            Request::Solve {
                position, win_in, ..
            } => {
                let report = self
                    .solver(&options, stop, progress)
                    .solve_win_in(position, *win_in);
                match &report.failure {
                    Some(failure) => Answer::error(500, failure),
                    None => json(&SolveJson::of(&report)),
                }
            }
            Request::Analyze {
                position, win_in, ..
            } => {
                let analysis = self
                    .solver(&options, stop, progress)
                    .analyze_win_in(position, *win_in);
                let threads = options.worker_threads();
                match &analysis.failure {
                    Some(failure) => Answer::error(500, failure),
                    None => json(&AnalysisJson::of(&analysis, options.engine.name(), threads)),
                }
            }
            Request::Review {
                rules,
                moves,
                win_in,
                ..
            } => {
                let limits = ReviewLimits {
                    unknowns_in_a_row: Some(DEFAULT_UNKNOWNS_IN_A_ROW),
                };
                let mut solver = self.solver(&options, stop, progress);
                let start = Position::start_under(*rules);
                let on_event = |event| match event {
                    ReviewEvent::Solving { ply } | ReviewEvent::Estimating { ply } => {
                        progress.ply.store(ply as u64, Ordering::Relaxed)
                    }
                    ReviewEvent::Solved { .. } => {
                        progress.positions_done.fetch_add(1, Ordering::Relaxed);
                    }
                };
                match review_win_in(&start, moves, &mut solver, limits, *win_in, on_event) {
                    Ok(reviewed) => json(&review_lines(&reviewed, &options)),
                    Err(disagree) => Answer::error(500, &disagree.to_string()),
                }
            }
            Request::Certificate { position, .. } => {
                self.certificate(position, &options, stop, progress)
            }
            Request::Play { position, .. } => self.play(position, &options, stop, progress),
        }
    }

    /// A move at `position` by the tree search, within `options`' time limit (and, for each
    /// DFPN look, node limit), going on from the tree of the game's last move when one is
    /// kept.
    fn play(
        &self,
        position: &Position,
        options: &SolveOptions,
        stop: &AtomicBool,
        progress: &Progress,
    ) -> Answer {
        let defaults = MctsOptions::default();
        let play = PlayOptions {
            search: MctsOptions {
                threads: options.threads.max(1),
                time_limit: options.time_limit,
                leaf_work: options.node_limit.unwrap_or(defaults.leaf_work),
                tree_bytes: PLAY_TREE_BYTES,
                ..defaults
            },
            temperature: None,
        };
        let limits = Limits {
            live: Some(&progress.live),
            ..Limits::stop_only(stop)
        };
        let mut player = self.players.take(position);
        let answer = match player.choose(position, self.table, self.database, &play, limits) {
            Ok(report) => json(&PlayJson::of(&report, play.search.threads)),
            Err(error) => Answer::error(500, &error.to_string()),
        };
        self.players.keep(player);
        answer
    }

    /// The certificate of `position`'s value, solved within `options`' limits, as a file;
    /// 422 when the solve settles nothing.
    fn certificate(
        &self,
        position: &Position,
        options: &SolveOptions,
        stop: &AtomicBool,
        progress: &Progress,
    ) -> Answer {
        let report = self.solver(options, stop, progress).solve(position);
        if let Some(failure) = &report.failure {
            return Answer::error(500, failure);
        }
        let unsolved = || {
            let limits: Vec<String> = [
                options.time_limit.map(|t| format!("{} s", t.as_secs_f64())),
                options.node_limit.map(|n| format!("{n} nodes")),
            ]
            .into_iter()
            .flatten()
            .collect();
            let text = format!(
                "{position} was not solved within {}: there is no certificate",
                limits.join(" and ")
            );
            Answer::error(422, &text)
        };
        if !report.verdict.is_answered() {
            return unsolved();
        }
        let certificate = match certify(
            position,
            report.verdict,
            None,
            self.table,
            options.epsilon,
            stop,
        ) {
            Ok(certificate) => certificate,
            Err(crate::services::CertifyError::Stopped) => return unsolved(),
            Err(error) => return Answer::error(500, &format!("no certificate: {error}")),
        };
        let mut bytes = Vec::new();
        for block in &certificate.blocks {
            write_block(&mut bytes, block).expect("writing to memory succeeds");
        }
        // What is sent has passed the verifier that `uttt verify` runs.
        match check_bytes_until(&bytes, stop, None) {
            Ok(check) if check.all_verified() => Answer {
                status: 200,
                content_type: "application/octet-stream",
                file_name: Some(format!(
                    "uttt-{}.cert",
                    verdict_label(report.verdict)
                        .replace(' ', "-")
                        .to_lowercase()
                )),
                body: bytes,
            },
            Err(CheckError::Stopped) => unsolved(),
            _ => Answer::error(500, "the certificate written does not verify: a solver bug"),
        }
    }

    /// The check of the certificate `bytes`, called `name`, until `stop` is raised (at the
    /// server's time limit, when the client leaves or the server stops): the JSON
    /// `uttt verify --json` prints; 400 when they are not a certificate, 422 when the check was
    /// stopped.
    fn verify(&self, name: &str, bytes: &[u8], stop: &AtomicBool) -> Answer {
        // The watcher raises `stop` at the time limit; the check keeps a deadline of its own
        // as well, should the watcher be held up.
        let deadline = self
            .options
            .time_limit
            .and_then(|limit| Instant::now().checked_add(limit));
        match check_bytes_until(bytes, stop, deadline) {
            Ok(check) => Answer::json(
                200,
                serde_json::to_string(&VerifyJson::of(name.to_string(), &check))
                    .expect("answers serialise"),
            ),
            Err(CheckError::Stopped) => {
                let limit = self.options.time_limit.map_or(String::new(), |t| {
                    format!(" (the time limit is {} s)", t.as_secs_f64())
                });
                let text = format!(
                    "the check of certificate {name} was stopped before it finished{limit}: \
                     check it with `uttt verify FILE`"
                );
                Answer::error(422, &text)
            }
            Err(CheckError::Format(error)) => {
                Answer::error(400, &format!("certificate {name}: {error}"))
            }
        }
    }

    /// A solver with `options` on the shared table (and database), stopped by `stop` and
    /// watched by `progress`.
    fn solver<'s>(
        &'s self,
        options: &'s SolveOptions,
        stop: &'s AtomicBool,
        progress: &'s Progress,
    ) -> Solver<'s> {
        let solver = Solver::new(options, self.table)
            .stopped_by(stop)
            .watched_by(&progress.live);
        match self.database {
            Some(database) => solver.with_database(
                database,
                StorePolicy {
                    min_work: StorePolicy::DEFAULT_MIN_WORK,
                    source: Source::Serve,
                },
            ),
            None => solver,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shown_position_lists_its_boards_cells_and_moves() {
        let pos: Position = "ee ea".parse().unwrap();
        let moves = ["ee", "ea"].map(|m| m.parse().unwrap()).to_vec();
        let show = serde_json::to_value(ShowJson::of(pos, Some(moves))).unwrap();
        assert_eq!(show["to_move"], "X");
        assert_eq!(show["result"], serde_json::Value::Null);
        let cells = show["cells"].as_str().unwrap();
        assert_eq!(cells.len(), 81);
        // ee: board e (4), cell e (4); ea: board e, cell a (0).
        assert_eq!(&cells[36..45], "O...X....");
        assert_eq!(show["boards"], ".........");
        assert_eq!(show["playable_boards"], serde_json::json!([0]));
        assert_eq!(show["legal_moves"].as_array().unwrap().len(), 9);
        assert_eq!(show["moves"], serde_json::json!(["ee", "ea"]));
        // The game's moves give its other notations too.
        assert!(show["notations"]["codingame"].is_string());
        let without = serde_json::to_value(ShowJson::of(pos, None)).unwrap();
        assert_eq!(without["moves"], serde_json::Value::Null);
        assert!(without["notations"].get("codingame").is_none());
    }
}
