//! `uttt serve`: an analysis board in the browser and the JSON API under it (see
//! docs/server.md). A room of its own beside the command line: like it, it asks the services
//! and never the engines, and it renders nothing but the JSON the services' answers define
//! ([`crate::services::json`]) and one page embedded in the binary.
//!
//! Safe by default: it listens on 127.0.0.1 unless told otherwise, reads no file, runs at most
//! [`ServerConfig::max_searches`] searches at once (a search request beyond them gets 503 at
//! once rather than a queue that grows), bounds every search by the server's time limit, and
//! shares one table between all requests. Each request is answered on a thread of its own, so
//! that `/api/show` answers while searches run; at most [`MAX_REQUESTS`] are in flight.

mod api;

pub use api::{parse_request, Request, RequestError, Searches, ShowJson};

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tiny_http::{Header, Response, Server, StatusCode};

/// The page, with its script and style inline: no request leaves for anywhere else.
const PAGE: &str = include_str!("page.html");

/// The most requests answered at once; beyond them a request gets 503.
pub const MAX_REQUESTS: usize = 64;

/// How often the accepting thread looks at the stop flag while no request comes.
const STOP_POLL: Duration = Duration::from_millis(100);

/// How the server runs.
pub struct ServerConfig {
    /// The address to listen on (port 0: any free port).
    pub address: SocketAddr,
    /// The rule set of positions whose text names none.
    pub rules: crate::game::Rules,
    /// The most searches at once.
    pub max_searches: usize,
}

/// A running server's socket, before it answers anything.
pub struct Listening {
    server: Server,
}

impl Listening {
    /// Listens on `address`.
    pub fn bind(address: SocketAddr) -> anyhow::Result<Listening> {
        let server = Server::http(address)
            .map_err(|e| anyhow::anyhow!("cannot listen on {address}: {e}"))?;
        Ok(Listening { server })
    }

    /// The address it listens on (with the port the system chose for port 0).
    pub fn address(&self) -> Option<SocketAddr> {
        self.server.server_addr().to_ip()
    }

    /// Answers requests with `searches` until its stop flag is raised, then waits for the
    /// requests under way (their searches stop with the same flag) and returns.
    pub fn serve(self, config: &ServerConfig, searches: &Searches) {
        let in_flight = AtomicUsize::new(0);
        let searching = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            while !searches.stop.load(Ordering::Relaxed) {
                let request = match self.server.recv_timeout(STOP_POLL) {
                    Ok(Some(request)) => request,
                    Ok(None) => continue,
                    Err(_) => break,
                };
                if in_flight.fetch_add(1, Ordering::SeqCst) >= MAX_REQUESTS {
                    in_flight.fetch_sub(1, Ordering::SeqCst);
                    respond_error(request, 503, "too many requests at once");
                    continue;
                }
                let (in_flight, searching) = (&in_flight, &searching);
                scope.spawn(move || {
                    answer(request, config, searches, searching);
                    in_flight.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
    }
}

/// Answers one request: the page, a show at once, or a search if a slot is free.
fn answer(
    request: tiny_http::Request,
    config: &ServerConfig,
    searches: &Searches,
    searching: &AtomicUsize,
) {
    if *request.method() != tiny_http::Method::Get {
        respond_error(request, 405, "only GET is served");
        return;
    }
    let parsed = match parse_request(request.url(), config.rules) {
        Ok(parsed) => parsed,
        Err(RequestError::NotFound(text)) => return respond_error(request, 404, &text),
        Err(RequestError::Bad(text)) => return respond_error(request, 400, &text),
    };
    if parsed == Request::Page {
        let page = Response::from_string(PAGE).with_header(content_type("text/html"));
        let _ = request.respond(page);
        return;
    }
    if parsed.searches() {
        if searching.fetch_add(1, Ordering::SeqCst) >= config.max_searches {
            searching.fetch_sub(1, Ordering::SeqCst);
            let text = format!(
                "{} searches are running, the most at once: try again later",
                config.max_searches
            );
            return respond_error(request, 503, &text);
        }
        let json = searches.answer_json(&parsed);
        searching.fetch_sub(1, Ordering::SeqCst);
        respond_json(request, 200, json);
    } else {
        respond_json(request, 200, searches.answer_json(&parsed));
    }
}

fn content_type(value: &str) -> Header {
    Header::from_bytes("Content-Type", format!("{value}; charset=utf-8")).expect("a valid header")
}

fn respond_json(request: tiny_http::Request, status: u16, json: String) {
    let response = Response::from_string(json)
        .with_status_code(StatusCode(status))
        .with_header(content_type("application/json"));
    // A client that went away needs no answer.
    let _ = request.respond(response);
}

/// An error as JSON, `{"error": TEXT}`, with its status.
fn respond_error(request: tiny_http::Request, status: u16, text: &str) {
    respond_json(
        request,
        status,
        serde_json::json!({ "error": text }).to_string(),
    );
}
