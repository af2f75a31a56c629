//! The independent check of a block: the game core's moves, play and outcome, the leaf rules
//! of [`super::leaf`], and nothing of the search.

use super::Visited;
use super::{leaf, Block, Claim};
use crate::game::{Move, Position};
use std::fmt;

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
            Failure::MissingBytes { position } => write!(
                f,
                "the moves run out where the prover is to move in {position}"
            ),
            Failure::LeftOver { count } => {
                write!(f, "{count} move bytes are left over after the proof")
            }
        }
    }
}

/// Checks that `block`'s moves prove its claim. The visited set holds every distinct position
/// of the proof once (about 100 bytes each with the hash set's overhead, so 10 million
/// positions take about 1 GB); the recursion is at most 81 plies deep.
pub fn verify_block(block: &Block) -> Result<Verified, Failure> {
    let mut checker = Checker {
        claim: block.claim,
        moves: &block.moves,
        next: 0,
        visited: Visited::default(),
    };
    checker.visit(block.position)?;
    if checker.next < block.moves.len() {
        return Err(Failure::LeftOver {
            count: block.moves.len() - checker.next,
        });
    }
    Ok(Verified {
        positions: checker.visited.len(),
        bytes: checker.next,
    })
}

struct Checker<'a> {
    claim: Claim,
    moves: &'a [u8],
    next: usize,
    visited: Visited,
}

impl Checker<'_> {
    fn visit(&mut self, pos: Position) -> Result<(), Failure> {
        if !self.visited.insert(pos) {
            return Ok(());
        }
        match leaf(&pos, self.claim) {
            Some(true) => return Ok(()),
            Some(false) => return Err(Failure::LeafFails { position: pos }),
            None => {}
        }
        if pos.side_to_move() == self.claim.prover {
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
