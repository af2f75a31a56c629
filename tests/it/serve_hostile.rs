//! `uttt serve` against clients that mean harm, all at once: idle and trickling connections,
//! slow bodies, the largest certificate it takes, a request with bytes after it, a cross-site
//! request. Throughout, `/api/show` must answer within 50 ms; the certificate's check must end
//! within the server's time limit and a second; the search whose client left must stop; and
//! SIGTERM must still end the server within 5 s.
use crate::common;
use crate::common::serve::{send, Served};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The server's time limit in this test.
const TIME_LIMIT: Duration = Duration::from_secs(8);
/// The longest `/api/show` may take under attack.
const SHOW_AT_MOST: Duration = Duration::from_millis(50);
/// The largest certificate the server takes (`MAX_CERTIFICATE_BYTES`).
const MAX_CERTIFICATE_BYTES: usize = 64 << 20;

/// The largest certificate of distinct positions, made once for the tests of this file.
fn largest_certificate() -> &'static [u8] {
    static CERTIFICATE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    CERTIFICATE.get_or_init(|| certificate_of_distinct_positions(MAX_CERTIFICATE_BYTES))
}

/// POSTs `certificate` to `/api/verify` of the server at `address`: the answer, and how long
/// it took after the last byte was sent.
fn post_certificate(address: &str, certificate: &[u8]) -> (String, Duration) {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(TIME_LIMIT + Duration::from_secs(30)))
        .unwrap();
    let head = format!(
        "POST /api/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\n\r\n",
        certificate.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(certificate).unwrap();
    let sent = Instant::now();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let took = sent.elapsed();
    (String::from_utf8_lossy(&answer).into_owned(), took)
}

/// A certificate of as many blocks as fit in `most` bytes, each of a different position, each
/// claiming `X holds for 0 plies`: the most positions a body of that size can name.
fn certificate_of_distinct_positions(most: usize) -> Vec<u8> {
    let mut seen = std::collections::HashSet::new();
    let mut bytes = Vec::with_capacity(most);
    let mut seed = 1;
    'fill: loop {
        for position in common::playout_positions_under(uttt::game::Rules::Common, 30, 20_000, seed)
        {
            if !seen.insert(position.clone()) {
                continue;
            }
            let block = format!(
                "uttt-certificate 1\nclaim X holds for 0 plies\nposition {position}\nmoves 0\n"
            );
            if bytes.len() + block.len() > most {
                break 'fill;
            }
            bytes.extend_from_slice(block.as_bytes());
        }
        seed += 1;
    }
    bytes
}

