//! Reading and writing certificate blocks.

use crate::game::{parse_position_under, plies_words, shown, Player, Position, Rules};
use std::fmt;
use std::io::{BufRead, Read, Write};

/// What a block claims the prover achieves with best play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClaimKind {
    /// The prover wins.
    Wins,
    /// The prover does not lose (wins or draws).
    Holds,
}

/// A block's claim: the prover, what it achieves, and, for a bounded claim, within how many
/// plies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Claim {
    /// The player whose strategy the block holds.
    pub prover: Player,
    /// What the strategy achieves.
    pub kind: ClaimKind,
    /// For a bounded claim, the plies (stones) from the block's position within which it holds
    /// (0 to [`MAX_BOUND`]): `wins` that the prover's win comes within them, `holds` that the
    /// opponent does not win within them. `None`: no bound.
    pub within: Option<u8>,
}

/// The largest bound a claim may carry: every cell of the board.
pub const MAX_BOUND: u8 = 81;

impl Claim {
    /// The unbounded claim that `prover` achieves `kind`.
    pub fn unbounded(prover: Player, kind: ClaimKind) -> Claim {
        Claim {
            prover,
            kind,
            within: None,
        }
    }
}

impl fmt::Display for Claim {
    /// `X wins`, `O holds`, `X wins within 5 plies`, `O holds for 1 ply`, as in the file.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            ClaimKind::Wins => "wins",
            ClaimKind::Holds => "holds",
        };
        write!(f, "{} {kind}", self.prover)?;
        if let Some(plies) = self.within {
            let preposition = match self.kind {
                ClaimKind::Wins => "within",
                ClaimKind::Holds => "for",
            };
            write!(f, " {preposition} {}", plies_words(plies.into()))?;
        }
        Ok(())
    }
}

/// One block: a claim about a position and the prover's moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The format version of its first line: 1, or 2 for a block whose leaves may also be
    /// the positions of later blocks (see [`crate::certificate`]); 3 is version 2 under a rule
    /// set other than the common rules, which a `rules` line names. [`write_block`] writes
    /// version 3 for every block whose position is not under the common rules.
    pub version: u8,
    /// The claim.
    pub claim: Claim,
    /// The position it is about.
    pub position: Position,
    /// The prover's moves as squares (board × 9 + cell), in traversal order.
    pub moves: Vec<u8>,
}

/// Why a certificate file cannot be read: where (block, line) and what is wrong.
#[derive(Debug)]
pub struct FormatError {
    /// The block, counted from 1.
    pub block: usize,
    /// The line of the file, counted from 1 (the binary data counts as no lines).
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "block {}, line {}: {}",
            self.block, self.line, self.reason
        )
    }
}

impl std::error::Error for FormatError {}

/// The first line of a block, before its version.
const MAGIC: &str = "uttt-certificate";

/// The versions this build reads and writes.
pub const VERSIONS: [u8; 3] = [1, 2, 3];

/// The version whose blocks name their rule set.
const RULES_VERSION: u8 = 3;

/// Writes one block (as version 3, with its `rules` line, when its position is not under the
/// common rules).
pub fn write_block(out: &mut impl Write, block: &Block) -> std::io::Result<()> {
    let rules = block.position.rules();
    if rules == Rules::Common {
        writeln!(out, "{MAGIC} {}", block.version)?;
    } else {
        writeln!(out, "{MAGIC} {RULES_VERSION}")?;
        writeln!(out, "rules {rules}")?;
    }
    writeln!(out, "claim {}", block.claim)?;
    writeln!(out, "position {}", block.position)?;
    writeln!(out, "moves {}", block.moves.len())?;
    out.write_all(&block.moves)
}

/// Reads every block of a certificate file. An empty file has no blocks and is an error.
pub fn read_blocks(input: &mut impl BufRead) -> Result<Vec<Block>, FormatError> {
    read_blocks_while(input, || true).map(|blocks| blocks.expect("reading never stops"))
}

