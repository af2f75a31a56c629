//! `uttt serve`: an analysis board in the browser and the JSON API under it (see
//! docs/server.md). A room of its own beside the command line: like it, it asks the services
//! and never the engines, and it renders nothing but the JSON the services' answers define
//! ([`crate::services::json`]) and one page embedded in the binary.
//!
//! Safe by default: it listens on 127.0.0.1 unless told otherwise, reads no file, runs at most
//! [`ServerConfig::max_searches`] searches at once (a search request beyond them gets 503 at
//! once rather than a queue that grows), bounds every search by the server's time limit, and
//! shares one table between all requests. Each request is answered on a thread of its own, so
//! that `/api/show` answers while searches run; at most [`MAX_REQUESTS`] are in flight. The
//! HTTP it speaks is its own ([`http`]): GET without a body, every read and write timed.

mod answers;
mod api;
mod http;
mod watch;

pub use answers::{Progress, Searches, ShowJson};
pub use api::{parse_request, Request, RequestError};

use http::{Answer, BodyLength, HeadRead};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The page, with its script and style inline: no request leaves for anywhere else.
const PAGE: &str = include_str!("page.html");

/// The most requests answered at once; beyond them a request gets 503.
pub const MAX_REQUESTS: usize = 64;

/// The largest certificate `/api/verify` reads (64 MiB: the proof of a position a few dozen
/// plies from the start); a larger one is checked with `uttt verify FILE`.
pub const MAX_CERTIFICATE_BYTES: usize = 64 << 20;

/// How often a watching thread looks at the stop flag, to wake the accepting thread (which
/// waits for connections without a time limit, so that a request is taken in the moment it
/// comes) once it is raised.
const STOP_POLL: Duration = Duration::from_millis(50);

/// How the server runs.
pub struct ServerConfig {
    /// The address to listen on (port 0: any free port).
    pub address: SocketAddr,
    /// The rule set of positions whose text names none.
    pub rules: crate::game::Rules,
    /// The most searches at once.
    pub max_searches: usize,
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
        Ok(Listening { listener })
    }

    /// The address it listens on (with the port the system chose for port 0).
    pub fn address(&self) -> Option<SocketAddr> {
        self.listener.local_addr().ok()
    }

    /// Answers requests with `searches` until its stop flag is raised, then waits for the
    /// requests under way, which end soon: their searches stop with the same flag, and every
    /// read and write has a time limit ([`http::READ_TIMEOUT`], [`http::WRITE_TIMEOUT`]).
    pub fn serve(self, config: &ServerConfig, searches: &Searches) {
        let in_flight = AtomicUsize::new(0);
        let searching = AtomicUsize::new(0);
        let wake_address = self.address().map(|address| {
            // A connection to an unspecified address (0.0.0.0) goes to this machine.
            let ip = match address.ip() {
                ip if ip.is_unspecified() && ip.is_ipv4() => Ipv4Addr::LOCALHOST.into(),
                ip if ip.is_unspecified() => Ipv6Addr::LOCALHOST.into(),
                ip => ip,
            };
            SocketAddr::new(ip, address.port())
        });
        std::thread::scope(|scope| {
            scope.spawn(|| {
                while !searches.stop.load(Ordering::Relaxed) {
                    std::thread::sleep(STOP_POLL);
                }
                // Wakes the accepting thread, which then sees the flag.
                if let Some(address) = wake_address {
                    let _ = TcpStream::connect_timeout(&address, Duration::from_secs(1));
                }
            });
            loop {
                let accepted = self.listener.accept();
                if searches.stop.load(Ordering::Relaxed) {
                    break;
                }
                let Ok((stream, _)) = accepted else {
                    // A connection that failed as it came (or no descriptor left): not to
                    // spin on.
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                };
                if in_flight.fetch_add(1, Ordering::SeqCst) >= MAX_REQUESTS {
                    in_flight.fetch_sub(1, Ordering::SeqCst);
                    // Unread: the answer is short, and its write has a time limit.
                    respond_error(stream, 503, "too many requests at once");
                    continue;
                }
                let (in_flight, searching) = (&in_flight, &searching);
                let spawned = std::thread::Builder::new()
                    .name("uttt-request".into())
                    .spawn_scoped(scope, move || {
                        answer(stream, config, searches, searching);
                        in_flight.fetch_sub(1, Ordering::SeqCst);
                    });
                if spawned.is_err() {
                    // No thread to be had: the connection closes unanswered.
                    in_flight.fetch_sub(1, Ordering::SeqCst);
                }
            }
        });
    }
}

