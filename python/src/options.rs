//! From Python's arguments to the services' options: durations, sizes and names read as the
//! command line reads them, with its words when they are wrong.

use crate::convert::value_error;
use pyo3::prelude::*;
use pyo3::types::PyString;
use std::time::Duration;
use uttt::search::Engine;
use uttt::services::units::{parse_duration, parse_size, MAX_DURATION};
use uttt::services::WinInMode;

/// The table size when none is given: the command line's `--table-mem` default. A table takes
/// memory only as the search fills it, so a small solve costs little of it.
pub const DEFAULT_TABLE_BYTES: u64 = 1 << 30;

/// A duration argument called `name`: seconds as a number, or text as the command line
/// writes it (`500ms`, `30s`, `2m`); None for none.
pub fn duration(name: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Duration>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    if let Ok(text) = value.cast::<PyString>() {
        let text = text.to_str()?;
        return parse_duration(text)
            .map(Some)
            .map_err(|error| value_error(format!("invalid {name} `{text}`: {error}")));
    }
    let seconds: f64 = value.extract().map_err(|_| {
        value_error(format!(
            "{name} is a number of seconds or a duration such as `30s`"
        ))
    })?;
    match Duration::try_from_secs_f64(seconds) {
        Ok(limit) if limit <= MAX_DURATION => Ok(Some(limit)),
        _ => Err(value_error(format!(
            "invalid {name} {seconds}: a duration is between 0 and {} s",
            MAX_DURATION.as_secs()
        ))),
    }
}

/// A size in bytes called `name`: a number, or text as the command line writes it (`64M`,
/// `1G`); `default` when not given.
pub fn size(name: &str, value: Option<&Bound<'_, PyAny>>, default: u64) -> PyResult<u64> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(default);
    };
    if let Ok(text) = value.cast::<PyString>() {
        let text = text.to_str()?;
        return parse_size(text)
            .map_err(|error| value_error(format!("invalid {name} `{text}`: {error}")));
    }
    value.extract().map_err(|_| {
        value_error(format!(
            "{name} is a number of bytes or a size such as `64M`"
        ))
    })
}

/// `win_in`: how much of a win's distance a solve finds (`off`, `range` or `exact`).
pub fn win_in(name: &str) -> PyResult<WinInMode> {
    match name {
        "off" => Ok(WinInMode::Off),
        "range" => Ok(WinInMode::Range),
        "exact" => Ok(WinInMode::Exact),
        _ => Err(value_error(format!(
            "invalid win_in `{name}`: expected off, range or exact"
        ))),
    }
}

/// `engine`: a search engine by the name the JSON gives it; None for the default.
pub fn engine(name: Option<&str>) -> PyResult<Option<Engine>> {
    let engines = [Engine::PnDfpn, Engine::Dfpn, Engine::SharedDfpn];
    let Some(name) = name else {
        return Ok(None);
    };
    engines
        .into_iter()
        .find(|engine| engine.name() == name)
        .map(Some)
        .ok_or_else(|| {
            let names: Vec<&str> = engines.iter().map(|engine| engine.name()).collect();
            value_error(format!(
                "invalid engine `{name}`: expected {}",
                names.join(", ")
            ))
        })
}

/// A whole-number argument called `name`, of type `T`: any Python int, refused with
/// ValueError (as the docs say of out-of-range numbers) when `T` cannot hold it, and with
/// TypeError when it is no int; None for none. PyO3's own conversion raises OverflowError for
/// `-1` or `2**64` as a `u64`, without the argument's name.
pub fn whole<T>(name: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<T>>
where
    T: TryFrom<i128> + Bounds,
{
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    if !value.is_instance_of::<pyo3::types::PyInt>() {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{name} must be a whole number, not {}",
            value.get_type().name()?
        )));
    }
    let out_of_range = || {
        value_error(format!(
            "{name} must be a whole number from {} to {}, not {}",
            T::LEAST,
            T::MOST,
            value
                .repr()
                .map_or_else(|_| "this".to_string(), |r| r.to_string())
        ))
    };
    let wide: i128 = value.extract().map_err(|_| out_of_range())?;
    T::try_from(wide).map(Some).map_err(|_| out_of_range())
}

/// The range of a whole-number type, for [`whole`]'s words.
pub trait Bounds {
    /// Its least value.
    const LEAST: i128;
    /// Its greatest value.
    const MOST: i128;
}

impl Bounds for u32 {
    const LEAST: i128 = 0;
    const MOST: i128 = u32::MAX as i128;
}

impl Bounds for u64 {
    const LEAST: i128 = 0;
    const MOST: i128 = u64::MAX as i128;
}

impl Bounds for usize {
    const LEAST: i128 = 0;
    const MOST: i128 = usize::MAX as i128;
}

/// `review`'s `stop_after`: a whole number, read as [`whole`] reads one, as an argument type
/// of its own so that its default (2) and an explicit None (walk on to the start) stay apart.
#[derive(Clone, Copy, Debug)]
pub struct StopAfter(pub usize);

impl<'a, 'py> FromPyObject<'a, 'py> for StopAfter {
    type Error = PyErr;

    fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<StopAfter> {
        let value = obj.to_owned();
        let count = whole::<usize>("stop_after", Some(&value))?;
        Ok(StopAfter(count.unwrap_or_default()))
    }
}
