//! Running a campaign: a PN-DFPN solve whose trees the database keeps, so that it can be
//! stopped at any moment and resumed by the same request, with the table's snapshot kept
//! beside the database and written while it runs (see [`super::snapshot`]).

use super::refit::{refit_campaign, steering_calibration};
use super::snapshot::{self, SnapshotReport};
use super::{campaign_status, CampaignStatus};
use crate::db::campaign::guide::KeptGuide;
use crate::db::campaign::CampaignId;
use crate::db::key::canonical;
use crate::db::{Database, DbError, Source};
use crate::game::Position;
use crate::search::dfpn::LiveStats;
use crate::search::guide::Guide;
use crate::search::workers::Workers;
use crate::search::{Engine, SolveOptions};
use crate::services::{SolveReport, Solver, StorePolicy, Verdict};
use crate::table::{Table, TableError};
use serde::Serialize;
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// What a campaign run is asked to do.
#[derive(Clone, Debug)]
pub struct CampaignRequest {
    /// The campaign's position.
    pub position: Position,
    /// The database that keeps the campaign (created if missing).
    pub database: PathBuf,
    /// The search's options: the engine must be PN-DFPN, whose tree the campaign keeps.
    pub options: SolveOptions,
    /// MID calls below which a settled position is not stored as a fact of the database.
    pub db_min_work: u64,
    /// The table's snapshot, if one is kept.
    pub snapshot: Option<SnapshotPlan>,
    /// Learn as it goes ([`super::refit`]): steer by the campaign's own refit of the
    /// calibrated guide where it predicts better, and refit after the run. Only with the guide
    /// `calibrated`, an unbounded question and jobs on this process's threads (a bounded
    /// question takes the hand-built numbers, and jobs run elsewhere read the built-in table);
    /// otherwise ignored.
    pub refit: bool,
}

/// Where a campaign keeps its table's snapshot, and how often it writes it.
#[derive(Clone, Debug)]
pub struct SnapshotPlan {
    /// The snapshot file ([`snapshot::snapshot_file`] names the usual one).
    pub path: PathBuf,
    /// The time between two snapshots while the run goes on (at least; see
    /// [`snapshot::while_writing`]).
    pub every: Duration,
}

/// What a campaign run did.
pub struct CampaignRun {
    /// The solve's report.
    pub report: SolveReport,
    /// Where the campaign stands after it.
    pub status: Option<CampaignStatus>,
    /// What the table's snapshot did, if one is kept.
    pub snapshot: Option<SnapshotReport>,
    /// What the run learned, when it learns as it goes ([`CampaignRequest::refit`]).
    pub learning: Option<Learning>,
}

/// The calibrations of a run that learns as it goes.
#[derive(Clone, Debug, Serialize)]
pub struct Learning {
    /// The campaign's refit this run steered by, with its figures; `None`: the built-in
    /// table (no refit kept yet, or the last one did not predict better, was refitted from
    /// another build's table or failed its check).
    pub steered_by: Option<KeptGuide>,
    /// The refit made after the run from all the campaign has settled, which the next run
    /// steers by if it predicts better; `None` when the run settled the campaign, nothing is
    /// settled yet, or the refit failed (told to `warn`).
    pub refit: Option<KeptGuide>,
}

/// Why a campaign cannot run.
#[derive(Debug)]
pub enum CampaignError {
    /// The request names another engine than PN-DFPN.
    WrongEngine(Engine),
    /// The database failed, or cannot hold the campaign.
    Database(DbError),
    /// The snapshot file named is the database itself.
    SnapshotIsDatabase(PathBuf),
    /// The snapshot file exists but cannot be loaded (never overwritten then).
    Snapshot {
        /// The file.
        path: PathBuf,
        /// Why.
        source: TableError,
    },
}

impl fmt::Display for CampaignError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CampaignError::WrongEngine(engine) => write!(
                f,
                "a campaign runs the pn-dfpn engine, whose tree it keeps (not {})",
                engine.name()
            ),
            CampaignError::Database(error) => error.fmt(f),
            CampaignError::SnapshotIsDatabase(path) => write!(
                f,
                "the table snapshot {} is the database itself: name another file",
                path.display()
            ),
            CampaignError::Snapshot { path, .. } => {
                write!(
                    f,
                    "cannot resume from the table snapshot {}",
                    path.display()
                )
            }
        }
    }
}

impl std::error::Error for CampaignError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CampaignError::Database(error) => error.source(),
            CampaignError::Snapshot { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<DbError> for CampaignError {
    fn from(error: DbError) -> CampaignError {
        CampaignError::Database(error)
    }
}

/// A campaign ready to run: its request checked, its database open and its place in it made.
pub struct Campaign<'a> {
    request: &'a CampaignRequest,
    database: Database,
    id: CampaignId,
    snapshot: Option<SnapshotReport>,
}

