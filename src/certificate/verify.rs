//! The independent check of a block: the game core's moves, play and outcome (and its
//! symmetries, for version 2's references), the leaf rules of [`super::leaf`], and nothing
//! of the search.

use super::references::{BlockRef, Images, Reference, References};
use super::{leaf, Block, Goal, Seen, Visited};
use crate::game::tables::SYMMETRY_COUNT;
use crate::game::{Move, Position};
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// What a verified block cost to check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verified {
    /// Distinct positions visited (leaves included).
    pub positions: u64,
    /// Move bytes read (all of them).
    pub bytes: usize,
}

/// Why a block does not prove its claim, with the position where the check failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// A move byte is not a legal move of the prover at `position`.
    IllegalMove {
        /// Where.
        position: Position,
        /// The byte read.
        byte: u8,
        /// Its offset in the block's moves.
        offset: usize,
    },
    /// A leaf does not meet the claim (the prover lost, or drew a `wins` claim).
    LeafFails {
        /// The leaf.
        position: Position,
    },
    /// A bounded `wins` claim reached its bound with the game in play (no win in time).
    OutOfPlies {
        /// Where the bound was reached.
        position: Position,
    },
    /// The moves ran out at a prover position.
    MissingBytes {
        /// Where a move was needed.
        position: Position,
    },
    /// Moves were left over after the traversal.
    LeftOver {
        /// How many.
        count: usize,
    },
    /// A leaf refers to a later block (rule 4) that does not verify.
    ReferenceFails {
        /// The leaf: the later block's position, under a symmetry.
        position: Position,
        /// The later block, counted from 1.
        block: usize,
    },
    /// The proof broke below a position that is the position of another block of the same
    /// prover which rule 4 does not let it refer to: `reason` says why (an earlier block, or
    /// a weaker claim), `cause` where it broke.
    BadReference {
        /// The position.
        position: Position,
        /// The other block, counted from 1.
        block: usize,
        /// Why it cannot stand in for the leaf.
        reason: &'static str,
        /// The failure below the position.
        cause: Box<Failure>,
    },
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::IllegalMove {
                position,
                byte,
                offset,
            } => write!(
                f,
                "move byte {offset} ({byte}) is not a legal move of the prover in {position}"
            ),
            Failure::LeafFails { position } => {
                write!(f, "the game ends against the claim in {position}")
            }
            Failure::OutOfPlies { position } => write!(
                f,
                "the claim's plies run out with the game in play in {position}"
            ),
            Failure::MissingBytes { position } => write!(
                f,
                "the moves run out where the prover is to move in {position}"
            ),
            Failure::LeftOver { count } => {
                write!(f, "{count} move bytes are left over after the proof")
            }
            Failure::ReferenceFails { position, block } => write!(
                f,
                "the leaf {position} refers to block {block}, which does not verify"
            ),
            Failure::BadReference {
                position,
                block,
                reason,
                cause,
            } => write!(
                f,
                "{cause}, below {position}, the position of block {block}, which cannot stand \
                 in for it: {reason}"
            ),
        }
    }
}

/// Checks that `block`'s moves prove its claim, as a file of that block alone. The visited
/// set holds every distinct position of the proof once (about 100 bytes each with the hash
/// set's overhead, so 10 million positions take about 1 GB); the recursion is at most 81
/// plies deep.
pub fn verify_block(block: &Block) -> Result<Verified, Failure> {
    verify_blocks(std::slice::from_ref(block)).0.remove(0)
}

/// Checks every block of a file, the last first, so that a version-2 block's leaves can refer
/// to later blocks already checked (rule 4: under one of the 8 symmetries, a leaf equals the
/// position of a later block with the same prover and a claim at least as strong, and that
/// block verifies). Returns each block's result in file order, and whether some other block
/// refers to it.
pub fn verify_blocks(blocks: &[Block]) -> BlockResults {
    verify_blocks_watched(blocks, &mut Watch::never()).expect("nothing stops the check")
}

/// Each block's result in file order, and whether some other block refers to it.
pub type BlockResults = (Vec<Result<Verified, Failure>>, Vec<bool>);

