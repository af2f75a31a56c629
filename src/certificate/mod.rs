//! Proof certificates (format versions 1 and 2): a claim about a position and the prover's
//! moves of a strategy that makes it true, in a fixed traversal order, so that anyone can
//! check the claim by replaying the game. This module knows only the game core: the search writes
//! certificates through [`Block`] and [`leaf`], and [`verify_block`] checks them without any
//! of the search's code, so that a bug in the search cannot hide in the check.
//!
//! A file is one or more blocks; a block is four text lines and then binary data:
//!
//! ```text
//! uttt-certificate 1
//! claim <X|O> <wins|holds>
//! position <the position in the project notation>
//! moves <N>
//! <N bytes>
//! ```
//!
//! The bytes are the prover's moves (square = board × 9 + cell), one per prover position
//! visited in this depth-first order from the block's position:
//!
//! ```text
//! visit(P):
//!   if P was visited before (the same position, first winners of boards included): return
//!   if P is a leaf: it must meet the claim; return
//!   if the prover is to move: read the next byte m, a legal move; visit(P after m)
//!   else: for every legal move m in ascending square order: visit(P after m)
//! ```
//!
//! and no bytes may be left over. See [`leaf`] for the leaves.
//!
//! Version 3 (first line `uttt-certificate 3`) is version 2 under another rule set than the
//! common rules: a line `rules <open|codingame>` follows the first, and the position, every
//! move and every leaf are read and judged under that rule set (see
//! [`crate::game::Rules`]). Versions 1 and 2 are the common rules.
//!
//! Version 2 (first line `uttt-certificate 2`) adds one leaf rule, checked after those of
//! [`leaf`]: **4.** P is a leaf that meets the claim if, under one of the 8 symmetries of the
//! board, P equals the position of a block that comes later in the same file, has the same
//! prover and a claim at least as strong (`wins` meets `wins` and `holds`; `holds` meets only
//! `holds`), and itself verifies. So a proof found in pieces (a campaign's) is one block for
//! the top of the tree whose leaves are the positions of later blocks; references point only
//! later, so they cannot form a cycle. See [`verify_blocks`].
//!
//! A claim may carry a bound (`claim X wins within 25 plies`, `claim O holds for 25 plies`,
//! in any version, after the `claim <X|O> <wins|holds>` above): it is about the next so many
//! plies of the block's position only, and
//! [`leaf`] judges it with the plies left (see [`Goal`]). Rule 4 never applies to a bounded
//! claim, in either direction.

mod check;
mod format;
mod references;
mod verify;

pub use check::{
    check_bytes, check_bytes_until, check_file, check_file_until, BlockCheck, CheckError,
    CheckFileError, FileCheck, Proven, Statement,
};
pub use format::{
    read_blocks, write_block, Block, Claim, ClaimKind, FormatError, MAX_BOUND, VERSIONS,
};
pub use verify::{verify_block, verify_blocks, BlockResults, Failure, Verified};

use crate::game::tables::LINES;
use crate::game::{Outcome, Player, Position};
use std::collections::HashSet;
use std::hash::{Hash, Hasher};

/// The positions a traversal has visited: "visited before" in the format means the same
/// cells, side to move and board to play and, when won boards stay open, the same first
/// winner of each board (which the cells do not always tell): exactly [`Position`] equality.
#[derive(Default)]
pub struct Visited(HashSet<Seen, PositionHasher>);

impl Visited {
    /// Adds `pos`; false if it was visited before.
    pub fn insert(&mut self, pos: Position) -> bool {
        self.0.insert(Seen(pos))
    }

    /// The number of distinct positions visited.
    pub fn len(&self) -> u64 {
        self.0.len() as u64
    }

    /// Whether nothing was visited yet.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A visited position, hashed by its cells and the game core's Zobrist key (which also covers
/// the side to move, the board to play and the boards' first winners) through a hasher keyed
/// at random for each map ([`PositionHasher`]), and compared in full, so a collision costs
/// time, never a wrong answer.
///
/// The Zobrist key alone, used as it is, would let a hostile certificate aim: the keys are
/// public and XOR-linear, so a file could name many positions whose keys agree in the bits
/// that pick a bucket, or agree outright, and make every map of its positions quadratic.
#[derive(PartialEq, Eq)]
struct Seen(Position);

impl Hash for Seen {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u128(self.0.cells(Player::X));
        state.write_u128(self.0.cells(Player::O));
        state.write_u64(self.0.hash());
    }
}

