//! The JSON API under the page: each endpoint reads its query, asks the services, and answers
//! the same JSON as the command's `--json` (see docs/server.md). Requests are typed here
//! ([`Request`]) before anything runs, so that bad input is a 400 with the command line's error
//! text and never reaches a search.

use crate::game::{parse_game_arg_under, Move, Outcome, Player, Position, Rules};
use crate::search::SolveOptions;
use crate::services::{AnalysisJson, NotationsJson, SolveJson, Solver};
use crate::table::Table;
use serde::Serialize;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// A request of the API, read from its path and query.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// `GET /`: the page.
    Page,
    /// `GET /api/show?position=P[&play=MOVE]`: the position (after `MOVE`, if given).
    Show { position: Position },
    /// `GET /api/solve?position=P[&time_limit=S]`: its value.
    Solve {
        position: Position,
        time_limit: Option<Duration>,
    },
    /// `GET /api/analyze?position=P[&time_limit=S]`: every move's value.
    Analyze {
        position: Position,
        time_limit: Option<Duration>,
    },
}

impl Request {
    /// Whether the request runs a search (and so takes one of the server's search slots).
    pub fn searches(&self) -> bool {
        matches!(self, Request::Solve { .. } | Request::Analyze { .. })
    }
}

/// Why a request cannot be answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequestError {
    /// No such page or endpoint (404).
    NotFound(String),
    /// The request is malformed: a missing or bad parameter (400), with the command line's
    /// words for it.
    Bad(String),
}

/// Reads a request from its URL (`/api/solve?position=...`) under `rules`, the server's rule
/// set unless the query names another (`rules=open`).
pub fn parse_request(url: &str, rules: Rules) -> Result<Request, RequestError> {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let params = query_pairs(query)?;
    let param = |name: &str| {
        params
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    };
    let rules = match param("rules") {
        None => rules,
        Some(name) => Rules::from_name(name)
            .ok_or_else(|| RequestError::Bad(format!("unknown rule set `{name}`")))?,
    };
    let position = || -> Result<Position, RequestError> {
        let text = param("position")
            .ok_or_else(|| RequestError::Bad("the parameter `position` is missing".into()))?;
        let game = parse_game_arg_under(text, rules)
            .map_err(|e| RequestError::Bad(format!("invalid position `{text}`: {e}")))?;
        Ok(game.position)
    };
    let time_limit = || -> Result<Option<Duration>, RequestError> {
        param("time_limit")
            .map(|text| {
                text.parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s > 0.0)
                    .and_then(|s| Duration::try_from_secs_f64(s).ok())
                    .ok_or_else(|| {
                        RequestError::Bad(format!(
                            "time_limit: `{text}` is not a positive number of seconds"
                        ))
                    })
            })
            .transpose()
    };
    match path {
        "/" | "/index.html" => Ok(Request::Page),
        "/api/show" => {
            let mut position = position()?;
            if let Some(text) = param("play") {
                let mv: Move = text
                    .parse()
                    .map_err(|e| RequestError::Bad(format!("play: {e}")))?;
                if !position.is_legal(mv) {
                    return Err(RequestError::Bad(format!(
                        "play: {mv} is not a legal move in {position}"
                    )));
                }
                position = position.play(mv);
            }
            Ok(Request::Show { position })
        }
        "/api/solve" => Ok(Request::Solve {
            position: position()?,
            time_limit: time_limit()?,
        }),
        "/api/analyze" => {
            let position = position()?;
            if position.is_over() {
                return Err(RequestError::Bad(format!(
                    "the game is over in this position ({position}): there are no moves to analyse"
                )));
            }
            Ok(Request::Analyze {
                position,
                time_limit: time_limit()?,
            })
        }
        other => Err(RequestError::NotFound(format!(
            "no page or endpoint {other}"
        ))),
    }
}

/// The pairs of a query string, percent-decoded (`+` is a space).
fn query_pairs(query: &str) -> Result<Vec<(String, String)>, RequestError> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            Ok((percent_decode(key)?, percent_decode(value)?))
        })
        .collect()
}

/// `text` with `%XX` escapes decoded and `+` read as a space.
fn percent_decode(text: &str) -> Result<String, RequestError> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| {
                        RequestError::Bad(format!("a bad %-escape in `{text}` at byte {}", i + 1))
                    })?;
                out.push(hex);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            byte => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| RequestError::Bad("the query is not UTF-8".into()))
}

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
    /// The position in uttt.ai's notation (`uttt_ai_state`, `uttt_ai_link`), to copy back;
    /// null under the rule set where won boards stay open.
    notations: Option<NotationsJson>,
}