/// Keeps `count` connections open that send nothing, opening a new one for each the server
/// closes, until `done` (or the server is gone).
fn idle_connections(address: String, count: usize, done: Arc<AtomicBool>) {
    let connect = || {
        let stream = TcpStream::connect(&address).ok()?;
        stream
            .set_read_timeout(Some(Duration::from_millis(1)))
            .ok()?;
        Some(stream)
    };
    let Some(mut streams) = (0..count).map(|_| connect()).collect::<Option<Vec<_>>>() else {
        return;
    };
    while !done.load(Ordering::Relaxed) {
        for stream in &mut streams {
            let mut byte = [0u8; 1];
            let waiting = matches!(
                stream.read(&mut byte),
                Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut)
            );
            if !waiting {
                let Some(new) = connect() else { return };
                *stream = new;
            }
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// Keeps `count` connections that send a request's head a byte every 4 s, opening a new one
/// for each the server closes, until `done` (or the server is gone).
fn trickling_connections(address: String, count: usize, done: Arc<AtomicBool>) {
    let head = b"GET /api/show?position=start HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    let connect = || TcpStream::connect(&address).ok().map(|stream| (stream, 0));
    let Some(mut streams) = (0..count).map(|_| connect()).collect::<Option<Vec<_>>>() else {
        return;
    };
    let mut next = Instant::now();
    while !done.load(Ordering::Relaxed) {
        if Instant::now() >= next {
            next += Duration::from_secs(4);
            for (stream, sent) in &mut streams {
                if stream.write_all(&head[*sent..*sent + 1]).is_err() {
                    let Some(new) = connect() else { return };
                    (*stream, *sent) = new;
                } else {
                    *sent = (*sent + 1) % head.len();
                }
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A certificate's POST that declares 1000 bytes and sends one a second, until `done`.
fn slow_body(address: String, done: Arc<AtomicBool>) {
    let mut stream = TcpStream::connect(&address).unwrap();
    let head = "POST /api/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n";
    stream.write_all(head.as_bytes()).unwrap();
    while !done.load(Ordering::Relaxed) {
        if stream.write_all(b"u").is_err() {
            return;
        }
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// `GET /api/show` once: how long the whole answer took, and its status.
fn timed_show(address: &str) -> (Duration, u16) {
    let start = Instant::now();
    let Ok(mut stream) = TcpStream::connect(address) else {
        return (start.elapsed(), 0);
    };
    let request = b"GET /api/show?position=ee+ea HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    let sent = stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .and_then(|()| stream.write_all(request));
    if sent.is_err() {
        return (start.elapsed(), 0);
    }
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (start.elapsed(), status)
}

#[test]
fn hostile_clients_at_once_leave_show_fast_and_every_limit_kept() {
    let certificate = largest_certificate();
    assert!(certificate.len() > MAX_CERTIFICATE_BYTES - 1000);
    let limit = format!("{}s", TIME_LIMIT.as_secs());
    let served = Served::start(&["--time-limit", &limit, "--max-searches", "2"]);
    let address = served.address.clone();
    let done = Arc::new(AtomicBool::new(false));
    let mut attackers = Vec::new();
    for _ in 0..3 {
        let (address, done) = (address.clone(), done.clone());
        attackers.push(std::thread::spawn(move || {
            idle_connections(address, 100, done)
        }));
    }
    {
        let (address, done) = (address.clone(), done.clone());
        attackers.push(std::thread::spawn(move || {
            trickling_connections(address, 64, done)
        }));
    }
    for _ in 0..2 {
        let (address, done) = (address.clone(), done.clone());
        attackers.push(std::thread::spawn(move || slow_body(address, done)));
    }
    // `/api/show`, timed every 300 ms while the rest goes on.
    let shows: Arc<Mutex<Vec<(Duration, u16)>>> = Arc::default();
    let probing = Arc::new(AtomicBool::new(true));
    let prober = {
        let (address, probing, shows) = (address.clone(), probing.clone(), shows.clone());
        std::thread::spawn(move || {
            while probing.load(Ordering::Relaxed) {
                let timed = timed_show(&address);
                shows.lock().unwrap().push(timed);
                std::thread::sleep(Duration::from_millis(300));
            }
        })
    };
    std::thread::sleep(Duration::from_millis(500));

    // A search with a byte after its request, from a client that then leaves: it is stopped,
    // and its slot is free long before the time limit.
    let mut trailing = TcpStream::connect(&address).unwrap();
    trailing
        .write_all(b"GET /api/solve?position=start HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nX")
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    drop(trailing);
    std::thread::sleep(Duration::from_millis(1000));
    let probes: Vec<_> = (0..2)
        .map(|_| {
            let address = address.clone();
            std::thread::spawn(move || {
                common::serve::get(&address, "/api/solve?position=ee+ea+ae&time_limit=1.5")
            })
        })
        .collect();
    for probe in probes {
        let (status, body) = probe.join().unwrap();
        assert_eq!(status, 200, "both search slots are free again: {body}");
    }

    // A request from a page of another site is refused.
    let cross_site = send(
        &address,
        "POST /api/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://elsewhere.example\r\n\
         Content-Length: 5",
        b"hello",
    );
    assert_eq!(cross_site.status, 403, "{}", cross_site.text());

    // The largest certificate, of distinct positions: checked (or stopped) within the time
    // limit and a second of its last byte's arrival.
    let (answer, took) = post_certificate(&address, certificate);
    assert!(
        answer.starts_with("HTTP/1.1 200") || answer.starts_with("HTTP/1.1 422"),
        "{}",
        &answer[..answer.len().min(300)]
    );
    assert!(
        took <= TIME_LIMIT + Duration::from_secs(1),
        "the check took {took:?}"
    );

    // At least 20 shows timed, then they stop.
    let waiting = Instant::now();
    while shows.lock().unwrap().len() < 20 {
        assert!(
            waiting.elapsed() < Duration::from_secs(30),
            "the shows stopped"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    probing.store(false, Ordering::Relaxed);
    prober.join().unwrap();
    // SIGTERM ends the server within 5 s though every attacker is still connected.
    let stopping = Instant::now();
    assert_eq!(served.stop_with("TERM"), Some(143));
    assert!(
        stopping.elapsed() <= Duration::from_secs(5),
        "{:?}",
        stopping.elapsed()
    );
    done.store(true, Ordering::Relaxed);
    for attacker in attackers {
        let _ = attacker.join();
    }
    let shows = shows.lock().unwrap();
    assert!(
        shows.iter().all(|(_, status)| *status == 200),
        "every show is answered: {shows:?}"
    );
    let mut times: Vec<Duration> = shows.iter().map(|(time, _)| *time).collect();
    times.sort();
    let (median, worst) = (times[times.len() / 2], times[times.len() - 1]);
    eprintln!(
        "/api/show under attack: median {median:?}, worst {worst:?} of {}",
        times.len()
    );
    assert!(median <= SHOW_AT_MOST, "median {median:?}");
    assert!(worst <= SHOW_AT_MOST, "worst {worst:?}");
}

#[test]
fn a_check_past_the_time_limit_is_stopped_and_says_so() {
    // The largest certificate takes seconds to check; the server allows 100 ms.
    let certificate = largest_certificate();
    let served = Served::start(&["--time-limit", "100ms"]);
    let (answer, took) = post_certificate(&served.address, certificate);
    assert!(
        answer.starts_with("HTTP/1.1 422"),
        "{}",
        &answer[..answer.len().min(300)]
    );
    assert!(
        answer.contains("was stopped before it finished"),
        "{answer}"
    );
    assert!(
        took <= Duration::from_millis(1100),
        "the check took {took:?}"
    );
    // And the server goes on.
    assert_eq!(served.json("/api/show?position=start")["to_move"], "X");
}
