//! The independent check of a block: the game core's moves, play and outcome (and its
//! symmetries, for version 2's references), the leaf rules of [`super::leaf`], and nothing
//! of the search.

use super::{leaf, Block, Claim, ClaimKind, Goal, PositionHasher, Seen, Visited};
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

/// Each image of an unbounded block's position, with what rule 4 needs of the blocks it is the
/// position of, one [`Standins`] per prover ([`crate::game::Player::index`]).
type Images = HashMap<Seen, [Standins; 2], PositionHasher>;

/// The unbounded blocks of one prover whose position has one image, summed up for rule 4 so that
/// a lookup costs the same however many blocks share a position: the first of them, and the
/// first of those checked so far (all after the block being checked, since the blocks are
/// checked last-first) by claim and result. A file of 64 MiB names about 3 million images, so
/// each is kept small: 20 bytes a prover.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Standins {
    /// The first block, checked or not.
    first: Option<BlockRef>,
    /// The first checked `wins` and `holds` blocks that verify.
    verified: [Option<BlockRef>; 2],
    /// The first checked `wins` and `holds` blocks that do not.
    failing: [Option<BlockRef>; 2],
}

/// A block, by its index counted from 1 (so that `Option<BlockRef>` takes 4 bytes); ordered as
/// the blocks are in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct BlockRef(std::num::NonZeroU32);

impl BlockRef {
    /// Block `index`, counted from 0. A file has far fewer than 2³² blocks: each takes dozens of
    /// bytes, and the file is read into memory whole.
    fn new(index: usize) -> BlockRef {
        let counted = u32::try_from(index + 1).expect("fewer than 2^32 blocks");
        BlockRef(std::num::NonZeroU32::new(counted).expect("counted from 1"))
    }

    /// Its index, counted from 0.
    fn index(self) -> usize {
        self.0.get() as usize - 1
    }
}

/// The slot of a claim kind in [`Standins`].
fn slot(kind: ClaimKind) -> usize {
    match kind {
        ClaimKind::Wins => 0,
        ClaimKind::Holds => 1,
    }
}

/// The earlier of two blocks, either of which may be missing.
fn earlier(a: Option<BlockRef>, b: Option<BlockRef>) -> Option<BlockRef> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        _ => a.or(b),
    }
}

impl Standins {
    /// Adds the result of block `index` (its claim `kind`), checked after every block
    /// recorded before it and so earlier in the file than they are.
    fn record(&mut self, index: usize, kind: ClaimKind, verified: bool) {
        let list = if verified {
            &mut self.verified
        } else {
            &mut self.failing
        };
        list[slot(kind)] = earlier(list[slot(kind)], Some(BlockRef::new(index)));
    }

    /// What rule 4 says of a leaf of block `index` (claim `kind`, of this prover) at this image,
    /// when every block after it and none before it is recorded. As a scan of the blocks in file
    /// order would: the first verified later block strong enough; else the first failing one;
    /// else, as a hint, the first earlier block; else the first later one too weak.
    fn rule_4(&self, index: usize, kind: ClaimKind) -> Reference {
        let (wins, holds) = (slot(ClaimKind::Wins), slot(ClaimKind::Holds));
        let (meets, fails, weaker) = match kind {
            ClaimKind::Wins => (
                self.verified[wins],
                self.failing[wins],
                earlier(self.verified[holds], self.failing[holds]),
            ),
            ClaimKind::Holds => (
                earlier(self.verified[wins], self.verified[holds]),
                earlier(self.failing[wins], self.failing[holds]),
                None,
            ),
        };
        if let Some(other) = meets {
            Reference::Meets(other.index())
        } else if let Some(other) = fails {
            Reference::Fails(other.index())
        } else if let Some(other) = self.first.filter(|&first| first.index() < index) {
            Reference::Unusable(
                other.index(),
                "it comes earlier, and references point later",
            )
        } else if let Some(other) = weaker {
            Reference::Unusable(other.index(), "its claim `holds` is weaker than `wins`")
        } else {
            Reference::None
        }
    }
}

/// What a version-2 block's check may refer to: the blocks after it, already checked.
struct References<'a> {
    /// The block being checked.
    index: usize,
    /// The blocks after `index` as checked (those before only as their first).
    images: &'a Images,
    /// The later blocks its leaves referred to.
    referenced: Vec<usize>,
}

