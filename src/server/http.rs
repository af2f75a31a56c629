//! The little HTTP/1.1 the server needs, written for it: one request per connection, a body
//! only where an endpoint takes one (with a declared length, up to a limit), answered with a
//! whole body or a stream of server-sent events and `Connection: close`. A request is read by
//! the accepting thread ([`super::connections`]) from the bytes as they come, so that a slow
//! client costs a buffer and nothing more; every answer is written within a deadline for the
//! whole of it. A request's head has a size limit and a body is read only once its declared
//! length is allowed, so no client can hold a thread (or the server's shutdown) for long or
//! make it allocate what the client says. (tiny_http 0.12, tried first, allocates a body's
//! declared length when it drops a request, and waits for a body that never comes.)

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The longest a request's head (request line and headers) may be.
pub const MAX_HEAD_BYTES: usize = 16 << 10;
/// How long a client may take to send its request's head, in all.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a client may take to send its whole request, body included.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a client may take to take in a whole answer.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a client may take to take in one progress event; one slower than that is dropped
/// (and its search stopped) rather than let the search run past its time limit.
pub const EVENT_TIMEOUT: Duration = Duration::from_secs(1);
/// How long an answer may still take to write once the server is stopping.
const SHUTDOWN_WRITE_TIMEOUT: Duration = Duration::from_secs(2);
/// The longest a single write waits before the deadlines are looked at again.
const WRITE_SLICE: Duration = Duration::from_millis(200);

/// What a request says of its body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyLength {
    /// No body (no `Content-Length`, or 0).
    None,
    /// `Content-Length` bytes.
    Declared(u64),
    /// A body of a length not declared (`Transfer-Encoding`), or not a number: not read.
    Undeclared,
}

/// A request's head, as far as the server reads it.
#[derive(Debug, PartialEq, Eq)]
pub struct Head {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path and query (`/api/show?position=...`).
    pub target: String,
    /// The body that follows.
    pub body: BodyLength,
    /// The `Host` header as sent (`127.0.0.1:8080`), lowercased, if sent.
    pub host_header: Option<String>,
    /// The host the request is addressed to (the `Host` header without its port), if named.
    pub host: Option<String>,
    /// The `Origin` header (`http://127.0.0.1:8080`, or `null`), lowercased, if sent: where a
    /// browser says a request comes from.
    pub origin: Option<String>,
    /// The `Sec-Fetch-Site` header (`same-origin`, `same-site`, `cross-site` or `none`),
    /// lowercased, if sent: how a browser relates the request's page to the server.
    pub fetch_site: Option<String>,
    /// Whether the client takes server-sent events (`Accept: text/event-stream`): progress as
    /// a search goes, then its answer.
    pub wants_events: bool,
}

/// The head of a request whose first bytes are `bytes`, and where its body starts, once the
/// head is whole (`Ok(None)` until then); an error, with the words for a 400, when it is not
/// HTTP or grew past [`MAX_HEAD_BYTES`] without ending. `scanned` bytes were looked at before
/// without finding the head's end: the search for it goes on from there, so that a head that
/// comes a byte at a time is not scanned again and again.
pub fn head_of(bytes: &[u8], scanned: usize) -> Result<Option<(Head, usize)>, String> {
    let from = scanned.saturating_sub(3).min(bytes.len());
    match find_blank_line(&bytes[from..]).map(|end| from + end) {
        Some(end) if end <= MAX_HEAD_BYTES => Ok(Some((parse_head(&bytes[..end])?, end + 4))),
        None if bytes.len() <= MAX_HEAD_BYTES => Ok(None),
        _ => Err(format!(
            "the request's head is longer than {MAX_HEAD_BYTES} bytes"
        )),
    }
}

/// Where the head ends (the first blank line), if it has.
fn find_blank_line(bytes: &[u8]) -> Option<usize> {
    bytes.windows(4).position(|w| w == b"\r\n\r\n")
}

