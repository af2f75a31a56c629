//! An independent, deliberately simple exhaustive solver: the oracle every engine is checked
//! against. It shares no code with the crate: its own notation reader, a plain array board and
//! exhaustive negamax over the three outcomes with a memo of exact values. Clarity, not speed.
//! It plays every rule set ([`OracleRules`]), each written out from its statement.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A multiply-rotate hasher for the memo's integer keys (SipHash dominated the run time).
#[derive(Default)]
pub struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u8(&mut self, v: u8) {
        self.write_u64(u64::from(v));
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(23) ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn write_u128(&mut self, v: u128) {
        self.write_u64(v as u64);
        self.write_u64((v >> 64) as u64);
    }
}

/// A cell or board owner: empty, X, O, or (for boards only) drawn.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mark {
    Empty,
    X,
    O,
    Drawn,
}

/// The rule sets, as their statements go.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum OracleRules {
    /// A board won or full is closed; sent to a closed board, play in any open board; every
    /// board closed without a line of won boards: a draw.
    Common,
    /// A won board stays open (keeping its first winner) until full; only a full board is
    /// closed.
    WonBoardsOpen,
    /// The common rules, but every board closed without a line: more won boards wins.
    CodinGame,
}

impl OracleRules {
    /// Every rule set.
    pub const ALL: [OracleRules; 3] = [
        OracleRules::Common,
        OracleRules::WonBoardsOpen,
        OracleRules::CodinGame,
    ];

    /// The rule set's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            OracleRules::Common => "common",
            OracleRules::WonBoardsOpen => "open",
            OracleRules::CodinGame => "codingame",
        }
    }
}

/// A plain board: `cells[board][cell]`, the owner of each local board, side to move, target.
#[derive(Clone, Debug)]
pub struct OracleBoard {
    pub rules: OracleRules,
    pub cells: [[Mark; 9]; 9],
    /// X or O: won by that player (its first winner); Drawn: full without a winner.
    pub boards: [Mark; 9],
    pub x_to_move: bool,
    /// The board the side to move must play in, if it is open; `None` = any open board.
    pub target: Option<usize>,
}

/// The eight lines of a 3×3 grid, as cell indices.
pub const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

fn line_owner(grid: &[Mark; 9], who: Mark) -> bool {
    LINES.iter().any(|l| l.iter().all(|&i| grid[i] == who))
}

impl OracleBoard {
    /// Reads the notation `SIDE;BOARDS;CELLS` under the common rules (assumed valid; only
    /// used on test data).
    pub fn parse(text: &str) -> OracleBoard {
        OracleBoard::parse_under(text, OracleRules::Common)
    }

    /// Reads the notation under `rules`: when won boards stay open, a board's winner is read
    /// from its mark (`X`/`x`, `O`/`o`), and `x`/`o` also mark the target.
    pub fn parse_under(text: &str, rules: OracleRules) -> OracleBoard {
        let parts: Vec<&str> = text.trim().split(';').collect();
        let mut board = OracleBoard {
            rules,
            cells: [[Mark::Empty; 9]; 9],
            boards: [Mark::Empty; 9],
            x_to_move: parts[0] == "X",
            target: None,
        };
        for (b, group) in parts[2].split('/').enumerate() {
            for (c, ch) in group.chars().enumerate() {
                board.cells[b][c] = match ch {
                    'X' => Mark::X,
                    'O' => Mark::O,
                    _ => Mark::Empty,
                };
            }
        }
        let marks: Vec<char> = parts[1].chars().collect();
        for (b, &mark) in marks.iter().enumerate() {
            board.boards[b] = match (rules, mark) {
                (OracleRules::WonBoardsOpen, 'X' | 'x') => Mark::X,
                (OracleRules::WonBoardsOpen, 'O' | 'o') => Mark::O,
                _ => board.local_state(b),
            };
        }
        board.target = marks.iter().position(|&c| matches!(c, '@' | 'x' | 'o'));
        board
    }

    fn full(&self, b: usize) -> bool {
        self.cells[b].iter().all(|&m| m != Mark::Empty)
    }

    /// Whether no move may be made in board `b`.
    pub fn closed(&self, b: usize) -> bool {
        match self.rules {
            OracleRules::WonBoardsOpen => self.full(b),
            OracleRules::Common | OracleRules::CodinGame => self.boards[b] != Mark::Empty,
        }
    }

    /// The owner of board `b` read from its cells alone (a line, else full, else nobody's).
    fn local_state(&self, b: usize) -> Mark {
        if line_owner(&self.cells[b], Mark::X) {
            Mark::X
        } else if line_owner(&self.cells[b], Mark::O) {
            Mark::O
        } else if self.cells[b].iter().all(|&m| m != Mark::Empty) {
            Mark::Drawn
        } else {
            Mark::Empty
        }
    }

