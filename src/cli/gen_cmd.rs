//! `uttt gen`: positions from seeded games, one notation (or with `--games`, one move list) per
//! line: random playouts, or games whose moves are chosen by short searches
//! (`--player search`).

use super::args::{GenArgs, GenPlayer};
use super::EXIT_OK;
use crate::game::{format_moves, format_position, Move, Position, Rng};
use crate::services::SearchPlayer;
use crate::table::Table;
use std::io::Write;

/// Games that end early are redrawn at most this many times per position, so a request
/// that cannot be met (e.g. 81 plies without a finished game) still terminates.
const MAX_REDRAWS: usize = 10_000;

/// The table the search player's solves share over all games: small, since each solve is
/// short; it only saves time (a game depends on its seed alone).
const SEARCH_TABLE_BYTES: u64 = 64 << 20;

/// Plays one game from the start, up to the plies asked for, and returns its moves.
type Game<'t> = Box<dyn FnMut(&mut Rng) -> Vec<Move> + 't>;

/// Runs `uttt gen`.
pub fn run(args: &GenArgs) -> anyhow::Result<i32> {
    if !(args.noise.is_finite() && args.noise >= 0.0) {
        anyhow::bail!("--noise must be a number at least 0, not {}", args.noise);
    }
    let mut rng = Rng::new(args.seed);
    let plies = args.plies as usize;
    let start = Position::start_under(args.rule_set.rules);
    let mut play: Game = match args.player {
        GenPlayer::Random => Box::new(move |rng| rng.playout(&start, plies)),
        GenPlayer::Search => {
            let table = Table::new(SEARCH_TABLE_BYTES)?;
            let player = SearchPlayer {
                nodes_per_move: args.search_nodes.max(1),
                noise: args.noise,
            };
            Box::new(move |rng| player.play_game(&start, plies, &table, rng))
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for _ in 0..args.count {
        let mut redraws = 0;
        let (pos, moves) = loop {
            let moves = play(&mut rng);
            let pos = moves.iter().fold(start, |p, &m| p.play(m));
            if args.allow_finished || (moves.len() == plies && !pos.is_over()) {
                break (pos, moves);
            }
            redraws += 1;
            if redraws > MAX_REDRAWS {
                anyhow::bail!(
                    "no game of {} plies stayed in play in {MAX_REDRAWS} tries; use --allow-finished",
                    args.plies
                );
            }
        };
        if args.games {
            writeln!(out, "{}", format_moves(&moves))?;
        } else {
            writeln!(out, "{}", format_position(&pos))?;
        }
        out.flush()?;
    }
    Ok(EXIT_OK)
}
