//! The JSON API's requests: each endpoint's path, method and query read into a typed
//! [`Request`] before anything runs, so that bad input is a 400 with the command line's error
//! text and never reaches a search (see docs/server.md).

use crate::game::{parse_game_arg_under, shown, Game, Move, Position, Rules};
use crate::services::units::parse_duration;
use crate::services::WinInMode;
use std::time::Duration;

/// The limits a request asks for (`time_limit`, a duration as the command line writes it, and
/// `node_limit`); the server's own bound them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    /// The longest its work may take.
    pub time_limit: Option<Duration>,
    /// The most nodes a search may take (each position's, in a review).
    pub node_limit: Option<u64>,
}

/// A request of the API, read from its path and query.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// `GET /`: the page.
    Page,
    /// `GET /api/show?position=P[&play=MOVES]`: the position (after `MOVES`, if given), with
    /// the game's moves from the start when the text gave them.
    Show {
        position: Position,
        moves: Option<Vec<Move>>,
    },
    /// `GET /api/solve?position=P[&time_limit=S][&win_in=HOW]`: its value (and how soon a
    /// win comes).
    Solve {
        position: Position,
        budget: Budget,
        win_in: WinInMode,
    },
    /// `GET /api/analyze?position=P[&time_limit=S][&win_in=HOW]`: every move's value (and
    /// how soon each decisive move's game ends).
    Analyze {
        position: Position,
        budget: Budget,
        win_in: WinInMode,
    },
    /// `GET /api/review?game=G[&time_limit=S][&win_in=HOW]`: the game's positions solved from
    /// its end back (and how soon each won position's game ends).
    Review {
        rules: Rules,
        moves: Vec<Move>,
        budget: Budget,
        win_in: WinInMode,
    },
    /// `GET /api/certificate?position=P[&time_limit=S]`: the position solved and its proof
    /// certificate written, as a file.
    Certificate { position: Position, budget: Budget },
    /// `GET /api/play?position=P[&time_limit=S][&node_limit=N]`: a move chosen by the tree
    /// search that knows what is proved (the JSON of `uttt play --json`); `node_limit` bounds
    /// each of its DFPN looks.
    Play { position: Position, budget: Budget },
    /// `POST /api/verify[?name=FILE]`: the certificate in the body checked; `name` is what the
    /// answer calls it.
    Verify { name: String },
}

impl Request {
    /// Whether the request runs a search or a check (and so takes one of the server's search
    /// slots).
    pub fn searches(&self) -> bool {
        !matches!(self, Request::Page | Request::Show { .. })
    }

    /// Whether the request's answer is JSON that a client may take as server-sent events
    /// (progress, then the answer): a solve, an analysis or a review.
    pub fn streams(&self) -> bool {
        matches!(
            self,
            Request::Solve { .. }
                | Request::Analyze { .. }
                | Request::Review { .. }
                | Request::Play { .. }
        )
    }

