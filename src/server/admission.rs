//! Which requests the server answers at all, from their heads alone: those addressed to it by a
//! name it answers to, and none that a browser marks as sent by a page of another site.
//!
//! Two attacks come through the user's own browser, which can reach a server on this machine
//! that nothing else can:
//! - **DNS rebinding**: a page elsewhere whose name is made to resolve here sends requests that
//!   the browser treats as its own site's. They carry that name in `Host`, so the server
//!   answers only requests whose `Host` is a loopback name, the address the connection came to,
//!   or a name the operator allowed (`--allow-host`).
//! - **Cross-site requests**: any page may send a request to any address (`fetch` with
//!   `mode: "no-cors"`, a form), though it cannot read the answer; it could start searches or
//!   send certificates to check. Browsers mark them: `Origin` names the page's site, and
//!   `Sec-Fetch-Site` says `cross-site` or `same-site`. Only requests of the page itself
//!   (`same-origin`, an `Origin` equal to the server's own) or of no page at all (`none`, or
//!   neither header: a person's address bar, curl, a script) are answered. The page itself may
//!   be linked to from anywhere: it runs nothing (and no page may frame it: see
//!   `http::FRAMING`).
//!
//! What this leaves: browsers send `Sec-Fetch-Site` only to trustworthy addresses (loopback
//! among them, a LAN address not), and no `Origin` with a plain cross-site GET. So on a bind
//! other than loopback, a page elsewhere can still make a GET that starts a search, bounded by
//! the server's limits and slots, whose answer it cannot read; a POST (a certificate to check)
//! always carries `Origin`, and is refused.

use super::api::is_page;
use super::http::{is_loopback_name, Answer, Head};
use std::net::TcpStream;

/// The host names requests may be addressed to besides this machine's loopback names and the
/// address a connection came to: the operator's `--allow-host` names, lowercased.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllowedHosts(Vec<String>);

impl AllowedHosts {
    /// The names given (any case; a port, if given, is not part of a name).
    pub fn new<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> AllowedHosts {
        AllowedHosts(
            names
                .into_iter()
                .map(|name| name.as_ref().trim().to_ascii_lowercase())
                .collect(),
        )
    }

    /// Whether `host` (lowercased, without its port) is one of them.
    fn contains(&self, host: &str) -> bool {
        self.0.iter().any(|name| name == host)
    }
}

/// Whether the request with `head`, which came on `stream`, is answered: `Err` with the 403
/// that refuses it when it is addressed to a host the server is not (nor one of `allowed`), or
/// sent by a page of another site.
pub fn admit(head: &Head, stream: &TcpStream, allowed: &AllowedHosts) -> Result<(), Answer> {
    if let Some(host) = head.host.as_deref() {
        // Canonical on both sides: a dual-stack socket sees IPv4 clients at `::ffff:a.b.c.d`.
        let came_to = stream
            .local_addr()
            .ok()
            .map(|address| address.ip().to_canonical());
        let is_own_address = host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| Some(ip.to_canonical()) == came_to);
        if !is_loopback_name(host) && !is_own_address && !allowed.contains(host) {
            let text = format!(
                "this server answers requests addressed to this machine, not to `{host}` \
                 (a name it answers to is given with --allow-host)"
            );
            return Err(Answer::error(403, &text));
        }
    }
    if is_page(&head.target) {
        return Ok(());
    }
    if let Some(site) = head.fetch_site.as_deref() {
        if site != "same-origin" && site != "none" {
            let text = format!(
                "a request sent by a page of another site (Sec-Fetch-Site: {site}) is refused"
            );
            return Err(Answer::error(403, &text));
        }
    }
    if let Some(origin) = head.origin.as_deref() {
        let own = head
            .host_header
            .as_deref()
            .map(|host| format!("http://{host}"));
        if own.as_deref() != Some(origin) {
            let text =
                format!("a request sent by a page of another site (Origin: {origin}) is refused");
            return Err(Answer::error(403, &text));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// A connection to a listener on 127.0.0.1, from the server's side.
    fn connection() -> (TcpStream, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        (server, client)
    }

    fn head(target: &str, headers: &str) -> Head {
        let text = format!("GET {target} HTTP/1.1\r\n{headers}");
        super::super::http::parse_head(text.trim_end().as_bytes()).unwrap()
    }

    #[test]
    fn hosts_are_this_machine_its_address_or_allowed_names() {
        let (stream, _client) = connection();
        let status = |headers: &str, allowed: &[&str]| {
            let head = head("/api/show?position=start", headers);
            admit(&head, &stream, &AllowedHosts::new(allowed)).map_or_else(|a| a.status, |()| 200)
        };
        assert_eq!(status("", &[]), 200);
        assert_eq!(status("Host: localhost:8080", &[]), 200);
        assert_eq!(status("Host: 127.0.0.1:8080", &[]), 200);
        assert_eq!(status("Host: [::1]:8080", &[]), 200);
        assert_eq!(status("Host: rebound.example", &[]), 403);
        assert_eq!(status("Host: board.lan:8080", &["board.lan"]), 200);
        assert_eq!(status("Host: BOARD.LAN", &[" Board.Lan "]), 200);
        assert_eq!(status("Host: other.lan", &["board.lan"]), 403);
        // An address the connection did not come to is not this server's.
        assert_eq!(status("Host: 192.168.1.5", &[]), 403);
    }

    #[test]
    fn pages_of_other_sites_are_refused_but_may_link_to_the_page() {
        let (stream, _client) = connection();
        let status = |target: &str, headers: &str| {
            admit(&head(target, headers), &stream, &AllowedHosts::default())
                .map_or_else(|a| a.status, |()| 200)
        };
        let api = "/api/solve?position=start";
        let host = "Host: 127.0.0.1:8080\r\n";
        assert_eq!(
            status(api, &format!("{host}Sec-Fetch-Site: same-origin")),
            200
        );
        assert_eq!(status(api, &format!("{host}Sec-Fetch-Site: none")), 200);
        assert_eq!(
            status(api, &format!("{host}Sec-Fetch-Site: cross-site")),
            403
        );
        assert_eq!(
            status(api, &format!("{host}Sec-Fetch-Site: same-site")),
            403
        );
        assert_eq!(
            status(api, &format!("{host}Origin: http://127.0.0.1:8080")),
            200
        );
        assert_eq!(
            status(api, &format!("{host}Origin: http://127.0.0.1:3000")),
            403
        );
        assert_eq!(
            status(api, &format!("{host}Origin: https://evil.example")),
            403
        );
        assert_eq!(status(api, &format!("{host}Origin: null")), 403);
        assert_eq!(status(api, "Origin: http://127.0.0.1:8080"), 403);
        // The page runs nothing: a link to it from anywhere opens it.
        assert_eq!(
            status(
                "/?position=ee",
                &format!("{host}Sec-Fetch-Site: cross-site")
            ),
            200
        );
        // But not under a name that is not this machine's.
        assert_eq!(
            status("/", "Host: rebound.example\r\nSec-Fetch-Site: none"),
            403
        );
    }
}
