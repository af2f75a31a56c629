//! Reading input in bounded pieces: lines cut at a length ([`LineReader`]), a byte-order mark
//! at the start skipped, and a file read by a thread of its own so that a time limit or a
//! signal is heard while the file keeps the reader waiting ([`WatchedFile`]: a FIFO that no
//! one writes, a stalled network file system).

use std::fs::File;
use std::io::{self, BufRead, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant};

/// The UTF-8 byte-order mark, which some editors put at the start of a text file.
const BYTE_ORDER_MARK: &[u8] = b"\xEF\xBB\xBF";

/// How one line ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEnd {
    /// At a newline, or at the end of the input: the line is whole.
    Whole,
    /// The line is longer than the reader's limit: its first bytes were kept, and the reader
    /// stopped there (the rest of the line is read past by [`LineReader::skip_line`], or read
    /// as the next line).
    TooLong,
}

/// Reads lines of at most a given length from a buffered input: a longer line is cut where the
/// limit is passed, so that memory never grows with a line and a file with no newline at all
/// (`/dev/zero`) is not read for ever. A byte-order mark at the start of the input is
/// skipped.
pub struct LineReader<R> {
    input: R,
    limit: usize,
    at_start: bool,
    /// Whether the last line read was cut before its end (its rest is next in the input).
    cut: bool,
}

impl<R: BufRead> LineReader<R> {
    /// A reader of `input` whose lines keep at most `limit` bytes.
    pub fn new(input: R, limit: usize) -> LineReader<R> {
        LineReader {
            input,
            limit,
            at_start: true,
            cut: false,
        }
    }

    /// Reads the next line into `line` (cleared first), without its newline; `None` at the end
    /// of the input.
    pub fn read_line(&mut self, line: &mut Vec<u8>) -> io::Result<Option<LineEnd>> {
        line.clear();
        // The mark is kept until it is known whole: up to 3 bytes more than the limit.
        let mark = if self.at_start {
            BYTE_ORDER_MARK.len()
        } else {
            0
        };
        let (any, whole) =
            self.read_until_newline(self.limit + mark + 1, |bytes| line.extend_from_slice(bytes))?;
        if !any {
            return Ok(None);
        }
        self.cut = !whole;
        if std::mem::replace(&mut self.at_start, false) && line.starts_with(BYTE_ORDER_MARK) {
            line.drain(..BYTE_ORDER_MARK.len());
        }
        if !whole || line.len() > self.limit {
            line.truncate(self.limit);
            return Ok(Some(LineEnd::TooLong));
        }
        Ok(Some(LineEnd::Whole))
    }

    /// Reads past the rest of a line that was too long, to its newline (memory does not
    /// grow), but at most `most` bytes of it: how many bytes were read past (none when the line
    /// read last was not cut), or `None` when the line goes on past `most` (an input that is
    /// no text of lines, such as `/dev/zero`, is not read for ever).
    pub fn skip_line(&mut self, most: usize) -> io::Result<Option<u64>> {
        let mut skipped = 0u64;
        if std::mem::replace(&mut self.cut, false) {
            let (_, ended) =
                self.read_until_newline(most, |bytes| skipped += bytes.len() as u64)?;
            if !ended {
                return Ok(None);
            }
        }
        Ok(Some(skipped))
    }

    /// Hands the bytes up to the next newline to `take`, and reads past the newline, but stops
    /// after `most` bytes. Whether any byte or newline was read, and whether the line ended
    /// (at a newline or at the end of the input) within `most`.
    fn read_until_newline(
        &mut self,
        most: usize,
        mut take: impl FnMut(&[u8]),
    ) -> io::Result<(bool, bool)> {
        let (mut any, mut read) = (false, 0usize);
        loop {
            let buffer = match self.input.fill_buf() {
                Ok(buffer) => buffer,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buffer.is_empty() {
                return Ok((any, true));
            }
            any = true;
            let newline = buffer.iter().position(|&b| b == b'\n');
            let content = &buffer[..newline.unwrap_or(buffer.len())];
            let count = content.len().min(most - read);
            take(&content[..count]);
            read += count;
            let ends = newline.is_some() && count == content.len();
            self.input.consume(count + usize::from(ends));
            if ends {
                return Ok((true, true));
            }
            if read == most {
                return Ok((true, false));
            }
        }
    }

    /// The input, for reading what follows a line in another way.
    pub fn input(&mut self) -> &mut R {
        &mut self.input
    }
}

/// The error a [`WatchedFile`] reads once its stop flag is raised or its deadline has passed.
#[derive(Debug)]
pub struct Stopped;

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the read was stopped")
    }
}

impl std::error::Error for Stopped {}

/// Whether `error` is a [`WatchedFile`]'s [`Stopped`].
pub fn is_stopped(error: &io::Error) -> bool {
    error.get_ref().is_some_and(|inner| inner.is::<Stopped>())
}

/// Bytes a reading thread hands over at a time.
const PIECE_BYTES: usize = 256 << 10;
/// Pieces read ahead of the reader, at most.
const PIECES_AHEAD: usize = 4;
/// How often a waiting reader looks at its stop flag and deadline.
const TICK: Duration = Duration::from_millis(20);

/// What the reading thread hands over.
enum Piece {
    Opened,
    Bytes(Vec<u8>),
    Failed(io::Error),
}

/// A file read by a thread of its own, a few pieces ahead, while the reader waits on a
/// channel and looks at a stop flag and a deadline: opening or reading a file that never
/// answers (a FIFO nobody writes) cannot keep the reader past them. Memory is bounded by the
/// pieces in flight. A reading thread left waiting when the reader gives up ends with the
/// process.
pub struct WatchedFile<'a> {
    pieces: Receiver<Piece>,
    piece: Vec<u8>,
    at: usize,
    stop: &'a AtomicBool,
    deadline: Option<Instant>,
}

