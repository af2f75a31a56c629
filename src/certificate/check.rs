//! Checking a certificate file: every block with the verifier, and what the verified blocks
//! prove together.

use super::format::read_blocks_while;
use super::verify::{verify_blocks_watched, Stopped, Watch};
use super::{Claim, ClaimKind, Failure, FormatError, PositionHasher, Seen, Verified};
use crate::files::lines::{is_stopped, WatchedFile};
use crate::game::{plies_words, Player, Position};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// What verified blocks prove about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    /// The stop flag was raised or the deadline passed before the check finished (see
    /// [`check_file_until`]).
    Stopped {
        /// The file.
        path: PathBuf,
    },
}

impl fmt::Display for CheckFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckFileError::Read { path, .. } => {
                write!(f, "cannot read certificate {}", path.display())
            }
            CheckFileError::Format { path, .. } => write!(f, "certificate {}", path.display()),
            CheckFileError::Stopped { path } => write!(
                f,
                "the check of certificate {} was stopped before it finished",
                path.display()
            ),
        }
    }
}

impl std::error::Error for CheckFileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CheckFileError::Read { source, .. } => Some(source),
            CheckFileError::Format { source, .. } => Some(source),
            CheckFileError::Stopped { .. } => None,
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
        // The stated blocks of each position in file order, the positions in the order they
        // first appear; grouped through a map, so that a file of many blocks costs its length.
        let mut groups: Vec<(Position, Vec<&BlockCheck>)> = Vec::new();
        let mut group_of: HashMap<Seen, usize, PositionHasher> = HashMap::default();
        for block in self.blocks.iter().filter(|b| !b.referenced) {
            let group = *group_of.entry(Seen(block.position)).or_insert_with(|| {
                groups.push((block.position, Vec::new()));
                groups.len() - 1
            });
            groups[group].1.push(block);
        }
        let mut proven = Vec::new();
        for (pos, blocks) in groups {
            // A win within any number of plies is a win; a bounded `holds` says nothing of the
            // plies after its bound.
            let verified = |kind, prover| {
                blocks.iter().any(|b| {
                    b.result.is_ok()
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
            let bounded: Vec<Statement> = blocks
                .iter()
                .filter(|b| b.result.is_ok())
                .filter_map(|b| {
                    let plies = b.claim.within?;
                    Some(match b.claim.kind {
                        ClaimKind::Wins => Statement::WinsWithin(b.claim.prover, plies),
                        ClaimKind::Holds => {
                            Statement::DoesNotWinWithin(b.claim.prover.opponent(), plies)
                        }
                    })
                })
                .collect();
            let distances = [Player::X, Player::O]
                .into_iter()
                .filter_map(|player| distance_of(&pos, player, &bounded));
            // Each statement once: the statements of different positions never repeat.
            let mut stated = HashSet::new();
            for statement in unbounded
                .into_iter()
                .chain(bounded.iter().copied())
                .chain(distances)
            {
                if stated.insert(statement) {
                    proven.push(Proven {
                        position: pos,
                        statement,
                    });
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
    check_file_watched(path, &mut Watch::never())
}

/// [`check_file`], stopped ([`CheckFileError::Stopped`]) once `stop` is raised or `deadline`
/// has passed (both looked at every few thousand positions, blocks read or blocks checked,
/// so within milliseconds). What was checked before the stop is dropped: a check proves
/// nothing until every block is done, since a block's leaves may be the later blocks.
pub fn check_file_until(
    path: &Path,
    stop: &AtomicBool,
    deadline: Option<Instant>,
) -> Result<FileCheck, CheckFileError> {
    check_file_watched(path, &mut Watch::new(stop, deadline))
}

/// [`check_file`] under `watch`. The file is read by a thread of its own
/// ([`WatchedFile`]), so that a file that keeps the check waiting (a FIFO nobody writes) cannot
/// keep it past the watch's flag or deadline.
fn check_file_watched(path: &Path, watch: &mut Watch) -> Result<FileCheck, CheckFileError> {
    let start = Instant::now();
    let path_buf = || path.to_path_buf();
    let (stop, deadline) = watch.limits();
    let mut file = match WatchedFile::open(path, stop, deadline) {
        Ok(file) => file,
        Err(error) if is_stopped(&error) => {
            return Err(CheckFileError::Stopped { path: path_buf() })
        }
        Err(source) => {
            return Err(CheckFileError::Read {
                path: path_buf(),
                source,
            })
        }
    };
    check_reader(&mut file, start, watch).map_err(|error| match error {
        // A read the watch stopped fails as a format error would: it is the stop.
        CheckError::Format(_) if watch.must_stop_now() => {
            CheckFileError::Stopped { path: path_buf() }
        }
        CheckError::Format(source) => CheckFileError::Format {
            path: path_buf(),
            source,
        },
        CheckError::Stopped => CheckFileError::Stopped { path: path_buf() },
    })
}

/// Reads and checks a certificate held in memory (one sent to the server, say); an error when
/// it is not in the certificate format.
pub fn check_bytes(bytes: &[u8]) -> Result<FileCheck, FormatError> {
    check_reader(&mut &bytes[..], Instant::now(), &mut Watch::never()).map_err(
        |error| match error {
            CheckError::Format(error) => error,
            CheckError::Stopped => unreachable!("nothing stops the check"),
        },
    )
}

/// [`check_bytes`], stopped ([`CheckError::Stopped`]) once `stop` is raised or `deadline` has
/// passed, as [`check_file_until`] is: so that a server can bound what one request costs.
pub fn check_bytes_until(
    bytes: &[u8],
    stop: &AtomicBool,
    deadline: Option<Instant>,
) -> Result<FileCheck, CheckError> {
    check_reader(
        &mut &bytes[..],
        Instant::now(),
        &mut Watch::new(stop, deadline),
    )
}

/// Why a certificate held in memory was not checked to the end.
#[derive(Debug)]
pub enum CheckError {
    /// It is not in the certificate format.
    Format(FormatError),
    /// The stop flag was raised or the deadline passed before the check finished.
    Stopped,
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::Format(error) => write!(f, "{error}"),
            CheckError::Stopped => write!(f, "the check was stopped before it finished"),
        }
    }
}

impl std::error::Error for CheckError {}

/// Reads the blocks of a certificate from `input` and checks them; `start` is when the check
/// began, for its time. `watch` is asked before each block read, before each block checked and
/// at each position visited.
fn check_reader(
    input: &mut impl BufRead,
    start: Instant,
    watch: &mut Watch,
) -> Result<FileCheck, CheckError> {
    let blocks = read_blocks_while(input, || !watch.stops())
        .map_err(CheckError::Format)?
        .ok_or(CheckError::Stopped)?;
    let (results, referenced) =
        verify_blocks_watched(&blocks, watch).map_err(|Stopped| CheckError::Stopped)?;
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
