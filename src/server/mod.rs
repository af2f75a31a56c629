//! `uttt serve`: an analysis board in the browser and the JSON API under it (see
//! docs/server.md). A room of its own beside the command line: like it, it asks the services
//! and never the engines, and it renders nothing but the JSON the services' answers define
//! ([`crate::services::json`]) and one page embedded in the binary.
//!
//! Safe by default, against clients that mean harm too: it listens on 127.0.0.1 unless told
//! otherwise, reads no file, refuses requests that a browser marks as sent from another site and
//! requests addressed to a host it is not ([`admission`]), runs at most
//! [`ServerConfig::max_searches`] searches and certificate checks at once (a search request
//! beyond them gets 503 at once rather than a queue that grows), bounds every search and check
//! by the server's time limit, and shares one table between all requests. Connections are read
//! on the accepting thread until their requests are whole ([`connections`]), so a slow or idle
//! client holds no thread; each whole request is then answered on a thread of its own, so that
//! `/api/show` answers while searches run, at most [`MAX_REQUESTS`] at once. A panic in a
//! request's work (a bug) answers 500, and the server goes on. The HTTP it speaks is its own
//! ([`http`]).

mod admission;
mod answers;
mod api;
mod connections;
mod http;
mod players;
mod watch;

pub use admission::AllowedHosts;
pub use answers::{Progress, Searches, ShowJson};
pub use api::{parse_request, Request, RequestError};
pub use connections::{MAX_BODIES_IN_TRANSIT, MAX_CONNECTIONS};
pub use players::{Players, KEPT_TREES, PLAY_TREE_BYTES};

use connections::{Admission, WholeRequest};
use http::{Answer, Head};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::Scope;
use watch::Permit;

/// The most connections waiting to be accepted (the system may allow fewer: `somaxconn`).
const LISTEN_QUEUE: libc::c_int = MAX_CONNECTIONS as libc::c_int;

/// The page, with its script and style inline: no request leaves for anywhere else.
const PAGE: &str = include_str!("page.html");

/// The most requests answered at once (their requests whole); beyond them a request gets 503.
pub const MAX_REQUESTS: usize = 64;

/// The largest certificate `/api/verify` reads (64 MiB: the proof of a position a few dozen
/// plies from the start); a larger one is checked with `uttt verify FILE`.
pub const MAX_CERTIFICATE_BYTES: usize = 64 << 20;

/// The path that panics when [`ServerConfig::inject_panic`] is set: for the test that a panic
/// in a request's work answers 500 and leaves the server serving.
pub const PANIC_PATH: &str = "/api/test-panic";

/// How the server runs.
pub struct ServerConfig {
    /// The address to listen on (port 0: any free port).
    pub address: SocketAddr,
    /// The rule set of positions whose text names none.
    pub rules: crate::game::Rules,
    /// The most searches at once.
    pub max_searches: usize,
    /// The host names requests may be addressed to besides this machine's loopback names and
    /// the address a connection came to (`--allow-host`).
    pub allowed_hosts: AllowedHosts,
    /// Whether [`PANIC_PATH`] panics (for the tests; off unless the environment variable
    /// `UTTT_SERVE_INJECT_PANIC` is `1`).
    pub inject_panic: bool,
}

/// A server's socket, before it answers anything.
pub struct Listening {
    listener: TcpListener,
}

impl Listening {
    /// Listens on `address`.
    pub fn bind(address: SocketAddr) -> anyhow::Result<Listening> {
        let listener = TcpListener::bind(address)
            .map_err(|e| anyhow::anyhow!("cannot listen on {address}: {e}"))?;
        // The standard library listens with a queue of 128 connections not yet accepted; a
        // burst of more (clients that all reconnect at once) would see theirs dropped, and
        // everyone connecting then waits a second for the retry. A queue as long as the most
        // connections kept open takes such a burst. (Listening again only sets the queue.)
        // SAFETY: `listen` on the listener's own open descriptor changes nothing but its queue.
        unsafe {
            libc::listen(listener.as_raw_fd(), LISTEN_QUEUE);
        }
        Ok(Listening { listener })
    }

    /// The address it listens on (with the port the system chose for port 0).
    pub fn address(&self) -> Option<SocketAddr> {
        self.listener.local_addr().ok()
    }

    /// Answers requests with `searches` until its stop flag is raised, then waits for the
    /// requests under way, which end soon: their searches stop with the same flag, and every
    /// answer is written within a deadline, shortened once the server stops.
    pub fn serve(self, config: &ServerConfig, searches: &Searches) {
        let answering = AtomicUsize::new(0);
        let searching = AtomicUsize::new(0);
        let most_connections = connection_cap(raise_descriptor_limit());
        std::thread::scope(|scope| {
            let server = Server {
                config,
                searches,
                answering: &answering,
                searching: &searching,
                most_connections,
                scope,
            };
            connections::run(&self.listener, &server);
        });
    }
}

/// Descriptors kept free of connections: two for each request being answered (its connection
/// and the copy a panic is answered on), and some for the table, the database and the searches.
const RESERVED_DESCRIPTORS: u64 = 2 * MAX_REQUESTS as u64 + 64;

