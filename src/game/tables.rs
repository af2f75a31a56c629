//! Lookup tables built at compile time: line detection over 9-bit masks, Zobrist keys and the
//! permutations of the square's symmetries.
//!
//! Everything here is derived in code from the rules (the eight lines of a 3×3 grid) or from a
//! fixed seed, so nothing is copied from elsewhere and the tables cannot drift from the rules.

/// The eight lines of a 3×3 grid as 9-bit masks over indices 0..8 in reading order.
pub const LINES: [u16; 8] = [
    0b000_000_111,
    0b000_111_000,
    0b111_000_000,
    0b001_001_001,
    0b010_010_010,
    0b100_100_100,
    0b100_010_001,
    0b001_010_100,
];

/// Mask of all nine cells (or boards) of a 3×3 grid.
pub const FULL_MASK: u16 = 0x1FF;

const fn contains_line(mask: u16) -> bool {
    let mut i = 0;
    while i < LINES.len() {
        if mask & LINES[i] == LINES[i] {
            return true;
        }
        i += 1;
    }
    false
}

const fn build_line_table() -> [bool; 512] {
    let mut table = [false; 512];
    let mut mask = 0;
    while mask < 512 {
        table[mask] = contains_line(mask as u16);
        mask += 1;
    }
    table
}

/// `HAS_LINE[m]` is true when the 9-bit mask `m` contains three in a line.
static HAS_LINE: [bool; 512] = build_line_table();

/// Whether a 9-bit mask of cells (or boards) holds a complete line.
#[inline(always)]
pub fn has_line(mask: u16) -> bool {
    HAS_LINE[(mask & FULL_MASK) as usize]
}

const fn build_completing_table() -> [u16; 512] {
    let mut table = [0u16; 512];
    let mut mask = 0;
    while mask < 512 {
        let mut completing = 0u16;
        let mut index = 0;
        while index < 9 {
            let bit = 1u16 << index;
            if mask as u16 & bit == 0 && contains_line(mask as u16 | bit) {
                completing |= bit;
            }
            index += 1;
        }
        table[mask] = completing;
        mask += 1;
    }
    table
}

/// `COMPLETING[m]`: the indices outside the 9-bit mask `m` that would give it a full line.
static COMPLETING: [u16; 512] = build_completing_table();

/// The indices (cells of a local board, or boards of the big board) not in `mask` whose
/// addition would complete a line: a player's "one move from a line" squares. Whether those
/// squares are free is the caller's business.
#[inline(always)]
pub fn completing_indices(mask: u16) -> u16 {
    COMPLETING[(mask & FULL_MASK) as usize]
}

const fn build_line_count_table() -> [u8; 512] {
    let mut table = [0u8; 512];
    let mut mask = 0;
    while mask < 512 {
        let mut i = 0;
        while i < LINES.len() {
            if mask as u16 & LINES[i] == LINES[i] {
                table[mask] += 1;
            }
            i += 1;
        }
        mask += 1;
    }
    table
}

/// `LINE_COUNT[m]` is the number of lines of the 3×3 grid whose every index is in `m`.
static LINE_COUNT: [u8; 512] = build_line_count_table();

/// How many lines of the 3×3 grid lie wholly within the 9-bit mask `mask` (0 to 8).
#[inline(always)]
pub fn lines_within(mask: u16) -> u32 {
    u32::from(LINE_COUNT[(mask & FULL_MASK) as usize])
}

const fn build_on_every_line_table() -> [u16; 512] {
    let mut table = [0u16; 512];
    let mut mask = 0;
    while mask < 512 {
        let mut common = FULL_MASK;
        let mut i = 0;
        while i < LINES.len() {
            if mask as u16 & LINES[i] == LINES[i] {
                common &= LINES[i];
            }
            i += 1;
        }
        table[mask] = common;
        mask += 1;
    }
    table
}

/// `ON_EVERY_LINE[m]` is the indices on every line of the 3×3 grid within `m`.
static ON_EVERY_LINE: [u16; 512] = build_on_every_line_table();

