//! A campaign's own guide: the calibration refitted to what its runs settled, kept between
//! runs with the figures that say whether it predicts better than the built-in one (schema
//! version 4). The database keeps the table's bytes as they are; the search layer reads and
//! checks them (`crate::search::guide::calibration`).

use super::{CampaignId, Database, DbError};
use crate::db::clamp;
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

/// The table of campaigns' refitted calibrations, one row a campaign (the latest refit).
pub(in crate::db) const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS campaign_guides (
        campaign INTEGER PRIMARY KEY REFERENCES campaigns (id),
        calibration BLOB NOT NULL,
        base INTEGER NOT NULL,
        fitted INTEGER NOT NULL,
        held_back INTEGER NOT NULL,
        error_before REAL,
        error_after REAL,
        predicts_better INTEGER NOT NULL CHECK (predicts_better IN (0, 1)),
        created INTEGER NOT NULL
    );";

/// A campaign's refitted calibration and what was measured of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KeptGuide {
    /// The calibration file's bytes (checked when read, by the search layer).
    #[serde(skip)]
    pub calibration: Vec<u8>,
    /// The checksum of the built-in table it was refitted from: a refit of another build's
    /// table is not steered by.
    #[serde(skip)]
    pub base: u64,
    /// Settled positions it was fitted to.
    pub fitted: u64,
    /// Settled positions held back from the fit, to measure it on.
    pub held_back: u64,
    /// On those: the root mean square log2 error of the built-in table's predictions of the
    /// work, if any was held back.
    pub error_before: Option<f64>,
    /// The same for the refit.
    pub error_after: Option<f64>,
    /// Whether the refit predicts the held-back work better (and so steers the next run).
    /// Better predictions are not a faster search: `scripts/refit.sh` measures that.
    pub predicts_better: bool,
    /// When it was fitted, in seconds since the Unix epoch.
    pub created: u64,
}

impl Database {
    /// Keeps `guide` as `campaign`'s, in place of any kept before.
    pub fn keep_guide(&self, campaign: CampaignId, guide: &KeptGuide) -> Result<(), DbError> {
        self.connection()
            .execute(
                "INSERT OR REPLACE INTO campaign_guides (campaign, calibration, base, fitted,
                     held_back, error_before, error_after, predicts_better, created)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    campaign.0,
                    &guide.calibration[..],
                    // The checksum's bits, as SQLite's integers are signed.
                    guide.base as i64,
                    clamp(guide.fitted),
                    clamp(guide.held_back),
                    guide.error_before,
                    guide.error_after,
                    guide.predicts_better,
                    clamp(guide.created),
                ],
            )
            .map_err(|e| self.query_error(e))?;
        Ok(())
    }

    /// The guide kept for `campaign`, if a refit was kept.
    pub fn kept_guide(&self, campaign: CampaignId) -> Result<Option<KeptGuide>, DbError> {
        self.connection()
            .query_row(
                "SELECT calibration, base, fitted, held_back, error_before, error_after,
                     predicts_better, created
                 FROM campaign_guides WHERE campaign = ?1",
                params![campaign.0],
                |row| {
                    Ok(KeptGuide {
                        calibration: row.get(0)?,
                        base: row.get::<_, i64>(1)? as u64,
                        fitted: row.get::<_, i64>(2)?.max(0) as u64,
                        held_back: row.get::<_, i64>(3)?.max(0) as u64,
                        error_before: row.get(4)?,
                        error_after: row.get(5)?,
                        predicts_better: row.get(6)?,
                        created: row.get::<_, i64>(7)?.max(0) as u64,
                    })
                },
            )
            .optional()
            .map_err(|e| self.query_error(e))
    }
}
