//! Rules, hashing, symmetry and notation round trips of the game core.
use uttt::game::{
    format_position, parse_position, perft, play_move_list, Move, Outcome, Player, Position, Rng,
};

/// Positions reached by seeded random playouts of every length, including finished games.
fn playout_positions(count: usize, seed: u64) -> Vec<Position> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut pos = Position::start();
        out.push(pos);
        while let Some(mv) = rng.legal_move(&pos) {
            pos = pos.play(mv);
            out.push(pos);
        }
    }
    out.truncate(count);
    out
}

fn pos(text: &str) -> Position {
    parse_position(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn incremental_hash_equals_recomputed_hash() {
    for p in playout_positions(20_000, 1) {
        assert_eq!(p.hash(), p.compute_hash(), "{p}");
    }
}

#[test]
fn notation_round_trips_over_random_playouts() {
    for p in playout_positions(20_000, 2) {
        let text = format_position(&p);
        let back = pos(&text);
        assert_eq!(back, p, "{text}");
        assert_eq!(format_position(&back), text);
    }
}

#[test]
fn symmetries_preserve_perft_outcome_and_canonical_hash() {
    let mut rng = Rng::new(3);
    for plies in [0, 5, 12, 25, 40] {
        let moves = rng.playout(&Position::start(), plies);
        let p = moves.iter().fold(Position::start(), |p, &m| p.play(m));
        let expected: Vec<u64> = (1..=4).map(|d| perft(&p, d)).collect();
        for sym in 0..8 {
            let t = p.transform(sym);
            assert_eq!(t.outcome(), p.outcome());
            assert_eq!(t.canonical_hash(), p.canonical_hash(), "{p} sym {sym}");
            let got: Vec<u64> = (1..=4).map(|d| perft(&t, d)).collect();
            assert_eq!(got, expected, "{p} under symmetry {sym}");
        }
    }
}

#[test]
fn sent_to_a_won_board_moves_freely_over_open_boards_only() {
    // X has won board a (top row); O plays a cell "a" (cell 0) of board e, sending X to a.
    let p = pos("O;X........;XXX.OO.../........./........./........./........./........./........./........./.........");
    let p = play_move_list(&p, "ea").unwrap();
    assert_eq!(p.target_board(), None);
    let moves = p.legal_moves();
    assert_eq!(moves.len(), 8 * 9 - 1, "every empty cell outside board a");
    assert!(moves.into_iter().all(|m| m.board() != 0));
}

#[test]
fn sent_to_a_full_drawn_board_moves_freely() {
    let p = pos("O;#........;XOXXOOOXX/........./O......../........./........./........./........./........./....X....");
    assert_eq!(p.closed_boards(), 1);
    let next = p.play(Move::new(1, 0)); // O plays in b, sending X to the drawn board a
    assert_eq!(next.target_board(), None);
    assert!(next.legal_moves().into_iter().all(|m| m.board() != 0));
    assert!(!next.is_legal(Move::new(0, 0)));
}

#[test]
fn a_drawn_board_blocks_both_players_lines() {
    // X has won a and c; b (between them) is drawn. X then wins g too: a, c and g hold no
    // line, and the top row a-b-c is blocked by the drawn b, so the game goes on.
    let p = pos("X;X#X......;XXX....../XOXXOOOXX/XXX....../OO......./OO......./O......../XX.OO..../.O......./.O.......");
    let after = play_move_list(&p, "gc").unwrap();
    assert_eq!(after.won_boards(Player::X), 0b0_0100_0101);
    assert_eq!(after.outcome(), Outcome::InPlay);
}

#[test]
fn three_boards_in_a_line_win_the_game() {
    let p = pos("X;XX.......;XXX....../XXX....../XX......./OO......./OO......./OO......./.O......./.O......./.........");
    let after = play_move_list(&p, "cc").unwrap();
    assert_eq!(after.outcome(), Outcome::Won(Player::X));
    assert!(after.legal_moves().is_empty());
}

#[test]
fn all_boards_closed_without_a_line_is_a_draw() {
    let mut rng = Rng::new(4);
    let mut draws = 0;
    for _ in 0..2000 {
        let moves = rng.playout(&Position::start(), 81);
        let end = moves.iter().fold(Position::start(), |p, &m| p.play(m));
        if end.outcome() == Outcome::Draw {
            draws += 1;
            assert_eq!(end.closed_boards(), 0x1FF, "{end}");
            assert!(end.legal_moves().is_empty());
        }
        if end.closed_boards() == 0x1FF {
            assert_ne!(end.outcome(), Outcome::InPlay);
        }
    }
    assert!(
        draws > 10,
        "random games should reach some draws, saw {draws}"
    );
}

#[test]
fn no_move_is_ever_in_a_closed_board_or_an_occupied_cell() {
    for p in playout_positions(20_000, 5) {
        let occupied = p.cells(Player::X) | p.cells(Player::O);
        for m in p.legal_moves() {
            assert_eq!(occupied >> m.square() & 1, 0);
            assert_eq!(p.closed_boards() >> m.board() & 1, 0, "{p} {m}");
            if let Some(t) = p.target_board() {
                assert_eq!(m.board(), t);
            }
        }
    }
}

/// Every board's cells read at once ([`Position::all_local_cells`], what the rules that read
/// many boards use) are the cells the notation shows, board by board, and agree with the
/// boards read one at a time.
#[test]
fn all_local_cells_are_the_cells_the_notation_shows() {
    for p in playout_positions(5_000, 9) {
        let text = format_position(&p);
        let boards: Vec<&str> = text.split(';').nth(2).unwrap().split('/').collect();
        assert_eq!(boards.len(), 9, "{text}");
        let (x, o, occupied) = (
            p.all_local_cells(Player::X),
            p.all_local_cells(Player::O),
            p.all_local_occupied(),
        );
        for (board, cells) in boards.iter().enumerate() {
            let mask_of = |stone: char| {
                cells
                    .chars()
                    .enumerate()
                    .filter(|&(_, c)| c.eq_ignore_ascii_case(&stone))
                    .fold(0u16, |mask, (cell, _)| mask | 1 << cell)
            };
            assert_eq!(x[board], mask_of('X'), "{text} board {board}");
            assert_eq!(o[board], mask_of('O'), "{text} board {board}");
            assert_eq!(occupied[board], x[board] | o[board], "{text}");
            assert_eq!(x[board], p.local_cells(Player::X, board), "{text}");
            assert_eq!(occupied[board], p.local_occupied(board), "{text}");
        }
    }
}