impl<'a> Campaign<'a> {
    /// The campaign `request` asks for (of its bounded question, with its own trees, when the
    /// options set [`SolveOptions::max_plies`]), with its lease taken: this process is its one
    /// writer until the campaign is dropped ([`crate::db::campaign::lease`]). Refused before
    /// any search when the engine is not PN-DFPN (before the database is opened or created),
    /// when the database cannot hold it, or when another live process runs it
    /// ([`DbError::CampaignBusy`]).
    pub fn open(request: &'a CampaignRequest) -> Result<Campaign<'a>, CampaignError> {
        if request.options.engine != Engine::PnDfpn {
            return Err(CampaignError::WrongEngine(request.options.engine));
        }
        let database = Database::open(&request.database)?;
        let id = database.campaign(&request.position, request.options.max_plies)?;
        database.take_lease(id)?;
        Ok(Campaign {
            request,
            database,
            id,
            snapshot: None,
        })
    }

    /// Loads the request's snapshot, if it names one and the file exists, into `table`.
    pub fn load_snapshot(
        &mut self,
        table: &mut Table,
        stop: &AtomicBool,
    ) -> Result<(), CampaignError> {
        if let Some(plan) = &self.request.snapshot {
            self.snapshot = Some(snapshot::load(table, &plan.path, stop)?);
        }
        Ok(())
    }

    /// Runs (or resumes) the campaign against `table` until it answers, `stop` is raised or
    /// a limit of the options is reached. Counts its nodes in `live` if given; runs its jobs
    /// on `workers` if given (other processes), else on threads of this one. The snapshot
    /// (local workers only: it is this process's table) is written while it runs; a write
    /// that fails is told to `warn` and the run goes on. A run that learns as it goes
    /// ([`CampaignRequest::refit`]) steers by the campaign's refit (a kept refit that fails
    /// its check is told to `warn`, and the run steers by the built-in table) and refits after
    /// it (a refit that fails is told to `warn`; the run's report stands).
    pub fn run(
        mut self,
        table: &Table,
        stop: &AtomicBool,
        live: Option<&LiveStats>,
        workers: Option<&mut (dyn Workers + '_)>,
        warn: &(dyn Fn(&str) + Sync),
    ) -> Result<CampaignRun, CampaignError> {
        let request = self.request;
        let database = &self.database;
        let learns = request.refit
            && request.options.guide == Guide::Calibrated
            && request.options.max_plies.is_none()
            && workers.is_none();
        let steering = if learns {
            steering_calibration(database, self.id).unwrap_or_else(|error| {
                warn(&format!(
                    "{}; this run steers by the built-in calibration",
                    error.with_causes()
                ));
                None
            })
        } else {
            None
        };
        let solve = |workers: Option<&mut (dyn Workers + '_)>| {
            let policy = StorePolicy {
                min_work: request.db_min_work,
                source: Source::Campaign,
            };
            let mut solver = Solver::new(&request.options, table)
                .stopped_by(stop)
                .with_database(database, policy)
                .as_campaign();
            if let Some(live) = live {
                solver = solver.watched_by(live);
            }
            if let Some(workers) = workers {
                solver = solver.jobs_on(workers);
            }
            if let Some((calibration, _)) = &steering {
                solver = solver.calibrated_by(calibration);
            }
            solver.solve(&request.position)
        };
        let report = match (self.snapshot.as_mut(), &request.snapshot, workers) {
            (Some(snapshot), Some(plan), None) => {
                snapshot::while_writing(table, snapshot, plan.every, warn, || solve(None))
            }
            (_, _, workers) => solve(workers),
        };
        let learning = if learns {
            // The run's work is done and kept: a refit that fails is told, never the run's end.
            let refit = if report.verdict == Verdict::Unknown {
                refit_campaign(database, self.id, &canonical(&request.position).1).unwrap_or_else(
                    |error| {
                        warn(&format!(
                            "the campaign's guide was not refitted: {}",
                            error.with_causes()
                        ));
                        None
                    },
                )
            } else {
                None
            };
            Some(Learning {
                steered_by: steering.map(|(_, kept)| kept),
                refit,
            })
        } else {
            None
        };
        let status = campaign_status(database, &request.position, request.options.max_plies)?;
        Ok(CampaignRun {
            report,
            status,
            snapshot: self.snapshot,
            learning,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Opens a campaign of the start with `options` that must be refused, checks that its
    /// database (named after `name`) was not created, and returns the error.
    fn refused_before_database(name: &str, options: SolveOptions) -> CampaignError {
        let database =
            std::env::temp_dir().join(format!("uttt-campaign-{name}-{}.db", std::process::id()));
        let request = CampaignRequest {
            position: Position::start(),
            database: database.clone(),
            options,
            db_min_work: 0,
            snapshot: None,
            refit: true,
        };
        let error = Campaign::open(&request)
            .err()
            .expect("the campaign is refused");
        assert!(!database.exists());
        error
    }

    #[test]
    fn a_campaign_of_another_engine_is_refused_before_its_database_is_created() {
        let options = SolveOptions {
            engine: Engine::Dfpn,
            ..SolveOptions::default()
        };
        assert!(matches!(
            refused_before_database("engine", options),
            CampaignError::WrongEngine(Engine::Dfpn)
        ));
    }
}
