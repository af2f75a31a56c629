//! The position: bitboards for both players, closed boards, side to move and target board.

use super::moves::{Move, MoveSet};
use super::rules::Rules;
use super::tables::{
    board_masks, cells_of_boards, has_free_line, has_line, FULL_MASK, SYMMETRIES, SYMMETRY_COUNT,
    ZOBRIST,
};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A player.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Player {
    /// The first player.
    X = 0,
    /// The second player.
    O = 1,
}

impl Player {
    /// The other player.
    #[inline(always)]
    pub fn opponent(self) -> Player {
        match self {
            Player::X => Player::O,
            Player::O => Player::X,
        }
    }

    /// 0 for X, 1 for O: the index into per-player arrays.
    #[inline(always)]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The notation letter, `X` or `O`.
    pub fn letter(self) -> char {
        match self {
            Player::X => 'X',
            Player::O => 'O',
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// The state of a game: still in play, won by a player, or drawn.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub enum Outcome {
    /// The game goes on.
    InPlay,
    /// A player has three won boards in a line.
    Won(Player),
    /// Every board is closed and nobody has a line.
    Draw,
}

/// A local board as the essential hash sees it (see [`Position::hash`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum BoardKind {
    /// Closed, won by the player.
    Won(Player),
    /// Won by the player and still open (only when won boards stay open).
    WonOpen(Player),
    /// Closed, full without a line.
    Drawn,
    /// Open, and some local line still holds stones of one player only (or none).
    Winnable,
    /// Open, and every local line holds stones of both players.
    NobodysToWin,
}

/// The target value meaning "the side to move may play in any open board".
pub const ANY_BOARD: u8 = 9;
/// The target value meaning "the game is over: no moves".
pub const GAME_OVER: u8 = 10;

/// The bits of [`Position`]'s `target_rules` byte that hold the target; the rule set's index
/// sits above them.
const TARGET_BITS: u8 = 0x0F;
/// Where the rule set's index starts in `target_rules`.
const RULES_SHIFT: u32 = 4;

/// A position of Ultimate Tic Tac Toe.
///
/// 48 bytes (checked at compile time): two 81-bit cell masks (one `u128` per player, square
/// `9 * board + cell`), each player's won boards and the closed boards (won or full; only full
/// when won boards stay open) as 9-bit masks, the side to move, the target board with the rule
/// set in one byte (the rule set costs no space), and the incremental essential hash.
///
/// Moves are made by copy (`play` returns a new position) rather than make/unmake: the whole
/// position fits in one cache line, so copying it costs about as much as the undo bookkeeping
/// would, and the searches keep parent and child side by side without any undo stack.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    cells: [u128; 2],
    won: [u16; 2],
    closed: u16,
    side: Player,
    /// The low four bits: 0..8, the board the side to move is sent to; `ANY_BOARD`; or
    /// `GAME_OVER`. Above them: the rule set's index ([`Rules::index`]).
    target_rules: u8,
    hash: u64,
}

const _: () = assert!(std::mem::size_of::<Position>() == 48);

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}

impl Position {
    /// The empty board under the common rules, X to move anywhere.
    pub fn start() -> Position {
        Position::start_under(Rules::Common)
    }

    /// The empty board under `rules`, X to move anywhere.
    pub fn start_under(rules: Rules) -> Position {
        let mut pos = Position {
            cells: [0, 0],
            won: [0, 0],
            closed: 0,
            side: Player::X,
            target_rules: ANY_BOARD | (rules.index() as u8) << RULES_SHIFT,
            hash: 0,
        };
        pos.hash = pos.compute_hash();
        pos
    }

    /// Builds a position under `rules` from raw cell masks, each player's won boards, the side
    /// to move and the board it is sent to (`None`: any open board). Closed boards and the
    /// game's end are derived. Private to the game core: the caller is responsible for the
    /// cells being a reachable arrangement, `won` agreeing with them (a player's won boards
    /// hold a line of its stones; under the common rules exactly those) and `target` a board
    /// index below 9 (the notation parser checks these before calling this; users build
    /// positions through the notation or by playing moves).
    pub(super) fn from_cells(
        cells: [u128; 2],
        won: [u16; 2],
        side: Player,
        target: Option<usize>,
        rules: Rules,
    ) -> Position {
        let mut pos = Position {
            cells,
            won,
            closed: 0,
            side,
            target_rules: (rules.index() as u8) << RULES_SHIFT,
            hash: 0,
        };
        let owned = won[0] | won[1];
        for board in 0..9 {
            let bit = 1 << board;
            if (rules.won_boards_close() && owned & bit != 0)
                || pos.local_occupied(board) == FULL_MASK
            {
                pos.closed |= bit;
            }
        }
        pos.set_target(if pos.ends_game() {
            GAME_OVER
        } else {
            match target {
                Some(b) if pos.closed & (1 << b) == 0 => b as u8,
                _ => ANY_BOARD,
            }
        });
        pos.hash = pos.compute_hash();
        pos
    }