/// The indices that lie on every line of the 3×3 grid lying wholly within the 9-bit mask
/// `mask`: all nine when no line does (each index is on every one of no lines).
#[inline(always)]
pub fn on_every_line_within(mask: u16) -> u16 {
    ON_EVERY_LINE[(mask & FULL_MASK) as usize]
}

/// Whether some line avoids every index of the 9-bit mask `blockers` (so a player whose
/// opponent holds exactly `blockers` could still complete that line): a line avoids them
/// exactly when it lies within their complement.
#[inline(always)]
pub fn has_free_line(blockers: u16) -> bool {
    LINE_COUNT[(!blockers & FULL_MASK) as usize] != 0
}

const fn build_open_expansion() -> [u128; 512] {
    let mut table = [0u128; 512];
    let mut mask = 0;
    while mask < 512 {
        let mut bits = 0u128;
        let mut board = 0;
        while board < 9 {
            if mask & (1 << board) != 0 {
                bits |= (FULL_MASK as u128) << (9 * board);
            }
            board += 1;
        }
        table[mask] = bits;
        mask += 1;
    }
    table
}

/// `BOARD_CELLS[m]`: the 81-bit mask of every cell of the boards in the 9-bit board mask `m`.
/// Turns "which boards are open" into "which cells may be played" with one lookup.
static BOARD_CELLS: [u128; 512] = build_open_expansion();

/// The 81-bit mask of all cells of the boards in the 9-bit board mask `boards`.
#[inline(always)]
pub fn cells_of_boards(boards: u16) -> u128 {
    BOARD_CELLS[(boards & FULL_MASK) as usize]
}

/// The nine 9-bit masks of an 81-bit mask of cells (or of moves), indexed by board: read in
/// order by constant shifts, cheaper than a shift by each board's offset (the rules read many
/// boards at every evaluated position).
#[inline(always)]
pub fn board_masks(mut cells: u128) -> [u16; 9] {
    let mut masks = [0; 9];
    for mask in &mut masks {
        *mask = cells as u16 & FULL_MASK;
        cells >>= 9;
    }
    masks
}

/// One step of splitmix64: returns the next output and the advanced state.
pub const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31), state)
}

/// The seed from which every Zobrist key is generated. It is recorded in table files so that a
/// table written with other keys is refused instead of misread.
pub const ZOBRIST_SEED: u64 = 0x7574_7474_2d7a_6f62; // "uttt-zob"

/// Zobrist keys: one per (player, square), one for "O to move", one per target board value
/// (0..8, any board, game over), and the keys that stand for a board's contents in
/// the essential hash (`Position::hash`) where only part of them still matters.
pub struct ZobristKeys {
    /// `cell[player][square]`.
    pub cell: [[u64; 81]; 2],
    /// XORed in when O is to move.
    pub o_to_move: u64,
    /// `target[t]` for t in 0..=10 (9 = any open board, 10 = game over).
    pub target: [u64; 11],
    /// `won[player][board]`: the board is won by `player`, whatever its cells.
    pub won: [[u64; 9]; 2],
    /// `drawn[board]`: the board is full without a line, whatever its cells.
    pub drawn: [u64; 9],
    /// `occupied[square]`: a stone of either player in a board that nobody can win (or that
    /// is won and still open).
    pub occupied: [u64; 81],
    /// `rules[index]`: the rule set (zero for the common rules, whose hashes it leaves as they
    /// were).
    pub rules: [u64; 3],
}

/// `N` keys drawn in turn from the splitmix64 stream at `state`, which moves past them.
const fn draw_keys<const N: usize>(state: &mut u64) -> [u64; N] {
    let mut keys = [0; N];
    let mut i = 0;
    while i < N {
        let (key, next) = splitmix64(*state);
        keys[i] = key;
        *state = next;
        i += 1;
    }
    keys
}

const fn build_zobrist() -> ZobristKeys {
    let mut state = ZOBRIST_SEED;
    // Fields are drawn in the order written (the keys added last do not move earlier ones).
    ZobristKeys {
        cell: [draw_keys(&mut state), draw_keys(&mut state)],
        o_to_move: draw_keys::<1>(&mut state)[0],
        target: draw_keys(&mut state),
        won: [draw_keys(&mut state), draw_keys(&mut state)],
        drawn: draw_keys(&mut state),
        occupied: draw_keys(&mut state),
        rules: {
            let keys: [u64; 2] = draw_keys(&mut state);
            [0, keys[0], keys[1]]
        },
    }
}

