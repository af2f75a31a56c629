//! Learning as it goes: between runs, a campaign refits the calibrated guide's table to the
//! positions its own runs settled, measures the refit on settled positions held back from it,
//! and steers its next run by the refit only if it predicts their work better than the
//! built-in table.
//!
//! - **Samples:** every settled node of the campaign's kept trees (both questions), with the
//!   job work spent at or below it: what PN-DFPN's root tree settled over all its runs so
//!   far. Unsettled nodes say only "at least", and the fit leaves them out.
//! - **Refit:** from the built-in table, never from an earlier refit, on all samples so far
//!   but the held-back ones ([`refit_means`]): a stage the campaign reaches often moves toward
//!   what its own proofs cost, the others keep the built-in values. The pull toward the
//!   built-in values is `learn calibrate`'s ([`PRIOR_SAMPLES`] samples' worth), and mild on
//!   purpose: with a pull of 5 samples instead of 50 the refit predicted the held-back work
//!   far better and steered the search worse (BENCHMARKS.md, "The learned guide").
//! - **Measure:** one settled position in [`HOLD_BACK_ONE_IN`] (by the hash of its canonical
//!   image, so both questions of a position, and its symmetric images, fall on the same side)
//!   is held back; on those, the root mean square
//!   error of each table's prediction of log2 work ([`log2_error`]), before its shape.
//! - **Use:** the next run steers by the refit when it has at least [`MIN_HELD_BACK`]
//!   held-back positions and a smaller error on them, and was refitted from this build's
//!   built-in table; else by the built-in table. Like any
//!   guide, the table changes the work, never an answer.

use crate::db::campaign::guide::KeptGuide;
use crate::db::campaign::{walk_kept_tree, CampaignId, Question};
use crate::db::key::canonical;
use crate::db::{now_seconds, Database, DbError};
use crate::game::tables::splitmix64;
use crate::game::{Player, Position};
use crate::search::guide::calibration::Calibration;
use crate::search::guide::embedded_calibration;
use crate::search::numbers::Numbers;
#[cfg(doc)]
use crate::services::learn::calibrate::PRIOR_SAMPLES;
use crate::services::learn::calibrate::{log2_error, refit_means, shaped, unshaped, Shape};
use crate::services::learn::{Prepared, Settled};

/// One settled position in this many is held back from the refit, to measure it on.
pub const HOLD_BACK_ONE_IN: u64 = 4;

/// Fewer held-back positions than this say too little of a refit: it is kept, but the next
/// run steers by the built-in table.
pub const MIN_HELD_BACK: u64 = 30;

/// The settled nodes of the kept trees of `campaign`, whose position (in the canonical
/// orientation the trees are kept in) is `root`, as samples: each question's, in the order of
/// a walk of its tree, leaving out nodes no job worked under and those the static rules settle.
pub fn campaign_samples(
    database: &Database,
    campaign: CampaignId,
    root: &Position,
) -> Result<Vec<Prepared>, DbError> {
    let mut samples = Vec::new();
    for attacker in [Player::X, Player::O] {
        let tree = database.kept_tree(Question { campaign, attacker })?;
        walk_kept_tree(&tree, root, |node, pos| {
            let numbers = Numbers {
                phi: node.phi,
                delta: node.delta,
            };
            let result = Settled::of(pos, attacker, numbers);
            if result == Settled::Unsettled || node.work == 0 {
                return;
            }
            samples.extend(Prepared::of_question(
                *pos,
                attacker,
                result,
                node.work.into(),
                0,
            ));
        });
    }
    Ok(samples)
}

/// Whether `sample` is held back from the refit.
fn held_back(sample: &Prepared) -> bool {
    splitmix64(canonical(&sample.position).1.hash())
        .0
        .is_multiple_of(HOLD_BACK_ONE_IN)
}

/// Refits the built-in table to what `campaign` (at `root`, canonical) has settled, keeps the
/// refit and its figures in the database, and returns them; `None` when nothing is settled
/// yet, or the built-in table fails its check (the front ends say so before any search).
pub fn refit_campaign(
    database: &Database,
    campaign: CampaignId,
    root: &Position,
) -> Result<Option<KeptGuide>, DbError> {
    let Ok(base) = embedded_calibration() else {
        return Ok(None);
    };
    let samples = campaign_samples(database, campaign, root)?;
    if samples.is_empty() {
        return Ok(None);
    }
    let (held, fitted): (Vec<Prepared>, Vec<Prepared>) = samples.into_iter().partition(held_back);
    let shape = Shape::default();
    let means = refit_means(base, &fitted, shape);
    let error_before = log2_error(&unshaped(base, shape), &held);
    let error_after = log2_error(&means, &held);
    let predicts_better = held.len() as u64 >= MIN_HELD_BACK
        && matches!((error_before, error_after), (Some(before), Some(after)) if after < before);
    let guide = KeptGuide {
        calibration: shaped(&means, shape).to_bytes(),
        base: base.checksum(),
        fitted: fitted.len() as u64,
        held_back: held.len() as u64,
        error_before,
        error_after,
        predicts_better,
        created: now_seconds(),
    };
    database.keep_guide(campaign, &guide)?;
    Ok(Some(guide))
}

/// What a campaign's next run steers by: its kept refit, when one is kept, predicts better
/// and was refitted from this build's built-in table, with its figures; `Ok(None)` for the
/// built-in table. A kept table that fails its check is an error of the file, which the
/// caller reports before steering by the built-in table.
pub fn steering_calibration(
    database: &Database,
    campaign: CampaignId,
) -> Result<Option<(Calibration, KeptGuide)>, DbError> {
    let Ok(base) = embedded_calibration() else {
        return Ok(None);
    };
    let usable = |kept: &KeptGuide| kept.predicts_better && kept.base == base.checksum();
    let Some(kept) = database.kept_guide(campaign)?.filter(usable) else {
        return Ok(None);
    };
    match Calibration::from_bytes(&kept.calibration) {
        Ok(calibration) => Ok(Some((calibration, kept))),
        Err(error) => Err(database.damaged(&format!("a damaged campaign guide ({error})"))),
    }
}
