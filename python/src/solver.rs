//! `uttt.Solver`: the services' solver with its table (and database) kept between calls, so
//! that a bot solving at every move reuses what it learned. Its answers are the command
//! line's JSON objects, as dicts.

use crate::convert::{error_words, to_python, value_error};
use crate::options::{duration, engine, size, whole, win_in, StopAfter, DEFAULT_TABLE_BYTES};
use crate::position::PyPosition;
use crate::watch::{run_watched, Progress, Watched};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::Duration;
use uttt::db::{Database, Source};
use uttt::game::{parse_game_arg_under, Move, Position};
use uttt::search::dfpn::{Limits, LiveStats};
use uttt::search::mcts::MctsOptions;
use uttt::search::threads::{check_startable, MAX_THREADS};
use uttt::search::SolveOptions;
use uttt::services::json::review_lines;
use uttt::services::json::PlayJson;
use uttt::services::memory::anonymous_table;
use uttt::services::review::DEFAULT_TIME_LIMIT as DEFAULT_REVIEW_TIME_LIMIT;
use uttt::services::review::{review_win_in, ReviewLimits, DEFAULT_UNKNOWNS_IN_A_ROW};
use uttt::services::{
    AnalysisJson, PlayOptions, SolveJson, Solver, StorePolicy, TreePlayer, WinInMode,
};
use uttt::table::Table;

/// The time limit of `choose` when neither it nor the solver has one, and no playouts bound it
/// (the command line's `uttt play` default).
const DEFAULT_CHOOSE_TIME: Duration = Duration::from_secs(1);

/// How often a progress callback is called unless told otherwise, in seconds.
const DEFAULT_PROGRESS_EVERY_S: f64 = 0.5;

/// A solver whose transposition table (and database of solved positions, with `db`) lasts
/// between calls: a later solve starts from what the earlier ones stored, so a bot that
/// solves at every move, or a second look at a position, costs a fraction of the first.
///
/// `time_limit` (seconds, or text such as `"30s"`) and `node_limit` bound each search;
/// `threads` is the search threads (default: every core), `table_mem` the table's size in
/// bytes or as text (`"64M"`, default `"1G"`), `win_in` how much of a win's distance to find
/// (`"off"`, `"range"` or `"exact"`), `db` the path of a database of solved positions
/// (SQLite, created if missing), `engine` `"pn-dfpn"` (the default), `"dfpn"` or
/// `"shared-dfpn"`, `estimate_playouts` the playouts of the tree search whose estimate
/// `analyze` and `review` show beside a value they leave unknown (default: a quarter of the
/// time limit, or 10000 without one; 0: none). The methods answer with the command line's
/// JSON objects as dicts.
///
/// A search runs without the GIL; Ctrl-C stops it within a second and the call returns what
/// it knows (a value of `unknown`), as the command line does. One solver may serve several
/// threads at once: they share its table.
#[pyclass(module = "uttt", name = "Solver", frozen)]
pub struct PySolver {
    options: SolveOptions,
    win_in: WinInMode,
    /// Playouts of each estimate beside an unknown value (`None`: the command line's default).
    estimate_playouts: Option<u64>,
    table: Table,
    database: Option<Mutex<Database>>,
    /// The tree of `choose`, kept between calls (a game's next position goes on from it).
    player: Mutex<TreePlayer>,
}

/// What a caller may set for one call (keywords of `solve`, `analyze` and `review`): limits in
/// place of the solver's, and a callback that hears the search's progress.
struct CallSettings<'py> {
    time_limit: Option<Duration>,
    node_limit: Option<u64>,
    progress: Option<Bound<'py, PyAny>>,
    progress_every: Duration,
}

impl<'py> CallSettings<'py> {
    /// The settings `keywords` give: `time_limit`, `node_limit`, `progress` and
    /// `progress_every`; TypeError for any other, as Python's own functions say.
    fn read(keywords: Option<&Bound<'py, PyDict>>) -> PyResult<CallSettings<'py>> {
        let mut call = CallSettings {
            time_limit: None,
            node_limit: None,
            progress: None,
            progress_every: Duration::from_secs_f64(DEFAULT_PROGRESS_EVERY_S),
        };
        for (key, value) in keywords.into_iter().flat_map(|k| k.iter()) {
            match key.extract::<String>()?.as_str() {
                "time_limit" => call.time_limit = duration("time_limit", Some(&value))?,
                "node_limit" => call.node_limit = whole("node_limit", Some(&value))?,
                "progress" => call.progress = Some(value).filter(|p| !p.is_none()),
                "progress_every" => {
                    call.progress_every = Duration::try_from_secs_f64(value.extract()?)
                        .ok()
                        .filter(|every| !every.is_zero())
                        .ok_or_else(|| {
                            value_error("progress_every is a positive number of seconds")
                        })?
                }
                other => {
                    return Err(PyTypeError::new_err(format!(
                        "unexpected keyword argument `{other}`: a call takes time_limit, \
                         node_limit, progress and progress_every"
                    )))
                }
            }
        }
        Ok(call)
    }
}

impl PySolver {
    /// The solver's options with the call's limits over them.
    fn options_for(&self, call: &CallSettings<'_>) -> SolveOptions {
        SolveOptions {
            time_limit: call.time_limit.or(self.options.time_limit),
            node_limit: call.node_limit.or(self.options.node_limit),
            ..self.options.clone()
        }
    }

