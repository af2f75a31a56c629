//! The accepting thread's connections: every connection is read here, on one thread with
//! sockets that never block, until its request is whole (its head, and a certificate's body),
//! so that a connection that sends slowly or not at all holds no thread and no search slot,
//! only a buffer of what it sent. Each connection has deadlines for the whole of its head and
//! of its request ([`HEAD_TIMEOUT`], [`BODY_TIMEOUT`]), counted from when it was accepted, however
//! its bytes trickle; one that misses them is answered 408 and closed. The thread waits for its sockets with
//! `poll(2)` (the standard library has no way to wait on many sockets at once).

use super::http::{self, Answer, BodyLength, Head, BODY_TIMEOUT, HEAD_TIMEOUT};
use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

/// The most connections open at once, being read or answered: far above the requests answered
/// at once ([`super::MAX_REQUESTS`]), since an idle connection costs only its buffer. One
/// more is answered 503 and closed.
pub const MAX_CONNECTIONS: usize = 1024;

/// The most certificates being received at once; one more gets 503 as soon as its head
/// declares it. Bounds what bodies in transit can make the server hold (each at most
/// [`super::MAX_CERTIFICATE_BYTES`]).
pub const MAX_BODIES_IN_TRANSIT: usize = 4;

/// The most bytes read from one connection in one turn of the loop, so that a fast sender does
/// not keep the others waiting.
const READ_PER_TURN: usize = 1 << 20;

/// A connection whose request is not whole yet.
struct Reading {
    /// The connection, not blocking.
    stream: TcpStream,
    /// What it sent so far.
    bytes: Vec<u8>,
    /// The head, once whole, with where the body starts in `bytes` and the body's length.
    head: Option<(Head, usize, usize)>,
    /// How many of `bytes` were looked at without finding the head's end.
    scanned: usize,
    /// When it was accepted: its deadlines count from then.
    accepted: Instant,
    /// Whether the last wait found bytes (or its end) to read.
    ready: bool,
}

impl Reading {
    /// When it must have sent what it is still sending.
    fn deadline(&self) -> Instant {
        let allowed = if self.head.is_some() {
            BODY_TIMEOUT
        } else {
            HEAD_TIMEOUT
        };
        self.accepted + allowed
    }
}

/// What became of a connection after a read.
enum Progress {
    /// Its request is not whole yet.
    Waiting,
    /// It closed, or failed: nothing to answer.
    Gone,
    /// It is answered without a worker, at once (a malformed head, a refusal).
    Refused(Answer),
    /// Its head is whole, and the body it is allowed to send is still coming.
    NeedsBody,
    /// Its request is whole: its head and body.
    Whole(Head, Vec<u8>),
}

/// A whole request, taken off the accepting thread.
pub struct WholeRequest {
    /// The connection, in blocking mode again.
    pub stream: TcpStream,
    /// Its head.
    pub head: Head,
    /// Its body (empty but for a certificate).
    pub body: Vec<u8>,
}

/// What the loop asks of the server about a request whose head is whole.
pub trait Admission {
    /// Whether the request with `head`, which came to the local address of `stream`, is
    /// answered at all, and how long a body it may send: the length, or the answer that
    /// refuses it.
    fn body_allowed(&self, head: &Head, stream: &TcpStream) -> Result<usize, Answer>;
    /// Takes a whole request to be answered on a worker; gives its connection back if no
    /// worker is free.
    fn answer(&self, request: WholeRequest) -> Result<(), TcpStream>;
    /// How many requests are being answered (each holds a connection).
    fn answering(&self) -> usize;
    /// The most connections open at once: [`MAX_CONNECTIONS`], or fewer where the process
    /// would run out of descriptors first.
    fn most_connections(&self) -> usize;
    /// Whether the server is stopping.
    fn stopping(&self) -> bool;
}

