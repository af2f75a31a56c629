//! The rule sets of the game core against the oracle's deliberately simple board, which plays
//! each rule set as its statement goes: moves, outcomes, perft, notation, hashing and symmetry.
use crate::common::oracle::{OracleBoard, OracleRules};
use uttt::game::{
    format_position, parse_position, parse_position_under, perft, play_move_list, Move, Outcome,
    Player, Position, Rng, Rules,
};

fn rules_of(oracle: OracleRules) -> Rules {
    Rules::from_name(oracle.name()).expect("every oracle rule set is a rule set")
}

/// The moves and positions of seeded random playouts under `rules`, to the end of each game.
fn playouts(rules: Rules, games: usize, seed: u64) -> Vec<(Vec<Move>, Vec<Position>)> {
    let mut rng = Rng::new(seed);
    (0..games)
        .map(|_| {
            let mut pos = Position::start_under(rules);
            let (mut moves, mut line) = (Vec::new(), vec![pos]);
            while let Some(mv) = rng.legal_move(&pos) {
                pos = pos.play(mv);
                moves.push(mv);
                line.push(pos);
            }
            (moves, line)
        })
        .collect()
}

fn moves_of(pos: &Position) -> Vec<(usize, usize)> {
    let mut moves: Vec<_> = pos.legal_moves().map(|m| (m.board(), m.cell())).collect();
    moves.sort_unstable();
    moves
}

fn result_of(pos: &Position) -> Option<i32> {
    match pos.outcome() {
        Outcome::InPlay => None,
        Outcome::Won(Player::X) => Some(1),
        Outcome::Won(Player::O) => Some(-1),
        Outcome::Draw => Some(0),
    }
}

fn has_big_line(won: u16) -> bool {
    const LINES: [u16; 8] = [0o7, 0o70, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124];
    LINES.iter().any(|&line| (won & line).count_ones() == 3)
}

#[test]
fn every_rule_set_plays_as_the_oracle_board_move_by_move() {
    for oracle_rules in OracleRules::ALL {
        let rules = rules_of(oracle_rules);
        // How often each rule set's difference from the common rules came up.
        let (mut won_and_open, mut decided_by_count) = (0, 0);
        for (moves, line) in playouts(rules, 400, 11) {
            let mut oracle = OracleBoard::parse_under(&format_position(&line[0]), oracle_rules);
            for (pos, mv) in line.iter().zip(&moves) {
                let mut oracle_moves = oracle.moves();
                oracle_moves.sort_unstable();
                assert_eq!(moves_of(pos), oracle_moves, "{rules}: {pos}");
                assert_eq!(result_of(pos), oracle.result(), "{rules}: {pos}");
                assert_eq!(pos.rules(), rules);
                let owned = pos.won_boards(Player::X) | pos.won_boards(Player::O);
                won_and_open += usize::from(owned & !pos.closed_boards() != 0);
                oracle = oracle.play(mv.board(), mv.cell());
            }
            let end = line.last().unwrap();
            assert!(end.legal_moves().is_empty() && end.is_over());
            assert_eq!(result_of(end), oracle.result(), "{rules}: {end}");
            let line_won =
                has_big_line(end.won_boards(Player::X)) || has_big_line(end.won_boards(Player::O));
            decided_by_count += usize::from(!line_won && end.outcome() != Outcome::Draw);
        }
        match rules {
            Rules::WonBoardsOpen => assert!(won_and_open > 1000, "{won_and_open}"),
            Rules::CodinGame => assert!(decided_by_count > 20, "{decided_by_count}"),
            Rules::Common => assert_eq!((won_and_open, decided_by_count), (0, 0)),
        }
    }
}

#[test]
fn perft_under_each_rule_set_agrees_with_the_oracle_board() {
    for oracle_rules in OracleRules::ALL {
        let rules = rules_of(oracle_rules);
        let start = Position::start_under(rules);
        let oracle = OracleBoard::parse_under(&format_position(&start), oracle_rules);
        for depth in 1..=4 {
            assert_eq!(
                perft(&start, depth),
                oracle.perft(depth),
                "{rules} depth {depth}"
            );
        }
        // Mid-game positions of every length, where won boards (and ended games) occur.
        for (_, line) in playouts(rules, 12, 12) {
            for pos in line.iter().skip(12).step_by(7) {
                let oracle = OracleBoard::parse_under(&format_position(pos), oracle_rules);
                for depth in 1..=3 {
                    assert_eq!(
                        perft(pos, depth),
                        oracle.perft(depth),
                        "{rules}: {pos} {depth}"
                    );
                }
            }
        }
    }
}

