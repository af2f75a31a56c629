//! Unit tests of `formats`.

use super::*;
use crate::game::Rng;

fn read(text: &str) -> Result<Position, FormatError> {
    let notation = detect(text).expect("one of these notations");
    parse(text, notation)
}

fn error(text: &str) -> FormatError {
    read(text).expect_err("malformed")
}

/// Squares → the state uttt.ai's own engine gives after them (the examples below were
/// published by uttt.ai as move lists; their states replayed there).
fn state_after(moves: &str) -> String {
    format_uttt_ai_state(&read(moves).unwrap())
}

#[test]
fn the_empty_board_is_ninety_zeros_then_x_to_move_anywhere() {
    let empty = format!("{}190", "0".repeat(90));
    assert_eq!(read(&empty).unwrap(), Position::start());
    assert_eq!(format_uttt_ai_state(&Position::start()), empty);
    assert_eq!(detect(&empty), Some(Notation::UtttAiState));
}

#[test]
fn uttt_ais_published_examples_read_as_the_positions_they_describe() {
    // The blog's link (33 moves, O to move, sent to the centre board).
    let blog = "https://uttt.ai/init?actions=x40o38x20o26x80o72x6o60x54o7x70o64x12o28x16o66x30o34x68o50x46o10x14o48x32o52x71o73x13o41x53o74x22";
    assert_eq!(
        format_uttt_ai_state(&read(blog).unwrap()),
        "000000120020111010001010002020101020002012000010202021100000200020201011222000001010000002240"
    );
    // The rules page's examples: one and two moves, and a game with free moves.
    assert_eq!(
        state_after("x37"),
        "000000000000000000000000000000000000010000000000000000000000000000000000000000000000000000210"
    );
    assert_eq!(
        state_after("x37o14"),
        "000000000000002000000000000000000000010000000000000000000000000000000000000000000000000000150"
    );
    assert_eq!(
        state_after("x19o12x35o73x10o9x6o58x40o36x3o32x48o30x34o65x20o18x0o50x45"),
        "100100100210200000211000000000202011200010000100102000000020000002000000020000000100000000290"
    );
    // uttt.ai's test game, in capitals: X wins; the finished game's state has board 9.
    let game = "X40O36X8O80X76O39X30O31X42O58X38O20X26O77X53O74X22O60X55O13X50O47X23O46X11O18X0O4X49O62X59O51X56O24X57O34X69O61X70O71X2O19X9O5X45O6X66O29X63O1X10";
    let end = read(game).unwrap();
    assert_eq!(end.outcome(), Outcome::Won(Player::X));
    assert_eq!(
        format_uttt_ai_state(&end),
        "121022201111020000222011201002120020201210100122011201011121222100100112002012002012011212291"
    );
    // The rules page's finished games, as state strings.
    let finished = [
        ("210102221200202200000111210122221020000111002112122211111001010110102220200022001021212100291", Outcome::Won(Player::X)),
        ("221101201121212211211122122001210100112211122222211021020220020200121111012020210112132212192", Outcome::Won(Player::O)),
        ("111200001221011221211122121122211211222212010211121112002122122222100112122212001113122221193", Outcome::Draw),
    ];
    for (state, outcome) in finished {
        assert_eq!(read(state).unwrap().outcome(), outcome, "{state}");
        let link = format!("https://uttt.ai/init?state={state}");
        assert_eq!(read(&link).unwrap().outcome(), outcome, "{link}");
    }
    // A depth-one state of uttt.ai's evaluation set: X in the centre, O sent to board 4.
    let depth_one = read("000000000000000000000000000000000000000010000000000000000000000000000000000000000000000000240").unwrap();
    assert_eq!(depth_one, Position::start().play(Move::new(4, 4)));
}

#[test]
fn codingame_rows_and_columns_cover_the_grid_as_boards_and_cells() {
    // Row 4, column 4 is the centre of the centre board, row 3, column 3 the top-left cell
    // of the centre board; row 0, column 8 the top-right cell of the top-right board, row
    // 8, column 1 the bottom-middle cell of the bottom-left board.
    let pos = read("4 4\n3 3").unwrap();
    assert_eq!(
        pos,
        Position::start()
            .play(Move::new(4, 4))
            .play(Move::new(4, 0))
    );
    assert_eq!(
        format_codingame(&[Move::new(2, 2), Move::new(6, 7)]),
        "0 8, 8 1"
    );
    assert_eq!(read("4 4, 3 3").unwrap(), pos);
    assert_eq!(read(" 4 4 ,\n 3 3 \n").unwrap(), pos);
}

