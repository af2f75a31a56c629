//! `uttt.perft` and `uttt.verify`: the game tree counted, and proof certificates checked by the
//! independent verifier, answering the command line's JSON objects as dicts.

use crate::convert::{error_words, to_python, value_error};
use crate::options::duration;
use crate::options::whole;
use crate::position::PyPosition;
use crate::watch::{run_watched, Progress};
use pyo3::exceptions::{PyKeyboardInterrupt, PyTimeoutError};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use uttt::certificate::{check_file_until, CheckFileError};
use uttt::search::dfpn::LiveStats;
use uttt::services::perft::count_perft;
use uttt::services::VerifyJson;

/// perft(position, depth, *, threads=1, divide=False)
/// --
///
/// Counts the leaves `depth` plies below `position` (a finished game has no moves): the dict
/// of `uttt perft --json`, `depth`, `leaves`, `time_ms` and `leaves_per_sec`, with `divide`
/// the leaves below each root move. Runs without the GIL on `threads` threads; it cannot be
/// interrupted, so keep the depth within what a few seconds count (9 from the start is 2.3
/// billion leaves).
#[pyfunction]
#[pyo3(signature = (position, depth, *, threads = None, divide = false),
       text_signature = "(position, depth, *, threads=1, divide=False)")]
pub fn perft<'py>(
    py: Python<'py>,
    position: &Bound<'py, PyAny>,
    depth: &Bound<'py, PyAny>,
    threads: Option<&Bound<'py, PyAny>>,
    divide: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let depth = whole::<u32>("depth", Some(depth))?
        .ok_or_else(|| pyo3::exceptions::PyTypeError::new_err("depth must be a whole number"))?;
    let threads = whole::<usize>("threads", threads)?.unwrap_or(1);
    let pos = PyPosition::from_arg(position)?.pos;
    if threads == 0 {
        return Err(value_error("threads must be at least 1"));
    }
    let count = py
        .detach(|| count_perft(&pos, depth, threads, divide))
        .map_err(error_words)?;
    to_python(py, &count.json(depth))
}

/// verify(certificate, *, time_limit=None)
/// --
///
/// Checks every block of the proof certificate in the file `certificate` (written by
/// `uttt solve --certificate`) with the independent verifier: the dict of
/// `uttt verify --json`, `verified`, each block's check in `blocks` and what they prove
/// together in `proves`. A check stopped before its end proves nothing, so Ctrl-C raises
/// KeyboardInterrupt and `time_limit` (seconds, or text such as `"30s"`) TimeoutError.
/// Raises ValueError, in the command line's words, when the file cannot be read or is not a
/// certificate.
#[pyfunction]
#[pyo3(signature = (certificate, *, time_limit = None))]
pub fn verify<'py>(
    py: Python<'py>,
    certificate: PathBuf,
    time_limit: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let limit = duration("time_limit", time_limit)?;
    let stop = AtomicBool::new(false);
    let live = LiveStats::default();
    let progress = Progress {
        callback: None,
        every: Duration::MAX,
        live: &live,
    };
    let watched = run_watched(py, &stop, &progress, || {
        let deadline = limit.and_then(|limit| Instant::now().checked_add(limit));
        check_file_until(&certificate, &stop, deadline)
    })?;
    match watched.value {
        Ok(check) => to_python(
            py,
            &VerifyJson::of(certificate.display().to_string(), &check),
        ),
        Err(CheckFileError::Stopped { path }) => {
            let stopped = format!(
                "the check of certificate {} stopped before it finished",
                path.display()
            );
            Err(match watched.interrupt {
                Some(_) => PyKeyboardInterrupt::new_err(format!(
                    "{stopped}: it was interrupted; nothing is known of the certificate"
                )),
                None => PyTimeoutError::new_err(format!(
                    "{stopped}: the time limit of {:?} ran out; nothing is known of the \
                     certificate",
                    limit.unwrap_or_default()
                )),
            })
        }
        Err(error) => Err(error_words(error)),
    }
}