    /// The rule set the game is played under.
    #[inline(always)]
    pub fn rules(&self) -> Rules {
        Rules::from_index(self.target_rules >> RULES_SHIFT)
    }

    /// 0..8, `ANY_BOARD` or `GAME_OVER` (see the field).
    #[inline(always)]
    fn target(&self) -> u8 {
        self.target_rules & TARGET_BITS
    }

    #[inline(always)]
    fn set_target(&mut self, target: u8) {
        self.target_rules = (self.target_rules & !TARGET_BITS) | target;
    }

    fn ends_game(&self) -> bool {
        has_line(self.won[0]) || has_line(self.won[1]) || self.closed == FULL_MASK
    }

    /// The side to move.
    #[inline(always)]
    pub fn side_to_move(&self) -> Player {
        self.side
    }

    /// The board the side to move must play in, or `None` when it may play in any open board
    /// (or the game is over).
    pub fn target_board(&self) -> Option<usize> {
        (self.target() < ANY_BOARD).then_some(self.target() as usize)
    }

    /// The essential hash, kept up to date move by move: a Zobrist hash of what still decides
    /// the game from here, so that positions with the same hash (barring a 64-bit collision)
    /// have the same game value and the solvers' table shares one entry between them. It
    /// hashes the side to move, the target board and each board by its kind:
    ///
    /// * a closed board only as won by X, won by O, or drawn, whatever its cells;
    /// * an open board that neither player can win any more (every local line holds stones of
    ///   both) only by which of its cells are occupied;
    /// * any other open board by its stones.
    ///
    /// Proof that positions P and Q with equal essential parts (same side to move, same
    /// target, every board of the same kind and equal as hashed) have the same value: they
    /// have the same legal moves, since these depend only on the target, on which boards are
    /// closed and on the empty cells of open boards. Play the same move in both. A closed
    /// board never changes and counts for the big board only through its winner. An open board
    /// nobody can win stays so, closes exactly when it is full and is never won, so its
    /// occupancy is all that decides its future. Every other board holds the same stones in P
    /// and Q. So the move wins, fills or leaves open the same board in both, completes a line
    /// of won boards in P exactly when it does in Q, sends the opponent to the same board, and
    /// ends the game with the same outcome; and the positions after it again have equal
    /// essential parts (a board only ever goes from winnable to nobody's to win to closed, the
    /// same way in both). By induction on the moves left, the two game trees have the same
    /// shape and the same outcomes. (What it saves is measured in BENCHMARKS.md.)
    ///
    /// Under every rule set the hash also holds the rule set (nothing for the common rules,
    /// whose hashes are unchanged), so positions of different rule sets never share an entry.
    /// The proof above holds under each: CodinGame's rules decide a game without a line by
    /// the won boards, which the kinds keep. When won boards stay open, a won board that is
    /// not full is a kind of its own, hashed by its winner and its occupied cells: it can
    /// never change winner and closes exactly when full, so its winner and which cells are
    /// empty are all that decide its future (its moves, and where they send).
    #[inline(always)]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The 81-bit mask of `player`'s cells.
    #[inline(always)]
    pub fn cells(&self, player: Player) -> u128 {
        self.cells[player.index()]
    }

    /// The 9-bit mask of `player`'s cells on local board `board`.
    #[inline(always)]
    pub fn local_cells(&self, player: Player, board: usize) -> u16 {
        (self.cells[player.index()] >> (9 * board)) as u16 & FULL_MASK
    }

    /// [`Position::local_cells`] of `player` on every board, indexed by board (for rules that
    /// read many boards: see [`board_masks`]).
    #[inline(always)]
    pub fn all_local_cells(&self, player: Player) -> [u16; 9] {
        board_masks(self.cells[player.index()])
    }

    /// [`Position::local_occupied`] of every board, indexed by board.
    #[inline(always)]
    pub fn all_local_occupied(&self) -> [u16; 9] {
        board_masks(self.cells[0] | self.cells[1])
    }

    /// The 9-bit mask of occupied cells on local board `board`.
    #[inline(always)]
    pub fn local_occupied(&self, board: usize) -> u16 {
        ((self.cells[0] | self.cells[1]) >> (9 * board)) as u16 & FULL_MASK
    }

    /// The 9-bit mask of boards won by `player`.
    #[inline(always)]
    pub fn won_boards(&self, player: Player) -> u16 {
        self.won[player.index()]
    }