/// Makes the hashers of the maps of a certificate's positions: each map gets keys of its own,
/// drawn from the standard library's random source, which no file can know in advance.
#[derive(Clone)]
struct PositionHasher {
    seed: u64,
    multiplier: u64,
}

impl Default for PositionHasher {
    fn default() -> Self {
        use std::hash::BuildHasher;
        let random = std::collections::hash_map::RandomState::new();
        PositionHasher {
            seed: random.hash_one(0u64),
            // Odd, so that no bit of a word is lost to the multiplication.
            multiplier: random.hash_one(1u64) | 1,
        }
    }
}

impl std::hash::BuildHasher for PositionHasher {
    type Hasher = FoldedHasher;

    fn build_hasher(&self) -> FoldedHasher {
        FoldedHasher {
            state: self.seed,
            multiplier: self.multiplier,
        }
    }
}

/// Folds each word into its state with a keyed 64×64→128-bit multiplication whose halves are
/// XORed together: every bit of the word reaches every bit of the state, in a way that
/// depends on the secret key (a few nanoseconds a word, against SipHash's tens, which made
/// the check of a large proof a fifth slower).
struct FoldedHasher {
    state: u64,
    multiplier: u64,
}

impl FoldedHasher {
    fn fold(&mut self, word: u64) {
        let product = u128::from(self.state ^ word) * u128::from(self.multiplier);
        self.state = (product as u64) ^ ((product >> 64) as u64);
    }
}

impl Hasher for FoldedHasher {
    fn finish(&self) -> u64 {
        self.state
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.fold(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.fold(word);
    }

    fn write_u128(&mut self, word: u128) {
        self.fold(word as u64);
        self.fold((word >> 64) as u64);
    }
}

/// A claim as the positions of its block are judged: with a bound, the stone count by which
/// it must hold (the block position's stones plus the bound). A bound that reaches past the
/// last cell still counts: the claim is then judged as bounded, by rules that cover the
/// unbounded ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Goal {
    /// The claim.
    pub claim: Claim,
    /// The most stones the board may hold when the claim is met; `None` without a bound.
    deadline: Option<u32>,
}

impl Goal {
    /// `claim` as judged in the block whose position is `root`.
    pub fn at(claim: Claim, root: &Position) -> Goal {
        Goal {
            claim,
            deadline: claim
                .within
                .map(|plies| root.stone_count() + u32::from(plies)),
        }
    }
}

/// Whether `pos` is a leaf of a certificate for `goal`, and if so whether it meets the claim:
/// `None` for an inner position, `Some(true)` for a leaf that meets it, `Some(false)` for one
/// that does not. The leaves of an unbounded claim, checked in this order:
///
/// 1. the game is over: it meets the claim if the prover won, or, for `holds`, if it is drawn;
/// 2. the prover is to move and has a move that wins the game at once in a board that would
///    complete a line of its won boards if it won it (see `can_win_now`): meets it;
/// 3. for `holds` only: the opponent can no longer complete any line of boards (every line
///    of the big board holds a board won by the prover or drawn, or an open board nobody has
///    won in which every local line holds a prover stone): meets it. Not under CodinGame's
///    rules, where a game without a line goes to the player with more won boards.
///
/// A bounded claim keeps rules 1 and 2 (a game over at this position came within the bound,
/// since the traversal stops at the bound) and, in place of rule 3, checked in this order after
/// rule 1:
///
/// - **the bound is reached** (no ply left) with the game in play: meets `holds`, fails `wins`;
/// - rule 2 (one ply is left, so that win comes in time);
/// - **too slow**, for `holds` only: the opponent cannot win within the plies left (see
///   `cannot_win_within`): meets it.
pub fn leaf(pos: &Position, goal: Goal) -> Option<bool> {
    let claim = goal.claim;
    let prover = claim.prover;
    match pos.outcome() {
        Outcome::Won(winner) => return Some(winner == prover),
        Outcome::Draw => return Some(claim.kind == ClaimKind::Holds),
        Outcome::InPlay => {}
    }
    let plies_left = goal
        .deadline
        .map(|deadline| deadline.saturating_sub(pos.stone_count()));
    if plies_left == Some(0) {
        return Some(claim.kind == ClaimKind::Holds);
    }
    if pos.side_to_move() == prover && can_win_now(pos, prover) {
        return Some(true);
    }
    if claim.kind == ClaimKind::Holds {
        let opponent_fails = match plies_left {
            Some(plies) => cannot_win_within(pos, prover.opponent(), plies),
            None => {
                !pos.rules().board_count_decides() && !can_complete_a_line(pos, prover.opponent())
            }
        };
        if opponent_fails {
            return Some(true);
        }
    }
    None
}

