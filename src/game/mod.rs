//! The game core: rules, bitboards, notation and perft. Knows nothing of search or the CLI.

pub mod formats;
mod moves;
pub mod notation;
mod perft;
mod position;
mod random;
pub mod tables;

pub use moves::{Move, MoveSet};
pub use notation::{
    format_moves, format_position, parse_game_arg, parse_move, parse_position, parse_position_arg,
    play_move_list, Game, NotationError,
};
pub use perft::{perft, perft_divide};
pub use position::{Outcome, Player, Position, ANY_BOARD, GAME_OVER};
pub use random::Rng;
