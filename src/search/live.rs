//! What a running search shows a live display: nodes so far and the root's numbers, updated
//! every few thousand nodes.

use super::numbers::Numbers;
use std::sync::atomic::{AtomicU64, Ordering};

/// Progress figures a search publishes for a live display (updated every few thousand nodes).
#[derive(Debug, Default)]
pub struct LiveStats {
    /// Nodes searched so far, over all searches of the solve.
    pub nodes: AtomicU64,
    /// The current root numbers, φ and δ packed in one word so that a reader never sees the
    /// φ of one update with the δ of another.
    root: AtomicU64,
    /// PN-DFPN: nodes in the root tree now (zero for the other engines).
    pub tree_nodes: AtomicU64,
    /// PN-DFPN: jobs merged so far, over all searches of the solve.
    pub jobs: AtomicU64,
}

impl LiveStats {
    /// Shows `numbers` as the root's current numbers.
    pub fn publish_root(&self, numbers: Numbers) {
        self.root.store(numbers.pack(), Ordering::Relaxed);
    }

    /// The root's numbers as last published (zeros before any).
    pub fn root(&self) -> Numbers {
        Numbers::unpack(self.root.load(Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn the_live_root_numbers_are_never_a_mix_of_two_updates() {
        let live = LiveStats::default();
        let pairs = [Numbers { phi: 1, delta: 2 }, Numbers { phi: 3, delta: 4 }];
        let done = AtomicBool::new(false);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                for i in 0..2_000_000 {
                    live.publish_root(pairs[i % 2]);
                }
                done.store(true, Ordering::Relaxed);
            });
            let mut reads = 0u64;
            while !done.load(Ordering::Relaxed) || reads < 1_000 {
                let seen = live.root();
                assert!(
                    seen == Numbers { phi: 0, delta: 0 } || pairs.contains(&seen),
                    "a torn pair: {seen:?}"
                );
                reads += 1;
            }
        });
    }
}