/// The process-wide Zobrist keys (a compile-time constant, so no global mutable state).
pub static ZOBRIST: ZobristKeys = build_zobrist();

/// Number of symmetries of the square (the dihedral group D4).
pub const SYMMETRY_COUNT: usize = 8;

const fn build_symmetries() -> [[u8; 9]; SYMMETRY_COUNT] {
    let mut perms = [[0u8; 9]; SYMMETRY_COUNT];
    let mut sym = 0;
    while sym < SYMMETRY_COUNT {
        let mut index = 0;
        while index < 9 {
            let (mut row, mut col) = (index / 3, index % 3);
            // Bit 2: reflect in the main diagonal first; bits 0-1: then rotate a quarter turn
            // clockwise that many times. Together these give all eight symmetries exactly once.
            if sym & 4 != 0 {
                let t = row;
                row = col;
                col = t;
            }
            let mut turns = 0;
            while turns < (sym & 3) {
                let t = row;
                row = col;
                col = 2 - t;
                turns += 1;
            }
            perms[sym][index] = (row * 3 + col) as u8;
            index += 1;
        }
        sym += 1;
    }
    perms
}

/// `SYMMETRIES[s][i]`: where symmetry `s` sends index `i` of a 3×3 grid. Symmetry 0 is the
/// identity. The same permutation applies to boards and to cells within a board.
pub static SYMMETRIES: [[u8; 9]; SYMMETRY_COUNT] = build_symmetries();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_table_matches_definition() {
        // Naive restatement by rows, columns and diagonals of a grid of booleans.
        for mask in 0..512u16 {
            let at = |r: usize, c: usize| mask & (1 << (r * 3 + c)) != 0;
            let naive = (0..3).any(|r| (0..3).all(|c| at(r, c)))
                || (0..3).any(|c| (0..3).all(|r| at(r, c)))
                || (0..3).all(|i| at(i, i))
                || (0..3).all(|i| at(i, 2 - i));
            assert_eq!(has_line(mask), naive, "mask {mask:09b}");
        }
    }

    #[test]
    fn free_line_table_matches_definition() {
        for mask in 0..512u16 {
            let expected = LINES.iter().any(|&line| line & mask == 0);
            assert_eq!(has_free_line(mask), expected, "{mask:09b}");
        }
    }

    #[test]
    fn completing_indices_match_definition() {
        for mask in 0..512u16 {
            for index in 0..9 {
                let bit = 1u16 << index;
                let expected = mask & bit == 0 && has_line(mask | bit);
                assert_eq!(
                    completing_indices(mask) & bit != 0,
                    expected,
                    "{mask:09b} {index}"
                );
            }
        }
    }

    #[test]
    fn symmetries_are_distinct_permutations_that_preserve_lines() {
        for (s, perm) in SYMMETRIES.iter().enumerate() {
            let mut seen = [false; 9];
            for &p in perm {
                seen[p as usize] = true;
            }
            assert!(seen.iter().all(|&x| x), "symmetry {s} is not a permutation");
            for &line in &LINES {
                let mapped = (0..9)
                    .filter(|i| line & (1 << i) != 0)
                    .fold(0u16, |m, i| m | 1 << perm[i]);
                assert!(LINES.contains(&mapped), "symmetry {s} breaks a line");
            }
        }
        for (a, first) in SYMMETRIES.iter().enumerate() {
            for second in &SYMMETRIES[..a] {
                assert_ne!(first, second);
            }
        }
        assert_eq!(SYMMETRIES[0], [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn zobrist_keys_are_distinct() {
        let mut all: Vec<u64> = ZOBRIST.cell.iter().flatten().copied().collect();
        all.push(ZOBRIST.o_to_move);
        all.extend_from_slice(&ZOBRIST.target);
        all.extend_from_slice(&ZOBRIST.rules[1..]);
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}