    /// Runs `job` with a solver of `options` on this one's table (and database, storing as
    /// `source`), without the GIL and watched (see [`run_watched`]); on this thread instead
    /// when the game is `over` (no search, nothing to watch).
    fn run<T: Send>(
        &self,
        py: Python<'_>,
        options: &SolveOptions,
        call: &CallSettings<'_>,
        source: Source,
        over: bool,
        job: impl FnOnce(&mut Solver<'_>) -> T + Send,
    ) -> PyResult<Watched<T>> {
        let stop = AtomicBool::new(false);
        let live = LiveStats::default();
        let progress = Progress {
            callback: call.progress.as_ref(),
            every: call.progress_every,
            live: &live,
        };
        let (table, database) = (&self.table, self.database.as_ref());
        let work = || {
            let solver = Solver::new(options, table)
                .stopped_by(&stop)
                .watched_by(&live)
                .estimating_with(self.estimate_playouts);
            let Some(database) = database else {
                return job(&mut { solver });
            };
            // A poisoned lock only means another call panicked; the database itself is whole.
            let database = database
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let policy = StorePolicy {
                min_work: StorePolicy::DEFAULT_MIN_WORK,
                source,
            };
            job(&mut solver.with_database(&database, policy))
        };
        if over {
            // A finished game is answered without a search: nothing to watch, and a thread
            // of its own would cost more than the answer (the call overhead target).
            return Ok(Watched {
                value: work(),
                interrupt: None,
            });
        }
        run_watched(py, &stop, &progress, work)
    }
}

#[pymethods]
impl PySolver {
    #[new]
    #[pyo3(signature = (*, time_limit = None, node_limit = None, threads = None,
                        table_mem = None, win_in = "off", db = None, engine = None,
                        estimate_playouts = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        time_limit: Option<&Bound<'_, PyAny>>,
        node_limit: Option<&Bound<'_, PyAny>>,
        threads: Option<&Bound<'_, PyAny>>,
        table_mem: Option<&Bound<'_, PyAny>>,
        win_in: &str,
        db: Option<PathBuf>,
        engine: Option<&str>,
        estimate_playouts: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PySolver> {
        let node_limit = whole::<u64>("node_limit", node_limit)?;
        let threads = whole::<usize>("threads", threads)?;
        let estimate_playouts = whole::<u64>("estimate_playouts", estimate_playouts)?;
        let defaults = SolveOptions::default();
        if let Some(threads) = threads {
            if !(1..=MAX_THREADS).contains(&threads) {
                return Err(value_error(format!(
                    "threads must be between 1 and {MAX_THREADS}, not {threads}"
                )));
            }
            // A count the system cannot start is refused here, in its words.
            check_startable(threads).map_err(error_words)?;
        }
        let options = SolveOptions {
            engine: self::engine(engine)?.unwrap_or(defaults.engine),
            threads: threads.unwrap_or(defaults.threads),
            time_limit: duration("time_limit", time_limit)?,
            node_limit,
            ..defaults
        };
        let bytes = size("table_mem", table_mem, DEFAULT_TABLE_BYTES)?;
        let table = anonymous_table(bytes).map_err(error_words)?;
        let database = db
            .map(|path| Database::open(&path).map(Mutex::new))
            .transpose()
            .map_err(error_words)?;
        Ok(PySolver {
            options,
            win_in: self::win_in(win_in)?,
            estimate_playouts,
            table,
            database,
            player: Mutex::new(TreePlayer::new()),
        })
    }

