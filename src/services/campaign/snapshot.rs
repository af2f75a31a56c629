//! The table snapshot of a campaign run: which file, loading it before the run, writing it
//! while the run goes on and when it ends (see `crate::table` on snapshots), and what was
//! done, for the report.

use super::CampaignError;
use crate::files::{check_distinct, remove_stale_parts, NamedPath};
use crate::table::{SnapshotFigures, Table};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often the writing thread checks whether the run has ended.
const TICK: Duration = Duration::from_millis(50);
/// The least time between two snapshots, as a multiple of the last one's writing time: the
/// writing thread then takes at most about a tenth of one core, and of the disk.
const WRITE_SHARE: f64 = 10.0;

/// What the snapshot did in one run, reported under `snapshot` in the JSON.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SnapshotReport {
    /// The snapshot file.
    pub path: PathBuf,
    /// Entries loaded into the table before the run (none when there was no snapshot yet).
    pub loaded_entries: Option<u64>,
    /// Seconds the loading took.
    pub load_seconds: f64,
    /// Snapshots written during and at the end of the run.
    pub written: u32,
    /// Entries in the last snapshot written.
    pub entries: u64,
    /// Bytes of the last snapshot written.
    pub bytes: u64,
    /// Seconds spent writing snapshots (by a thread of its own while the search went on,
    /// except for the last one).
    pub write_seconds: f64,
    /// Why the last write failed, if it did (the campaign goes on without it).
    pub error: Option<String>,
}

/// The snapshot file of a campaign kept in the database at `db`: `explicit` if given, else
/// the database's name with `.table` added. Never the database itself.
pub fn snapshot_file(db: &Path, explicit: Option<&Path>) -> Result<PathBuf, CampaignError> {
    let path = explicit.map_or_else(
        || {
            let mut name = db.as_os_str().to_os_string();
            name.push(".table");
            PathBuf::from(name)
        },
        Path::to_path_buf,
    );
    let named = [
        NamedPath::written("--db", db),
        NamedPath::written("--snapshot", &path),
    ];
    if check_distinct(&named).is_err() {
        return Err(CampaignError::SnapshotIsDatabase(path));
    }
    Ok(path)
}

/// Loads the snapshot at `path` into `table`, if there is one (stopped once `stop` is raised).
/// A file there that is not a snapshot is refused rather than overwritten later.
pub fn load(
    table: &mut Table,
    path: &Path,
    stop: &AtomicBool,
) -> Result<SnapshotReport, CampaignError> {
    let mut report = SnapshotReport {
        path: path.to_path_buf(),
        ..SnapshotReport::default()
    };
    // What a run killed while writing a snapshot left beside it.
    remove_stale_parts(path);
    if path.exists() {
        let began = Instant::now();
        let figures =
            table
                .load_snapshot_until(path, stop)
                .map_err(|source| CampaignError::Snapshot {
                    path: path.to_path_buf(),
                    source,
                })?;
        report.loaded_entries = Some(figures.entries);
        report.load_seconds = began.elapsed().as_secs_f64();
    }
    Ok(report)
}

/// Runs `work` while a thread of its own writes `table`'s snapshot every `every` (or, when
/// writing takes long, no sooner than [`WRITE_SHARE`] times the last write's duration after it,
/// so that a large table does not spend its time on snapshots), then writes it once more;
/// each write (and any failure) is counted in `report`, and a failure also told to `warn` at
/// once (the run goes on without that snapshot).
pub fn while_writing<R: Send>(
    table: &Table,
    report: &mut SnapshotReport,
    every: Duration,
    warn: &(dyn Fn(&str) + Sync),
    work: impl FnOnce() -> R + Send,
) -> R {
    let done = AtomicBool::new(false);
    let path = report.path.clone();
    let (result, mut written) = std::thread::scope(|scope| {
        let writer = std::thread::Builder::new().spawn_scoped(scope, || {
            let mut written = Vec::new();
            let mut last = Instant::now();
            let mut wait = every;
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(TICK);
                if last.elapsed() >= wait {
                    let (outcome, seconds) = timed_save(table, &path, warn);
                    written.push((outcome, seconds));
                    wait = every.max(Duration::from_secs_f64(seconds * WRITE_SHARE));
                    last = Instant::now();
                }
            }
            written
        });
        if let Err(error) = &writer {
            warn(&format!(
                "cannot start the snapshot's thread ({error}): the snapshot is written when \
                 the run ends only"
            ));
        }
        let result = work();
        done.store(true, Ordering::Relaxed);
        let written = match writer {
            Ok(writer) => writer.join().expect("the snapshot thread panicked"),
            Err(_) => Vec::new(),
        };
        (result, written)
    });
    written.push(timed_save(table, &path, warn));
    for (outcome, seconds) in written {
        report.write_seconds += seconds;
        match outcome {
            Ok(figures) => {
                report.written += 1;
                report.entries = figures.entries;
                report.bytes = figures.bytes;
                report.error = None;
            }
            Err(error) => report.error = Some(error),
        }
    }
    result
}

/// One snapshot written, with the seconds it took.
fn timed_save(
    table: &Table,
    path: &Path,
    warn: &(dyn Fn(&str) + Sync),
) -> (Result<SnapshotFigures, String>, f64) {
    let began = Instant::now();
    // With the system's reason (a full disk, a read-only directory), not only what failed.
    let outcome = table
        .save_snapshot(path)
        .map_err(|e| format!("{:#}", anyhow::Error::from(e)));
    if let Err(error) = &outcome {
        warn(&format!("the table snapshot was not written: {error}"));
    }
    (outcome, began.elapsed().as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snapshot_is_named_after_the_database_unless_named_and_never_is_the_database() {
        let db = Path::new("/nonexistent/campaign.db");
        assert_eq!(
            snapshot_file(db, None).unwrap(),
            PathBuf::from("/nonexistent/campaign.db.table")
        );
        let named = Path::new("/nonexistent/other.table");
        assert_eq!(snapshot_file(db, Some(named)).unwrap(), named);
        assert!(matches!(
            snapshot_file(db, Some(db)),
            Err(CampaignError::SnapshotIsDatabase(path)) if path == db
        ));
    }
}
