//! The essential hash's claim (`Position::hash`), checked against the independent oracle:
//! positions with the same essential hash have the same game value. The solvers' table shares
//! one entry between such positions, so a wrong reduction would hand one position another's
//! answer.
//!
//! Pairs are made by rearranging the parts of a position that the hash reduces: the cells of
//! closed boards, and the stones of open boards that nobody can win among their occupied
//! cells. Every rearrangement that is a valid position with the same essential hash must
//! have the same oracle value; each test counts the pairs it checked, so that it cannot pass
//! by checking nothing. When won boards stay open, a won board that is not full is hashed by
//! its winner and occupied cells: its stones are rearranged too, under that rule set.
use crate::common;
use crate::common::oracle::{oracle_value_under, OracleRules, LINES};
use uttt::game::{format_position, parse_position, parse_position_under, Position, Rng, Rules};

/// A board's nine cells and the stones in them, as the notation writes them.
type Board = [char; 9];

/// The notation's three parts: side to move, the nine board marks, the nine boards' cells.
#[derive(Clone)]
struct Parts {
    side: char,
    marks: Vec<char>,
    boards: Vec<Board>,
}

impl Parts {
    /// The parts of `pos`'s notation.
    fn of(pos: &Position) -> Parts {
        let text = format_position(pos);
        let parts: Vec<&str> = text.split(';').collect();
        let boards = parts[2]
            .split('/')
            .map(|group| group.chars().collect::<Vec<_>>().try_into().unwrap())
            .collect();
        Parts {
            side: parts[0].chars().next().unwrap(),
            marks: parts[1].chars().collect(),
            boards,
        }
    }

    /// The notation with board marks recomputed from the cells (the target board keeps its
    /// `@`); `None` when it describes no position the parser accepts.
    fn position(&self) -> Option<Position> {
        let marks: String = (0..9)
            .map(|b| match (self.marks[b], board_mark(&self.boards[b])) {
                ('@', '.') => '@',
                (_, mark) => mark,
            })
            .collect();
        let cells: Vec<String> = self.boards.iter().map(|b| b.iter().collect()).collect();
        parse_position(&format!("{};{marks};{}", self.side, cells.join("/"))).ok()
    }

    /// The notation with the board marks as they are (when won boards stay open a mark names
    /// a board's first winner, which the cells do not tell), read under `rules`; `None` when
    /// the parser refuses it.
    fn position_under(&self, rules: Rules) -> Option<Position> {
        let marks: String = self.marks.iter().collect();
        let cells: Vec<String> = self.boards.iter().map(|b| b.iter().collect()).collect();
        parse_position_under(&format!("{};{marks};{}", self.side, cells.join("/")), rules).ok()
    }
}

/// `X` or `O` for a board with a line of that player (`?` with lines of both), `#` for a
/// full board without one, `.` for an open board.
fn board_mark(board: &Board) -> char {
    let has = |p| LINES.iter().any(|l| l.iter().all(|&c| board[c] == p));
    match (has('X'), has('O')) {
        (true, true) => '?',
        (true, false) => 'X',
        (false, true) => 'O',
        _ if board.iter().all(|&c| c != '.') => '#',
        _ => '.',
    }
}

/// Shuffles `items` in place (Fisher–Yates).
fn shuffle<T>(items: &mut [T], rng: &mut Rng) {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i + 1));
    }
}

/// Whether neither player can complete a line of this open board any more.
fn nobody_can_win(board: &Board) -> bool {
    LINES
        .iter()
        .all(|l| l.iter().any(|&c| board[c] == 'X') && l.iter().any(|&c| board[c] == 'O'))
}

/// A copy of `original` with its closed boards rearranged: two boards of the same mark may
/// trade cells, and each closed board's cells are shuffled with probability 1/2.
fn closed_boards_rearranged(original: &Parts, rng: &mut Rng) -> Parts {
    let mut boards = original.boards.clone();
    let closed: Vec<usize> = (0..9).filter(|&b| board_mark(&boards[b]) != '.').collect();
    if closed.len() >= 2 {
        let (a, b) = (
            closed[rng.below(closed.len())],
            closed[rng.below(closed.len())],
        );
        if board_mark(&boards[a]) == board_mark(&boards[b]) {
            boards.swap(a, b);
        }
    }
    for &b in &closed {
        if rng.below(2) == 0 {
            shuffle(&mut boards[b], rng);
        }
    }
    Parts {
        boards,
        ..original.clone()
    }
}

/// Shuffles the stones of `board` among its occupied cells.
fn shuffle_stones(board: &mut Board, rng: &mut Rng) {
    let occupied: Vec<usize> = (0..9).filter(|&c| board[c] != '.').collect();
    let mut stones: Vec<char> = occupied.iter().map(|&c| board[c]).collect();
    shuffle(&mut stones, rng);
    for (&cell, &stone) in occupied.iter().zip(&stones) {
        board[cell] = stone;
    }
}

/// A copy of `original` in which the stones of every open board that nobody can win are
/// shuffled among its occupied cells.
fn dead_boards_rearranged(original: &Parts, rng: &mut Rng) -> Parts {
    let mut boards = original.boards.clone();
    for board in boards.iter_mut() {
        if board_mark(board) == '.' && nobody_can_win(board) {
            shuffle_stones(board, rng);
        }
    }
    Parts {
        boards,
        ..original.clone()
    }
}