/// What rule 4 says of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reference {
    /// A leaf that meets the claim: it is a verified later block's position.
    Meets(usize),
    /// It is the position only of later blocks that could stand in for it but do not verify.
    Fails(usize),
    /// Not a leaf; it is the position of another block of the prover that rule 4 does not
    /// let it refer to (why, and which), a hint if the proof breaks below it.
    Unusable(usize, &'static str),
    /// Not a leaf, and the position of no other block of the prover.
    None,
}

impl References<'_> {
    fn rule_4(&self, pos: &Position, claim: Claim) -> Reference {
        self.images
            .get(&Seen(*pos))
            .map_or(Reference::None, |standins| {
                standins[claim.prover.index()].rule_4(self.index, claim.kind)
            })
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
    use crate::game::{Player, Rng};

    /// One block as rule 4 sees it: which image its position is (a label), its claim, and
    /// whether it verifies.
    #[derive(Clone, Copy, Debug)]
    struct Sketch {
        image: usize,
        claim: Claim,
        verified: bool,
    }

    /// Rule 4 as a scan of every block at the image in file order, as it was first written:
    /// the reference the summaries must reproduce.
    fn scan(sketches: &[Sketch], index: usize, image: usize, claim: Claim) -> Reference {
        let mut failing = None;
        let mut unusable = None;
        for (other, theirs) in sketches.iter().enumerate() {
            if theirs.image != image
                || other == index
                || theirs.claim.prover != claim.prover
                || theirs.claim.within.is_some()
            {
                continue;
            }
            let strong_enough =
                theirs.claim.kind == ClaimKind::Wins || claim.kind == ClaimKind::Holds;
            if other < index {
                unusable.get_or_insert((other, "it comes earlier, and references point later"));
            } else if !strong_enough {
                unusable.get_or_insert((other, "its claim `holds` is weaker than `wins`"));
            } else if theirs.verified {
                return Reference::Meets(other);
            } else {
                failing.get_or_insert(other);
            }
        }
        match (failing, unusable) {
            (Some(other), _) => Reference::Fails(other),
            (None, Some((other, why))) => Reference::Unusable(other, why),
            (None, None) => Reference::None,
        }
    }

    fn random_claim(rng: &mut Rng) -> Claim {
        Claim {
            prover: [Player::X, Player::O][rng.below(2)],
            kind: [ClaimKind::Wins, ClaimKind::Holds][rng.below(2)],
            // Bounded blocks never stand in: a few of them check that they are left out.
            within: (rng.below(5) == 0).then_some(3),
        }
    }

    #[test]
    fn the_summaries_of_rule_4_answer_as_a_scan_of_every_block() {
        let mut rng = Rng::new(63);
        for _ in 0..4000 {
            // Few images and many blocks: the same position repeats, as in a hostile file.
            let images = 1 + rng.below(3);
            let sketches: Vec<Sketch> = (0..1 + rng.below(12))
                .map(|_| Sketch {
                    image: rng.below(images),
                    claim: random_claim(&mut rng),
                    verified: rng.below(3) != 0,
                })
                .collect();
            // Built as `verify_blocks_watched` builds them: the first of every unbounded block,
            // then each result as the blocks are checked last-first.
            let mut summaries = vec![[Standins::default(); 2]; images];
            for (index, sketch) in sketches.iter().enumerate() {
                if sketch.claim.within.is_none() {
                    let standins = &mut summaries[sketch.image][sketch.claim.prover.index()];
                    standins.first.get_or_insert(BlockRef::new(index));
                }
            }
            for index in (0..sketches.len()).rev() {
                for (image, standins) in summaries.iter().enumerate() {
                    for prover in [Player::X, Player::O] {
                        for kind in [ClaimKind::Wins, ClaimKind::Holds] {
                            let claim = Claim::unbounded(prover, kind);
                            assert_eq!(
                                standins[prover.index()].rule_4(index, kind),
                                scan(&sketches, index, image, claim),
                                "block {index}, image {image}, claim {claim}, in {sketches:?}"
                            );
                        }
                    }
                }
                let sketch = sketches[index];
                if sketch.claim.within.is_none() {
                    summaries[sketch.image][sketch.claim.prover.index()].record(
                        index,
                        sketch.claim.kind,
                        sketch.verified,
                    );
                }
            }
        }
    }

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
