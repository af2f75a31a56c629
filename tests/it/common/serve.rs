//! Helpers of the tests of `uttt serve`: a server on a free port, and requests to it.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A draw in which X has drawing and losing moves (the README's analysis).
pub const LATE: &str = "X;.XO.....X;.XOXX.X.O/XXXXO.O../OOXX..OOO/OO..XOOXO/.OXOOXX.O/O..X..OXO/XOXOXX.XO/O.O.OO.X./..XXXXX..";

/// A running `uttt serve` on a free port, ended when dropped.
pub struct Served {
    pub child: Child,
    /// `127.0.0.1:PORT`.
    pub address: String,
}

impl Served {
    /// `uttt serve` on a free port with a 64 MiB table, one thread unless `extra` (more
    /// options) says otherwise.
    pub fn start(extra: &[&str]) -> Served {
        Served::start_with_env(extra, &[])
    }

    /// [`Served::start`] with the environment variables `env` set.
    pub fn start_with_env(extra: &[&str], env: &[(&str, &str)]) -> Served {
        let threads: &[&str] = if extra.contains(&"--threads") {
            &[]
        } else {
            &["--threads", "1"]
        };
        let mut child = Command::new(env!("CARGO_BIN_EXE_uttt"))
            .args(["serve", "--port", "0", "--table-mem", "64M"])
            .args(threads)
            .args(extra)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("uttt runs");
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let address = first
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("no URL in {first:?}"))
            .to_string();
        Served { child, address }
    }

    /// `GET path`: the status and the body.
    pub fn get(&self, path: &str) -> (u16, String) {
        get(&self.address, path)
    }

    /// `GET path`, which must answer 200 with JSON.
    pub fn json(&self, path: &str) -> Value {
        let (status, body) = self.get(path);
        assert_eq!(status, 200, "{path}: {body}");
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"))
    }

    /// Sends `signal` and waits for the exit code.
    pub fn stop_with(mut self, signal: &str) -> Option<i32> {
        super::send_signal(&self.child, signal);
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            assert!(start.elapsed() < Duration::from_secs(30), "still serving");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// `GET path` of the server at `address`: the status and the body.
pub fn get(address: &str, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        address
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, body.to_string())
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts a search of the empty board that runs to the server's time limit and waits until it
/// holds the one search slot of a server started with `--max-searches 1` (another search is
/// then refused with 503): its thread, which returns its status and body. A probe that came
/// first takes the slot itself and the search is refused; then it is started again.
pub fn search_holding_the_slot(served: &Served) -> std::thread::JoinHandle<(u16, String)> {
    let start = Instant::now();
    loop {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no search held the slot"
        );
        let address = served.address.clone();
        let search = std::thread::spawn(move || get(&address, "/api/solve?position=start"));
        std::thread::sleep(Duration::from_millis(300));
        if search.is_finished() {
            continue;
        }
        let (status, _) = served.get("/api/analyze?position=ee+ea+ae&time_limit=0.01");
        if status == 503 {
            return search;
        }
        let _ = search.join();
    }
}

/// `position` as a query value: its `;`, `/` and `@` escaped.
pub fn escaped(position: &str) -> String {
    position
        .replace(';', "%3B")
        .replace('/', "%2F")
        .replace('@', "%40")
        .replace(' ', "+")
}

/// An answer read whole: its status, its head's lines and its body.
pub struct Response {
    pub status: u16,
    pub head: String,
    pub body: Vec<u8>,
}

impl Response {
    /// The value of header `name` (case as the server writes it), if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{name}: ")))
    }

    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends `head` (a request line and headers, without the blank line) and `body` to the server
/// at `address` and reads the whole answer.
pub fn send(address: &str, head: &str, body: &[u8]) -> Response {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    stream
        .write_all(format!("{head}\r\n\r\n").as_bytes())
        .unwrap();
    stream.write_all(body).unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let end = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no head in {:?}", String::from_utf8_lossy(&response)));
    let head = String::from_utf8(response[..end].to_vec()).unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    Response {
        status,
        head,
        body: response[end + 4..].to_vec(),
    }
}

/// Each move of an analysis's JSON with its `key` (as JSON text), sorted by move: for comparing
/// analyses whose moves come in another order.
pub fn moves_with(analysis: &Value, key: &str) -> Vec<(String, String)> {
    let mut moves: Vec<(String, String)> = analysis["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["move"].to_string(), m[key].to_string()))
        .collect();
    moves.sort();
    moves
}
