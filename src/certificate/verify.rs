//! The independent check of a block: the game core's moves, play and outcome (and its
//! symmetries, for version 2's references), the leaf rules of [`super::leaf`], and nothing
//! of the search.

use super::{leaf, Block, Claim, ClaimKind, Goal, Seen, Visited, ZobristHasher};
use crate::game::tables::SYMMETRY_COUNT;
use crate::game::{Move, Position};
use std::collections::HashMap;
use std::fmt;
use std::hash::BuildHasherDefault;

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
pub fn verify_blocks(blocks: &[Block]) -> (Vec<Result<Verified, Failure>>, Vec<bool>) {
    // Every image of every block's position, with the blocks it is the position of.
    let mut images: Images = HashMap::default();
    for (index, block) in blocks.iter().enumerate() {
        for sym in 0..SYMMETRY_COUNT {
            let list = images
                .entry(Seen(block.position.transform(sym)))
                .or_default();
            // A symmetric position is its own image under several symmetries.
            if !list.contains(&index) {
                list.push(index);
            }
        }
    }
    let mut results: Vec<Option<Result<Verified, Failure>>> = vec![None; blocks.len()];
    let mut referenced = vec![false; blocks.len()];
    for index in (0..blocks.len()).rev() {
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
                    blocks,
                    images: &images,
                    results: &results,
                    referenced: Vec::new(),
                },
            ),
        };
        let result = checker.visit(block.position).and_then(|()| {
            if checker.next < block.moves.len() {
                Err(Failure::LeftOver {
                    count: block.moves.len() - checker.next,
                })
            } else {
                Ok(Verified {
                    positions: checker.visited.len(),
                    bytes: checker.next,
                })
            }
        });
        if let Some(references) = checker.references {
            for target in references.referenced {
                referenced[target] = true;
            }
        }
        results[index] = Some(result);
    }
    let results = results
        .into_iter()
        .map(|r| r.expect("every block was checked"))
        .collect();
    (results, referenced)
}

/// Each image of a block's position, with the blocks (indices) it is the position of.
type Images = HashMap<Seen, Vec<usize>, BuildHasherDefault<ZobristHasher>>;

/// What a version-2 block's check may refer to: the blocks after it, already checked.
struct References<'a> {
    /// The block being checked.
    index: usize,
    blocks: &'a [Block],
    images: &'a Images,
    /// The results of the blocks after `index` (those before are not checked yet).
    results: &'a [Option<Result<Verified, Failure>>],
    /// The later blocks its leaves referred to.
    referenced: Vec<usize>,
}

/// What rule 4 says of a position.
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
        let Some(candidates) = self.images.get(&Seen(*pos)) else {
            return Reference::None;
        };
        let mut failing = None;
        let mut unusable = None;
        for &other in candidates {
            let theirs = self.blocks[other].claim;
            // A bounded block stands in for no leaf (its bound counts from its own position).
            if other == self.index || theirs.prover != claim.prover || theirs.within.is_some() {
                continue;
            }
            let strong_enough = theirs.kind == ClaimKind::Wins || claim.kind == ClaimKind::Holds;
            if other < self.index {
                unusable.get_or_insert((other, "it comes earlier, and references point later"));
            } else if !strong_enough {
                unusable.get_or_insert((other, "its claim `holds` is weaker than `wins`"));
            } else if matches!(self.results[other], Some(Ok(_))) {
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
}

struct Checker<'a> {
    goal: Goal,
    moves: &'a [u8],
    next: usize,
    visited: Visited,
    /// For a version-2 block: the later blocks its leaves may be.
    references: Option<References<'a>>,
}

impl Checker<'_> {
    fn visit(&mut self, pos: Position) -> Result<(), Failure> {
        if !self.visited.insert(pos) {
            return Ok(());
        }
        match leaf(&pos, self.goal) {
            Some(true) => return Ok(()),
            Some(false) if pos.is_over() => return Err(Failure::LeafFails { position: pos }),
            // Only a bounded `wins` claim fails at a position in play: at its bound.
            Some(false) => return Err(Failure::OutOfPlies { position: pos }),
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
            }),
            Reference::Unusable(other, reason) => {
                self.visit_inner(pos)
                    .map_err(|cause| Failure::BadReference {
                        position: pos,
                        block: other + 1,
                        reason,
                        cause: Box::new(cause),
                    })
            }
            Reference::None => self.visit_inner(pos),
        }
    }

    /// The traversal below a position that is not a leaf.
    fn visit_inner(&mut self, pos: Position) -> Result<(), Failure> {
        if pos.side_to_move() == self.goal.claim.prover {
            let Some(&byte) = self.moves.get(self.next) else {
                return Err(Failure::MissingBytes { position: pos });
            };
            let offset = self.next;
            self.next += 1;
            let legal = usize::from(byte) < 81 && pos.is_legal(Move::from_square(byte.into()));
            if !legal {
                return Err(Failure::IllegalMove {
                    position: pos,
                    byte,
                    offset,
                });
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
