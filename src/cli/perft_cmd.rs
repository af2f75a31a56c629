//! `uttt perft`: leaf counts with timing.

use super::args::PerftArgs;
use super::EXIT_OK;
use crate::services::perft::count_perft;
use std::io::Write;

/// Runs `uttt perft`.
pub fn run(args: &PerftArgs) -> anyhow::Result<i32> {
    let pos = args.position.resolve()?;
    let count = count_perft(&pos, args.depth, args.threads as usize, args.divide)?;
    // Written with `?` rather than println!, so a closed pipe ends quietly instead of panicking.
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", count.json(args.depth))?;
    } else {
        if let Some(rows) = &count.divide {
            for (mv, n) in rows {
                writeln!(out, "{mv}: {n}")?;
            }
        }
        writeln!(
            out,
            "perft {}: {} leaves in {:.3} s ({:.1} M leaves/s)",
            args.depth,
            count.leaves,
            count.seconds,
            count.per_second() / 1e6
        )?;
    }
    Ok(EXIT_OK)
}
