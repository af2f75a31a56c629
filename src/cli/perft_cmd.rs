//! `uttt perft`: leaf counts with timing.

use super::args::PerftArgs;
use super::EXIT_OK;
use crate::game::{perft, perft_divide};
use std::io::Write;
use std::time::Instant;

/// Runs `uttt perft`.
pub fn run(args: &PerftArgs) -> anyhow::Result<i32> {
    let pos = args.position.resolve()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads as usize)
        .build()?;
    let start = Instant::now();
    let (leaves, divide) = pool.install(|| {
        if args.depth == 0 || (!args.divide && args.threads == 1) {
            (perft(&pos, args.depth), None)
        } else {
            let mut rows = perft_divide(&pos, args.depth);
            rows.sort();
            (rows.iter().map(|(_, n)| n).sum(), Some(rows))
        }
    });
    let seconds = start.elapsed().as_secs_f64();
    let per_sec = if seconds > 0.0 {
        leaves as f64 / seconds
    } else {
        0.0
    };
    let shown = divide.filter(|_| args.divide);
    // Written with `?` rather than println!, so a closed pipe ends quietly instead of panicking.
    let mut out = std::io::stdout().lock();
    if args.json {
        let mut obj = serde_json::json!({
            "depth": args.depth,
            "leaves": leaves,
            "time_ms": (seconds * 1000.0).round() as u64,
            "leaves_per_sec": per_sec.round() as u64,
        });
        if let Some(rows) = &shown {
            let map: serde_json::Map<String, serde_json::Value> = rows
                .iter()
                .map(|(mv, n)| (mv.to_string(), serde_json::Value::from(*n)))
                .collect();
            obj["divide"] = serde_json::Value::Object(map);
        }
        writeln!(out, "{obj}")?;
    } else {
        if let Some(rows) = &shown {
            for (mv, n) in rows {
                writeln!(out, "{mv}: {n}")?;
            }
        }
        writeln!(
            out,
            "perft {}: {} leaves in {:.3} s ({:.1} M leaves/s)",
            args.depth,
            leaves,
            seconds,
            per_sec / 1e6
        )?;
    }
    Ok(EXIT_OK)
}
