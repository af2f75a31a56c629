//! Command-line options, parsed once into plain structs.

use crate::game::{notation::play_move_list, parse_position_arg, Position};
use anyhow::Context;
use clap::{Args, Parser, Subcommand};

/// Solver for Ultimate Tic Tac Toe (common rules).
#[derive(Parser, Debug)]
#[command(name = "uttt", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Show a position as a board, with its legal moves and notation.
    #[command(after_help = "Example:\n  uttt show \"ee ea ae\"\n  uttt show start --moves ee,ea")]
    Show(ShowArgs),
    /// Count the leaves of the game tree to a fixed depth.
    #[command(after_help = "Example:\n  uttt perft 7\n  uttt perft 5 \"ee ea\" --divide --json")]
    Perft(PerftArgs),
}

/// A position in any accepted form, plus moves to play on top of it.
#[derive(Args, Debug, Clone)]
pub struct PositionArgs {
    /// The position: `start`, the notation (`X;...;...`), or a move list from the start
    /// (`ee ea ae` or `ee,ea,ae`).
    #[arg(default_value = "start")]
    pub position: String,
    /// Moves to play on top of the position (spaces or commas between moves).
    #[arg(long, value_name = "LIST")]
    pub moves: Option<String>,
}

impl PositionArgs {
    /// The position these arguments describe, or an error naming what is wrong.
    pub fn resolve(&self) -> anyhow::Result<Position> {
        let base = parse_position_arg(&self.position)
            .with_context(|| format!("invalid position `{}`", self.position))?;
        match &self.moves {
            None => Ok(base),
            Some(list) => {
                play_move_list(&base, list).with_context(|| format!("invalid --moves `{list}`"))
            }
        }
    }
}

/// Options of `uttt show`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The position to show.
    #[command(flatten)]
    pub position: PositionArgs,
}

/// Options of `uttt perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Depth in plies.
    pub depth: u32,
    /// The root position.
    #[command(flatten)]
    pub position: PositionArgs,
    /// Print the leaf count below each root move.
    #[arg(long)]
    pub divide: bool,
    /// Worker threads (split over root moves).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: u32,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}
