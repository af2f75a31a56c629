//! The little HTTP/1.1 the server needs, written for it: one request per connection, a body
//! only where an endpoint takes one (with a declared length, up to a limit), answered with a
//! whole body or a stream of server-sent events and `Connection: close`. Every read and write on
//! a connection has a time limit, a request's head has a size limit and a body is read only
//! once its declared length is allowed, so no client can hold a thread (or the server's
//! shutdown) for long or make it allocate what the client says. (tiny_http 0.12, tried first,
//! allocates a body's declared length when it drops a request, and waits for a body that never
//! comes.)

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// The longest a request's head (request line and headers) may be.
const MAX_HEAD_BYTES: usize = 16 << 10;
/// How long a client may take to send its request's head.
pub const READ_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a client may take to send a body, at most.
const BODY_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a client may take to take in the answer.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

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
    /// The host the request is addressed to (the `Host` header without its port), if named.
    pub host: Option<String>,
    /// Whether the client takes server-sent events (`Accept: text/event-stream`): progress as
    /// a search goes, then its answer.
    pub wants_events: bool,
}

/// Why a request could not be read.
#[derive(Debug, PartialEq, Eq)]
pub enum ReadError {
    /// The client closed the connection, or was too slow: nothing to answer.
    Gone,
    /// The head is not HTTP, or too long: answer 400 with this text.
    Malformed(String),
}

/// A request's head and the bytes read past it (the start of its body).
pub struct HeadRead {
    /// The head.
    pub head: Head,
    /// What came after the head's blank line in the same reads.
    pub rest: Vec<u8>,
}

/// Reads a request's head from `stream` (with [`READ_TIMEOUT`] on every read).
pub fn read_head(stream: &mut TcpStream) -> Result<HeadRead, ReadError> {
    stream
        .set_read_timeout(Some(READ_TIMEOUT))
        .map_err(|_| ReadError::Gone)?;
    let mut bytes = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    let end = loop {
        if let Some(end) = find_blank_line(&bytes) {
            break end;
        }
        if bytes.len() > MAX_HEAD_BYTES {
            return Err(ReadError::Malformed(format!(
                "the request's head is longer than {MAX_HEAD_BYTES} bytes"
            )));
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return Err(ReadError::Gone),
            Ok(read) => bytes.extend_from_slice(&chunk[..read]),
        }
    };
    let head = parse_head(&bytes[..end])?;
    Ok(HeadRead {
        head,
        rest: bytes[end + 4..].to_vec(),
    })
}

/// Reads the body of `length` bytes that follows a head, `rest` of it already read, within
/// [`BODY_TIMEOUT`] in all; `None` when the client went away or was too slow.
pub fn read_body(stream: &mut TcpStream, mut rest: Vec<u8>, length: usize) -> Option<Vec<u8>> {
    let deadline = Instant::now() + BODY_TIMEOUT;
    rest.truncate(length);
    let mut body = rest;
    body.reserve_exact(length - body.len());
    let mut chunk = vec![0u8; 64 << 10];
    while body.len() < length {
        let left = deadline.checked_duration_since(Instant::now())?;
        stream.set_read_timeout(Some(left.min(READ_TIMEOUT))).ok()?;
        let want = (length - body.len()).min(chunk.len());
        match stream.read(&mut chunk[..want]) {
            Ok(0) | Err(_) => return None,
            Ok(read) => body.extend_from_slice(&chunk[..read]),
        }
    }
    Some(body)
}

/// Where the head ends (the first blank line), if it has.
fn find_blank_line(bytes: &[u8]) -> Option<usize> {
    bytes.windows(4).position(|w| w == b"\r\n\r\n")
}

/// Reads the request line and the headers that matter of a head (without its blank line).
pub fn parse_head(bytes: &[u8]) -> Result<Head, ReadError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| ReadError::Malformed("the request's head is not UTF-8".into()))?;
    let mut lines = text.split("\r\n");
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(ReadError::Malformed(format!(
            "not an HTTP request line: `{request_line}`"
        )));
    };
    if !version.starts_with("HTTP/1.") || method.is_empty() || !target.starts_with('/') {
        return Err(ReadError::Malformed(format!(
            "not an HTTP/1 request line: `{request_line}`"
        )));
    }
    let mut body = BodyLength::None;
    let mut wants_events = false;
    let mut host = None;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Err(ReadError::Malformed(format!("not a header: `{line}`")));
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") && body != BodyLength::Undeclared {
            body = match value.parse::<u64>() {
                Ok(0) => BodyLength::None,
                Ok(length) => BodyLength::Declared(length),
                Err(_) => BodyLength::Undeclared,
            };
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            body = BodyLength::Undeclared;
        } else if name.eq_ignore_ascii_case("accept") {
            wants_events |= value.contains("text/event-stream");
        } else if name.eq_ignore_ascii_case("host") {
            host = Some(host_name(value).to_ascii_lowercase());
        }
    }
    Ok(Head {
        method: method.to_string(),
        target: target.to_string(),
        body,
        host,
        wants_events,
    })
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
        422 => "Unprocessable Content",
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

/// Writes a whole answer and closes the connection (with [`WRITE_TIMEOUT`]); a client that
/// went away needs no answer.
pub fn respond(mut stream: TcpStream, answer: &Answer) {
    let disposition = answer.file_name.as_ref().map_or_else(String::new, |name| {
        format!("Content-Disposition: attachment; filename=\"{name}\"\r\n")
    });
    let head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\n{disposition}Content-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n",
        answer.status,
        reason(answer.status),
        answer.content_type,
        answer.body.len()
    );
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let _ = stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(&answer.body))
        .and_then(|()| stream.flush());
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// Starts a stream of server-sent events: the head of an answer whose body runs until the
/// connection closes.
pub fn start_events(stream: &mut TcpStream) -> std::io::Result<()> {
    stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
    stream.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n\
          Cache-Control: no-store\r\nConnection: close\r\n\r\n",
    )?;
    stream.flush()
}

/// Sends one event, `event: NAME` with `data` (one line of JSON).
pub fn send_event(stream: &mut TcpStream, name: &str, data: &str) -> std::io::Result<()> {
    debug_assert!(!data.contains('\n'), "an event's data is one line");
    stream.write_all(format!("event: {name}\ndata: {data}\n\n").as_bytes())?;
    stream.flush()
}

/// Whether the client closed its end of `stream` (a request is whole before its answer is
/// searched for, so anything but more bytes or silence means it has gone). Waits at most a
/// millisecond.
pub fn client_gone(stream: &TcpStream) -> bool {
    if stream
        .set_read_timeout(Some(Duration::from_millis(1)))
        .is_err()
    {
        return true;
    }
    let mut byte = [0u8; 1];
    match stream.peek(&mut byte) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => !matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
    }
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
                matches!(parse_head(bad), Err(ReadError::Malformed(_))),
                "{bad:?}"
            );
        }
    }
}
