//! From the library's values to Python's: errors, the services' JSON objects as dicts, move
//! names and numpy arrays.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{IntoPyDict, PyBytes, PyString};
use serde::Serialize;
use uttt::game::Move;

/// A ValueError saying `message` (the command line's words where it has them).
pub fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// A ValueError saying what the command line says of `error` (`error: ` and then this): the
/// error and its causes, each after a colon.
pub fn error_words(error: impl Into<anyhow::Error>) -> PyErr {
    value_error(format!("{:#}", error.into()))
}

/// The 81 moves' names (`aa` .. `ii`) by square, made once: a list of legal moves then only
/// counts references instead of making strings.
pub fn move_strings(py: Python<'_>) -> &[Py<PyString>; 81] {
    static NAMES: PyOnceLock<[Py<PyString>; 81]> = PyOnceLock::new();
    NAMES.get_or_init(py, || {
        std::array::from_fn(|square| {
            PyString::intern(py, &Move::from_square(square).to_string()).unbind()
        })
    })
}

/// `value` as the Python object its JSON reads as: the same keys and values as the command
/// line's `--json` prints, since both serialise the same struct.
pub fn to_python<'py>(py: Python<'py>, value: &impl Serialize) -> PyResult<Bound<'py, PyAny>> {
    static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let text = serde_json::to_string(value)
        .map_err(|error| pyo3::exceptions::PyRuntimeError::new_err(error.to_string()))?;
    let loads = LOADS.get_or_try_init(py, || {
        PyResult::Ok(py.import("json")?.getattr("loads")?.unbind())
    })?;
    loads.bind(py).call1((text,))
}

/// A numpy array of `dtype` and `shape` holding `bytes` (one byte per element, 0 or 1),
/// made by numpy itself so that the package needs no numpy headers to build.
pub fn numpy_array<'py>(
    py: Python<'py>,
    bytes: &[u8],
    shape: &[usize],
    dtype: &str,
) -> PyResult<Bound<'py, PyAny>> {
    static FROMBUFFER: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let frombuffer = FROMBUFFER.get_or_try_init(py, || {
        PyResult::Ok(py.import("numpy")?.getattr("frombuffer")?.unbind())
    })?;
    let flat = frombuffer.bind(py).call(
        (PyBytes::new(py, bytes),),
        Some(&[("dtype", "uint8")].into_py_dict(py)?),
    )?;
    flat.call_method1("reshape", (shape.to_vec(),))?
        .call_method1("astype", (dtype,))
}
