//! `uttt show`: a readable board, or the position in another notation or as JSON.

use super::args::{NotationArg, ShowArgs};
use super::use_colour;
use super::EXIT_OK;
use crate::game::formats::{
    format_codingame, format_uttt_ai_moves, format_uttt_ai_state, uttt_ai_moves_link,
    uttt_ai_state_link,
};
use crate::game::{format_moves, format_position, Game, Move, Player, Rules};
use crate::services::board::board_text;
use crate::services::NotationsJson;
use serde::Serialize;
use std::fmt::Write as _;

/// Runs `uttt show`.
pub fn run(args: &ShowArgs) -> anyhow::Result<i32> {
    let game = args.position.resolve_game()?;
    let text = if args.json {
        serde_json::to_string(&ShowJson::of(&game))? + "\n"
    } else if let Some(notation) = args.notation {
        in_notation(&game, notation)?
    } else {
        board_text(&game.position, use_colour())
    };
    std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes())?;
    Ok(EXIT_OK)
}

/// `uttt show --as NOTATION`: the position, then a game's moves, a line each (`name  text`).
/// uttt.ai and CodinGame play with won boards closed, so a position where they stay open has
/// no notation there (its moves would be illegal, or another game, on those sites).
fn in_notation(game: &Game, notation: NotationArg) -> anyhow::Result<String> {
    let pos = &game.position;
    let rules = pos.rules();
    if notation != NotationArg::Uttt && !rules.won_boards_close() {
        anyhow::bail!(
            "uttt.ai and CodinGame close a won board, so a position under the rule set \
             `{rules}` (won boards stay open) has no notation there: use --as uttt"
        );
    }
    let mut out = String::new();
    match notation {
        NotationArg::Uttt => {
            let _ = writeln!(out, "position  {}", format_position(pos));
            if let Some(moves) = &game.moves {
                let _ = writeln!(out, "moves     {}", game_or_start(moves, format_moves));
            }
        }
        NotationArg::UtttAi => {
            let _ = writeln!(out, "state     {}", format_uttt_ai_state(pos));
            let _ = writeln!(out, "link      {}", uttt_ai_state_link(pos));
            if let Some(moves) = game.moves.as_deref().filter(|m| !m.is_empty()) {
                let _ = writeln!(out, "moves     {}", format_uttt_ai_moves(moves));
                let _ = writeln!(out, "link      {}", uttt_ai_moves_link(moves));
            }
        }
        NotationArg::Codingame => {
            let Some(moves) = &game.moves else {
                anyhow::bail!(
                    "CodinGame writes games, not positions: give the position as moves from \
                     the start to see it as CodinGame moves"
                );
            };
            let _ = writeln!(out, "moves     {}", game_or_start(moves, format_codingame));
        }
    }
    Ok(out)
}

/// `moves` written by `format`, or `start` for none (an empty list says nothing).
fn game_or_start(moves: &[Move], format: impl Fn(&[Move]) -> String) -> String {
    if moves.is_empty() {
        "start".to_string()
    } else {
        format(moves)
    }
}

/// `uttt show --json`.
#[derive(Serialize)]
struct ShowJson {
    /// The position in this project's notation (after its rule set's name, when that is not
    /// the common rules).
    position: String,
    /// The rule set, when it is not the common rules.
    #[serde(skip_serializing_if = "Rules::is_common")]
    rules: Rules,
    to_move: Player,
    /// Whether the game is over (then nobody has a legal move).
    game_over: bool,
    legal_moves: Vec<Move>,
    /// A game's moves from the start, when the position was given as one.
    #[serde(skip_serializing_if = "Option::is_none")]
    moves: Option<Vec<Move>>,
    /// Left out when won boards stay open (uttt.ai and CodinGame close them).
    #[serde(skip_serializing_if = "Option::is_none")]
    notations: Option<NotationsJson>,
}

impl ShowJson {
    fn of(game: &Game) -> ShowJson {
        let pos = &game.position;
        let moves = game.moves.as_deref().filter(|m| !m.is_empty());
        ShowJson {
            position: pos.to_string(),
            rules: pos.rules(),
            to_move: pos.side_to_move(),
            game_over: pos.is_over(),
            legal_moves: pos.legal_moves().collect(),
            moves: game.moves.clone(),
            notations: NotationsJson::of(pos, moves),
        }
    }
}