#[test]
fn random_positions_and_games_survive_every_notation() {
    let mut rng = Rng::new(2026);
    for game in 0..400 {
        let plies = rng.below(82);
        let moves = rng.playout(&Position::start(), plies);
        let pos = moves.iter().fold(Position::start(), |p, &m| p.play(m));
        for text in [
            format_uttt_ai_state(&pos),
            uttt_ai_state_link(&pos),
            format_uttt_ai_moves(&moves).to_uppercase(),
            uttt_ai_moves_link(&moves),
            format_codingame(&moves),
            format_codingame(&moves).replace(", ", "\n"),
        ] {
            if text.is_empty() || text.ends_with("actions=") {
                continue; // no moves: an empty list is not a game
            }
            let notation = detect(&text).expect("one of these notations");
            let back =
                parse_game(&text, notation).unwrap_or_else(|e| panic!("game {game}: {text}: {e}"));
            assert_eq!(back.position, pos, "game {game}: {text}");
            if notation != Notation::UtttAiState {
                assert_eq!(back.moves.as_ref(), Some(&moves), "game {game}: {text}");
            }
        }
    }
}

#[test]
fn malformed_text_names_the_notation_the_column_and_the_fault() {
    let empty = format!("{}190", "0".repeat(90));
    let cases: Vec<(String, Notation, usize, &str)> = vec![
        (
            "0".repeat(92),
            Notation::UtttAiState,
            1,
            "expected 93 digits",
        ),
        (
            format!("3{}", &empty[1..]),
            Notation::UtttAiState,
            1,
            "not a cell",
        ),
        (
            format!("{}0{}", &empty[..90], &empty[91..]),
            Notation::UtttAiState,
            91,
            "side to move",
        ),
        (
            format!("{}1{}", &empty[..81], &empty[82..]),
            Notation::UtttAiState,
            82,
            "board 0 is given as `1`",
        ),
        (
            format!("111{}", &empty[3..]),
            Notation::UtttAiState,
            82,
            "board 0 is given as `0`",
        ),
        (
            format!("{}3", &empty[..92]),
            Notation::UtttAiState,
            93,
            "the result",
        ),
        (
            format!("https://uttt.ai/init?state={empty}&x=1"),
            Notation::UtttAiState,
            22,
            "one parameter",
        ),
        (
            "x40x41".to_string(),
            Notation::UtttAiMoves,
            4,
            "O is to move",
        ),
        ("x40o81".to_string(), Notation::UtttAiMoves, 5, "not 0-80"),
        (
            "x40o40".to_string(),
            Notation::UtttAiMoves,
            5,
            "already taken",
        ),
        (
            "x40o0".to_string(),
            Notation::UtttAiMoves,
            5,
            "must play in board 4",
        ),
        (
            "x40o".to_string(),
            Notation::UtttAiMoves,
            5,
            "expected the square",
        ),
        (
            "4 4, 9 1".to_string(),
            Notation::CodinGame,
            6,
            "`9` is not a row",
        ),
        (
            "4 4, 3".to_string(),
            Notation::CodinGame,
            6,
            "found 1 number",
        ),
        (
            "4 4\n0 0".to_string(),
            Notation::CodinGame,
            5,
            "must play in board 4",
        ),
        ("-1 -1".to_string(), Notation::CodinGame, 1, "not a row"),
    ];
    for (text, notation, column, reason) in cases {
        let e = error(&text);
        assert_eq!((e.notation, e.column), (notation, column), "{text}: {e}");
        assert!(e.reason.contains(reason), "{text}: {e}");
    }
    // A finished game takes no more moves.
    let game = "X40O36X8O80X76O39X30O31X42O58X38O20X26O77X53O74X22O60X55O13X50O47X23O46X11O18X0O4X49O62X59O51X56O24X57O34X69O61X70O71X2O19X9O5X45O6X66O29X63O1X10";
    let e = error(&format!("{game}o3"));
    assert!(e.reason.contains("already over"), "{e}");
}

#[test]
fn this_projects_own_notations_are_never_taken_for_another() {
    assert_eq!(detect("ae ea"), None);
    assert_eq!(detect("ee,ea"), None);
    assert_eq!(detect("start"), None);
}
