//! The engine's errors as Python exceptions, and the guard that turns a Rust panic into one.
//!
//! `noisegraph.GraphError` (a `ValueError`, defined in `noisegraph/_errors.py` so that it
//! pickles with its problems across Dask workers) carries `.problems`, one
//! `noisegraph.Problem(node, field, message)` per problem. Bad requests and limits are
//! `ValueError`s, file errors `OSError`s, device failures `RuntimeError`s.

use std::panic::{catch_unwind, AssertUnwindSafe};

use noisegraph::{Error, GraphErrors};
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// The Python exception for an engine error.
pub fn to_py(py: Python<'_>, error: Error) -> PyErr {
    match error {
        Error::Graph(errors) => graph_error(py, &errors),
        Error::InvalidRequest(message) | Error::Limit(message) => PyValueError::new_err(message),
        Error::Io { path, source } => {
            let message = format!("{path}: {source}");
            match source.kind() {
                std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
                _ => PyOSError::new_err(message),
            }
        }
        other => PyRuntimeError::new_err(other.to_string()),
    }
}

/// `noisegraph.GraphError` with one `noisegraph.Problem` per issue.
pub fn graph_error(py: Python<'_>, errors: &GraphErrors) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let module = py.import("noisegraph._errors")?;
        let problem = module.getattr("Problem")?;
        let problems = errors
            .0
            .iter()
            .map(|issue| {
                problem.call1((
                    issue.node.clone(),
                    issue.field.clone(),
                    issue.message.clone(),
                ))
            })
            .collect::<PyResult<Vec<_>>>()?;
        let error = module
            .getattr("GraphError")?
            .call1((errors.to_string(), problems))?;
        Ok(PyErr::from_value(error))
    };
    build().unwrap_or_else(|e| e)
}

/// A `ValueError` whose message starts with the argument's name.
pub fn bad_value(argument: &str, message: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("{argument}: {message}"))
}

/// A `TypeError` whose message starts with the argument's name.
pub fn bad_type(argument: &str, message: impl std::fmt::Display) -> PyErr {
    pyo3::exceptions::PyTypeError::new_err(format!("{argument}: {message}"))
}

/// Runs `work`, turning a panic (in it or in any rayon worker it waits on) into an error
/// message instead of unwinding into Python. Safe to call without the GIL.
pub fn guarded<T>(work: impl FnOnce() -> T) -> Result<T, Panicked> {
    catch_unwind(AssertUnwindSafe(work)).map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        Panicked(message)
    })
}

/// A panic caught by [`guarded`], with its message.
pub struct Panicked(pub String);

impl From<Panicked> for PyErr {
    fn from(p: Panicked) -> PyErr {
        PyRuntimeError::new_err(format!(
            "noisegraph: internal error (a Rust panic: {}); please report it",
            p.0
        ))
    }
}

/// Panics inside the guard every entry point uses, so that the test suite can check that a
/// panic arrives as a `RuntimeError` (not an abort, nor a `BaseException`).
#[pyfunction(name = "_panic_for_tests")]
pub fn panic_for_tests(py: Python<'_>) -> PyResult<()> {
    py.detach(|| guarded(|| panic!("panic requested by _panic_for_tests")))?;
    Ok(())
}
