//! Perft counts with timing, on a pool of threads: what `uttt perft` and the Python package
//! print.

use crate::game::{perft, perft_divide, Move, Position};
use std::time::Instant;

/// A perft count: the leaves, how long counting took, and the leaves below each root move
/// when they were counted apart.
pub struct PerftCount {
    /// Leaf nodes at exactly the depth asked.
    pub leaves: u64,
    /// Wall time of the count.
    pub seconds: f64,
    /// Leaves below each root move, in move order, when counted per move.
    pub divide: Option<Vec<(Move, u64)>>,
}

/// Counts the leaves `depth` plies below `pos` on `threads` threads (per root move when
/// `divide`, or when several threads share the root's moves).
pub fn count_perft(
    pos: &Position,
    depth: u32,
    threads: usize,
    divide: bool,
) -> anyhow::Result<PerftCount> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let start = Instant::now();
    let (leaves, rows) = pool.install(|| {
        if depth == 0 || (!divide && threads == 1) {
            (perft(pos, depth), None)
        } else {
            let mut rows = perft_divide(pos, depth);
            rows.sort();
            (rows.iter().map(|(_, n)| n).sum(), Some(rows))
        }
    });
    Ok(PerftCount {
        leaves,
        seconds: start.elapsed().as_secs_f64(),
        divide: rows.filter(|_| divide),
    })
}

impl PerftCount {
    /// Leaves per second (0 for a count too quick to time).
    pub fn per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.leaves as f64 / self.seconds
        } else {
            0.0
        }
    }

    /// The object `uttt perft --json` prints for this count at `depth`.
    pub fn json(&self, depth: u32) -> serde_json::Value {
        let mut obj = serde_json::json!({
            "depth": depth,
            "leaves": self.leaves,
            "time_ms": (self.seconds * 1000.0).round() as u64,
            "leaves_per_sec": self.per_second().round() as u64,
        });
        if let Some(rows) = &self.divide {
            let map: serde_json::Map<String, serde_json::Value> = rows
                .iter()
                .map(|(mv, n)| (mv.to_string(), serde_json::Value::from(*n)))
                .collect();
            obj["divide"] = serde_json::Value::Object(map);
        }
        obj
    }
}