/// Accepts and reads connections on `listener` until `server` says it is stopping, handing
/// each whole request to `server`.
pub fn run(listener: &TcpListener, server: &impl Admission) {
    if let Err(error) = listener.set_nonblocking(true) {
        eprintln!("uttt serve: cannot listen without blocking: {error}");
        return;
    }
    let mut reading: Vec<Reading> = Vec::new();
    let mut closing: Vec<Closing> = Vec::new();
    while !server.stopping() {
        let listener_ready = wait(listener, &mut reading, &mut closing);
        if listener_ready {
            accept_all(listener, &mut reading, closing.len(), server);
        }
        let now = Instant::now();
        closing.retain_mut(|connection| !connection.closed(now));
        let mut index = 0;
        while index < reading.len() {
            let progress = if reading[index].ready {
                // A panic here (a bug) would end the server with the loop: it answers 500 and
                // closes this connection instead.
                let connection = &mut reading[index];
                std::panic::catch_unwind(AssertUnwindSafe(|| read_more(connection, server)))
                    .unwrap_or_else(|_| {
                        let text = "the request failed (a bug): see the server's error output";
                        Progress::Refused(Answer::error(500, text))
                    })
            } else {
                Progress::Waiting
            };
            let progress = match progress {
                Progress::Waiting | Progress::NeedsBody if now >= reading[index].deadline() => {
                    Progress::Refused(Answer::error(408, "the request came too slowly"))
                }
                Progress::NeedsBody if bodies_in_transit(&reading) > MAX_BODIES_IN_TRANSIT => {
                    Progress::Refused(Answer::error(
                        503,
                        "too many certificates are being received: try again later",
                    ))
                }
                other => other,
            };
            if matches!(progress, Progress::Waiting | Progress::NeedsBody) {
                index += 1;
                continue;
            }
            let Reading { mut stream, .. } = reading.swap_remove(index);
            match progress {
                Progress::Refused(answer) => {
                    http::respond_at_once(&mut stream, &answer);
                    closing.push(Closing {
                        stream,
                        until: now + LINGER,
                        ready: false,
                    });
                }
                Progress::Whole(head, body) => hand_over(stream, head, body, server),
                _ => {}
            }
        }
    }
}

/// How long a refused connection is kept, its answer sent, to read what its client still
/// sends: closed with bytes unread, it would be reset, and the client might lose the answer.
const LINGER: Duration = Duration::from_secs(2);

/// A connection answered at once, whose client's bytes are read and dropped until it closes
/// its side, or until [`LINGER`] has passed.
struct Closing {
    stream: TcpStream,
    until: Instant,
    /// Whether the last wait found bytes (or their end) to read.
    ready: bool,
}

impl Closing {
    /// Reads and drops what came; whether the connection is done with (and so closed when
    /// dropped).
    fn closed(&mut self, now: Instant) -> bool {
        if now >= self.until {
            return true;
        }
        if !self.ready {
            return false;
        }
        let mut chunk = [0u8; 16 << 10];
        let mut read_now = 0;
        while read_now < READ_PER_TURN {
            match self.stream.read(&mut chunk) {
                Ok(0) => return true,
                Ok(read) => read_now += read,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return e.kind() != std::io::ErrorKind::WouldBlock,
            }
        }
        false
    }
}

/// How many connections are sending a body.
fn bodies_in_transit(reading: &[Reading]) -> usize {
    reading.iter().filter(|r| r.head.is_some()).count()
}

/// Hands a whole request to a worker, or answers 503 when none is free.
fn hand_over(stream: TcpStream, head: Head, body: Vec<u8>, server: &impl Admission) {
    if stream.set_nonblocking(false).is_err() {
        return;
    }
    let request = WholeRequest { stream, head, body };
    if let Err(mut refused) = server.answer(request) {
        http::respond_at_once(
            &mut refused,
            &Answer::error(503, "too many requests at once: try again later"),
        );
    }
}

/// How long the loop waits for its sockets at most, so that it sees the stop flag and the
/// connections' deadlines in time.
const WAIT_AT_MOST: Duration = Duration::from_millis(50);

/// Waits until the listener or a connection has something to read, a deadline passes, or
/// [`WAIT_AT_MOST`]; marks each connection to read `ready` and returns whether the listener
/// has connections to accept.
fn wait(listener: &TcpListener, reading: &mut [Reading], closing: &mut [Closing]) -> bool {
    let now = Instant::now();
    let timeout = reading
        .iter()
        .map(Reading::deadline)
        .chain(closing.iter().map(|c| c.until))
        .map(|deadline| deadline.saturating_duration_since(now))
        .fold(WAIT_AT_MOST, Duration::min);
    let mut fds: Vec<libc::pollfd> = std::iter::once(listener.as_raw_fd())
        .chain(reading.iter().map(|r| r.stream.as_raw_fd()))
        .chain(closing.iter().map(|c| c.stream.as_raw_fd()))
        .map(|fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // Rounded up, so that a deadline a fraction of a millisecond away is not waited for with 0
    // over and over.
    let millis = timeout.as_micros().div_ceil(1000) as libc::c_int;
    // SAFETY: `fds` is a live, initialised array of `fds.len()` pollfd structures, which poll
    // only reads and writes within; the descriptors stay open while it runs.
    let result = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, millis) };
    // Nothing came (0), or a signal woke it (-1): the caller looks at the clock and flags again.
    let came = result > 0;
    let (listener_fd, rest) = fds.split_at(1);
    let (reading_fds, closing_fds) = rest.split_at(reading.len());
    for (connection, fd) in reading.iter_mut().zip(reading_fds) {
        connection.ready = came && fd.revents != 0;
    }
    for (connection, fd) in closing.iter_mut().zip(closing_fds) {
        connection.ready = came && fd.revents != 0;
    }
    came && listener_fd[0].revents != 0
}

