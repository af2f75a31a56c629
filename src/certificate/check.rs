//! Checking a certificate file: every block with the verifier, and what the verified blocks
//! prove together.

use super::{read_blocks, verify_blocks, Claim, ClaimKind, Failure, FormatError, Verified};
use crate::game::{plies_words, Player, Position};
use std::fmt;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What verified blocks prove about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Statement {
    /// This player wins (a `wins` block).
    Wins(Player),
    /// Neither player wins (`holds` blocks for both).
    Draw,
    /// This player does not lose (its `holds` block alone).
    DoesNotLose(Player),
    /// This player wins within so many plies (a bounded `wins` block).
    WinsWithin(Player, u8),
    /// This player does not win within so many plies (a bounded `holds` block of the other).
    DoesNotWinWithin(Player, u8),
    /// This player wins in exactly so many plies with best play: a win within them, and none
    /// within fewer (see `distance_of`).
    WinsIn(Player, u8),
}

impl fmt::Display for Statement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Statement::Wins(player) => write!(f, "{} wins", player.letter()),
            Statement::Draw => write!(f, "draw"),
            Statement::DoesNotLose(player) => write!(f, "{} does not lose", player.letter()),
            Statement::WinsWithin(player, plies) => {
                write!(
                    f,
                    "{} wins within {}",
                    player.letter(),
                    plies_words((*plies).into())
                )
            }
            Statement::DoesNotWinWithin(player, plies) => write!(
                f,
                "{} does not win within {}",
                player.letter(),
                plies_words((*plies).into())
            ),
            Statement::WinsIn(player, plies) => {
                write!(
                    f,
                    "{} wins in exactly {}",
                    player.letter(),
                    plies_words((*plies).into())
                )
            }
        }
    }
}

/// A statement proved about a position, shown as `draw in X;...`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proven {
    /// The position.
    pub position: Position,
    /// What is proved about it.
    pub statement: Statement,
}

impl fmt::Display for Proven {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} in {}", self.statement, self.position)
    }
}

/// Why a certificate file could not be checked at all (as opposed to a block that fails).
#[derive(Debug)]
pub enum CheckFileError {
    /// The file could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not in the certificate format.
    Format {
        /// The file.
        path: PathBuf,
        /// Where and how.
        source: FormatError,
    },
}

impl fmt::Display for CheckFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckFileError::Read { path, .. } => {
                write!(f, "cannot read certificate {}", path.display())
            }
            CheckFileError::Format { path, .. } => write!(f, "certificate {}", path.display()),
        }
    }
}

impl std::error::Error for CheckFileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CheckFileError::Read { source, .. } => Some(source),
            CheckFileError::Format { source, .. } => Some(source),
        }
    }
}

/// The check of one block.
pub struct BlockCheck {
    /// The block's claim.
    pub claim: Claim,
    /// The block's position.
    pub position: Position,
    /// What the verifier found.
    pub result: Result<Verified, Failure>,
    /// Whether a leaf of an earlier block refers to it (version 2): it proves a piece of that
    /// block's claim rather than a statement of its own.
    pub referenced: bool,
}

/// A whole file's check.
pub struct FileCheck {
    /// Every block, in file order.
    pub blocks: Vec<BlockCheck>,
    /// Wall time of reading and checking.
    pub elapsed: Duration,
}

impl FileCheck {
    /// Whether every block verified.
    pub fn all_verified(&self) -> bool {
        self.blocks.iter().all(|b| b.result.is_ok())
    }

    /// Distinct positions visited over all blocks.
    pub fn positions(&self) -> u64 {
        self.blocks
            .iter()
            .filter_map(|b| b.result.as_ref().ok())
            .map(|v| v.positions)
            .sum()
    }

