//! `uttt._native`: the native half of the Python package `uttt` (issue 65). A thin layer over
//! the library: it converts Python's values to the game's and the services' answers to the
//! command line's JSON objects, and decides nothing the services do not. `uttt/__init__.py`
//! is the face users import; the stubs in `uttt/_native.pyi` give the types.
//!
//! - [`position`]: `Position`, the move generator, notations and a learner's tensors;
//! - [`solver`]: `Solver`, solves, analyses and reviews on a table kept between calls;
//! - [`tools`]: `perft` and `verify`;
//! - [`watch`]: searches run without the GIL, stopped by Ctrl-C, with progress callbacks;
//! - [`options`] and [`convert`]: arguments in, answers out.

mod convert;
mod options;
mod position;
mod solver;
mod tools;
mod watch;

use pyo3::prelude::*;

/// The native module; `uttt` re-exports what it holds.
#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<position::PyPosition>()?;
    module.add_class::<solver::PySolver>()?;
    module.add_function(wrap_pyfunction!(tools::perft, module)?)?;
    module.add_function(wrap_pyfunction!(tools::verify, module)?)?;
    module.add("DEFAULT_TABLE_BYTES", options::DEFAULT_TABLE_BYTES)?;
    Ok(())
}