    /// +1 X has won, -1 O has won, 0 drawn, `None` still in play.
    pub fn result(&self) -> Option<i32> {
        if line_owner(&self.boards, Mark::X) {
            Some(1)
        } else if line_owner(&self.boards, Mark::O) {
            Some(-1)
        } else if (0..9).all(|b| self.closed(b)) {
            let count = |who| self.boards.iter().filter(|&&m| m == who).count() as i32;
            Some(match self.rules {
                OracleRules::CodinGame => (count(Mark::X) - count(Mark::O)).signum(),
                OracleRules::Common | OracleRules::WonBoardsOpen => 0,
            })
        } else {
            None
        }
    }

    /// Legal moves as (board, cell).
    pub fn moves(&self) -> Vec<(usize, usize)> {
        if self.result().is_some() {
            return Vec::new();
        }
        let boards: Vec<usize> = match self.target {
            Some(t) if !self.closed(t) => vec![t],
            _ => (0..9).filter(|&b| !self.closed(b)).collect(),
        };
        let mut out = Vec::new();
        for b in boards {
            for c in 0..9 {
                if self.cells[b][c] == Mark::Empty {
                    out.push((b, c));
                }
            }
        }
        out
    }

    /// The board after playing `(b, c)`.
    pub fn play(&self, b: usize, c: usize) -> OracleBoard {
        let mut next = self.clone();
        let mover = if self.x_to_move { Mark::X } else { Mark::O };
        next.cells[b][c] = mover;
        match self.rules {
            // A won board keeps its first winner; an unwon one is won by a line of the mover,
            // drawn when full.
            OracleRules::WonBoardsOpen => {
                if self.boards[b] == Mark::Empty {
                    if line_owner(&next.cells[b], mover) {
                        next.boards[b] = mover;
                    } else if next.full(b) {
                        next.boards[b] = Mark::Drawn;
                    }
                }
            }
            OracleRules::Common | OracleRules::CodinGame => next.boards[b] = next.local_state(b),
        }
        next.x_to_move = !self.x_to_move;
        next.target = (!next.closed(c)).then_some(c);
        next
    }
}

impl OracleBoard {
    /// Whether X (`x` true) or O has three won boards in a line: a win under every rule set
    /// (CodinGame's rules also give a game without a line to the player with more won boards).
    pub fn has_board_line(&self, x: bool) -> bool {
        line_owner(&self.boards, if x { Mark::X } else { Mark::O })
    }

    /// Leaves at exactly `depth` plies below this board (a finished game has no moves).
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.moves()
            .into_iter()
            .map(|(b, c)| self.play(b, c).perft(depth - 1))
            .sum()
    }
}

/// A compact key for the memo: two bits per cell, the side to move and the target board, and
/// the boards' owners (when won boards stay open, the cells do not tell who won first).
fn memo_key(board: &OracleBoard) -> (u128, u64, u8, u32) {
    let mut low = 0u128;
    let mut high = 0u64;
    for b in 0..9 {
        for c in 0..9 {
            let code = match board.cells[b][c] {
                Mark::Empty => 0u128,
                Mark::X => 1,
                _ => 2,
            };
            let i = 9 * b + c;
            if i < 64 {
                low |= code << (2 * i);
            } else {
                high |= (code as u64) << (2 * (i - 64));
            }
        }
    }
    let target = board.target.map_or(9, |t| t as u8);
    let owners = board.boards.iter().fold(0u32, |key, mark| {
        key * 4
            + match mark {
                Mark::Empty => 0,
                Mark::X => 1,
                Mark::O => 2,
                Mark::Drawn => 3,
            }
    });
    (low, high, target * 2 + u8::from(board.x_to_move), owners)
}

/// What the memo knows about a position's value: bounds for the side to move. Alpha-beta
/// returns a value that is exact only inside the window it was given, so the memo keeps a
/// lower and an upper bound (-1..=1) instead of a single value.
type Memo = HashMap<(u128, u64, u8, u32), (i8, i8), BuildHasherDefault<MixHasher>>;

/// Entries after which the memo is emptied, so a hard position cannot exhaust memory when
/// tests run several oracles at once (about 60 bytes each: a few hundred MB at most).
const MEMO_CAPACITY: usize = 4_000_000;