/// Reads the request line and the headers that matter of a head (without its blank line); an
/// error says what is not HTTP in it.
pub fn parse_head(bytes: &[u8]) -> Result<Head, String> {
    let text =
        std::str::from_utf8(bytes).map_err(|_| "the request's head is not UTF-8".to_string())?;
    let mut lines = text.split("\r\n");
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!("not an HTTP request line: `{request_line}`"));
    };
    if !version.starts_with("HTTP/1.") || method.is_empty() || !target.starts_with('/') {
        return Err(format!("not an HTTP/1 request line: `{request_line}`"));
    }
    let mut head = Head {
        method: method.to_string(),
        target: target.to_string(),
        body: BodyLength::None,
        host_header: None,
        host: None,
        origin: None,
        fetch_site: None,
        wants_events: false,
    };
    // The first Content-Length: another that differs makes the body's end ambiguous (the
    // request smuggling of RFC 9112, 6.3), so the request is refused.
    let mut content_length: Option<&str> = None;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Err(format!("not a header: `{line}`"));
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            match content_length {
                Some(first) if first != value => {
                    return Err(format!(
                        "two different Content-Length headers: `{first}` and `{value}`"
                    ));
                }
                _ => content_length = Some(value),
            }
        }
        if name.eq_ignore_ascii_case("content-length") && head.body != BodyLength::Undeclared {
            head.body = match value.parse::<u64>() {
                Ok(0) => BodyLength::None,
                Ok(length) => BodyLength::Declared(length),
                Err(_) => BodyLength::Undeclared,
            };
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            head.body = BodyLength::Undeclared;
        } else if name.eq_ignore_ascii_case("accept") {
            head.wants_events |= value.contains("text/event-stream");
        } else if name.eq_ignore_ascii_case("host") {
            let value = value.to_ascii_lowercase();
            head.host = Some(host_name(&value).to_string());
            head.host_header = Some(value);
        } else if name.eq_ignore_ascii_case("origin") {
            head.origin = Some(value.to_ascii_lowercase());
        } else if name.eq_ignore_ascii_case("sec-fetch-site") {
            head.fetch_site = Some(value.to_ascii_lowercase());
        }
    }
    Ok(head)
}

/// The host of a `Host` header's value, without its port (`[::1]:8080` is `::1`).
fn host_name(value: &str) -> &str {
    match value.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
        None => value.split(':').next().unwrap_or_default(),
    }
}

/// Whether `host` names this machine's loopback interface.
pub fn is_loopback_name(host: &str) -> bool {
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The words of a status code.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        411 => "Length Required",
        413 => "Content Too Large",
        408 => "Request Timeout",
        422 => "Unprocessable Content",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Error",
    }
}

/// A whole answer.
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The body's type (`application/json`, ...), sent with `charset=utf-8` when it is text.
    pub content_type: &'static str,
    /// A file name to save the body as (`Content-Disposition: attachment`), if it is a file.
    pub file_name: Option<String>,
    /// The body.
    pub body: Vec<u8>,
}

impl Answer {
    /// An answer of JSON text.
    pub fn json(status: u16, json: String) -> Answer {
        Answer {
            status,
            content_type: "application/json; charset=utf-8",
            file_name: None,
            body: json.into_bytes(),
        }
    }

    /// An error, `{"error": TEXT}`, with its status.
    pub fn error(status: u16, text: &str) -> Answer {
        Answer::json(status, serde_json::json!({ "error": text }).to_string())
    }
}