impl ShowJson {
    /// The view of `position`.
    pub fn of(position: Position) -> ShowJson {
        let mut cells = String::with_capacity(81);
        for board in 0..9 {
            for cell in 0..9 {
                let bit = 1 << cell;
                cells.push(if position.local_cells(Player::X, board) & bit != 0 {
                    'X'
                } else if position.local_cells(Player::O, board) & bit != 0 {
                    'O'
                } else {
                    '.'
                });
            }
        }
        let boards = (0..9)
            .map(|board| {
                let bit = 1 << board;
                if position.won_boards(Player::X) & bit != 0 {
                    'X'
                } else if position.won_boards(Player::O) & bit != 0 {
                    'O'
                } else if position.closed_boards() & bit != 0 {
                    '#'
                } else {
                    '.'
                }
            })
            .collect();
        let legal_moves: Vec<Move> = position.legal_moves().collect();
        let mut playable_boards: Vec<usize> = legal_moves.iter().map(|m| m.board()).collect();
        playable_boards.dedup();
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
            notations: NotationsJson::of(&position, None),
        }
    }
}

/// What the searches of the server share: the options every request starts from, the one
/// table, and the flag that stops every search (Ctrl-C, SIGTERM).
pub struct Searches<'a> {
    /// The options of every search; a request's `time_limit` may only shorten its limit.
    pub options: SolveOptions,
    /// The one table of every request.
    pub table: &'a Table,
    /// Raised to stop every running search.
    pub stop: &'a AtomicBool,
}

impl Searches<'_> {
    /// Answers `request` (a search, or the show of a position) with its JSON, its keys in the
    /// order the command line's `--json` prints them.
    pub fn answer_json(&self, request: &Request) -> String {
        let json = match *request {
            Request::Page => Ok("null".to_string()),
            Request::Show { position } => serde_json::to_string(&ShowJson::of(position)),
            Request::Solve {
                position,
                time_limit,
            } => {
                let options = self.options_within(time_limit);
                let report = self.solver(&options).solve(&position);
                serde_json::to_string(&SolveJson::of(&report))
            }
            Request::Analyze {
                position,
                time_limit,
            } => {
                let options = self.options_within(time_limit);
                let analysis = self.solver(&options).analyze(&position);
                let json =
                    AnalysisJson::of(&analysis, options.engine.name(), options.worker_threads());
                serde_json::to_string(&json)
            }
        };
        json.expect("answers serialise")
    }

    /// A solver with `options` on the shared table, stopped with the server.
    fn solver<'s>(&'s self, options: &'s SolveOptions) -> Solver<'s> {
        Solver::new(options, self.table).stopped_by(self.stop)
    }

    /// The server's options with the time limit of a request that asks for a shorter one.
    fn options_within(&self, time_limit: Option<Duration>) -> SolveOptions {
        let mut options = self.options.clone();
        options.time_limit = match (options.time_limit, time_limit) {
            (Some(most), Some(asked)) => Some(most.min(asked)),
            (most, asked) => most.or(asked),
        };
        options
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_read_with_their_escapes_and_rule_set() {
        let solve = parse_request(
            "/api/solve?position=ee+ea%20ae&time_limit=2.5",
            Rules::Common,
        );
        let expected: Position = "ee ea ae".parse().unwrap();
        assert_eq!(
            solve,
            Ok(Request::Solve {
                position: expected,
                time_limit: Some(Duration::from_millis(2500)),
            })
        );
        let open = parse_request("/api/show?position=start&rules=open", Rules::Common).unwrap();
        assert_eq!(
            open,
            Request::Show {
                position: Position::start_under(Rules::WonBoardsOpen)
            }
        );
        let played = parse_request("/api/show?position=start&play=ee", Rules::Common).unwrap();
        let after: Position = "ee".parse().unwrap();
        assert_eq!(played, Request::Show { position: after });
        assert_eq!(parse_request("/", Rules::Common), Ok(Request::Page));
    }

    #[test]
    fn bad_requests_say_what_is_wrong() {
        let bad = |url: &str| match parse_request(url, Rules::Common) {
            Err(RequestError::Bad(text)) => text,
            other => panic!("{url}: {other:?}"),
        };
        assert!(bad("/api/solve").contains("`position` is missing"));
        assert!(bad("/api/solve?position=zz").starts_with("invalid position `zz`: "));
        assert!(bad("/api/solve?position=start&time_limit=-1").contains("time_limit"));
        assert!(bad("/api/show?position=ee&play=aa").contains("not a legal move"));
        assert!(bad("/api/show?position=%zz").contains("bad %-escape in `%zz` at byte 1"));
        assert!(bad("/api/show?position=%+5").contains("bad %-escape"));
        assert!(bad("/api/show?position=start&rules=chess").contains("unknown rule set"));
        assert!(matches!(
            parse_request("/api/nothing", Rules::Common),
            Err(RequestError::NotFound(_))
        ));
    }

    #[test]
    fn a_shown_position_lists_its_boards_cells_and_moves() {
        let pos: Position = "ee ea".parse().unwrap();
        let show = serde_json::to_value(ShowJson::of(pos)).unwrap();
        assert_eq!(show["to_move"], "X");
        assert_eq!(show["result"], serde_json::Value::Null);
        let cells = show["cells"].as_str().unwrap();
        assert_eq!(cells.len(), 81);
        // ee: board e (4), cell e (4); ea: board e, cell a (0).
        assert_eq!(&cells[36..45], "O...X....");
        assert_eq!(show["boards"], ".........");
        assert_eq!(show["playable_boards"], serde_json::json!([0]));
        assert_eq!(show["legal_moves"].as_array().unwrap().len(), 9);
    }
}
