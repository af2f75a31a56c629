//! The little HTTP/1.1 the server needs, written for it: `GET` requests without a body, one per
//! connection, answered with a whole body and `Connection: close`. Every read and write on a
//! connection has a time limit, a request's head has a size limit and a request with a body is
//! refused unread, so no client can hold a thread (or the server's shutdown) for long or make it
//! allocate what the client says. (tiny_http 0.12, tried first, allocates a body's declared
//! length when it drops a request, and waits for a body that never comes.)

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// The longest a request's head (request line and headers) may be.
const MAX_HEAD_BYTES: usize = 16 << 10;
/// How long a client may take to send its request's head.
pub const READ_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a client may take to take in the answer.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// A request's head, as far as the server reads it.
#[derive(Debug, PartialEq, Eq)]
pub struct Head {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path and query (`/api/show?position=...`).
    pub target: String,
    /// Whether the request says it has a body (`Content-Length` above 0, or any
    /// `Transfer-Encoding`).
    pub has_body: bool,
}

/// Why a request could not be read.
#[derive(Debug, PartialEq, Eq)]
pub enum ReadError {
    /// The client closed the connection, or was too slow: nothing to answer.
    Gone,
    /// The head is not HTTP, or too long: answer 400 with this text.
    Malformed(String),
}

/// Reads a request's head from `stream` (with [`READ_TIMEOUT`] on every read).
pub fn read_head(stream: &mut TcpStream) -> Result<Head, ReadError> {
    stream
        .set_read_timeout(Some(READ_TIMEOUT))
        .map_err(|_| ReadError::Gone)?;
    let mut head = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    let end = loop {
        if let Some(end) = find_blank_line(&head) {
            break end;
        }
        if head.len() > MAX_HEAD_BYTES {
            return Err(ReadError::Malformed(format!(
                "the request's head is longer than {MAX_HEAD_BYTES} bytes"
            )));
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return Err(ReadError::Gone),
            Ok(read) => head.extend_from_slice(&chunk[..read]),
        }
    };
    parse_head(&head[..end])
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
    let mut has_body = false;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Err(ReadError::Malformed(format!("not a header: `{line}`")));
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            has_body |= value != "0";
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            has_body = true;
        }
    }
    Ok(Head {
        method: method.to_string(),
        target: target.to_string(),
        has_body,
    })
}

/// Writes a whole answer and closes the connection (with [`WRITE_TIMEOUT`]); a client that
/// went away needs no answer.
pub fn respond(mut stream: TcpStream, status: u16, content_type: &str, body: &[u8]) {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        413 => "Content Too Large",
        503 => "Service Unavailable",
        _ => "Error",
    };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}; charset=utf-8\r\n\
         Content-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let _ = stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body))
        .and_then(|()| stream.flush());
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_gives_its_method_target_and_whether_a_body_follows() {
        let head = parse_head(b"GET /api/show?position=start HTTP/1.1\r\nHost: x").unwrap();
        assert_eq!(head.method, "GET");
        assert_eq!(head.target, "/api/show?position=start");
        assert!(!head.has_body);
        let posted = parse_head(b"POST / HTTP/1.1\r\nContent-Length: 99999999999999999").unwrap();
        assert!(posted.has_body);
        let chunked = parse_head(b"GET / HTTP/1.1\r\ntransfer-encoding: chunked").unwrap();
        assert!(chunked.has_body);
        assert!(
            !parse_head(b"GET / HTTP/1.0\r\nContent-Length: 0")
                .unwrap()
                .has_body
        );
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
