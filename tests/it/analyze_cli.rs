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
fn moves_a_limit_left_open_show_the_search_estimates_lean_in_lower_case() {
    let args = [
        "analyze",
        "ee ea ae",
        "--node-limit",
        "1000",
        "--table-mem",
        "16M",
        "--threads",
        "1",
        "--estimate-playouts",
        "2000",
    ];
    let (code, text, _) = common::run_uttt(&args);
    assert_eq!(code, 1);
    let cells = board_cells(&text);
    let (code, json, _) = common::run_uttt(&[&args[..], &["--json"]].concat());
    assert_eq!(code, 1);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let mover = json["to_move"].as_str().unwrap();
    let mut unknown = 0;
    for m in json["moves"].as_array().unwrap() {
        let mv = m["move"].as_str().unwrap();
        if m["value"] != "unknown" {
            assert!(
                m.get("estimate").is_none(),
                "a value needs no estimate: {m}"
            );
            continue;
        }
        unknown += 1;
        // The likeliest outcome for the mover, as a faint lower-case letter: never W/D/L.
        let estimate = &m["estimate"];
        common::assert_search_estimate(estimate);
        // One thread and a budget in playouts: the budget is spent (the root's first one
        // looks at it, and is no child's result).
        let playouts = estimate["playouts"].as_u64().unwrap();
        assert!((1999..=2000).contains(&playouts), "{m}");
        let chance = |key: &str| estimate[key].as_f64().unwrap();
        let (mine, theirs) = if mover == "X" { ("x", "o") } else { ("o", "x") };
        let (win, loss, draw) = (chance(mine), chance(theirs), chance("draw"));
        let lean = if win >= loss && win >= draw {
            'w'
        } else if loss >= draw {
            'l'
        } else {
            'd'
        };
        assert_eq!(cells[square(mv)], lean, "{mv}: {m}\n{text}");
        let row = text
            .lines()
            .find(|l| l.starts_with(&format!("{mv} ")))
            .unwrap();
        assert!(row.contains("estimate X "), "marked as an estimate: {row}");
        let behind = format!("from {playouts} playouts");
        assert!(row.ends_with(&behind), "with its playouts: {row}");
    }
    assert_eq!(unknown, 7, "{json}");
}
