//! `uttt show`: a readable board.

use super::args::ShowArgs;
use super::board::{render_board, use_colour, LEGAL};
use super::EXIT_OK;

/// Runs `uttt show`.
pub fn run(args: &ShowArgs) -> anyhow::Result<i32> {
    let pos = args.position.resolve()?;
    let text = render_board(&pos, use_colour(), "* marks a legal move.", |_| LEGAL);
    std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes())?;
    Ok(EXIT_OK)
}
