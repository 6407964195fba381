//! The one door from Python into the core (after polars' `enter_polars`):
//! release the interpreter while the kernel runs, turn a Rust panic into a
//! Python exception instead of an abort, map core errors to the exceptions
//! scorio raises, and let Ctrl-C surface as KeyboardInterrupt: when the call
//! ends, or, for long work, within about `POLL` (`enter_long`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

use pyo3::exceptions::{PyFloatingPointError, PyKeyboardInterrupt, PyOverflowError, PyRuntimeError, PyValueError};
use pyo3::marker::Ungil;
use pyo3::prelude::*;

use kscore_core::cancel::{self, Stop, Watch};
use kscore_core::Error;

/// Core errors become the Python exception scorio raises in that situation.
fn to_pyerr(err: Error) -> PyErr {
    match err {
        Error::Value(m) => PyValueError::new_err(m),
        Error::Overflow(m) => PyOverflowError::new_err((34, m)),
        Error::FloatingPoint(m) => PyFloatingPointError::new_err(m),
        // `enter_long` runs interrupted work again or raises the signal
        // handler's exception; this is only a fallback.
        Error::Interrupted => PyKeyboardInterrupt::new_err(()),
    }
}

/// The process that loaded the module; rayon's global pool belongs to it.
static LOADED_IN: OnceLock<u32> = OnceLock::new();
/// A pool for a forked child, tagged with the pid it was built in.
static CHILD_POOL: Mutex<Option<(u32, Arc<rayon::ThreadPool>)>> = Mutex::new(None);

/// Set in a child process by the `pthread_atfork` handler: until a fork,
/// no call needs to ask the kernel for its pid (`getpid` is a system call,
/// about a microsecond in a virtual machine, more than a small call's work).
static FORKED: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn mark_forked() {
    FORKED.store(true, Ordering::Relaxed);
}

/// Remember the loading process (called at module init) and have a forked
/// child marked.
pub fn note_loading_process() {
    LOADED_IN.get_or_init(std::process::id);
    #[cfg(unix)]
    // SAFETY: registers a handler that only stores to an atomic (async-signal-safe).
    unsafe {
        libc::pthread_atfork(None, None, Some(mark_forked));
    }
}