    /// What the verified blocks prove: for each position (in the order the positions first
    /// appear) the statement of its unbounded blocks, if any (a bounded `wins` block counts as
    /// a `wins` block here: a win within some plies is a win), then one per bounded block (in
    /// file order, each once). The positions of blocks that others refer to are pieces of
    /// those blocks' proofs, and are not stated.
    pub fn proves(&self) -> Vec<Proven> {
        let stated = || self.blocks.iter().filter(|b| !b.referenced);
        let mut positions: Vec<Position> = Vec::new();
        for block in stated() {
            if !positions.contains(&block.position) {
                positions.push(block.position);
            }
        }
        let mut proven = Vec::new();
        for pos in positions {
            // A win within any number of plies is a win; a bounded `holds` says nothing of the
            // plies after its bound.
            let verified = |kind, prover| {
                stated().any(|b| {
                    b.position == pos
                        && b.result.is_ok()
                        && b.claim.prover == prover
                        && b.claim.kind == kind
                        && (b.claim.within.is_none() || kind == ClaimKind::Wins)
                })
            };
            let unbounded = if verified(ClaimKind::Wins, Player::X) {
                Some(Statement::Wins(Player::X))
            } else if verified(ClaimKind::Wins, Player::O) {
                Some(Statement::Wins(Player::O))
            } else {
                match (
                    verified(ClaimKind::Holds, Player::X),
                    verified(ClaimKind::Holds, Player::O),
                ) {
                    (true, true) => Some(Statement::Draw),
                    (true, false) => Some(Statement::DoesNotLose(Player::X)),
                    (false, true) => Some(Statement::DoesNotLose(Player::O)),
                    (false, false) => None,
                }
            };
            let bounded = stated()
                .filter(|b| b.position == pos && b.result.is_ok())
                .filter_map(|b| {
                    let plies = b.claim.within?;
                    Some(match b.claim.kind {
                        ClaimKind::Wins => Statement::WinsWithin(b.claim.prover, plies),
                        ClaimKind::Holds => {
                            Statement::DoesNotWinWithin(b.claim.prover.opponent(), plies)
                        }
                    })
                });
            let bounded: Vec<Statement> = bounded.collect();
            let distances = [Player::X, Player::O]
                .into_iter()
                .filter_map(|player| distance_of(&pos, player, &bounded));
            for statement in unbounded
                .into_iter()
                .chain(bounded.clone())
                .chain(distances)
            {
                let new = Proven {
                    position: pos,
                    statement,
                };
                if !proven.contains(&new) {
                    proven.push(new);
                }
            }
        }
        proven
    }
}