#[test]
fn notation_hash_and_symmetry_hold_under_each_rule_set() {
    for rules in Rules::ALL {
        for (_, line) in playouts(rules, 300, 13) {
            for pos in line {
                let text = format_position(&pos);
                let back = parse_position_under(&text, rules)
                    .unwrap_or_else(|e| panic!("{rules}: {text}: {e}"));
                assert_eq!(back, pos, "{rules}: {text}");
                assert_eq!(pos.hash(), pos.compute_hash(), "{rules}: {text}");
                for sym in 1..8 {
                    let image = pos.transform(sym);
                    assert_eq!(image.rules(), rules);
                    assert_eq!(image.outcome(), pos.outcome(), "{rules}: {text} {sym}");
                    assert_eq!(image.legal_moves().len(), pos.legal_moves().len());
                    assert_eq!(
                        image.canonical_hash(),
                        pos.canonical_hash(),
                        "{rules}: {text}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_rule_set_is_part_of_the_hash_and_the_common_hash_is_unchanged() {
    let hashes: Vec<u64> = Rules::ALL
        .iter()
        .map(|&rules| Position::start_under(rules).hash())
        .collect();
    assert_eq!(hashes[0], Position::start().hash());
    assert!(hashes[0] != hashes[1] && hashes[1] != hashes[2] && hashes[0] != hashes[2]);
}

/// X has won board a with its top row; O to move anywhere.
const A_WON: &str =
    "O;X........;XXX.OO.../........./........./........./........./........./........./........./.........";

#[test]
fn with_won_boards_open_a_player_sent_to_a_won_board_plays_there() {
    let open = parse_position_under(A_WON, Rules::WonBoardsOpen).unwrap();
    let common = parse_position(A_WON).unwrap();
    // O plays cell a of board b, sending X to board a.
    let (open, common) = (
        play_move_list(&open, "ba").unwrap(),
        play_move_list(&common, "ba").unwrap(),
    );
    assert_eq!(open.target_board(), Some(0));
    assert_eq!(moves_of(&open), vec![(0, 3), (0, 6), (0, 7), (0, 8)]);
    assert_eq!(common.target_board(), None);
    assert_eq!(format_position(&open).split(';').nth(1), Some("x........"));
    // O sent to board a, which X won: O's own line there later does not take it from X.
    let sent = "O;x........;XXX.O..../.O......./........./........./........./........./........./........./.........";
    let pos = parse_position_under(sent, Rules::WonBoardsOpen).unwrap();
    assert_eq!(pos.target_board(), Some(0));
    let after = play_move_list(&pos, "ad da af").unwrap();
    assert_eq!(after.local_cells(Player::O, 0), 0b111_000);
    assert_eq!(after.won_boards(Player::X), 1);
    assert_eq!(after.won_boards(Player::O), 0);
    assert_eq!(format_position(&after).split(';').nth(1), Some("X....@..."));
}

#[test]
fn under_codingame_rules_more_won_boards_win_a_game_without_a_line() {
    for (rules, expected) in [
        (Rules::Common, Outcome::Draw),
        (Rules::CodinGame, Outcome::Won(Player::X)),
    ] {
        let mut rng = Rng::new(21);
        let mut seen = 0;
        for _ in 0..3000 {
            let moves = rng.playout(&Position::start_under(rules), 81);
            let end = moves
                .iter()
                .fold(Position::start_under(rules), |p, &m| p.play(m));
            let (x, o) = (
                end.won_boards(Player::X).count_ones(),
                end.won_boards(Player::O).count_ones(),
            );
            let line =
                has_big_line(end.won_boards(Player::X)) || has_big_line(end.won_boards(Player::O));
            if !line && x > o {
                seen += 1;
                assert_eq!(end.outcome(), expected, "{rules}: {end}");
            }
        }
        assert!(seen > 5, "{rules}: {seen}");
    }
}

#[test]
fn markers_of_the_open_rule_set_are_refused_elsewhere_with_a_reason() {
    let sent = "X;x........;XXX.OO.../.O......./........./........./........./........./........./........./.........";
    assert!(parse_position_under(sent, Rules::WonBoardsOpen).is_ok());
    for rules in [Rules::Common, Rules::CodinGame] {
        let err = parse_position_under(sent, rules).unwrap_err().to_string();
        assert!(
            err.contains("won boards stay open") && err.contains("column 3"),
            "{err}"
        );
    }
    // A board with a line must be marked by its winner when won boards stay open.
    let err = parse_position_under(&A_WON.replacen("X.", "..", 1), Rules::WonBoardsOpen)
        .unwrap_err()
        .to_string();
    assert!(err.contains("holds a line"), "{err}");
    // And a full board cannot be the target.
    let full = "X;x........;XXXOOXOXO/.O......./.O......./.O......./........./........./........./........./.........";
    let err = parse_position_under(full, Rules::WonBoardsOpen)
        .unwrap_err()
        .to_string();
    assert!(err.contains("full"), "{err}");
}