    /// The 9-bit mask of boards won by either player (open ones too, when won boards stay
    /// open).
    #[inline(always)]
    pub fn owned_boards(&self) -> u16 {
        self.won[0] | self.won[1]
    }

    /// The 9-bit mask of closed boards: no move is made in them. Won by someone or full; only
    /// full when won boards stay open ([`Rules::won_boards_close`]).
    #[inline(always)]
    pub fn closed_boards(&self) -> u16 {
        self.closed
    }

    /// The boards `player` has won or could still win: its won boards, and the open boards
    /// nobody has won in which some local line holds no opponent stone.
    ///
    /// No other board can ever become `player`'s, under any rule set: a board drawn or won by
    /// the opponent stays so (a won board keeps its first winner even while it stays open),
    /// and a local line holding an opponent stone never becomes three of `player`'s.
    pub fn winnable_boards(&self, player: Player) -> u16 {
        self.winnable_boards_of_both()[player.index()]
    }

    /// [`Position::winnable_boards`] of both players at once, indexed by [`Player::index`]
    /// (one pass over the open boards; the search needs both at every node).
    pub fn winnable_boards_of_both(&self) -> [u16; 2] {
        let mut winnable = self.won;
        // Open boards nobody has won yet (a won board keeps its winner even while open).
        let open = FULL_MASK & !self.closed & !self.owned_boards();
        // The boards' cells are read in order by constant shifts (see [`board_masks`]), kept
        // in registers here: this runs at every evaluated position.
        let [mut x_cells, mut o_cells] = self.cells;
        for board in 0..9 {
            if open & 1 << board != 0 {
                if has_free_line(o_cells as u16 & FULL_MASK) {
                    winnable[Player::X.index()] |= 1 << board;
                }
                if has_free_line(x_cells as u16 & FULL_MASK) {
                    winnable[Player::O.index()] |= 1 << board;
                }
            }
            x_cells >>= 9;
            o_cells >>= 9;
        }
        winnable
    }

    /// Number of stones on the board.
    pub fn stone_count(&self) -> u32 {
        self.cells[0].count_ones() + self.cells[1].count_ones()
    }

    /// Whether the game is over.
    #[inline(always)]
    pub fn is_over(&self) -> bool {
        self.target() == GAME_OVER
    }

    /// The game's state: in play, won by a player, or drawn (under CodinGame's rules a game
    /// that ends without a line goes to the player with more won boards).
    pub fn outcome(&self) -> Outcome {
        if !self.is_over() {
            Outcome::InPlay
        } else if has_line(self.won[0]) {
            Outcome::Won(Player::X)
        } else if has_line(self.won[1]) {
            Outcome::Won(Player::O)
        } else if self.rules().board_count_decides() {
            match self.won[0].count_ones().cmp(&self.won[1].count_ones()) {
                std::cmp::Ordering::Greater => Outcome::Won(Player::X),
                std::cmp::Ordering::Less => Outcome::Won(Player::O),
                std::cmp::Ordering::Equal => Outcome::Draw,
            }
        } else {
            Outcome::Draw
        }
    }

    /// The legal moves (empty when the game is over).
    #[inline(always)]
    pub fn legal_moves(&self) -> MoveSet {
        let empty = !(self.cells[0] | self.cells[1]);
        match self.target() {
            GAME_OVER => MoveSet::EMPTY,
            ANY_BOARD => MoveSet(empty & cells_of_boards(!self.closed)),
            t => MoveSet(empty & ((FULL_MASK as u128) << (9 * t as u32))),
        }
    }

    /// Whether `mv` is legal here.
    pub fn is_legal(&self, mv: Move) -> bool {
        self.legal_moves().contains(mv)
    }

    /// The position after `mv`, which must be legal.
    #[inline(always)]
    pub fn play(&self, mv: Move) -> Position {
        debug_assert!(self.is_legal(mv), "illegal move {mv}");
        let mut next = *self;
        let me = self.side.index();
        let (board, cell) = (mv.board(), mv.cell());
        next.cells[me] |= 1u128 << mv.square();
        let board_bit = 1u16 << board;
        let mut over = false;
        // A board already won (only playable when won boards stay open) keeps its winner.
        let unowned = self.owned_boards() & board_bit == 0;
        if unowned && has_line(next.local_cells(self.side, board)) {
            next.won[me] |= board_bit;
            over = has_line(next.won[me]);
            if self.rules().won_boards_close() {
                next.closed |= board_bit;
            }
        }
        if next.local_occupied(board) == FULL_MASK {
            next.closed |= board_bit;
        }
        over |= next.closed == FULL_MASK;
        next.set_target(if over {
            GAME_OVER
        } else if next.closed & (1 << cell) != 0 {
            ANY_BOARD
        } else {
            cell as u8
        });
        next.side = self.side.opponent();
        // While the board keeps its kind (see `hash`), the new stone is all that changes in its
        // key; a board that closes or loses its last chance of being won is rehashed. A board
        // still winnable after the move was winnable before it (stones only block lines).
        let after = next.board_kind(board);
        let board_change = if after == BoardKind::Winnable {
            ZOBRIST.cell[me][mv.square()]
        } else {
            match self.board_kind(board) {
                BoardKind::NobodysToWin if after == BoardKind::NobodysToWin => {
                    ZOBRIST.occupied[mv.square()]
                }
                BoardKind::WonOpen(owner) if after == BoardKind::WonOpen(owner) => {
                    ZOBRIST.occupied[mv.square()]
                }
                before => self.board_key(board, before) ^ next.board_key(board, after),
            }
        };
        next.hash = self.hash
            ^ board_change
            ^ ZOBRIST.o_to_move
            ^ ZOBRIST.target[self.target() as usize]
            ^ ZOBRIST.target[next.target() as usize];
        next
    }