/// Writes `bytes` to `stream` by `deadline`, or by [`SHUTDOWN_WRITE_TIMEOUT`] after `stop` is
/// seen raised, whichever comes first: a client that takes its answer a byte at a time holds
/// a thread no longer than that. An error when the client went away or was too slow.
fn write_by(
    stream: &mut TcpStream,
    bytes: &[u8],
    deadline: Instant,
    stop: &AtomicBool,
) -> std::io::Result<()> {
    let mut deadline = deadline;
    let mut stop_seen = false;
    let mut written = 0;
    while written < bytes.len() {
        let now = Instant::now();
        if !stop_seen && stop.load(Ordering::Relaxed) {
            stop_seen = true;
            deadline = deadline.min(now + SHUTDOWN_WRITE_TIMEOUT);
        }
        let left = deadline
            .checked_duration_since(now)
            .filter(|left| !left.is_zero())
            .ok_or(std::io::ErrorKind::TimedOut)?;
        stream.set_write_timeout(Some(left.min(WRITE_SLICE)))?;
        match stream.write(&bytes[written..]) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(count) => written += count,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        | std::io::ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Headers of every answer that keep a page of another site from showing it in a frame (and
/// tricking the user's clicks into requests of the page's own), or from reading an answer as
/// another type than it is.
const FRAMING: &str =
    "X-Frame-Options: DENY\r\nContent-Security-Policy: frame-ancestors 'none'\r\n\
                       X-Content-Type-Options: nosniff\r\n";

/// The head of `answer`, with its blank line.
fn head_of_answer(answer: &Answer) -> String {
    let disposition = answer.file_name.as_ref().map_or_else(String::new, |name| {
        format!("Content-Disposition: attachment; filename=\"{name}\"\r\n")
    });
    format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\n{disposition}Content-Length: {}\r\n\
         Cache-Control: no-store\r\n{FRAMING}Connection: close\r\n\r\n",
        answer.status,
        reason(answer.status),
        answer.content_type,
        answer.body.len()
    )
}

/// Writes a whole answer within [`WRITE_TIMEOUT`] and closes the connection; a client that
/// went away (or takes too long) needs no answer.
pub fn respond(mut stream: TcpStream, answer: &Answer, stop: &AtomicBool) {
    let deadline = Instant::now() + WRITE_TIMEOUT;
    let _ = write_by(
        &mut stream,
        head_of_answer(answer).as_bytes(),
        deadline,
        stop,
    )
    .and_then(|()| write_by(&mut stream, &answer.body, deadline, stop));
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// Writes a short answer without waiting: for the accepting thread, whose sockets do not
/// block, to refuse a connection (400, 403, 408, 413, 503) with what fits in the socket's
/// buffer at once (all of a short answer, on a connection that has been sent nothing yet), and
/// ends the sending side. The caller closes the connection: at once, or once what the client
/// still sends has been read (closing with bytes unread resets the connection, and the client
/// may lose the answer).
pub fn respond_at_once(stream: &mut TcpStream, answer: &Answer) {
    let mut bytes = head_of_answer(answer).into_bytes();
    bytes.extend_from_slice(&answer.body);
    let _ = stream.set_nonblocking(true);
    let _ = stream.write(&bytes);
    let _ = stream.shutdown(std::net::Shutdown::Write);
}

/// Starts a stream of server-sent events: the head of an answer whose body runs until the
/// connection closes.
pub fn start_events(stream: &mut TcpStream, stop: &AtomicBool) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n\
         Cache-Control: no-store\r\n{FRAMING}Connection: close\r\n\r\n"
    );
    write_by(
        stream,
        head.as_bytes(),
        Instant::now() + EVENT_TIMEOUT,
        stop,
    )
}

/// Sends one event, `event: NAME` with `data` (one line of JSON), within `timeout`.
pub fn send_event(
    stream: &mut TcpStream,
    name: &str,
    data: &str,
    timeout: Duration,
    stop: &AtomicBool,
) -> std::io::Result<()> {
    debug_assert!(!data.contains('\n'), "an event's data is one line");
    let event = format!("event: {name}\ndata: {data}\n\n");
    write_by(stream, event.as_bytes(), Instant::now() + timeout, stop)
}

/// The most bytes past a request that one look at its client reads and drops.
const DRAINED_PER_LOOK: usize = 64 << 10;

/// Whether the client closed its end of `stream`. A request is whole before its answer is
/// searched for, so whatever else the client sends (a stray byte, a pipelined request) means
/// nothing: it is read and dropped, up to [`DRAINED_PER_LOOK`] bytes a look, so that the end of
/// the stream behind it is seen. Never waits: the reads do not block, so a client that sends
/// a byte now and then cannot make a look long.
pub fn client_gone(stream: &mut TcpStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return true;
    }
    let mut chunk = [0u8; 4096];
    let mut drained = 0;
    let gone = loop {
        if drained >= DRAINED_PER_LOOK {
            break false;
        }
        match stream.read(&mut chunk) {
            Ok(0) => break true,
            Ok(read) => drained += read,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => break e.kind() != std::io::ErrorKind::WouldBlock,
        }
    };
    // Writes (the events, the answer) wait again, each within its deadline.
    gone || stream.set_nonblocking(false).is_err()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_gives_its_method_target_body_and_whether_events_are_taken() {
        let head = parse_head(b"GET /api/show?position=start HTTP/1.1\r\nHost: x").unwrap();
        assert_eq!(head.method, "GET");
        assert_eq!(head.target, "/api/show?position=start");
        assert_eq!(head.body, BodyLength::None);
        assert!(!head.wants_events);
        let posted = parse_head(b"POST / HTTP/1.1\r\nContent-Length: 99999999999999999").unwrap();
        assert_eq!(posted.body, BodyLength::Declared(99999999999999999));
        let chunked = parse_head(b"GET / HTTP/1.1\r\ntransfer-encoding: chunked").unwrap();
        assert_eq!(chunked.body, BodyLength::Undeclared);
        let odd = parse_head(b"GET / HTTP/1.1\r\nContent-Length: many").unwrap();
        assert_eq!(odd.body, BodyLength::Undeclared);
        let empty = parse_head(b"GET / HTTP/1.0\r\nContent-Length: 0").unwrap();
        assert_eq!(empty.body, BodyLength::None);
        let twice =
            parse_head(b"POST / HTTP/1.1\r\nContent-Length: 5\r\ncontent-length: 5").unwrap();
        assert_eq!(twice.body, BodyLength::Declared(5));
        let conflicting = parse_head(b"POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 50");
        assert!(conflicting
            .unwrap_err()
            .contains("two different Content-Length headers"));
        let events = parse_head(b"GET / HTTP/1.1\r\nAccept: text/event-stream").unwrap();
        assert!(events.wants_events);
        assert_eq!(events.host, None);
        for (header, host, loopback) in [
            ("Host: 127.0.0.1:8080", "127.0.0.1", true),
            ("host: LOCALHOST", "localhost", true),
            ("Host: [::1]:8080", "::1", true),
            ("Host: evil.example:8080", "evil.example", false),
            ("Host: 192.168.1.5", "192.168.1.5", false),
        ] {
            let head = parse_head(format!("GET / HTTP/1.1\r\n{header}").as_bytes()).unwrap();
            assert_eq!(head.host.as_deref(), Some(host));
            assert_eq!(is_loopback_name(host), loopback, "{header}");
        }
    }

    #[test]
    fn what_is_not_http_is_malformed() {
        for bad in [
            &b"GET /"[..],
            b"GET / HTTP/2",
            b"GET nothing HTTP/1.1",
            b"GET / HTTP/1.1 extra",
            b"GET / HTTP/1.1\r\nno colon",
            b"\xff\xfe",
        ] {
            assert!(
                parse_head(bad).is_err_and(|text| !text.is_empty()),
                "{bad:?}"
            );
        }
    }

    /// Random bytes, and valid heads with bytes flipped, inserted and cut, never make the
    /// reading of a head panic; what is refused is refused with words.
    #[test]
    fn random_and_mangled_heads_are_refused_with_words_and_never_panic() {
        let mut rng = crate::game::Rng::new(63);
        let valid: &[&[u8]] = &[
            b"GET /api/show?position=start HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n",
            b"POST /api/verify?name=a.cert HTTP/1.1\r\nContent-Length: 12\r\n\
              Origin: http://localhost:8080\r\nSec-Fetch-Site: same-origin\r\n\r\nbody",
            b"GET /api/solve?position=ee HTTP/1.0\r\nAccept: text/event-stream\r\n\
              Transfer-Encoding: chunked\r\nHost: [::1]\r\n\r\n",
        ];
        let alphabet = b"GET /?:\r\n[]HTTP/1.0 Host Content-Length 0123456789\xff\x00";
        let mut refused = 0;
        for case in 0..20_000 {
            let mut bytes: Vec<u8> = if case % 4 == 0 {
                let length = rng.below(200);
                (0..length).map(|_| rng.next_u64() as u8).collect()
            } else {
                valid[rng.below(valid.len())].to_vec()
            };
            for _ in 0..rng.below(6) {
                let at = rng.below(bytes.len() + 1);
                let byte = alphabet[rng.below(alphabet.len())];
                match rng.below(3) {
                    0 if at < bytes.len() => bytes[at] = byte,
                    1 => bytes.insert(at, byte),
                    _ => bytes.truncate(at),
                }
            }
            match head_of(&bytes, 0) {
                Ok(Some((head, start))) => {
                    assert!(start <= bytes.len());
                    assert!(head.target.starts_with('/'));
                }
                Ok(None) => assert!(bytes.len() <= MAX_HEAD_BYTES),
                Err(text) => {
                    refused += 1;
                    assert!(
                        text.contains("request") || text.contains("header"),
                        "{text}"
                    );
                }
            }
        }
        assert!(refused > 1000, "{refused}");
        // A head that does not end within the limit is refused, however it goes on.
        let long = [b'a'; MAX_HEAD_BYTES + 1];
        assert!(head_of(&long, 0).is_err());
        assert_eq!(head_of(&long[..MAX_HEAD_BYTES], 0), Ok(None));
        // Looked at in pieces, a head is found where it is found whole.
        let whole = valid[1];
        let end = find_blank_line(whole).unwrap();
        for cut in 0..end + 4 {
            assert_eq!(head_of(&whole[..cut], 0), Ok(None), "{cut}");
            assert_eq!(head_of(whole, cut), head_of(whole, 0), "{cut}");
        }
    }
}