/// For each position (under `rules`), up to `tries` rearrangements by `rearrange`: every one
/// that is another valid position with the same essential hash must have the same legal
/// moves, the same essential hash after each of them, and the same oracle value. Returns how
/// many such pairs were checked.
fn check_pairs(
    originals: &[String],
    rules: OracleRules,
    tries: usize,
    rearrange: impl Fn(&Parts, &mut Rng) -> Parts + Sync,
) -> usize {
    let crate_rules = Rules::from_name(rules.name()).unwrap();
    let checked = std::sync::atomic::AtomicUsize::new(0);
    common::parallel_rows(originals, |text| {
        let pos = parse_position_under(text, crate_rules).unwrap();
        let parts = Parts::of(&pos);
        let mut rng = Rng::new(pos.hash());
        let mut seen = vec![pos];
        let mut value = None;
        for _ in 0..tries {
            let rearranged = rearrange(&parts, &mut rng);
            let other = if crate_rules.won_boards_close() {
                rearranged.position()
            } else {
                rearranged.position_under(crate_rules)
            };
            let Some(other) = other else {
                continue;
            };
            if seen.contains(&other) || other.hash() != pos.hash() {
                continue;
            }
            seen.push(other);
            // The proof's induction step: the same moves, and after each the same hash.
            assert_eq!(other.legal_moves(), pos.legal_moves(), "{text}");
            for mv in pos.legal_moves() {
                assert_eq!(other.play(mv).hash(), pos.play(mv).hash(), "{text} {mv}");
            }
            let value = *value.get_or_insert_with(|| oracle_value_under(text, rules));
            let other_text = format_position(&other);
            assert_eq!(
                oracle_value_under(&other_text, rules),
                value,
                "same essential hash, different values: {text} and {other_text}"
            );
            checked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    });
    checked.into_inner()
}

/// Positions of seeded random playouts of 56–66 plies (where the oracle is quick) that are
/// still in play and meet `wanted`, `count` of them.
fn late_positions(count: usize, seed: u64, wanted: impl Fn(&Parts) -> bool) -> Vec<String> {
    late_positions_under(Rules::Common, 56, count, seed, wanted)
}

/// [`late_positions`] under `rules`, of `first` to `first + 10` plies.
fn late_positions_under(
    rules: Rules,
    first: usize,
    count: usize,
    seed: u64,
    wanted: impl Fn(&Parts) -> bool,
) -> Vec<String> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let start = Position::start_under(rules);
    while out.len() < count {
        let plies = first + rng.below(11);
        let pos = rng
            .playout(&start, plies)
            .into_iter()
            .fold(start, |p, m| p.play(m));
        if !pos.is_over() && wanted(&Parts::of(&pos)) {
            out.push(format_position(&pos));
        }
    }
    out
}

#[test]
fn rearranged_closed_boards_keep_the_hash_and_the_value() {
    let originals = late_positions(3_000, 4242, |_| true);
    let checked = check_pairs(
        &originals,
        OracleRules::Common,
        20,
        closed_boards_rearranged,
    );
    println!("{checked} pairs");
    assert!(checked >= 10_000, "only {checked} pairs");
}

#[test]
fn rearranged_boards_nobody_can_win_keep_the_hash_and_the_value() {
    let has_dead_board = |parts: &Parts| {
        parts
            .boards
            .iter()
            .any(|b| board_mark(b) == '.' && nobody_can_win(b) && b.contains(&'.'))
    };
    let originals = late_positions(1_000, 4343, has_dead_board);
    let checked = check_pairs(&originals, OracleRules::Common, 20, dead_boards_rearranged);
    println!("{checked} pairs");
    assert!(checked >= 500, "only {checked} pairs");
}

/// A copy of `original` in which the stones of every won board (its mark kept) and of every
/// full board are shuffled among its occupied cells, each with probability 1/2.
fn won_and_full_boards_rearranged(original: &Parts, rng: &mut Rng) -> Parts {
    let mut boards = original.boards.clone();
    for (board, mark) in boards.iter_mut().zip(&original.marks) {
        let full = !board.contains(&'.');
        if ("XOxo".contains(*mark) || full) && rng.below(2) == 0 {
            shuffle_stones(board, rng);
        }
    }
    Parts {
        boards,
        ..original.clone()
    }
}

#[test]
fn with_won_boards_open_rearranged_won_boards_keep_the_hash_and_the_value() {
    let has_won_open_board = |parts: &Parts| {
        (0..9).any(|b| "XOxo".contains(parts.marks[b]) && parts.boards[b].contains(&'.'))
    };
    let originals = late_positions_under(Rules::WonBoardsOpen, 62, 1_000, 4545, has_won_open_board);
    let checked = check_pairs(
        &originals,
        OracleRules::WonBoardsOpen,
        20,
        won_and_full_boards_rearranged,
    );
    println!("{checked} pairs");
    assert!(checked >= 2_000, "only {checked} pairs");
}

/// What the hash keeps apart stays apart: giving a closed board the other winner, or swapping
/// the players' stones in an open board that someone can still win, changes the essential
/// hash (a reduction that went too far would merge positions of different values).
#[test]
fn changes_that_matter_change_the_hash() {
    let originals = late_positions(2_000, 4444, |_| true);
    let (mut open_swapped, mut winner_swapped) = (0, 0);
    for text in &originals {
        let pos = parse_position(text).unwrap();
        let parts = Parts::of(&pos);
        for b in 0..9 {
            let board = parts.boards[b];
            let mark = board_mark(&board);
            let mut changed = parts.clone();
            changed.boards[b] = board.map(|c| match c {
                'X' => 'O',
                'O' => 'X',
                c => c,
            });
            let counted = match mark {
                'X' | 'O' => &mut winner_swapped,
                '.' if !nobody_can_win(&board) && changed.boards[b] != board => &mut open_swapped,
                _ => continue,
            };
            if let Some(other) = changed.position() {
                assert_ne!(other.hash(), pos.hash(), "{text} board {b}");
                *counted += 1;
            }
        }
    }
    assert!(
        open_swapped >= 500 && winner_swapped >= 500,
        "{open_swapped} {winner_swapped}"
    );
}