/// [`verify_blocks`], stopped (`Err(Stopped)`) when `watch` says so.
pub(super) fn verify_blocks_watched(
    blocks: &[Block],
    watch: &mut Watch,
) -> Result<BlockResults, Stopped> {
    // What rule 4 needs of each image of every unbounded block's position, by prover: its
    // first block, and then, as the blocks are checked last-first, the earliest in the file of
    // those checked so far, by claim and result. Bounded blocks stand in for no leaf, so they
    // are left out.
    // Only a version-2 block's unbounded check looks references up: without one, no map.
    let looks_up = blocks
        .iter()
        .any(|block| block.version >= 2 && block.claim.within.is_none());
    let mut images: Images = HashMap::default();
    for (index, block) in blocks.iter().enumerate() {
        if watch.stops() {
            return Err(Stopped);
        }
        if !looks_up || block.claim.within.is_some() {
            continue;
        }
        for image in images_of(block.position) {
            let standins = &mut images.entry(image).or_default()[block.claim.prover.index()];
            // A symmetric position is its own image under several symmetries: the first
            // index recorded stays.
            standins.first.get_or_insert(BlockRef::new(index));
        }
    }
    let mut results: Vec<Option<Result<Verified, Failure>>> = vec![None; blocks.len()];
    let mut referenced = vec![false; blocks.len()];
    for index in (0..blocks.len()).rev() {
        if watch.stops() {
            return Err(Stopped);
        }
        let block = &blocks[index];
        let mut checker = Checker {
            goal: Goal::at(block.claim, &block.position),
            moves: &block.moves,
            next: 0,
            visited: Visited::default(),
            // A bounded claim is about its own position's plies: it refers to no block.
            references: (block.version >= 2 && block.claim.within.is_none()).then_some(
                References {
                    index,
                    images: &images,
                    referenced: Vec::new(),
                },
            ),
            watch: &mut *watch,
        };
        let result = match checker.visit(block.position) {
            Err(Halt::Stopped) => return Err(Stopped),
            Err(Halt::Fails(failure)) => Err(failure),
            Ok(()) if checker.next < block.moves.len() => Err(Failure::LeftOver {
                count: block.moves.len() - checker.next,
            }),
            Ok(()) => Ok(Verified {
                positions: checker.visited.len(),
                bytes: checker.next,
            }),
        };
        if let Some(references) = checker.references {
            for target in references.referenced {
                referenced[target] = true;
            }
        }
        if looks_up && block.claim.within.is_none() {
            for image in images_of(block.position) {
                let standins = &mut images.get_mut(&image).expect("every image was recorded")
                    [block.claim.prover.index()];
                standins.record(index, block.claim.kind, result.is_ok());
            }
        }
        results[index] = Some(result);
    }
    let results = results
        .into_iter()
        .map(|r| r.expect("every block was checked"))
        .collect();
    Ok((results, referenced))
}

/// The 8 images of `pos` under the board's symmetries (a symmetric position more than once).
fn images_of(pos: Position) -> impl Iterator<Item = Seen> {
    (0..SYMMETRY_COUNT).map(move |sym| Seen(pos.transform(sym)))
}

/// The check was stopped (by a raised flag or a passed deadline) before it finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Stopped;

/// When a check stops: a raised flag or a passed deadline. Both are looked at only every
/// [`Watch::EVERY`] steps (positions visited, blocks read or checked), so that the clock costs
/// nothing next to the check: a step is well under a microsecond, so a stop comes within
/// milliseconds.
pub(super) struct Watch<'a> {
    stop: &'a AtomicBool,
    deadline: Option<Instant>,
    steps: u32,
    stopped: bool,
}

impl<'a> Watch<'a> {
    /// Steps between two looks at the flag and the clock.
    const EVERY: u32 = 4096;

    /// Watches `stop` and `deadline`.
    pub(super) fn new(stop: &'a AtomicBool, deadline: Option<Instant>) -> Watch<'a> {
        Watch {
            stop,
            deadline,
            steps: 0,
            stopped: false,
        }
    }

    /// A watch that never stops the check.
    pub(super) fn never() -> Watch<'static> {
        static NEVER: AtomicBool = AtomicBool::new(false);
        Watch::new(&NEVER, None)
    }

    /// The flag and the deadline it watches.
    pub(super) fn limits(&self) -> (&'a AtomicBool, Option<Instant>) {
        (self.stop, self.deadline)
    }

    /// Whether the check must stop, looking at the flag and the clock now.
    pub(super) fn must_stop_now(&mut self) -> bool {
        self.stopped = self.stopped
            || self.stop.load(Ordering::Relaxed)
            || self
                .deadline
                .is_some_and(|deadline| Instant::now() >= deadline);
        self.stopped
    }

