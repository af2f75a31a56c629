//! Rule 4's look-ups: which later blocks a leaf of a version-2 block may be, summed up per
//! image of a position so that a look-up costs the same however many blocks share it (a
//! hostile file may repeat one position thousands of times).

use super::{Claim, ClaimKind, PositionHasher, Seen};
use crate::game::Position;
use std::collections::HashMap;

/// Each image of an unbounded block's position, with what rule 4 needs of the blocks it is the
/// position of, one [`Standins`] per prover ([`crate::game::Player::index`]).
pub(super) type Images = HashMap<Seen, [Standins; 2], PositionHasher>;

/// The unbounded blocks of one prover whose position has one image, summed up for rule 4 so that
/// a lookup costs the same however many blocks share a position: the first of them, and the
/// first of those checked so far (all after the block being checked, since the blocks are
/// checked last-first) by claim and result. A file of 64 MiB names about 3 million images, so
/// each is kept small: 20 bytes a prover.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Standins {
    /// The first block, checked or not.
    pub(super) first: Option<BlockRef>,
    /// The first checked `wins` and `holds` blocks that verify.
    verified: [Option<BlockRef>; 2],
    /// The first checked `wins` and `holds` blocks that do not.
    failing: [Option<BlockRef>; 2],
}

/// A block, by its index counted from 1 (so that `Option<BlockRef>` takes 4 bytes); ordered as
/// the blocks are in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct BlockRef(std::num::NonZeroU32);

impl BlockRef {
    /// Block `index`, counted from 0. A file has far fewer than 2³² blocks: each takes dozens of
    /// bytes, and the file is read into memory whole.
    pub(super) fn new(index: usize) -> BlockRef {
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
    pub(super) fn record(&mut self, index: usize, kind: ClaimKind, verified: bool) {
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
pub(super) struct References<'a> {
    /// The block being checked.
    pub(super) index: usize,
    /// The blocks after `index` as checked (those before only as their first).
    pub(super) images: &'a Images,
    /// The later blocks its leaves referred to.
    pub(super) referenced: Vec<usize>,
}

/// What rule 4 says of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reference {
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
    pub(super) fn rule_4(&self, pos: &Position, claim: Claim) -> Reference {
        self.images
            .get(&Seen(*pos))
            .map_or(Reference::None, |standins| {
                standins[claim.prover.index()].rule_4(self.index, claim.kind)
            })
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
}
