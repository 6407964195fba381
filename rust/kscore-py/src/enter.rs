//! The one door from Python into the core (after polars' `enter_polars`):
//! release the interpreter while the kernel runs, turn a Rust panic into a
//! Python exception instead of an abort, map core errors to the exceptions
//! scorio raises, and let a pending Ctrl-C surface as KeyboardInterrupt.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::exceptions::{PyFloatingPointError, PyOverflowError, PyRuntimeError, PyValueError};
use pyo3::marker::Ungil;
use pyo3::prelude::*;

use kscore_core::Error;

/// Core errors become the Python exception scorio raises in that situation.
fn to_pyerr(err: Error) -> PyErr {
    match err {
        Error::Value(m) => PyValueError::new_err(m),
        Error::Overflow(m) => PyOverflowError::new_err((34, m)),
        Error::FloatingPoint(m) => PyFloatingPointError::new_err(m),
    }
}

/// The process that loaded the module; rayon's global pool belongs to it.
static LOADED_IN: OnceLock<u32> = OnceLock::new();
/// A pool for a forked child, tagged with the pid it was built in.
static CHILD_POOL: Mutex<Option<(u32, Arc<rayon::ThreadPool>)>> = Mutex::new(None);

/// Remember the loading process (called at module init).
pub fn note_loading_process() {
    LOADED_IN.get_or_init(std::process::id);
}

/// Run `work` on rayon threads that exist in this process. A forked child
/// inherits the parent's global pool without its threads (any parallel call
/// would hang, the problem huggingface/tokenizers warns about), so a child
/// gets a pool of its own, built on first use.
fn in_live_pool<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    let pid = std::process::id();
    if LOADED_IN.get().is_none_or(|&p| p == pid) {
        return work();
    }
    let pool = {
        let mut guard = CHILD_POOL.lock().unwrap_or_else(|e| e.into_inner());
        match guard.as_ref() {
            Some((owner, pool)) if *owner == pid => Arc::clone(pool),
            _ => match rayon::ThreadPoolBuilder::new().build() {
                Ok(pool) => {
                    let pool = Arc::new(pool);
                    *guard = Some((pid, Arc::clone(&pool)));
                    pool
                }
                Err(_) => return work(),
            },
        }
    };
    pool.install(work)
}

/// Run `work` without the interpreter; every binding goes through here.
pub fn enter<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    F: Ungil + Send + FnOnce() -> Result<T, Error>,
    T: Ungil + Send,
{
    let outcome = py.detach(|| in_live_pool(|| catch_unwind(AssertUnwindSafe(work))));
    py.check_signals()?;
    match outcome {
        Ok(result) => result.map_err(to_pyerr),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(PyRuntimeError::new_err(format!(
                "kscore internal error (please report): {what}"
            )))
        }
    }
}