/// Run `work` on rayon threads that exist in this process. A forked child
/// inherits the parent's global pool without its threads (any parallel call
/// would hang, the problem huggingface/tokenizers warns about), so a child
/// gets a pool of its own, built on first use.
fn in_live_pool<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    if !FORKED.load(Ordering::Relaxed) {
        return in_chosen_pool(work);
    }
    let pid = std::process::id();
    if LOADED_IN.get().is_none_or(|&p| p == pid) {
        return in_chosen_pool(work);
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

/// A pool of the thread count chosen (`set_threads`) after rayon's global
/// pool was built with another; None: the global pool.
static CHOSEN_POOL: Mutex<Option<Arc<rayon::ThreadPool>>> = Mutex::new(None);
/// Whether `CHOSEN_POOL` holds a pool (one load on every call's path).
static CHOSEN: AtomicBool = AtomicBool::new(false);

fn in_chosen_pool<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    if !CHOSEN.load(Ordering::Relaxed) {
        return work();
    }
    let pool = CHOSEN_POOL.lock().unwrap_or_else(|e| e.into_inner()).clone();
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// Run the core's parallel work on `n` threads from now on (0: rayon's
/// default, `RAYON_NUM_THREADS` or every core). Before the first parallel
/// call this sizes rayon's global pool itself; after it, a pool of `n`
/// threads is built and every call runs in it (a call then hands its work
/// over to that pool: tens of microseconds, which small calls notice).
/// Returns the threads the core uses now.
pub fn set_threads(n: usize) -> usize {
    let mut guard = CHOSEN_POOL.lock().unwrap_or_else(|e| e.into_inner());
    let global = |guard: &mut Option<Arc<rayon::ThreadPool>>| {
        *guard = None;
        CHOSEN.store(false, Ordering::Relaxed);
        rayon::current_num_threads()
    };
    if n == 0 {
        return global(&mut guard);
    }
    if rayon::ThreadPoolBuilder::new().num_threads(n).build_global().is_ok() || rayon::current_num_threads() == n {
        return global(&mut guard);
    }
    if guard.as_ref().is_some_and(|p| p.current_num_threads() == n) {
        return n;
    }
    match rayon::ThreadPoolBuilder::new().num_threads(n).build() {
        Ok(pool) => {
            *guard = Some(Arc::new(pool));
            CHOSEN.store(true, Ordering::Relaxed);
            n
        }
        Err(_) => global(&mut guard),
    }
}

/// What a run of the work gives: its result, or the panic it raised.
type Outcome<T> = std::thread::Result<Result<T, Error>>;

/// Run `work` on live rayon threads, catching a panic.
fn run<T: Send, F: Fn() -> Result<T, Error> + Sync>(work: &F) -> Outcome<T> {
    in_live_pool(|| catch_unwind(AssertUnwindSafe(work)))
}

/// Estimated single-core nanoseconds of work from which a call is watched
/// for Ctrl-C while it runs (`enter_long`). Below it the work runs on the
/// calling thread with no hand-off (a small call costs microseconds; a
/// thread hand-off tens of them), and a pending signal is raised when it
/// ends. The estimates only need to be right within a factor of ten or so:
/// a call estimated below this takes well under a second.
pub const WATCH_NS: usize = 20_000_000;

/// How often a watched call looks for a pending signal.
const POLL: Duration = Duration::from_millis(50);

/// Run `work` without the interpreter; every binding goes through here (or
/// through `enter_long`, for work that can take seconds).
pub fn enter<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    F: Ungil + Send + Sync + Fn() -> Result<T, Error>,
    T: Ungil + Send,
{
    enter_long(py, 0, work)
}

/// `enter` for work estimated at `cost_ns` single-core nanoseconds (see
/// `WATCH_NS`): from `WATCH_NS` on, the work runs on a thread of its own
/// while the calling thread looks for a pending signal every `POLL`. When
/// Python's signal handler raises (Ctrl-C: KeyboardInterrupt), the kernels
/// are told to stop (`kscore_core::cancel`), and once they have the
/// exception is raised.
///
/// A stop reaches every kernel running at that moment, also other threads'
/// calls: those see `Interrupted` (or a `Watch` that saw the stop) without
/// having asked for it, wait until no stop is held and run their work again,
/// which gives the same bits (every result is deterministic).
pub fn enter_long<T, F>(py: Python<'_>, cost_ns: usize, work: F) -> PyResult<T>
where
    F: Ungil + Send + Sync + Fn() -> Result<T, Error>,
    T: Ungil + Send,
{
    loop {
        let watch = Watch::new();
        let outcome = if cost_ns >= WATCH_NS {
            let (outcome, raised) = watched(py, &work);
            if let Some(err) = raised {
                return Err(err);
            }
            outcome
        } else {
            py.detach(|| run(&work))
        };
        if watch.interrupted() || matches!(outcome, Ok(Err(Error::Interrupted))) {
            // Another call's stop: wait until it is released, then again.
            py.detach(|| {
                while cancel::stopping() {
                    std::thread::sleep(Duration::from_millis(1));
                }
            });
            py.check_signals()?;
            continue;
        }
        py.check_signals()?;
        return finish(outcome);
    }
}

/// `enter` for work that changes state (a count) and so must run exactly
/// once: it is never run again after another call's interrupt (as
/// `enter_long` does), and takes no stop requests; a pending signal is
/// raised when it ends. Keep such work short (a batch, a buffer of lines):
/// a Ctrl-C waits for it.
pub fn enter_once<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    F: Ungil + Send + FnOnce() -> T,
    T: Ungil + Send,
{
    let outcome = py.detach(|| in_live_pool(|| catch_unwind(AssertUnwindSafe(work))));
    py.check_signals()?;
    finish(outcome.map(Ok))
}

/// Run `work` on a thread of its own while this one polls for signals;
/// returns the outcome and the exception a signal handler raised (if any:
/// the work was then stopped). If no thread can be started, the work runs
/// here, unwatched.
fn watched<T, F>(py: Python<'_>, work: &F) -> (Outcome<T>, Option<PyErr>)
where
    F: Ungil + Send + Sync + Fn() -> Result<T, Error>,
    T: Ungil + Send,
{
    let done = (Mutex::new(false), Condvar::new());
    let done = &done;
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("kscore-call".into())
            .spawn_scoped(scope, move || {
                let outcome = run(work);
                *done.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
                done.1.notify_all();
                outcome
            });
        let Ok(handle) = spawned else {
            return (py.detach(|| run(work)), None);
        };
        let mut raised = None;
        let mut stop = None;
        loop {
            let finished = py.detach(|| {
                let guard = done.0.lock().unwrap_or_else(|e| e.into_inner());
                let (guard, _) = done
                    .1
                    .wait_timeout_while(guard, POLL, |finished| !*finished)
                    .unwrap_or_else(|e| e.into_inner());
                *guard
            });
            if finished {
                break;
            }
            if raised.is_none() {
                if let Err(err) = py.check_signals() {
                    raised = Some(err);
                    stop = Some(Stop::new());
                }
            }
        }
        let outcome = py.detach(|| handle.join()).unwrap_or_else(Err);
        drop(stop);
        (outcome, raised)
    })
}

/// A result or a caught panic, as Python sees it.
fn finish<T>(outcome: Outcome<T>) -> PyResult<T> {
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

/// Coarse single-core cost estimates for `enter_long` (nanoseconds; within
/// a factor of a few of the measured times, which is all `WATCH_NS` needs).
pub mod cost {
    /// `states` finite-bank walks of up to `k + 1` terms (~5 ns a term).
    pub fn walks(states: usize, k: u64) -> usize {
        states.saturating_mul(k as usize + 1).saturating_mul(5)
    }

    /// Posterior moments of credits of degrees `k1` and `k2` over `states`:
    /// a Beta-binomial walk of degree `k1 + k2` per state (~20 ns a term)
    /// and, for dense credits, two products of `k1 + k2 + 1` brackets of up
    /// to `min(k1, k2) + 1` terms (~10 ns a term).
    pub fn posterior(states: usize, k1: u64, k2: u64) -> usize {
        let degree = (k1 + k2) as usize + 1;
        let per_state = states.saturating_mul(degree).saturating_mul(20);
        let products = degree.saturating_mul(k1.min(k2) as usize + 1).saturating_mul(20);
        per_state.saturating_add(products)
    }
}