/// Negamax with alpha-beta over the three outcomes (+1 win, 0 draw, -1 loss for the side to
/// move), with a memo of proven bounds.
fn negamax(board: &OracleBoard, mut alpha: i32, mut beta: i32, memo: &mut Memo) -> i32 {
    if let Some(r) = board.result() {
        return if board.x_to_move { r } else { -r };
    }
    let key = memo_key(board);
    let (mut lower, mut upper) = memo
        .get(&key)
        .map_or((-1, 1), |&(l, u)| (l as i32, u as i32));
    if lower == upper || lower >= beta {
        return lower;
    }
    if upper <= alpha {
        return upper;
    }
    alpha = alpha.max(lower);
    beta = beta.min(upper);
    let (alpha_in, beta_in) = (alpha, beta);
    let mut best = -1;
    // Moves that win a local board first: alpha-beta then cuts sooner. The order changes
    // only the speed, never the value.
    let children: Vec<OracleBoard> = board
        .moves()
        .into_iter()
        .map(|(b, c)| board.play(b, c))
        .collect();
    let mut order: Vec<usize> = (0..children.len()).collect();
    let mover = if board.x_to_move { Mark::X } else { Mark::O };
    let won_count = |child: &OracleBoard| child.boards.iter().filter(|&&m| m == mover).count();
    order.sort_by_key(|&i| std::cmp::Reverse(won_count(&children[i])));
    for i in order {
        best = best.max(-negamax(&children[i], -beta, -alpha, memo));
        alpha = alpha.max(best);
        if alpha >= beta {
            break;
        }
    }
    // A fail-low result is only an upper bound, a fail-high only a lower bound.
    if best > alpha_in {
        lower = lower.max(best);
    }
    if best < beta_in {
        upper = upper.min(best);
    }
    if memo.len() >= MEMO_CAPACITY {
        memo.clear();
    }
    memo.insert(key, (lower as i8, upper as i8));
    best
}

/// The game value of a position in notation under the common rules: `"X"`, `"O"` or `"draw"`.
pub fn oracle_value(notation: &str) -> &'static str {
    oracle_value_under(notation, OracleRules::Common)
}

/// The game value of a position in notation under `rules`.
pub fn oracle_value_under(notation: &str, rules: OracleRules) -> &'static str {
    let board = OracleBoard::parse_under(notation, rules);
    let value = negamax(&board, -1, 1, &mut Memo::default());
    let x_value = if board.x_to_move { value } else { -value };
    match x_value {
        1 => "X",
        -1 => "O",
        _ => "draw",
    }
}

/// Answers of [`wins_within`] by position, attacker and plies left.
type BoundedMemo = HashMap<((u128, u64, u8, u32), bool, u32), bool, BuildHasherDefault<MixHasher>>;

/// Whether X (`x` true) or O wins the position in notation under `rules` within `plies`
/// plies, by plain minimax to that depth.
pub fn oracle_wins_within(notation: &str, rules: OracleRules, x: bool, plies: u32) -> bool {
    let board = OracleBoard::parse_under(notation, rules);
    wins_within(&board, x, plies, &mut BoundedMemo::default())
}

/// Minimax of "does X (`x` true) or O win within `plies` plies?": the attacker needs one move
/// that wins in time, the defender one move after which the attacker cannot.
fn wins_within(board: &OracleBoard, x: bool, plies: u32, memo: &mut BoundedMemo) -> bool {
    if let Some(result) = board.result() {
        return result == if x { 1 } else { -1 };
    }
    if plies == 0 {
        return false;
    }
    let key = (memo_key(board), x, plies);
    if let Some(&known) = memo.get(&key) {
        return known;
    }
    let attacker_to_move = board.x_to_move == x;
    let mut children = board.moves().into_iter().map(|(b, c)| board.play(b, c));
    let wins = if attacker_to_move {
        children.any(|child| wins_within(&child, x, plies - 1, memo))
    } else {
        children.all(|child| wins_within(&child, x, plies - 1, memo))
    };
    if memo.len() >= MEMO_CAPACITY {
        memo.clear();
    }
    memo.insert(key, wins);
    wins
}

/// The number of plies to the end of the game in notation under `rules` with best play, when
/// one side wins: the winner ends it as soon as it can and the loser holds out as long as it
/// can (the winning move counts); `None` for a draw. The least bound within which the
/// winner (by [`oracle_value_under`]) wins by the plain minimax of [`oracle_wins_within`].
pub fn oracle_win_distance(notation: &str, rules: OracleRules) -> Option<u32> {
    let x = match oracle_value_under(notation, rules) {
        "X" => true,
        "O" => false,
        _ => return None,
    };
    let board = OracleBoard::parse_under(notation, rules);
    let mut memo = BoundedMemo::default();
    (0..=81).find(|&plies| wins_within(&board, x, plies, &mut memo))
}