/// [`read_blocks`], asking `go_on` before each block whether to go on: `Ok(None)` when it says
/// no (a check that was stopped need not read a large file to its end).
pub(super) fn read_blocks_while(
    input: &mut impl BufRead,
    mut go_on: impl FnMut() -> bool,
) -> Result<Option<Vec<Block>>, FormatError> {
    let mut blocks = Vec::new();
    let mut line = 0;
    loop {
        if !go_on() {
            return Ok(None);
        }
        let number = blocks.len() + 1;
        let fail = |line: usize, reason: String| FormatError {
            block: number,
            line,
            reason,
        };
        let Some(magic) = read_line(input).map_err(|e| fail(line + 1, e))? else {
            break;
        };
        line += 1;
        let version = magic
            .strip_prefix(MAGIC)
            .and_then(|rest| rest.strip_prefix(' '))
            .and_then(|v| v.parse::<u8>().ok())
            .filter(|v| VERSIONS.contains(v))
            .ok_or_else(|| {
                fail(
                    line,
                    format!(
                        "expected `{MAGIC} 1`, `{MAGIC} 2` or `{MAGIC} 3`, found `{}`",
                        shown(&magic)
                    ),
                )
            })?;
        let mut field = |name: &str| -> Result<String, FormatError> {
            line += 1;
            let text = read_line(input)
                .map_err(|e| fail(line, e))?
                .ok_or_else(|| fail(line, format!("the file ends before the `{name}` line")))?;
            text.strip_prefix(name)
                .and_then(|rest| rest.strip_prefix(' '))
                .map(str::to_string)
                .ok_or_else(|| {
                    fail(
                        line,
                        format!("expected `{name} ...`, found `{}`", shown(&text)),
                    )
                })
        };
        let rules_name = if version == RULES_VERSION {
            Some(field("rules")?)
        } else {
            None
        };
        let claim_text = field("claim")?;
        let position_text = field("position")?;
        let moves_text = field("moves")?;
        // One way to write each block: the common rules are versions 1 and 2, the others 3,
        // their names in lower case as written.
        let rules = match rules_name {
            Some(name) => Rules::from_name(&name)
                .filter(|rules| !rules.is_common() && rules.name() == name)
                .ok_or_else(|| {
                    fail(
                        line - 3,
                        format!(
                            "expected `rules open` or `rules codingame`, found `rules {}` \
                             (a block of the common rules is version 1 or 2)",
                            shown(&name)
                        ),
                    )
                })?,
            None => Rules::Common,
        };
        let claim = parse_claim(&claim_text).ok_or_else(|| {
            fail(
                line - 2,
                format!(
                    "expected `claim X|O wins|holds`, optionally followed by `within N plies` \
                     (wins) or `for N plies` (holds) with N at most {MAX_BOUND}, found `claim \
                     {}`",
                    shown(&claim_text)
                ),
            )
        })?;
        let position = parse_position_under(&position_text, rules)
            .map_err(|e| fail(line - 1, format!("bad position: {e}")))?;
        // The notation may name a rule set, which must be the block's own: the header decides
        // how every move and leaf is judged.
        if position.rules() != rules {
            return Err(fail(
                line - 1,
                format!(
                    "the position is under the rule set `{}`, but the block is of `{}`",
                    position.rules().name(),
                    rules.name()
                ),
            ));
        }
        let count: usize = moves_text
            .parse()
            .map_err(|_| fail(line, format!("bad move count `{}`", shown(&moves_text))))?;
        // Read what is there rather than trusting the count with an allocation.
        let mut moves = Vec::new();
        let read = std::io::Read::take(&mut *input, count as u64)
            .read_to_end(&mut moves)
            .map_err(|e| fail(line, format!("cannot read the moves: {e}")))?;
        if read < count {
            return Err(fail(
                line,
                format!("the file ends inside the {count} bytes of moves (after {read})"),
            ));
        }
        blocks.push(Block {
            version,
            claim,
            position,
            moves,
        });
    }
    if blocks.is_empty() {
        return Err(FormatError {
            block: 1,
            line: 1,
            reason: "the file holds no certificate block".into(),
        });
    }
    Ok(Some(blocks))
}

/// `X wins`, `O holds`, `X wins within 5 plies`, `O holds for 1 ply` (either of `ply` and
/// `plies` after any count; the count in plain decimal digits, without a leading zero).
fn parse_claim(text: &str) -> Option<Claim> {
    let words: Vec<&str> = text.split(' ').collect();
    let [player, kind, bound @ ..] = words.as_slice() else {
        return None;
    };
    let prover = match *player {
        "X" => Player::X,
        "O" => Player::O,
        _ => return None,
    };
    let (kind, preposition) = match *kind {
        "wins" => (ClaimKind::Wins, "within"),
        "holds" => (ClaimKind::Holds, "for"),
        _ => return None,
    };
    let within = match bound {
        [] => None,
        &[word, count, unit] if word == preposition && (unit == "plies" || unit == "ply") => {
            // Plain decimal digits, as written: no sign, no leading zero.
            let plain = count.bytes().all(|b| b.is_ascii_digit())
                && (count == "0" || !count.starts_with('0'));
            if !plain {
                return None;
            }
            Some(count.parse::<u8>().ok().filter(|&n| n <= MAX_BOUND)?)
        }
        _ => return None,
    };
    Some(Claim {
        prover,
        kind,
        within,
    })
}

/// The longest text line of a certificate: its lines are short (a position's notation is
/// about 100 bytes), so a longer one is damage, refused before it fills memory.
pub const MAX_LINE_BYTES: usize = 4096;

/// One text line without its newline; `None` at the end of the input.
fn read_line(input: &mut impl BufRead) -> Result<Option<String>, String> {
    let mut bytes = Vec::new();
    input
        .take(MAX_LINE_BYTES as u64 + 1)
        .read_until(b'\n', &mut bytes)
        .map_err(|e| format!("cannot read: {e}"))?;
    if bytes.is_empty() {
        return Ok(None);
    }
    if bytes.last() != Some(&b'\n') {
        if bytes.len() > MAX_LINE_BYTES {
            return Err(format!(
                "a text line is longer than {MAX_LINE_BYTES} bytes (a certificate's lines are \
                 short): not a certificate, or a damaged one"
            ));
        }
        return Err("the file ends inside a text line".into());
    }
    bytes.pop();
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| "a text line is not UTF-8".into())
}
