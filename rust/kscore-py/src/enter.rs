//! The one door from Python into the core (after polars' `enter_polars`):
//! release the interpreter while the kernel runs, turn a Rust panic into a
//! Python exception instead of an abort, map core errors to the exceptions
//! scorio raises, and let a pending Ctrl-C surface as KeyboardInterrupt.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{PyFloatingPointError, PyOverflowError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::marker::Ungil;

use kscore_core::Error;

/// Core errors become the Python exception scorio raises in that situation.
pub fn to_pyerr(err: Error) -> PyErr {
    match err {
        Error::Value(m) => PyValueError::new_err(m),
        Error::Overflow(m) => PyOverflowError::new_err((34, m)),
        Error::FloatingPoint(m) => PyFloatingPointError::new_err(m),
    }
}

/// Run `work` without the interpreter; every binding goes through here.
pub fn enter<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    F: Ungil + Send + FnOnce() -> Result<T, Error>,
    T: Ungil + Send,
{
    let outcome = py.detach(|| catch_unwind(AssertUnwindSafe(work)));
    py.check_signals()?;
    match outcome {
        Ok(result) => result.map_err(to_pyerr),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(PyRuntimeError::new_err(format!("kscore internal error (please report): {what}")))
        }
    }
}
