//! Positions on the command line: in any accepted notation, with moves on top, under a rule
//! set.

use super::SolveArgs;
use crate::game::{parse_game_arg_under, read_move_list, shown, Game, Position, Rules};
use anyhow::Context;
use clap::Args;

/// Reads `--rules`: a rule set's short name (see [`Rules::parse`]).
pub fn parse_rules(name: &str) -> Result<Rules, String> {
    Rules::parse(name)
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
    /// The rule set.
    #[command(flatten)]
    pub rule_set: RuleSetArg,
}

/// `--rules NAME`, on every command that takes a position or a game.
#[derive(Args, Debug, Clone, Copy)]
pub struct RuleSetArg {
    /// The rule set: `common`, `open` (won boards stay open until full) or `codingame` (a
    /// game without a line goes to the player with more won boards).
    #[arg(long, value_name = "NAME", default_value = "common", value_parser = parse_rules)]
    pub rules: Rules,
}

impl PositionArgs {
    /// The position these arguments describe, or an error naming what is wrong.
    pub fn resolve(&self) -> anyhow::Result<Position> {
        self.resolve_game().map(|game| game.position)
    }

    /// The position these arguments describe with, when they give a game from the start, its
    /// moves, or an error naming what is wrong.
    pub fn resolve_game(&self) -> anyhow::Result<Game> {
        let base = parse_game_arg_under(&self.position, self.rule_set.rules)
            .with_context(|| format!("invalid position `{}`", shown(&self.position)))?;
        let Some(list) = &self.moves else {
            return Ok(base);
        };
        let (position, more) = read_move_list(&base.position, list)
            .with_context(|| format!("invalid --moves `{}`", shown(list)))?;
        let moves = base.moves.map(|mut moves| {
            moves.extend(more);
            moves
        });
        Ok(Game { position, moves })
    }
}

impl SolveArgs {
    /// The single position to solve (without `--file`), or an error naming what is wrong.
    pub fn resolve_position(&self) -> anyhow::Result<Position> {
        PositionArgs {
            position: self.position.clone().unwrap_or_else(|| "start".to_string()),
            moves: self.moves.clone(),
            rule_set: self.rule_set,
        }
        .resolve()
    }
}
