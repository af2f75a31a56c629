//! `uttt gen`: positions from seeded random playouts, one notation per line.

use super::args::GenArgs;
use super::EXIT_OK;
use crate::game::{format_position, Position, Rng};
use std::io::Write;

/// Playouts that end early are redrawn at most this many times per position, so a request
/// that cannot be met (e.g. 81 plies without a finished game) still terminates.
const MAX_REDRAWS: usize = 10_000;

/// Runs `uttt gen`.
pub fn run(args: &GenArgs) -> anyhow::Result<i32> {
    let mut rng = Rng::new(args.seed);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for _ in 0..args.count {
        let mut redraws = 0;
        let pos = loop {
            let moves = rng.playout(&Position::start(), args.plies as usize);
            let pos = moves.iter().fold(Position::start(), |p, &m| p.play(m));
            if args.allow_finished || (moves.len() == args.plies as usize && !pos.is_over()) {
                break pos;
            }
            redraws += 1;
            if redraws > MAX_REDRAWS {
                anyhow::bail!(
                    "no game of {} random plies stayed in play in {MAX_REDRAWS} tries; use --allow-finished",
                    args.plies
                );
            }
        };
        writeln!(out, "{}", format_position(&pos))?;
    }
    out.flush()?;
    Ok(EXIT_OK)
}