    /// Solves `position` (a Position, or its text under the common rules): the dict of
    /// `uttt solve --json`, with `result` `"X"`, `"O"`, `"draw"` or `"unknown"`, `best_move`,
    /// `pv`, the searches' figures and the table's. `time_limit` and `node_limit` replace
    /// the solver's for this call; `progress`, if given, is called every `progress_every`
    /// seconds with a dict of `nodes`, `time_ms`, `root_phi` and `root_delta` (an exception
    /// it raises stops the search and is raised).
    // What `help()` shows of the keywords `**call` takes (see `CallSettings`).
    #[pyo3(
        signature = (position, **call),
        text_signature = "(self, position, *, time_limit=None, node_limit=None, progress=None, \
                          progress_every=0.5)"
    )]
    fn solve<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
        call: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let pos = PyPosition::from_arg(position)?.pos;
        let call = CallSettings::read(call)?;
        let options = self.options_for(&call);
        let mode = self.win_in;
        let report = self
            .run(
                py,
                &options,
                &call,
                Source::Solve,
                pos.is_over(),
                |solver| solver.solve_win_in(&pos, mode),
            )?
            .value;
        if let Some(failure) = report.failure {
            return Err(PyRuntimeError::new_err(format!(
                "the search could not run: {failure}"
            )));
        }
        to_python(py, &SolveJson::of(&report))
    }

    /// Analyses every legal move of `position`: the dict of `uttt analyze --json`, with
    /// `value` (for the side to move) and `moves`, best first, each with its `value` and
    /// `best_reply`; `unknown_moves` lists those a limit left open. The keywords are
    /// `solve`'s. Raises ValueError when the game is over.
    // What `help()` shows of the keywords `**call` takes (see `CallSettings`).
    #[pyo3(
        signature = (position, **call),
        text_signature = "(self, position, *, time_limit=None, node_limit=None, progress=None, \
                          progress_every=0.5)"
    )]
    fn analyze<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
        call: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let pos = PyPosition::from_arg(position)?.pos;
        if pos.is_over() {
            return Err(value_error(format!(
                "the game is over in this position ({pos}): there are no moves to analyse"
            )));
        }
        let call = CallSettings::read(call)?;
        let options = self.options_for(&call);
        let mode = self.win_in;
        let analysis = self
            .run(py, &options, &call, Source::Analyze, false, |solver| {
                solver.analyze_win_in(&pos, mode)
            })?
            .value;
        if let Some(failure) = analysis.failure {
            return Err(PyRuntimeError::new_err(format!(
                "the analysis could not run: {failure}"
            )));
        }
        let threads = options.worker_threads();
        to_python(
            py,
            &AnalysisJson::of(&analysis, options.engine.name(), threads),
        )
    }

    /// Reviews a game: its positions solved from the end backwards on this table, each move
    /// marked best, mistake or blunder. `game` is a Position read or played as a game, or its
    /// text (any notation of games: a move list, a uttt.ai move list or link, CodinGame
    /// moves) under `rules`. Answers the lines of `uttt review --json` as a list of dicts:
    /// one per ply (`"type": "ply"`), then the summary. `time_limit` bounds each position
    /// (default 10 s, as the command line's); the walk stops after `stop_after` unknown
    /// positions in a row (None: walk on to the start). The other keywords are `solve`'s.
    #[pyo3(
        signature = (game, *, rules = "common", stop_after = Some(StopAfter(DEFAULT_UNKNOWNS_IN_A_ROW)),
                     **call),
        text_signature = "(self, game, *, rules='common', stop_after=2, time_limit=None, \
                          node_limit=None, progress=None, progress_every=0.5)"
    )]
    fn review<'py>(
        &self,
        py: Python<'py>,
        game: &Bound<'py, PyAny>,
        rules: &str,
        stop_after: Option<StopAfter>,
        call: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let stop_after = stop_after.map(|n| n.0);
        let (start, moves) = game_moves(game, rules)?;
        if stop_after == Some(0) {
            return Err(value_error(
                "stop_after must be at least 1 (None walks to the start)",
            ));
        }
        let call = CallSettings::read(call)?;
        let mut options = self.options_for(&call);
        options.time_limit = options.time_limit.or(Some(DEFAULT_REVIEW_TIME_LIMIT));
        let limits = ReviewLimits {
            unknowns_in_a_row: stop_after,
        };
        let mode = self.win_in;
        let review = self
            .run(py, &options, &call, Source::Review, false, |solver| {
                review_win_in(&start, &moves, solver, limits, mode, |_| {})
            })?
            .value
            .map_err(|disagree| PyRuntimeError::new_err(disagree.to_string()))?;
        to_python(py, &review_lines(&review, &options))
    }

    /// Chooses a move at `position` by the Monte Carlo tree search that knows what is proved:
    /// the dict of `uttt play --json`, with `move` (None once the game is over), `result`
    /// and `value` (proved values only), `proved`, `bounds` (what is proved when the value is
    /// not, such as "X cannot win") and `estimate` (shares of playouts, never a value, with
    /// the number behind them). Its tree is kept between calls: a call at a position the last
    /// one's tree reaches (after its move and a reply) goes on from it. `time_limit` (default
    /// the solver's, else 1 s unless `playouts` is given) and `playouts` bound the search;
    /// `node_limit` bounds each DFPN look near the end of the game; with one thread, `seed`
    /// and `playouts` the same call gives the same answer; `temperature` > 0 varies the choice
    /// among unproved moves. Its proofs stay in this solver's table.
    #[pyo3(signature = (position, *, time_limit = None, playouts = None, node_limit = None,
                        seed = None, temperature = 0.0),
           text_signature = "(self, position, *, time_limit=None, playouts=None, node_limit=None, \
                             seed=1, temperature=0.0)")]
    #[allow(clippy::too_many_arguments)]
    fn choose<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
        time_limit: Option<&Bound<'py, PyAny>>,
        playouts: Option<&Bound<'py, PyAny>>,
        node_limit: Option<&Bound<'py, PyAny>>,
        seed: Option<&Bound<'py, PyAny>>,
        temperature: f64,
    ) -> PyResult<Bound<'py, PyAny>> {
        let playouts = whole::<u64>("playouts", playouts)?;
        let node_limit = whole::<u64>("node_limit", node_limit)?;
        // The command line's `--seed` default.
        let seed = whole::<u64>("seed", seed)?.unwrap_or(1);
        let pos = PyPosition::from_arg(position)?.pos;
        if playouts == Some(0) {
            return Err(value_error("playouts must be at least 1"));
        }
        if !(temperature >= 0.0 && temperature.is_finite()) {
            return Err(value_error("temperature must be 0 or more"));
        }
        let defaults = MctsOptions::default();
        let time_limit = match (duration("time_limit", time_limit)?, playouts) {
            (Some(limit), _) => Some(limit),
            (None, Some(_)) => self.options.time_limit,
            (None, None) => self.options.time_limit.or(Some(DEFAULT_CHOOSE_TIME)),
        };
        let options = PlayOptions {
            search: MctsOptions {
                threads: self.options.threads,
                seed,
                playouts,
                time_limit,
                leaf_work: node_limit.unwrap_or(defaults.leaf_work),
                ..defaults
            },
            temperature: (temperature > 0.0).then_some(temperature),
        };
        let stop = AtomicBool::new(false);
        let live = LiveStats::default();
        let progress = Progress {
            callback: None,
            every: Duration::from_secs_f64(DEFAULT_PROGRESS_EVERY_S),
            live: &live,
        };
        let (table, database, player) = (&self.table, self.database.as_ref(), &self.player);
        let work = || {
            // A poisoned lock only means another call panicked; the tree and database are whole.
            let mut player = player
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let limits = Limits::stop_only(&stop);
            match database {
                Some(database) => {
                    let database = database
                        .lock()
                        .unwrap_or_else(|poisoned| poisoned.into_inner());
                    player.choose(&pos, table, Some(&database), &options, limits)
                }
                None => player.choose(&pos, table, None, &options, limits),
            }
        };
        let report = run_watched(py, &stop, &progress, work)?
            .value
            .map_err(error_words)?;
        to_python(py, &PlayJson::of(&report, options.search.threads))
    }

    /// The table's size in bytes.
    #[getter]
    fn table_mem(&self) -> u64 {
        self.table.bytes()
    }

    /// The search threads.
    #[getter]
    fn threads(&self) -> usize {
        self.options.worker_threads()
    }
}

/// The start and moves of the game `game` gives (a Position with its moves, or text under the
/// rule set `rules`), or what is wrong in the command line's words.
fn game_moves(game: &Bound<'_, PyAny>, rules: &str) -> PyResult<(Position, Vec<Move>)> {
    let (position, moves) = if let Ok(text) = game.cast::<PyString>() {
        let text = text.to_str()?;
        let rules = uttt::game::Rules::parse(rules).map_err(value_error)?;
        let game = parse_game_arg_under(text, rules)
            .map_err(|error| value_error(format!("invalid game `{text}`: {error}")))?;
        (game.position, game.moves)
    } else {
        let position = PyPosition::from_arg(game)?;
        (position.pos, position.game_moves())
    };
    let moves = moves.ok_or_else(|| {
        value_error(
            "a review needs a game, the moves from the start (a move list, a uttt.ai move \
             list or link, or CodinGame moves), not a position without its moves",
        )
    })?;
    Ok((Position::start_under(position.rules()), moves))
}