/// Whether `player` cannot win `pos` within `plies` plies: every line of the big board needs
/// more of its stones than it can place in them (its moves are the plies of its turns: half
/// the plies, rounded up when it is to move), and, under CodinGame's rules, the boards it has
/// won or could still win are no more than those its opponent has won already.
///
/// Why: a move places one stone. A board `player` has won needs none; a board the other
/// player has won, or a closed board, can never be its (a won board keeps its first winner
/// even where won boards stay open); any other board needs at least three less its stones on
/// its best local line free of the other player's stones (none if no line is free), since a
/// board is won by a local line. A line of boards needs each of its three boards, so at least
/// the sum of their needs. Under CodinGame's rules a game that ends without a line goes to the
/// player with more won boards; `player` ends with at most the boards it could still win, and
/// the other player keeps those it has, and equal counts draw.
///
/// The search's "too slow" rule reasons alike; this is written again on purpose, so that a bug
/// in the search's version cannot also pass the check.
fn cannot_win_within(pos: &Position, player: Player, plies: u32) -> bool {
    const NEVER: u32 = 1000;
    let other = player.opponent();
    let moves = if pos.side_to_move() == player {
        plies.div_ceil(2)
    } else {
        plies / 2
    };
    let need = |board: usize| -> u32 {
        let bit = 1 << board;
        if pos.won_boards(player) & bit != 0 {
            return 0;
        }
        if (pos.won_boards(other) | pos.closed_boards()) & bit != 0 {
            return NEVER;
        }
        let mine = pos.local_cells(player, board);
        let blockers = pos.local_cells(other, board);
        LINES
            .iter()
            .filter(|&&line| line & blockers == 0)
            .map(|&line| 3 - (line & mine).count_ones())
            .min()
            .unwrap_or(NEVER)
    };
    let needs: [u32; 9] = std::array::from_fn(need);
    let line_need = |line: u16| -> u32 {
        (0..9)
            .filter(|board| line & (1 << board) != 0)
            .map(|board| needs[board])
            .sum()
    };
    if LINES.iter().any(|&line| line_need(line) <= moves) {
        return false;
    }
    if pos.rules().board_count_decides() {
        let could_win = needs.iter().filter(|&&n| n < NEVER).count();
        return could_win <= pos.won_boards(other).count_ones() as usize;
    }
    true
}

/// Whether `player` (to move) has a move that wins the game at once in a board that would
/// complete a line of its won boards if it won it. Only such a move can win by a line, so only
/// those moves are played; under CodinGame's rules one of them may instead win on the board
/// count by ending the game, which counts too (a count win elsewhere is no leaf: the writer
/// and the verifier share this rule, and the format documents it).
fn can_win_now(pos: &Position, player: Player) -> bool {
    let won = pos.won_boards(player);
    let completing = |board: usize| {
        LINES
            .iter()
            .any(|&line| line & (1 << board) != 0 && (won | 1 << board) & line == line)
    };
    pos.legal_moves()
        .filter(|mv| completing(mv.board()))
        .any(|mv| pos.play(mv).outcome() == Outcome::Won(player))
}

/// Whether some line of the big board could still be completed by `player`: none of its
/// boards is won by the other player or drawn, and in each of its other boards some local
/// line is free of the other player's stones. (A board won by the other player stays so even
/// when won boards stay open.)
fn can_complete_a_line(pos: &Position, player: Player) -> bool {
    let other = player.opponent();
    let mine = pos.won_boards(player);
    let board_possible = |board: usize| {
        if mine & (1 << board) != 0 {
            return true;
        }
        if (pos.closed_boards() | pos.won_boards(other)) & (1 << board) != 0 {
            return false;
        }
        let blockers = pos.local_cells(other, board);
        LINES.iter().any(|&line| line & blockers == 0)
    };
    LINES
        .iter()
        .any(|&line| (0..9).all(|board| line & (1 << board) == 0 || board_possible(board)))
}