    /// Counts a step; whether the check must stop (once it must, it always must). The first
    /// step looks, so that a flag raised before the check stops it at once.
    pub(super) fn stops(&mut self) -> bool {
        if !self.stopped && self.steps.is_multiple_of(Self::EVERY) {
            self.stopped = self.stop.load(Ordering::Relaxed)
                || self
                    .deadline
                    .is_some_and(|deadline| Instant::now() >= deadline);
        }
        self.steps = self.steps.wrapping_add(1);
        self.stopped
    }
}

/// Why a traversal ended before it finished.
enum Halt {
    /// The block fails.
    Fails(Failure),
    /// The check was stopped.
    Stopped,
}

impl From<Failure> for Halt {
    fn from(failure: Failure) -> Halt {
        Halt::Fails(failure)
    }
}

struct Checker<'a, 'w> {
    goal: Goal,
    moves: &'a [u8],
    next: usize,
    visited: Visited,
    /// For a version-2 block: the later blocks its leaves may be.
    references: Option<References<'a>>,
    /// When to stop, counted in positions visited.
    watch: &'a mut Watch<'w>,
}

impl Checker<'_, '_> {
    fn visit(&mut self, pos: Position) -> Result<(), Halt> {
        if !self.visited.insert(pos) {
            return Ok(());
        }
        if self.watch.stops() {
            return Err(Halt::Stopped);
        }
        match leaf(&pos, self.goal) {
            Some(true) => return Ok(()),
            Some(false) if pos.is_over() => return Err(Failure::LeafFails { position: pos }.into()),
            // Only a bounded `wins` claim fails at a position in play: at its bound.
            Some(false) => return Err(Failure::OutOfPlies { position: pos }.into()),
            None => {}
        }
        let rule_4 = self
            .references
            .as_ref()
            .map_or(Reference::None, |r| r.rule_4(&pos, self.goal.claim));
        match rule_4 {
            Reference::Meets(other) => {
                if let Some(references) = self.references.as_mut() {
                    references.referenced.push(other);
                }
                Ok(())
            }
            Reference::Fails(other) => Err(Failure::ReferenceFails {
                position: pos,
                block: other + 1,
            }
            .into()),
            Reference::Unusable(other, reason) => {
                self.visit_inner(pos).map_err(|halt| match halt {
                    Halt::Fails(cause) => Failure::BadReference {
                        position: pos,
                        block: other + 1,
                        reason,
                        cause: Box::new(cause),
                    }
                    .into(),
                    Halt::Stopped => Halt::Stopped,
                })
            }
            Reference::None => self.visit_inner(pos),
        }
    }

    /// The traversal below a position that is not a leaf.
    fn visit_inner(&mut self, pos: Position) -> Result<(), Halt> {
        if pos.side_to_move() == self.goal.claim.prover {
            let Some(&byte) = self.moves.get(self.next) else {
                return Err(Failure::MissingBytes { position: pos }.into());
            };
            let offset = self.next;
            self.next += 1;
            let legal = usize::from(byte) < 81 && pos.is_legal(Move::from_square(byte.into()));
            if !legal {
                return Err(Failure::IllegalMove {
                    position: pos,
                    byte,
                    offset,
                }
                .into());
            }
            self.visit(pos.play(Move::from_square(byte.into())))
        } else {
            for mv in pos.legal_moves() {
                self.visit(pos.play(mv))?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certificate::{Claim, ClaimKind};
    use crate::game::Player;

    #[test]
    fn a_raised_flag_or_a_passed_deadline_stops_the_check() {
        let block = Block {
            version: 1,
            claim: Claim::unbounded(Player::X, ClaimKind::Holds),
            position: Position::start(),
            moves: Vec::new(),
        };
        let raised = AtomicBool::new(true);
        let blocks = [block];
        assert!(verify_blocks_watched(&blocks, &mut Watch::new(&raised, None)).is_err());
        let lowered = AtomicBool::new(false);
        let past = Some(Instant::now());
        assert!(verify_blocks_watched(&blocks, &mut Watch::new(&lowered, past)).is_err());
        // Otherwise it runs to the end: this block fails for want of moves.
        let (results, _) = verify_blocks_watched(&blocks, &mut Watch::new(&lowered, None))
            .expect("nothing stops it");
        assert!(matches!(results[0], Err(Failure::MissingBytes { .. })));
    }
}