    /// The method the request's endpoint is asked with.
    pub fn method(&self) -> &'static str {
        match self {
            Request::Verify { .. } => "POST",
            _ => "GET",
        }
    }

    /// The limits the request asks for (none for what runs no search).
    pub fn budget(&self) -> Budget {
        match *self {
            Request::Solve { budget, .. }
            | Request::Analyze { budget, .. }
            | Request::Review { budget, .. }
            | Request::Certificate { budget, .. }
            | Request::Play { budget, .. } => budget,
            Request::Page | Request::Show { .. } | Request::Verify { .. } => Budget::default(),
        }
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

/// The query of a request, decoded.
struct Query(Vec<(String, String)>);

impl Query {
    /// The value of parameter `name`, if given.
    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The value of the parameter `name`, which must be given.
    fn required(&self, name: &str) -> Result<&str, RequestError> {
        self.get(name)
            .ok_or_else(|| RequestError::Bad(format!("the parameter `{name}` is missing")))
    }

    /// `win_in` (`exact`, `range` or `off`, the default).
    fn win_in(&self) -> Result<WinInMode, RequestError> {
        match self.get("win_in") {
            None | Some("off") => Ok(WinInMode::Off),
            Some("range") => Ok(WinInMode::Range),
            Some("exact") => Ok(WinInMode::Exact),
            Some(other) => Err(RequestError::Bad(format!(
                "win_in: `{other}` is none of exact, range and off"
            ))),
        }
    }

    /// `time_limit` (a duration as the command line's `--time-limit` takes it: `500ms`, `5s`,
    /// `1m`, `1h`, or plain seconds such as `2.5`; above zero and at most ten years) and
    /// `node_limit`, where given.
    fn budget(&self) -> Result<Budget, RequestError> {
        let time_limit = self
            .get("time_limit")
            .map(|text| match parse_duration(text) {
                Ok(limit) if !limit.is_zero() => Ok(limit),
                Ok(_) => Err(RequestError::Bad(format!(
                    "time_limit: `{text}` is no time at all"
                ))),
                Err(error) => Err(RequestError::Bad(format!("time_limit: {error}"))),
            })
            .transpose()?;
        let node_limit = self
            .get("node_limit")
            .map(|text| {
                text.parse::<u64>().ok().filter(|&n| n > 0).ok_or_else(|| {
                    RequestError::Bad(format!(
                        "node_limit: `{text}` is not a positive whole number"
                    ))
                })
            })
            .transpose()?;
        Ok(Budget {
            time_limit,
            node_limit,
        })
    }
}

/// The paths of the page.
const PAGE_PATHS: [&str; 2] = ["/", "/index.html"];
/// The path of the endpoint that takes a body.
const VERIFY_PATH: &str = "/api/verify";

/// The path and the query of a request's URL.
fn split_target(url: &str) -> (&str, &str) {
    url.split_once('?').unwrap_or((url, ""))
}

/// Whether a request to `url` sends a body: a certificate to check. Known from the head alone,
/// so that a body is read (or refused) before anything else of the request is.
pub fn takes_body(url: &str) -> bool {
    split_target(url).0 == VERIFY_PATH
}

/// Whether `url` is the page, which runs nothing: any site may link to it.
pub fn is_page(url: &str) -> bool {
    PAGE_PATHS.contains(&split_target(url).0)
}

/// Reads a request from its URL (`/api/solve?position=...`) under `rules`, the server's rule
/// set unless the query names another (`rules=open`).
pub fn parse_request(url: &str, rules: Rules) -> Result<Request, RequestError> {
    let (path, query) = split_target(url);
    let query = Query(query_pairs(query)?);
    let rules = match query.get("rules") {
        None => rules,
        // The command line's words, which name the rule sets there are.
        Some(name) => Rules::parse(name).map_err(RequestError::Bad)?,
    };
    let game = |parameter: &str, what: &str| -> Result<Game, RequestError> {
        let text = query.required(parameter)?;
        parse_game_arg_under(text, rules)
            .map_err(|e| RequestError::Bad(format!("invalid {what} `{}`: {e}", shown(text))))
    };
    let position = || game("position", "position").map(|game| game.position);
    match path {
        path if PAGE_PATHS.contains(&path) => Ok(Request::Page),
        "/api/show" => {
            let Game {
                mut position,
                mut moves,
            } = game("position", "position")?;
            for text in query
                .get("play")
                .map_or(Vec::new(), |t| t.split(' ').collect())
            {
                let mv: Move = text
                    .parse()
                    .map_err(|e| RequestError::Bad(format!("play: {e}")))?;
                if !position.is_legal(mv) {
                    return Err(RequestError::Bad(format!(
                        "play: {mv} is not a legal move in {position}"
                    )));
                }
                position = position.play(mv);
                if let Some(moves) = moves.as_mut() {
                    moves.push(mv);
                }
            }
            Ok(Request::Show { position, moves })
        }
        "/api/solve" => Ok(Request::Solve {
            position: position()?,
            budget: query.budget()?,
            win_in: query.win_in()?,
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
                budget: query.budget()?,
                win_in: query.win_in()?,
            })
        }
        "/api/review" => {
            let moves = game("game", "game")?.moves.ok_or_else(|| {
                RequestError::Bad(
                    "a review needs a game, the moves from the start (a move list, a uttt.ai \
                     move list or link, or CodinGame moves), not a position without its moves"
                        .into(),
                )
            })?;
            Ok(Request::Review {
                rules,
                moves,
                budget: query.budget()?,
                win_in: query.win_in()?,
            })
        }
        "/api/play" => Ok(Request::Play {
            position: position()?,
            budget: query.budget()?,
        }),
        "/api/certificate" => Ok(Request::Certificate {
            position: position()?,
            budget: query.budget()?,
        }),
        VERIFY_PATH => Ok(Request::Verify {
            name: query.get("name").unwrap_or("request body").to_string(),
        }),
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
                budget: Budget {
                    time_limit: Some(Duration::from_millis(2500)),
                    node_limit: None,
                },
                win_in: WinInMode::Off,
            })
        );
        let open = parse_request("/api/show?position=start&rules=open", Rules::Common).unwrap();
        assert_eq!(
            open,
            Request::Show {
                position: Position::start_under(Rules::WonBoardsOpen),
                moves: Some(Vec::new()),
            }
        );
        assert_eq!(parse_request("/", Rules::Common), Ok(Request::Page));
        let verify = parse_request("/api/verify?name=x.cert", Rules::Common).unwrap();
        assert_eq!(verify.method(), "POST");
        assert!(verify.searches());
    }

    #[test]
    fn time_limits_are_read_as_the_command_line_reads_them() {
        let limit = |text: &str| {
            let url = format!("/api/solve?position=start&time_limit={text}");
            parse_request(&url, Rules::Common).map(|request| request.budget().time_limit)
        };
        assert_eq!(limit("5s"), Ok(Some(Duration::from_secs(5))));
        assert_eq!(limit("1m"), Ok(Some(Duration::from_secs(60))));
        assert_eq!(limit("500ms"), Ok(Some(Duration::from_millis(500))));
        assert_eq!(limit("1h"), Ok(Some(Duration::from_secs(3600))));
        assert_eq!(limit("2.5"), Ok(Some(Duration::from_millis(2500))));
        assert!(matches!(limit("87601h"), Err(RequestError::Bad(_))));
    }

    #[test]
    fn moves_played_on_a_shown_game_extend_it() {
        let played = parse_request("/api/show?position=ee&play=ea+ae", Rules::Common).unwrap();
        assert_eq!(
            played,
            Request::Show {
                position: "ee ea ae".parse().unwrap(),
                moves: Some(moves_of("ee ea ae")),
            }
        );
        // A position given without its moves stays without them.
        let text = "ee ea".parse::<Position>().unwrap().to_string();
        let url = format!("/api/show?position={}&play=ae", text.replace(';', "%3B"));
        let Ok(Request::Show { position, moves }) = parse_request(&url, Rules::Common) else {
            panic!("{url} is a show");
        };
        assert_eq!(position, "ee ea ae".parse().unwrap());
        assert_eq!(moves, None);
        let review = parse_request(
            "/api/review?game=ee+ea&node_limit=3000&win_in=exact",
            Rules::Common,
        );
        assert_eq!(
            review,
            Ok(Request::Review {
                rules: Rules::Common,
                moves: moves_of("ee ea"),
                budget: Budget {
                    time_limit: None,
                    node_limit: Some(3000),
                },
                win_in: WinInMode::Exact,
            })
        );
    }

    fn moves_of(text: &str) -> Vec<Move> {
        text.split(' ').map(|m| m.parse().unwrap()).collect()
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
        assert!(bad("/api/solve?position=start&time_limit=0").contains("no time at all"));
        assert!(bad("/api/solve?position=start&time_limit=3d").contains("unknown time unit"));
        let too_long = bad("/api/solve?position=start&time_limit=18000000000000000000s");
        assert!(too_long.contains("is more than 10 years"), "{too_long}");
        assert!(too_long.contains("`18000000000000000000s`"), "{too_long}");
        assert!(bad("/api/solve?position=start&node_limit=1e6").contains("node_limit"));
        assert!(bad("/api/analyze?position=start&win_in=soon").contains("win_in"));
        assert!(bad("/api/show?position=ee&play=aa").contains("not a legal move"));
        assert!(bad("/api/show?position=ee&play=ea+zz").starts_with("play: "));
        assert!(bad("/api/show?position=%zz").contains("bad %-escape in `%zz` at byte 1"));
        assert!(bad("/api/show?position=%+5").contains("bad %-escape"));
        let unknown = bad("/api/show?position=start&rules=chess");
        assert!(
            unknown.contains("unknown rule set `chess`: expected common"),
            "{unknown}"
        );
        assert!(bad("/api/review").contains("`game` is missing"));
        assert!(bad("/api/review?game=ee+zz").starts_with("invalid game `ee zz`: "));
        let text = "ee ea".parse::<Position>().unwrap().to_string();
        assert!(
            bad(&format!("/api/review?game={}", text.replace(';', "%3B")))
                .starts_with("a review needs a game")
        );
        assert!(matches!(
            parse_request("/api/nothing", Rules::Common),
            Err(RequestError::NotFound(_))
        ));
    }
}