impl<'a> WatchedFile<'a> {
    /// Opens `path` for reading; an error when it cannot be opened, or [`Stopped`] when the
    /// flag or the deadline comes first.
    pub fn open(
        path: &Path,
        stop: &'a AtomicBool,
        deadline: Option<Instant>,
    ) -> io::Result<WatchedFile<'a>> {
        let path = path.to_path_buf();
        WatchedFile::start(stop, deadline, move || {
            File::open(&path).map(|file| Box::new(file) as Box<dyn Read>)
        })
    }

    /// Standard input, read by a thread of its own as [`WatchedFile::open`] reads a file: a
    /// stop is heard while nothing comes.
    pub fn stdin(stop: &'a AtomicBool, deadline: Option<Instant>) -> io::Result<WatchedFile<'a>> {
        WatchedFile::start(
            stop,
            deadline,
            || Ok(Box::new(io::stdin()) as Box<dyn Read>),
        )
    }

    /// The same file, its reads bounded by `deadline` from now on (an open bounded by one
    /// deadline, its reads by another or by none).
    pub fn until(self, deadline: Option<Instant>) -> WatchedFile<'a> {
        WatchedFile { deadline, ..self }
    }

    /// Starts the reading thread on what `open` opens, and waits for the open.
    fn start(
        stop: &'a AtomicBool,
        deadline: Option<Instant>,
        open: impl FnOnce() -> io::Result<Box<dyn Read>> + Send + 'static,
    ) -> io::Result<WatchedFile<'a>> {
        let (sender, pieces) = std::sync::mpsc::sync_channel(PIECES_AHEAD);
        std::thread::Builder::new()
            .name("file reader".into())
            .spawn(move || read_pieces(open, &sender))?;
        let mut file = WatchedFile {
            pieces,
            piece: Vec::new(),
            at: 0,
            stop,
            deadline,
        };
        match file.next_piece()? {
            Some(Piece::Opened) => Ok(file),
            Some(Piece::Failed(error)) => Err(error),
            Some(Piece::Bytes(_)) | None => Err(io::Error::other("the reading thread failed")),
        }
    }

    /// The next piece from the thread, `None` at the end, [`Stopped`] as an error.
    fn next_piece(&mut self) -> io::Result<Option<Piece>> {
        loop {
            if self.stop.load(Ordering::Relaxed)
                || self.deadline.is_some_and(|d| Instant::now() >= d)
            {
                return Err(io::Error::other(Stopped));
            }
            match self.pieces.recv_timeout(TICK) {
                Ok(piece) => return Ok(Some(piece)),
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => return Ok(None),
            }
        }
    }
}

/// The reading thread: opens the file, then hands its bytes over piece by piece until the end,
/// an error, or a reader that went away.
fn read_pieces(open: impl FnOnce() -> io::Result<Box<dyn Read>>, sender: &SyncSender<Piece>) {
    let mut file = match open() {
        Ok(file) => file,
        Err(error) => {
            let _ = sender.send(Piece::Failed(error));
            return;
        }
    };
    if sender.send(Piece::Opened).is_err() {
        return;
    }
    loop {
        let mut piece = vec![0u8; PIECE_BYTES];
        let read = match file.read(&mut piece) {
            Ok(0) => return,
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => {
                let _ = sender.send(Piece::Failed(error));
                return;
            }
        };
        piece.truncate(read);
        if sender.send(Piece::Bytes(piece)).is_err() {
            return;
        }
    }
}

impl Read for WatchedFile<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let count = available.len().min(out.len());
        out[..count].copy_from_slice(&available[..count]);
        self.consume(count);
        Ok(count)
    }
}

impl BufRead for WatchedFile<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.at == self.piece.len() {
            match self.next_piece()? {
                Some(Piece::Bytes(bytes)) => {
                    self.piece = bytes;
                    self.at = 0;
                }
                Some(Piece::Failed(error)) => return Err(error),
                Some(Piece::Opened) | None => return Ok(&[]),
            }
        }
        Ok(&self.piece[self.at..])
    }

    fn consume(&mut self, amount: usize) {
        self.at = (self.at + amount).min(self.piece.len());
    }
}

/// A file a user named, open for reading (see [`open_input`]).
pub type Input<'a> = Box<dyn BufRead + Send + 'a>;

/// Opens the file a user named for reading where a stop reaches every wait: `-` is standard
/// input and anything but a regular file (a FIFO that no one may ever write, a device) is
/// opened and read by a thread of its own ([`WatchedFile`]), so that `stop` (Ctrl-C, SIGTERM)
/// and `open_deadline` end a wait for a writer, and `stop` and `read_deadline` a wait for its
/// bytes (`None`: a slow writer is waited for); a regular file is opened and read directly.
pub fn open_input<'a>(
    path: &Path,
    stop: &'a AtomicBool,
    open_deadline: Option<Instant>,
    read_deadline: Option<Instant>,
) -> io::Result<Input<'a>> {
    if path == Path::new("-") {
        let input = WatchedFile::stdin(stop, open_deadline)?;
        return Ok(Box::new(input.until(read_deadline)));
    }
    if std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Ok(Box::new(io::BufReader::new(File::open(path)?)));
    }
    let input = WatchedFile::open(path, stop, open_deadline)?;
    Ok(Box::new(input.until(read_deadline)))
}

/// All of `input` when it holds at most `most` bytes, `None` when it holds more: at most
/// `most + 1` bytes are ever read (a file that never ends, `/dev/zero`, is not read on).
pub fn read_at_most(input: impl Read, most: u64) -> io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    input.take(most.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= most).then_some(bytes))
}