/// Raises this process's limit of open descriptors to the most the system allows (a shell's
/// default of 1024 would otherwise run out before [`MAX_CONNECTIONS`]); the limit now in force.
fn raise_descriptor_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write only the one rlimit structure given.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 1024;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    limit.rlim_cur
}

/// The most connections open at once under a limit of `descriptors`: [`MAX_CONNECTIONS`], or
/// fewer where the descriptors would run out first (then a connection past them is answered
/// 503, rather than left waiting unaccepted).
fn connection_cap(descriptors: u64) -> usize {
    let free = descriptors.saturating_sub(RESERVED_DESCRIPTORS).max(1);
    usize::try_from(free).map_or(MAX_CONNECTIONS, |free| free.min(MAX_CONNECTIONS))
}

/// The server as its connections' loop sees it: what it admits, and its workers.
struct Server<'scope, 'env> {
    /// How it runs.
    config: &'env ServerConfig,
    /// What its searches share.
    searches: &'env Searches<'env>,
    /// Requests being answered.
    answering: &'env AtomicUsize,
    /// Search slots taken.
    searching: &'env AtomicUsize,
    /// The most connections open at once ([`connection_cap`]).
    most_connections: usize,
    /// Where the requests' threads run, so that the server waits for them as it stops.
    scope: &'scope Scope<'scope, 'env>,
}

impl Admission for Server<'_, '_> {
    fn body_allowed(&self, head: &Head, stream: &TcpStream) -> Result<usize, Answer> {
        admission::admit(head, stream, &self.config.allowed_hosts)?;
        // Only a POST of a certificate has a body; any other request that sends one is refused
        // (and a GET of the endpoint answered 405).
        let takes_body = head.method == "POST" && api::takes_body(&head.target);
        connections::body_length(head, takes_body, MAX_CERTIFICATE_BYTES)
    }

    fn answer(&self, request: WholeRequest) -> Result<(), TcpStream> {
        let Some(permit) = Permit::take(self.answering, MAX_REQUESTS) else {
            return Err(request.stream);
        };
        let (config, searches, searching) = (self.config, self.searches, self.searching);
        let WholeRequest { stream, head, body } = request;
        // A copy of the connection, to answer 500 on if the request's work panics.
        let Ok(spare) = stream.try_clone() else {
            return Err(stream);
        };
        let spawned = std::thread::Builder::new()
            .name("uttt-request".into())
            .spawn_scoped(self.scope, move || {
                let _permit = permit;
                let answered = std::panic::catch_unwind(AssertUnwindSafe(|| {
                    answer(stream, head, body, config, searches, searching)
                }));
                if answered.is_err() {
                    let text = "the request failed (a bug): see the server's error output";
                    http::respond(spare, &Answer::error(500, text), searches.stop);
                }
            });
        // No thread to be had: the connection closes unanswered.
        drop(spawned);
        Ok(())
    }

    fn answering(&self) -> usize {
        self.answering.load(Ordering::SeqCst)
    }

    fn most_connections(&self) -> usize {
        self.most_connections
    }

    fn stopping(&self) -> bool {
        self.searches.stop.load(Ordering::Relaxed)
    }
}

/// Answers one whole request: the page, a show at once, a search if a slot is free (watched
/// while it runs: see [`watch`]), or a certificate's check (watched likewise).
fn answer(
    stream: TcpStream,
    head: Head,
    body: Vec<u8>,
    config: &ServerConfig,
    searches: &Searches,
    searching: &AtomicUsize,
) {
    let stop = searches.stop;
    let respond_error =
        |stream, status, text: &str| http::respond(stream, &Answer::error(status, text), stop);
    if config.inject_panic && head.target == PANIC_PATH {
        panic!("a panic injected for the test ({PANIC_PATH})");
    }
    let request = match parse_request(&head.target, config.rules) {
        Ok(request) => request,
        Err(RequestError::NotFound(text)) => return respond_error(stream, 404, &text),
        Err(RequestError::Bad(text)) => return respond_error(stream, 400, &text),
    };
    let method = request.method();
    if head.method != method {
        let text = format!("this endpoint is asked with {method}");
        return respond_error(stream, 405, &text);
    }
    match request {
        Request::Page => {
            let page = Answer {
                status: 200,
                content_type: "text/html; charset=utf-8",
                file_name: None,
                body: PAGE.as_bytes().to_vec(),
            };
            return http::respond(stream, &page, stop);
        }
        Request::Show { position, moves } => {
            return http::respond(stream, &answers::show(position, moves), stop);
        }
        _ => {}
    }
    // A search or a check holds one of the search slots while it runs, and gives it back
    // before its answer is written, so that a client's next request finds it free.
    let Some(slot) = Permit::take(searching, config.max_searches) else {
        let text = format!(
            "{} searches are running, the most at once: try again later",
            config.max_searches
        );
        return respond_error(stream, 503, &text);
    };
    let events = head.wants_events && request.streams();
    watch::answer_watched(stream, events, searches, &request, &body, slot);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_are_capped_below_the_descriptors() {
        assert_eq!(connection_cap(1 << 20), MAX_CONNECTIONS);
        let reserved = RESERVED_DESCRIPTORS as usize;
        assert_eq!(connection_cap(1024), 1024 - reserved);
        assert_eq!(connection_cap(10), 1);
        assert!(raise_descriptor_limit() >= 1);
    }
}
