//! Position files, as `uttt solve --file` and `uttt learn` read them: one position a line in
//! any accepted notation, optionally followed by its expected value, `#` comments, blank lines,
//! and `rules NAME` lines that change the rule set of the lines after them.
//!
//! Read as a stream ([`Entries`]): one line at a time, each cut at [`MAX_LINE_BYTES`], so that
//! memory does not grow with the input, and a batch starts solving before its input ends.

use crate::cli::args::parse_rules;
use crate::cli::interrupt;
use crate::files::lines::{open_input, Input, LineEnd, LineReader};
use crate::game::{parse_game_arg_under, Player, Position, Rules};
use crate::services::Verdict;
use anyhow::Context;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The longest line a position file may have: far more than any position or game takes (a
/// game of 81 moves is under 250 bytes, with a comment beside it), far less than memory.
pub const MAX_LINE_BYTES: usize = 64 << 10;
/// The most bytes of one line too long that are read past (the line then becomes a bad
/// entry, and the reading goes on): an input whose line goes on past this is no file of
/// positions (`/dev/zero`), and its reading ends in an error.
pub const MAX_SKIPPED_BYTES: usize = 16 << 20;

/// One non-blank, non-comment line of the input.
pub(crate) struct Entry {
    /// Its line number, from 1.
    pub line: usize,
    /// Its position and expected value, or what is wrong with it.
    pub parsed: Result<(Position, Option<Verdict>), String>,
}

/// The entries of a position file (`-`: standard input), read one line at a time, each line
/// under `rules` until a line `rules NAME` names another rule set. A line that is too long, is
/// not UTF-8, or names no rule set becomes a bad entry; only a failure to read at all is an
/// error (and ends the entries).
pub(crate) struct Entries {
    lines: LineReader<Input<'static>>,
    path: PathBuf,
    rules: Rules,
    line: usize,
    bytes: Vec<u8>,
    failed: bool,
}

impl Entries {
    /// Opens `path` (`-`: standard input), its lines read under `rules` at first. A FIFO may
    /// keep its opener waiting for a writer: Ctrl-C and SIGTERM are heard meanwhile, and
    /// `open_deadline` ends the wait (see [`open_input`]).
    pub fn open(
        path: &Path,
        rules: Rules,
        open_deadline: Option<Instant>,
    ) -> anyhow::Result<Entries> {
        let input = open_input(path, interrupt::stop_flag(), open_deadline, None)
            .with_context(|| format!("cannot read {}", path.display()))?;
        Ok(Entries {
            lines: LineReader::new(input, MAX_LINE_BYTES),
            path: path.to_path_buf(),
            rules,
            line: 0,
            bytes: Vec::new(),
            failed: false,
        })
    }

    /// The entry of the line just read, or `None` for a blank line, a comment or a `rules`
    /// line (which changes the rule set). Positions are parsed only with `parse` (else an
    /// entry's `parsed` is an empty error: for counting the entries).
    fn entry(&mut self, end: LineEnd, parse: bool) -> Option<Entry> {
        if end == LineEnd::TooLong {
            return Some(Entry {
                line: self.line,
                parsed: Err(format!(
                    "the line is longer than the {MAX_LINE_BYTES} bytes a line of positions may \
                     have"
                )),
            });
        }
        // Comments are cut on the raw bytes, so that a comment need not be UTF-8 text.
        let content = strip_comment(&self.bytes);
        if content.is_empty() {
            return None;
        }
        let parsed = match std::str::from_utf8(content) {
            Ok(text) => match text.strip_prefix("rules ") {
                Some(name) => match parse_rules(name.trim()) {
                    Ok(named) => {
                        self.rules = named;
                        return None;
                    }
                    Err(reason) => Err(format!("column 7: {reason}")),
                },
                None if parse => parse_entry(text, self.rules),
                None => Err(String::new()),
            },
            Err(e) => Err(format!(
                "column {}: the line is not valid UTF-8 text",
                content_offset(&self.bytes, content) + e.valid_up_to() + 1
            )),
        };
        Some(Entry {
            line: self.line,
            parsed,
        })
    }

    /// The next entry, parsed or not (see [`Entries::entry`]).
    fn next_entry(&mut self, parse: bool) -> Option<anyhow::Result<Entry>> {
        while !self.failed {
            let mut bytes = std::mem::take(&mut self.bytes);
            let read = self.lines.read_line(&mut bytes);
            self.bytes = bytes;
            match read {
                Ok(None) => return None,
                Ok(Some(end)) => {
                    self.line += 1;
                    // The rest of a line too long is read past (memory does not grow), but
                    // not for ever.
                    if end == LineEnd::TooLong {
                        let skipped = self.lines.skip_line(MAX_SKIPPED_BYTES);
                        let problem = match skipped {
                            Ok(Some(_)) => None,
                            Ok(None) => Some(anyhow::anyhow!(
                                "{}:{}: the line goes on past {} MiB: not a file of positions",
                                self.path.display(),
                                self.line,
                                MAX_SKIPPED_BYTES >> 20
                            )),
                            Err(error) => Some(
                                anyhow::Error::new(error)
                                    .context(format!("cannot read {}", self.path.display())),
                            ),
                        };
                        if let Some(problem) = problem {
                            self.failed = true;
                            return Some(Err(problem));
                        }
                    }
                    if let Some(entry) = self.entry(end, parse) {
                        return Some(Ok(entry));
                    }
                }
                Err(error) => {
                    self.failed = true;
                    let context = format!("cannot read {}", self.path.display());
                    return Some(Err(anyhow::Error::new(error).context(context)));
                }
            }
        }
        None
    }
}

/// How many entries the position file at `path` holds, when it is a regular file (read once
/// more, a line at a time, without parsing the positions); `None` for a pipe or standard
/// input, whose lines can be read only once.
pub(crate) fn count_entries(path: &Path) -> Option<u64> {
    if path == Path::new("-") || !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let mut entries = Entries::open(path, Rules::Common, None).ok()?;
    let mut count = 0;
    while let Some(entry) = entries.next_entry(false) {
        entry.ok()?;
        count += 1;
    }
    Some(count)
}

impl Iterator for Entries {
    type Item = anyhow::Result<Entry>;

    fn next(&mut self) -> Option<anyhow::Result<Entry>> {
        self.next_entry(true)
    }
}

/// Every entry of `path`, read whole: for the files that name a handful of positions (the
/// positions a training run leaves out).
pub(crate) fn read_entries(path: &Path, rules: Rules) -> anyhow::Result<Vec<Entry>> {
    Entries::open(path, rules, None)?.collect()
}

/// The line without its comment and surrounding whitespace: `#` opens one at the start of a
/// line or after whitespace (inside the notation `#` marks a drawn board and is never
/// preceded by whitespace).
fn strip_comment(line: &[u8]) -> &[u8] {
    let text = line.trim_ascii();
    if text.starts_with(b"#") {
        return &[];
    }
    let comment = text
        .windows(2)
        .position(|pair| pair[0].is_ascii_whitespace() && pair[1] == b'#');
    match comment {
        Some(at) => text[..at].trim_ascii(),
        None => text,
    }
}

/// Where `part` (a subslice of `line`) starts in it.
fn content_offset(line: &[u8], part: &[u8]) -> usize {
    part.as_ptr() as usize - line.as_ptr() as usize
}

/// `POSITION [X|O|draw]`: the position in any accepted form under `rules`, then optionally
/// its value.
fn parse_entry(text: &str, rules: Rules) -> Result<(Position, Option<Verdict>), String> {
    let (position, expected) = match text.rsplit_once(char::is_whitespace) {
        Some((rest, last)) => match expected_value(last) {
            Some(value) => (rest.trim(), Some(value)),
            None => (text, None),
        },
        None => (text, None),
    };
    let pos = parse_game_arg_under(position, rules)
        .map(|game| game.position)
        .map_err(|e| e.to_string())?;
    Ok((pos, expected))
}

/// An expected value as written in a batch file.
fn expected_value(word: &str) -> Option<Verdict> {
    match word {
        "X" => Some(Verdict::Wins(Player::X)),
        "O" => Some(Verdict::Wins(Player::O)),
        "draw" => Some(Verdict::Draw),
        _ => None,
    }
}
