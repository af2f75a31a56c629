//! Moves and sets of moves.

use std::fmt;

/// A move: the square index `9 * board + cell`, boards and cells numbered 0..8 in reading order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Move(u8);

impl Move {
    /// The move in `cell` of local board `board` (both 0..8).
    pub fn new(board: usize, cell: usize) -> Move {
        debug_assert!(board < 9 && cell < 9);
        Move((board * 9 + cell) as u8)
    }

    /// The move at square index `square` (0..80).
    pub fn from_square(square: usize) -> Move {
        debug_assert!(square < 81);
        Move(square as u8)
    }

    /// The square index 0..80.
    #[inline(always)]
    pub fn square(self) -> usize {
        self.0 as usize
    }

    /// The local board played in (0..8).
    #[inline(always)]
    pub fn board(self) -> usize {
        self.0 as usize / 9
    }

    /// The cell within the local board (0..8); also the board the opponent is sent to.
    #[inline(always)]
    pub fn cell(self) -> usize {
        self.0 as usize % 9
    }

    /// The move under symmetry `sym` of the board (see [`super::tables::SYMMETRIES`]): the
    /// same permutation applied to its board and to its cell.
    pub fn transform(self, sym: usize) -> Move {
        let perm = &super::tables::SYMMETRIES[sym];
        Move::new(perm[self.board()] as usize, perm[self.cell()] as usize)
    }
}

impl fmt::Display for Move {
    /// Two letters: board then cell, e.g. `ae`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let letter = |i: usize| (b'a' + i as u8) as char;
        write!(f, "{}{}", letter(self.board()), letter(self.cell()))
    }
}

/// A set of moves as an 81-bit mask over square indices.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct MoveSet(pub u128);

impl MoveSet {
    /// The empty set.
    pub const EMPTY: MoveSet = MoveSet(0);

    /// Number of moves in the set.
    #[inline(always)]
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set has no move.
    #[inline(always)]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `mv` is in the set.
    #[inline(always)]
    pub fn contains(self, mv: Move) -> bool {
        self.0 & (1u128 << mv.0) != 0
    }
}

impl Iterator for MoveSet {
    type Item = Move;

    /// Yields moves in increasing square order by clearing the lowest set bit.
    #[inline(always)]
    fn next(&mut self) -> Option<Move> {
        if self.0 == 0 {
            return None;
        }
        let square = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Move(square))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for MoveSet {}