/// Accepts every connection waiting on `listener`; past the server's most connections (those
/// being read, `closing` and those being answered), answers 503.
fn accept_all(
    listener: &TcpListener,
    reading: &mut Vec<Reading>,
    closing: usize,
    server: &impl Admission,
) {
    loop {
        let mut stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => return,
            Err(_) => {
                // A connection that failed as it came, or no descriptor left: not to spin on.
                std::thread::sleep(Duration::from_millis(10));
                return;
            }
        };
        let most = server.most_connections();
        if reading.len() + closing + server.answering() >= most {
            // Closed at once: past the cap, no connection is kept to read.
            let text = format!("{most} connections are open, the most at once");
            http::respond_at_once(&mut stream, &Answer::error(503, &text));
            continue;
        }
        if stream.set_nonblocking(true).is_err() {
            continue;
        }
        reading.push(Reading {
            stream,
            bytes: Vec::new(),
            head: None,
            scanned: 0,
            accepted: Instant::now(),
            ready: false,
        });
    }
}

/// Reads what `connection` has sent and says what became of it.
fn read_more(connection: &mut Reading, server: &impl Admission) -> Progress {
    let mut chunk = [0u8; 16 << 10];
    let mut read_now = 0;
    while read_now < READ_PER_TURN {
        let want = match connection.head {
            // A body is read to its end and no further.
            Some((_, start, length)) => (start + length - connection.bytes.len()).min(chunk.len()),
            None => chunk.len(),
        };
        if want == 0 {
            break;
        }
        match connection.stream.read(&mut chunk[..want]) {
            Ok(0) => return Progress::Gone,
            Ok(read) => {
                connection.bytes.extend_from_slice(&chunk[..read]);
                read_now += read;
            }
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
                ) =>
            {
                break
            }
            Err(_) => return Progress::Gone,
        }
        if connection.head.is_none() {
            match http::head_of(&connection.bytes, connection.scanned) {
                Ok(None) => connection.scanned = connection.bytes.len(),
                Err(text) => return Progress::Refused(Answer::error(400, &text)),
                Ok(Some((head, start))) => match server.body_allowed(&head, &connection.stream) {
                    Err(answer) => return Progress::Refused(answer),
                    Ok(0) => {
                        connection.bytes.clear();
                        return Progress::Whole(head, Vec::new());
                    }
                    Ok(length) => {
                        // What came past the body is nothing the server reads; room for the
                        // body is made as it comes, not as it is declared.
                        connection.bytes.truncate(start + length);
                        connection.bytes.reserve(length.min(1 << 20));
                        connection.head = Some((head, start, length));
                    }
                },
            }
        }
        if let Some((_, start, length)) = connection.head {
            if connection.bytes.len() == start + length {
                let (head, ..) = connection.head.take().expect("the head is whole");
                let body = connection.bytes.split_off(start);
                return Progress::Whole(head, body);
            }
        }
    }
    match connection.head {
        Some(_) => Progress::NeedsBody,
        None => Progress::Waiting,
    }
}

/// The length of body a request with `head` is allowed to send when its endpoint takes one of
/// at most `most` bytes (`takes_body`), or the answer that refuses it.
pub fn body_length(head: &Head, takes_body: bool, most: usize) -> Result<usize, Answer> {
    match (takes_body, head.body) {
        (false, BodyLength::None) => Ok(0),
        (false, _) => Err(Answer::error(
            413,
            "a request with a body is not served here",
        )),
        (true, BodyLength::None) => Err(Answer::error(
            400,
            "the certificate to check is the body: it is empty",
        )),
        (true, BodyLength::Undeclared) => Err(Answer::error(
            411,
            "a certificate is sent with its Content-Length",
        )),
        (true, BodyLength::Declared(length)) => usize::try_from(length)
            .ok()
            .filter(|&length| length <= most)
            .ok_or_else(|| {
                let text = format!(
                    "a certificate of {length} bytes is more than the {most} this server \
                     checks: check it with `uttt verify FILE`"
                );
                Answer::error(413, &text)
            }),
    }
}
