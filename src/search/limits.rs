//! What a search is given from outside besides its question ([`Limits`]): its stop flag and
//! deadline, its live display, and the calibration its guide may read instead of the built-in
//! one.

use super::guide::calibration::Calibration;
use super::guide::{Estimate, Guide};
use super::live::LiveStats;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// What a search is given from outside besides its question: why it may stop before it solves
/// its root, where it reports progress, and the table its guide may read in place of the
/// built-in one. Every searcher and every worker of a search is handed these, which is why
/// the calibration rides here.
#[derive(Clone, Copy, Debug)]
pub struct Limits<'a> {
    /// Raised from outside (Ctrl-C, another thread) to stop as soon as possible.
    pub stop: &'a AtomicBool,
    /// Wall-clock deadline.
    pub deadline: Option<Instant>,
    /// Where to publish progress for a live display, if anyone watches.
    pub live: Option<&'a LiveStats>,
    /// The calibration the guide `calibrated` reads instead of the built-in one: a campaign's
    /// own refit (`crate::services::campaign`). `None`: the built-in one. Like any guide, it
    /// changes the work, never the answer.
    pub calibration: Option<&'a Calibration>,
}

impl<'a> Limits<'a> {
    /// Only `stop`: no deadline, no live display, the built-in tables.
    pub fn stop_only(stop: &'a AtomicBool) -> Limits<'a> {
        Limits {
            stop,
            deadline: None,
            live: None,
            calibration: None,
        }
    }

    /// The source of numbers of `guide` for these limits' searchers: [`Guide::estimate`],
    /// but with [`Limits::calibration`] for the guide `calibrated` where one is given.
    pub fn estimate(&self, guide: Guide) -> Estimate<'a> {
        match (guide, self.calibration) {
            (Guide::Calibrated, Some(calibration)) => Estimate::Calibrated(calibration),
            _ => guide.estimate(),
        }
    }

    /// Whether the stop flag is raised or the deadline has passed.
    pub fn reached(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_give_their_calibration_to_the_calibrated_guide_alone() {
        use crate::search::guide::calibration::CELLS;
        use crate::search::guide::embedded_calibration;
        let stop = AtomicBool::new(false);
        let own = Calibration::of_log2(&vec![3.0; CELLS]);
        let limits = Limits {
            calibration: Some(&own),
            ..Limits::stop_only(&stop)
        };
        let built_in = embedded_calibration().expect("the built-in calibration passes");
        assert!(
            matches!(limits.estimate(Guide::Calibrated), Estimate::Calibrated(c) if std::ptr::eq(c, &own))
        );
        assert!(matches!(limits.estimate(Guide::Rules), Estimate::Rules));
        assert!(matches!(
            limits.estimate(Guide::Learned),
            Estimate::Learned(_)
        ));
        assert!(matches!(
            Limits::stop_only(&stop).estimate(Guide::Calibrated),
            Estimate::Calibrated(c) if std::ptr::eq(c, built_in)
        ));
    }
}