    /// The essential hash computed from scratch (the incremental one must always equal it).
    pub fn compute_hash(&self) -> u64 {
        let mut hash = ZOBRIST.target[self.target() as usize] ^ ZOBRIST.rules[self.rules().index()];
        if self.side == Player::O {
            hash ^= ZOBRIST.o_to_move;
        }
        for board in 0..9 {
            hash ^= self.board_key(board, self.board_kind(board));
        }
        hash
    }

    /// What the essential hash keeps of board `board` (see [`Position::hash`]).
    fn board_kind(&self, board: usize) -> BoardKind {
        let bit = 1u16 << board;
        let closed = self.closed & bit != 0;
        if self.won[0] & bit != 0 {
            if closed {
                BoardKind::Won(Player::X)
            } else {
                BoardKind::WonOpen(Player::X)
            }
        } else if self.won[1] & bit != 0 {
            if closed {
                BoardKind::Won(Player::O)
            } else {
                BoardKind::WonOpen(Player::O)
            }
        } else if closed {
            BoardKind::Drawn
        } else if has_free_line(self.local_cells(Player::X, board))
            || has_free_line(self.local_cells(Player::O, board))
        {
            BoardKind::Winnable
        } else {
            BoardKind::NobodysToWin
        }
    }

    /// Board `board`'s part of the essential hash, given its kind.
    fn board_key(&self, board: usize, kind: BoardKind) -> u64 {
        let stone_keys = |stones: u16, keys: &[u64; 81]| {
            (0..9)
                .filter(|cell| stones & (1 << cell) != 0)
                .fold(0, |key, cell| key ^ keys[9 * board + cell])
        };
        match kind {
            BoardKind::Won(player) => ZOBRIST.won[player.index()][board],
            BoardKind::WonOpen(player) => {
                ZOBRIST.won[player.index()][board]
                    ^ stone_keys(self.local_occupied(board), &ZOBRIST.occupied)
            }
            BoardKind::Drawn => ZOBRIST.drawn[board],
            BoardKind::NobodysToWin => stone_keys(self.local_occupied(board), &ZOBRIST.occupied),
            BoardKind::Winnable => {
                stone_keys(self.local_cells(Player::X, board), &ZOBRIST.cell[0])
                    ^ stone_keys(self.local_cells(Player::O, board), &ZOBRIST.cell[1])
            }
        }
    }

    /// The position under symmetry `sym` (0..8; 0 is the identity), applied to boards and to
    /// cells within each board at once.
    pub fn transform(&self, sym: usize) -> Position {
        let perm = &SYMMETRIES[sym];
        let map_cells = |cells: u128| {
            MoveSet(cells).fold(0u128, |acc, mv| acc | 1u128 << mv.transform(sym).square())
        };
        let map_boards = |boards: u16| {
            (0..9)
                .filter(|b| boards & 1 << b != 0)
                .fold(0u16, |acc, b| acc | 1 << perm[b])
        };
        Position::from_cells(
            [map_cells(self.cells[0]), map_cells(self.cells[1])],
            [map_boards(self.won[0]), map_boards(self.won[1])],
            self.side,
            self.target_board().map(|b| perm[b] as usize),
            self.rules(),
        )
    }

    /// The canonical representative of this position's symmetry class (the transform with the
    /// smallest hash) and the symmetry that produces it.
    pub fn canonical(&self) -> (Position, usize) {
        (0..SYMMETRY_COUNT)
            .map(|s| (self.transform(s), s))
            .min_by_key(|(p, _)| p.hash)
            .expect("there are eight symmetries")
    }

    /// The hash of the canonical form: equal for positions that are symmetric to each other.
    pub fn canonical_hash(&self) -> u64 {
        self.canonical().0.hash
    }
}
