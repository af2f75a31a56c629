//! `uttt analyze` as users read it: the board with each legal move's value in its cell, then
//! the list; the same values in both, plain text when piped.
use crate::common;

/// A draw in which X has drawing and losing moves (from the README).
const DRAWN: &str = "X;.XO.....X;.XOXX.X.O/XXXXO.O../OOXX..OOO/OO..XOOXO/.OXOOXX.O/O..X..OXO/XOXOXX.XO/O.O.OO.X./..XXXXX..";

/// The symbol in each of the 81 cells of the board drawn at the top of `text` (by square:
/// board × 9 + cell).
fn board_cells(text: &str) -> Vec<char> {
    let rows: Vec<Vec<char>> = text
        .lines()
        .skip(1)
        .filter(|l| !l.contains("---"))
        .take(9)
        .map(|l| {
            l.chars()
                .filter(|c| !c.is_whitespace() && *c != '|')
                .collect()
        })
        .collect();
    let mut cells = vec!['?'; 81];
    for (r, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), 9, "row {r} of the board: {row:?}");
        for (c, &symbol) in row.iter().enumerate() {
            let board = r / 3 * 3 + c / 3;
            let cell = r % 3 * 3 + c % 3;
            cells[board * 9 + cell] = symbol;
        }
    }
    cells
}

/// The square of a move in notation (`dc` = board d, cell c).
fn square(mv: &str) -> usize {
    let b = mv.as_bytes();
    (b[0] - b'a') as usize * 9 + (b[1] - b'a') as usize
}

#[test]
fn the_analysis_board_shows_each_moves_value_in_its_cell_as_the_list_does() {
    let (code, text, stderr) = common::run_uttt(&["analyze", DRAWN, "--table-mem", "16M"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!text.contains('\x1b'), "no colour when piped: {text}");
    assert!(text.starts_with("Boards a-i"), "{text}");
    let cells = board_cells(&text);
    let listed: Vec<(&str, &str)> = text
        .lines()
        .skip_while(|l| !l.starts_with("move  value"))
        .skip(1)
        .take_while(|l| !l.starts_with("time") && !l.starts_with("unknown"))
        .map(|l| {
            let mut words = l.split_whitespace();
            (words.next().unwrap(), words.next().unwrap())
        })
        .collect();
    assert_eq!(listed.len(), 16, "every legal move listed: {text}");
    for (mv, value) in &listed {
        let expected = match *value {
            "win" => 'W',
            "draw" => 'D',
            "loss" => 'L',
            _ => '?',
        };
        assert_eq!(
            cells[square(mv)],
            expected,
            "{mv} ({value}) on the board:\n{text}"
        );
    }
    assert!(listed.iter().any(|m| m.1 == "draw") && listed.iter().any(|m| m.1 == "loss"));
    // Every other cell holds a stone or nothing.
    let on_board = cells.iter().filter(|c| "WDL?".contains(**c)).count();
    assert_eq!(on_board, listed.len());
}

#[test]
fn moves_a_limit_left_open_show_a_question_mark() {
    let (code, text, _) = common::run_uttt(&["analyze", "ee ea ae", "--node-limit", "1000"]);
    assert_eq!(code, 1);
    let cells = board_cells(&text);
    assert_eq!(cells.iter().filter(|&&c| c == '?').count(), 7, "{text}");
}
