//! The game core: rules (and rule sets), bitboards, notation and perft. Knows nothing of search or the CLI.

mod arguments;
pub mod formats;
mod moves;
pub mod notation;
mod perft;
mod position;
mod random;
mod rules;
pub mod tables;

pub use arguments::{parse_game_arg, parse_game_arg_under, parse_position_arg, NotationError};
pub use moves::{Move, MoveSet};
pub use notation::{
    format_moves, format_position, parse_move, parse_position, parse_position_under,
    play_move_list, plies_words, read_move_list, shown, Game,
};
pub use perft::{perft, perft_divide};
pub use position::{Outcome, Player, Position, ANY_BOARD, GAME_OVER};
pub use random::Rng;
pub use rules::Rules;
