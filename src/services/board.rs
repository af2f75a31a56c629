//! The board as text, for `uttt show`, `uttt analyze` and the Python package: the 3×3 local
//! boards, a mark in each legal move's cell, what is closed, and the notation; coloured (ANSI)
//! when the front end asks.

use crate::game::{Move, Outcome, Player, Position};
use std::fmt::Write as _;

/// The board `uttt show` draws for `pos` (ANSI colours when `colour`), with its rule set
/// when that is not the common rules.
pub fn board_text(pos: &Position, colour: bool) -> String {
    let rules = pos.rules();
    let board = render_board(pos, colour, "* marks a legal move.", |_| LEGAL);
    if rules.is_common() {
        board
    } else {
        board + &format!("Rules: {rules}\n")
    }
}

/// `text` in the ANSI style `ansi` when `colour`, else as it is.
pub fn paint(text: &str, ansi: &str, colour: bool) -> String {
    if colour {
        format!("\x1b[{ansi}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// What a legal move's cell shows: a one-character symbol and its ANSI style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    /// The symbol.
    pub symbol: char,
    /// Its ANSI style (e.g. `32` for green).
    pub ansi: &'static str,
}

/// The mark of `uttt show`: `*` on every legal move.
pub const LEGAL: Mark = Mark {
    symbol: '*',
    ansi: "32",
};

/// The board as text: 3×3 local boards with separators, each legal move's cell showing
/// `mark(move)`, the closed boards under the grid, then the side to move and its legal moves
/// (or the game's end) and the notation line. `legend` (one line) explains the marks.
pub fn render_board(
    pos: &Position,
    colour: bool,
    legend: &str,
    mark: impl Fn(Move) -> Mark,
) -> String {
    let legal = pos.legal_moves();
    let mut out = String::new();
    let _ = writeln!(out, "Boards a-i and cells a-i in reading order; {legend}");
    for band in 0..3 {
        if band > 0 {
            out.push_str("     -------+-------+-------\n");
        }
        for row in 0..3 {
            out.push_str("     ");
            for stack in 0..3 {
                let board = band * 3 + stack;
                if stack > 0 {
                    out.push_str(" |");
                }
                for col in 0..3 {
                    let cell = row * 3 + col;
                    let bit = 1 << cell;
                    let mv = Move::new(board, cell);
                    let symbol = if pos.local_cells(Player::X, board) & bit != 0 {
                        paint("X", "1;31", colour)
                    } else if pos.local_cells(Player::O, board) & bit != 0 {
                        paint("O", "1;34", colour)
                    } else if legal.contains(mv) {
                        let mark = mark(mv);
                        paint(&mark.symbol.to_string(), mark.ansi, colour)
                    } else {
                        ".".to_string()
                    };
                    out.push(' ');
                    out.push_str(&symbol);
                }
            }
            out.push('\n');
        }
    }
    let letters = |mask: u16| -> String {
        let list: Vec<String> = (0..9)
            .filter(|b| mask & (1 << b) != 0)
            .map(|b| ((b'a' + b as u8) as char).to_string())
            .collect();
        if list.is_empty() {
            "-".to_string()
        } else {
            list.join(" ")
        }
    };
    let x_won = pos.won_boards(Player::X);
    let o_won = pos.won_boards(Player::O);
    let drawn = pos.closed_boards() & !x_won & !o_won;
    let _ = writeln!(
        out,
        "Boards won by X: {}   won by O: {}   drawn: {}",
        letters(x_won),
        letters(o_won),
        letters(drawn)
    );
    match pos.outcome() {
        Outcome::InPlay => {
            let target = match pos.target_board() {
                Some(b) => format!("in board {}", (b'a' + b as u8) as char),
                None => "in any open board".to_string(),
            };
            let moves: Vec<String> = legal.map(|m| m.to_string()).collect();
            let _ = writeln!(out, "{} to move {target}", pos.side_to_move());
            let _ = writeln!(out, "Legal moves ({}): {}", moves.len(), moves.join(" "));
        }
        Outcome::Won(p) => {
            let _ = writeln!(out, "Game over: {p} wins");
        }
        Outcome::Draw => out.push_str("Game over: draw\n"),
    }
    let _ = writeln!(out, "Position: {pos}");
    out
}