/// The distance of `player`'s win of `pos` that the bounded `statements` about `pos` prove
/// together, if they prove one: the least bound within which it wins (`n`), and the largest
/// within which it does not (`m`, 0 for a game not over: nobody wins within no plies). Its win
/// then falls on a ply after `m` and at most `n`. Where only a line of boards wins, a win falls
/// on the winner's own moves only (its owner completes a line), so every other ply; the first
/// such ply after `m` is the distance when it is also the last such ply up to `n`. Where the count of boards can decide, any ply can end the
/// game, and only `n = m + 1` pins it.
pub fn distance_of(pos: &Position, player: Player, statements: &[Statement]) -> Option<Statement> {
    if pos.is_over() {
        return None;
    }
    let within = statements
        .iter()
        .filter_map(|s| match *s {
            Statement::WinsWithin(p, plies) if p == player => Some(u32::from(plies)),
            _ => None,
        })
        .min()?;
    let not_within = statements
        .iter()
        .filter_map(|s| match *s {
            Statement::DoesNotWinWithin(p, plies) if p == player => Some(u32::from(plies)),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let first = not_within + 1;
    let pinned = if pos.rules().win_step() == 1 {
        (first == within).then_some(first)
    } else {
        // The player's own moves fall on odd plies when it is to move, else on even ones.
        let wanted = u32::from(pos.side_to_move() == player);
        let earliest = first + u32::from(first % 2 != wanted);
        let latest = within - u32::from(within % 2 != wanted);
        (earliest == latest).then_some(earliest)
    };
    pinned.map(|plies| Statement::WinsIn(player, plies as u8))
}

/// Reads and checks the certificate at `path`; an error when it cannot be read or parsed.
pub fn check_file(path: &Path) -> Result<FileCheck, CheckFileError> {
    let start = Instant::now();
    let file = std::fs::File::open(path).map_err(|source| CheckFileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    check_reader(&mut std::io::BufReader::new(file), start).map_err(|source| {
        CheckFileError::Format {
            path: path.to_path_buf(),
            source,
        }
    })
}

/// Reads and checks a certificate held in memory (one sent to the server, say); an error when
/// it is not in the certificate format.
pub fn check_bytes(bytes: &[u8]) -> Result<FileCheck, FormatError> {
    check_reader(&mut &bytes[..], Instant::now())
}

/// Reads the blocks of a certificate from `input` and checks them; `start` is when the check
/// began, for its time.
fn check_reader(input: &mut impl BufRead, start: Instant) -> Result<FileCheck, FormatError> {
    let blocks = read_blocks(input)?;
    let (results, referenced) = verify_blocks(&blocks);
    let blocks = blocks
        .iter()
        .zip(results)
        .zip(referenced)
        .map(|((block, result), referenced)| BlockCheck {
            claim: block.claim,
            position: block.position,
            result,
            referenced,
        })
        .collect();
    Ok(FileCheck {
        blocks,
        elapsed: start.elapsed(),
    })
}

/// The text report: one line per block, then what they prove, then the time.
impl fmt::Display for FileCheck {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.blocks.iter().enumerate() {
            match &b.result {
                Ok(v) => writeln!(
                    out,
                    "block {}  claim {}  verified: {} positions, {} bytes  ({}){}",
                    i + 1,
                    b.claim,
                    v.positions,
                    v.bytes,
                    b.position,
                    if b.referenced {
                        "  (a piece of an earlier block)"
                    } else {
                        ""
                    }
                ),
                Err(failure) => writeln!(
                    out,
                    "block {}  claim {}  FAILED: {failure}  (block position {})",
                    i + 1,
                    b.claim,
                    b.position
                ),
            }?;
        }
        for statement in self.proves() {
            writeln!(out, "proves   {statement}")?;
        }
        writeln!(out, "time     {:.3} s", self.elapsed.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rules;

    #[test]
    fn a_distance_is_stated_only_where_the_bounds_pin_the_winners_ply() {
        let common: Position = "ee".parse().unwrap(); // O to move
        let codingame = Position::start_under(Rules::CodinGame).play("ee".parse().unwrap());
        let distance = |pos: &Position, facts: &[Statement]| distance_of(pos, Player::O, facts);
        let (within, not_within) = (Statement::WinsWithin, Statement::DoesNotWinWithin);
        // O moves on odd plies: not within 17 and within 19 (or 20) pin 19.
        let o = Player::O;
        assert_eq!(
            distance(&common, &[within(o, 19), not_within(o, 17)]),
            Some(Statement::WinsIn(o, 19))
        );
        assert_eq!(
            distance(&common, &[within(o, 20), not_within(o, 18)]),
            Some(Statement::WinsIn(o, 19))
        );
        // 17 to 21 leaves 19 and 21 open; X's facts say nothing of O's.
        assert_eq!(distance(&common, &[within(o, 21), not_within(o, 17)]), None);
        assert_eq!(
            distance(&common, &[within(o, 19), not_within(Player::X, 17)]),
            None
        );
        // Without a lower bound only the first of O's plies is pinned.
        assert_eq!(
            distance(&common, &[within(o, 1)]),
            Some(Statement::WinsIn(o, 1))
        );
        assert_eq!(distance(&common, &[within(o, 3)]), None);
        // Where the count of boards decides, every ply can end the game.
        assert_eq!(
            distance(&codingame, &[within(o, 19), not_within(o, 17)]),
            None
        );
        assert_eq!(
            distance(&codingame, &[within(o, 19), not_within(o, 18)]),
            Some(Statement::WinsIn(o, 19))
        );
    }
}
