//! `uttt show`: a readable board.

use super::args::ShowArgs;
use super::EXIT_OK;
use crate::game::{Outcome, Player, Position};
use std::io::IsTerminal;

/// Whether to colour output on stdout: only on a terminal, never with `NO_COLOR` set.
pub fn use_colour() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Runs `uttt show`.
pub fn run(args: &ShowArgs) -> anyhow::Result<i32> {
    let pos = args.position.resolve()?;
    let text = render_board(&pos, use_colour());
    std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes())?;
    Ok(EXIT_OK)
}

fn paint(text: &str, ansi: &str, colour: bool) -> String {
    if colour {
        format!("\x1b[{ansi}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// The board as text: 3×3 local boards with separators. Legal move cells show `*`; closed boards
/// are listed under the grid. Ends with the legal moves and the notation line.
pub fn render_board(pos: &Position, colour: bool) -> String {
    let legal = pos.legal_moves();
    let mut out = String::new();
    out.push_str("Boards a-i and cells a-i in reading order; * marks a legal move.\n");
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
                    let symbol = if pos.local_cells(Player::X, board) & bit != 0 {
                        paint("X", "1;31", colour)
                    } else if pos.local_cells(Player::O, board) & bit != 0 {
                        paint("O", "1;34", colour)
                    } else if legal.contains(crate::game::Move::new(board, cell)) {
                        paint("*", "32", colour)
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
    out.push_str(&format!(
        "Boards won by X: {}   won by O: {}   drawn: {}\n",
        letters(x_won),
        letters(o_won),
        letters(drawn)
    ));
    match pos.outcome() {
        Outcome::InPlay => {
            let target = match pos.target_board() {
                Some(b) => format!("in board {}", (b'a' + b as u8) as char),
                None => "in any open board".to_string(),
            };
            let moves: Vec<String> = legal.map(|m| m.to_string()).collect();
            out.push_str(&format!("{} to move {target}\n", pos.side_to_move()));
            out.push_str(&format!(
                "Legal moves ({}): {}\n",
                moves.len(),
                moves.join(" ")
            ));
        }
        Outcome::Won(p) => out.push_str(&format!("Game over: {p} wins\n")),
        Outcome::Draw => out.push_str("Game over: draw\n"),
    }
    out.push_str(&format!("Position: {pos}\n"));
    out
}