/// Answers one connection's request: the page, a show at once, a search if a slot is free
/// (watched while it runs: see [`watch`]), or a certificate's check.
fn answer(
    mut stream: TcpStream,
    config: &ServerConfig,
    searches: &Searches,
    searching: &AtomicUsize,
) {
    let HeadRead { head, rest } = match http::read_head(&mut stream) {
        Ok(read) => read,
        Err(http::ReadError::Gone) => return,
        Err(http::ReadError::Malformed(text)) => return respond_error(stream, 400, &text),
    };
    // Bound to this machine alone, the server answers only requests addressed to it, so that
    // a web page elsewhere cannot reach it through a name that resolves here (DNS rebinding).
    if config.address.ip().is_loopback() {
        if let Some(host) = head.host.as_deref().filter(|h| !http::is_loopback_name(h)) {
            let text = format!(
                "this server answers requests to localhost only, not to `{host}` (see --bind)"
            );
            return respond_error(stream, 403, &text);
        }
    }
    let request = match parse_request(&head.target, config.rules) {
        Ok(request) => request,
        Err(RequestError::NotFound(text)) => return respond_error(stream, 404, &text),
        Err(RequestError::Bad(text)) => return respond_error(stream, 400, &text),
    };
    let method = request.method();
    if head.method != method {
        return respond_error(
            stream,
            405,
            &format!("this endpoint is asked with {method}"),
        );
    }
    let takes_body = matches!(request, Request::Verify { .. });
    if !takes_body && head.body != BodyLength::None {
        return respond_error(stream, 413, "a request with a body is not served here");
    }
    match request {
        Request::Page => {
            let page = Answer {
                status: 200,
                content_type: "text/html; charset=utf-8",
                file_name: None,
                body: PAGE.as_bytes().to_vec(),
            };
            return http::respond(stream, &page);
        }
        Request::Show { position, moves } => {
            return http::respond(stream, &answers::show(position, moves));
        }
        _ => {}
    }
    // A certificate's length is checked before it takes a slot: a refusal needs none.
    let certificate_length = match (&request, head.body) {
        (Request::Verify { .. }, BodyLength::None) => {
            return respond_error(
                stream,
                400,
                "the certificate to check is the body: it is empty",
            )
        }
        (Request::Verify { .. }, BodyLength::Undeclared) => {
            return respond_error(stream, 411, "a certificate is sent with its Content-Length")
        }
        (Request::Verify { .. }, BodyLength::Declared(length)) => {
            let Some(length) = usize::try_from(length)
                .ok()
                .filter(|&length| length <= MAX_CERTIFICATE_BYTES)
            else {
                let text = format!(
                    "a certificate of {length} bytes is more than the {MAX_CERTIFICATE_BYTES} \
                     this server checks: check it with `uttt verify FILE`"
                );
                return respond_error(stream, 413, &text);
            };
            length
        }
        _ => 0,
    };
    // A search or a check holds one of the search slots while it runs, and gives it back
    // before its answer is written, so that a client's next request finds it free.
    let Some(slot) = SearchSlot::take(searching, config.max_searches) else {
        let text = format!(
            "{} searches are running, the most at once: try again later",
            config.max_searches
        );
        return respond_error(stream, 503, &text);
    };
    if let Request::Verify { name } = request {
        let Some(body) = http::read_body(&mut stream, rest, certificate_length) else {
            return;
        };
        let answer = searches.verify(name, &body);
        drop(slot);
        return http::respond(stream, &answer);
    }
    let events = head.wants_events && request.streams();
    watch::answer_watched(stream, events, searches, &request, slot);
}

/// One of the server's search slots, given back when dropped.
pub(crate) struct SearchSlot<'a>(&'a AtomicUsize);

impl<'a> SearchSlot<'a> {
    /// A slot of the `most` that `taken` counts, if one is free.
    fn take(taken: &'a AtomicUsize, most: usize) -> Option<SearchSlot<'a>> {
        if taken.fetch_add(1, Ordering::SeqCst) >= most {
            taken.fetch_sub(1, Ordering::SeqCst);
            None
        } else {
            Some(SearchSlot(taken))
        }
    }
}

impl Drop for SearchSlot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// An error as JSON, `{"error": TEXT}`, with its status.
fn respond_error(stream: TcpStream, status: u16, text: &str) {
    http::respond(stream, &Answer::error(status, text));
}
