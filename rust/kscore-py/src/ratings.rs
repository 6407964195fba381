//! The rating systems (`kscore_core::ratings`) and the Bradley-Terry
//! posterior sampler (`kscore_core::pairwise::mcmc`) over packed binary
//! rows, for `kscore.rank`'s `elo`, `glicko`, `trueskill` and `bayesian_mcmc`.

use std::ffi::c_void;

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyReadwriteArray1, PyReadwriteArray2};
use pyo3::exceptions::PyValueError;
use pyo3::marker::Ungil;
use pyo3::prelude::*;

use kscore_core::pairwise::counts::Packed;
use kscore_core::pairwise::mcmc::{Chain, Posterior};
use kscore_core::ratings::glicko::{glicko as core_glicko, Glicko};
use kscore_core::ratings::trueskill::{trueskill as core_trueskill, TrueSkill};
use kscore_core::ratings::{elo::elo as core_elo, TiePolicy};
use kscore_core::Error;

use crate::enter::enter_long;
use crate::pairwise::packed;

fn policy_of(name: &str) -> PyResult<TiePolicy> {
    match name {
        "skip" => Ok(TiePolicy::Skip),
        "draw" => Ok(TiePolicy::Draw),
        "correct_draw_only" => Ok(TiePolicy::CorrectDrawOnly),
        other => Err(PyValueError::new_err(format!("unknown tie policy {other:?}"))),
    }
}

type Two<'py> = (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>);

/// Run a rating system over the packed rows with the interpreter released:
/// the rows checked and the tie policy parsed once for all three systems,
/// the cost estimated at `per_pair` nanoseconds per pair of models and event.
fn rate<T, F>(
    py: Python<'_>,
    bits: &PyReadonlyArray2<'_, u8>,
    events: usize,
    policy: &str,
    per_pair: usize,
    run: F,
) -> PyResult<T>
where
    F: Ungil + Send + Sync + Fn(Packed<'_>, TiePolicy) -> Result<T, Error>,
    T: Ungil + Send,
{
    let rows = packed(bits, events)?;
    let policy = policy_of(policy)?;
    let cost = rows
        .rows
        .saturating_mul(rows.rows)
        .saturating_mul(events)
        .saturating_mul(per_pair);
    enter_long(py, cost, || run(rows, policy))
}

/// Two per-model arrays to numpy.
fn two(py: Python<'_>, (a, b): (Vec<f64>, Vec<f64>)) -> Two<'_> {
    (a.into_pyarray(py), b.into_pyarray(py))
}

/// Elo ratings after every event of the packed rows (scorio's order).
#[pyfunction]
pub fn elo<'py>(
    py: Python<'py>,
    bits: PyReadonlyArray2<'py, u8>,
    events: usize,
    k: f64,
    initial: f64,
    policy: &str,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let out = rate(py, &bits, events, policy, 2, |rows, policy| {
        core_elo(rows, k, initial, policy)
    })?;
    Ok(out.into_pyarray(py))
}

/// Glicko ratings and deviations after every event.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn glicko<'py>(
    py: Python<'py>,
    bits: PyReadonlyArray2<'py, u8>,
    events: usize,
    initial_rating: f64,
    initial_rd: f64,
    c: f64,
    rd_max: f64,
    policy: &str,
) -> PyResult<Two<'py>> {
    let out = rate(py, &bits, events, policy, 4, |rows, policy| {
        let p = Glicko {
            initial_rating,
            initial_rd,
            c,
            rd_max,
            policy,
        };
        core_glicko(rows, p)
    })?;
    Ok(two(py, out))
}

/// TrueSkill means and deviations after every event (`trials`: the events
/// per trial are `events / trials`; sigma grows by tau after each trial).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn trueskill<'py>(
    py: Python<'py>,
    bits: PyReadonlyArray2<'py, u8>,
    events: usize,
    trials: usize,
    mu: f64,
    sigma: f64,
    beta: f64,
    tau: f64,
    draw_margin: f64,
    policy: &str,
) -> PyResult<Two<'py>> {
    let out = rate(py, &bits, events, policy, 20, |rows, policy| {
        let p = TrueSkill {
            mu,
            sigma,
            beta,
            tau,
            draw_margin,
            policy,
        };
        core_trueskill(rows, trials, p)
    })?;
    Ok(two(py, out))
}

type StateIn<'py> = (
    PyReadonlyArray1<'py, f64>,
    f64,
    f64,
    u64,
    u64,
    PyReadonlyArray1<'py, f64>,
);
type ChainState<'py> = (Bound<'py, PyArray1<f64>>, f64, f64, u64, u64, Bound<'py, PyArray1<f64>>);

/// Advance scorio's Bradley-Terry Metropolis chain by `len(u)` iterations
/// (`z`: iterations x models standard normals, `u`: uniforms; numpy's draws
/// in scorio's order). `state`: `(theta, log_post, step, accepted,
/// iteration, sums)` of the previous block, or None to start.
#[pyfunction]
#[pyo3(signature = (wins, prior_var, z, u, burnin, state = None))]
pub fn bt_mcmc<'py>(
    py: Python<'py>,
    wins: PyReadonlyArray2<'py, f64>,
    prior_var: f64,
    z: PyReadonlyArray2<'py, f64>,
    u: PyReadonlyArray1<'py, f64>,
    burnin: u64,
    state: Option<StateIn<'py>>,
) -> PyResult<ChainState<'py>> {
    let l = wins.as_array().nrows();
    let w = wins
        .as_slice()
        .map_err(|_| PyValueError::new_err("wins must be C-contiguous"))?;
    let zs = z
        .as_slice()
        .map_err(|_| PyValueError::new_err("z must be C-contiguous"))?;
    let us = u
        .as_slice()
        .map_err(|_| PyValueError::new_err("u must be C-contiguous"))?;
    if wins.as_array().ncols() != l || zs.len() != us.len() * l {
        return Err(PyValueError::new_err(
            "wins must be models x models and z iterations x models",
        ));
    }
    let start = state.map(|(theta, log_post, step, accepted, iteration, sums)| Chain {
        theta: theta.as_array().to_vec(),
        log_post,
        step,
        accepted,
        iteration,
        sums: sums.as_array().to_vec(),
    });
    let cost = us.len().saturating_mul(l).saturating_mul(l).saturating_mul(4);
    let chain = enter_long(py, cost, || {
        let post = Posterior::new(w, l, prior_var);
        let mut chain = match &start {
            Some(c) => c.clone(),
            None => Chain::start(&post),
        };
        chain.advance(&post, zs, us, burnin);
        Ok(chain)
    })?;
    Ok((
        chain.theta.into_pyarray(py),
        chain.log_post,
        chain.step,
        chain.accepted,
        chain.iteration,
        chain.sums.into_pyarray(py),
    ))
}

/// numpy's `bitgen_t` (numpy/random/bitgen.h): a bit generator's state and
/// its functions.
#[repr(C)]
#[allow(dead_code)] // the layout needs every field; two are read
struct BitGen {
    state: *mut c_void,
    next_uint64: unsafe extern "C" fn(*mut c_void) -> u64,
    next_uint32: unsafe extern "C" fn(*mut c_void) -> u32,
    next_double: unsafe extern "C" fn(*mut c_void) -> f64,
    next_raw: unsafe extern "C" fn(*mut c_void) -> u64,
}

/// numpy's `random_standard_normal_fill(bitgen_t *, npy_intp, double *)`.
type NormalFill = unsafe extern "C" fn(*mut BitGen, isize, *mut f64);

/// scorio's draws for `bt_mcmc`, as numpy's `Generator` makes them, one
/// iteration after another: `standard_normal(out=z[t])` then `random()`
/// into `u[t]`, by numpy's own C functions on the generator's bit
/// generator: `bitgen` is `Generator.bit_generator.ctypes.bit_generator`'s
/// address, `normal_fill` that of `random_standard_normal_fill` (exported
/// by `numpy.random._generator`; `kscore.rank._mcmc` finds it and checks
/// the draws against numpy's methods before it uses this). The generator
/// must be alive and used by no other thread during the call.
#[pyfunction]
pub fn numpy_draws(
    bitgen: usize,
    normal_fill: usize,
    mut z: PyReadwriteArray2<'_, f64>,
    mut u: PyReadwriteArray1<'_, f64>,
) -> PyResult<()> {
    let l = z.as_array().ncols();
    let zs = z
        .as_slice_mut()
        .map_err(|_| PyValueError::new_err("z must be C-contiguous"))?;
    let us = u
        .as_slice_mut()
        .map_err(|_| PyValueError::new_err("u must be C-contiguous"))?;
    if bitgen == 0 || normal_fill == 0 || l == 0 || zs.len() != us.len() * l {
        return Err(PyValueError::new_err(
            "numpy_draws: null bit generator or function, or z not iterations x models (models > 0)",
        ));
    }
    let width = isize::try_from(l).map_err(|_| PyValueError::new_err("too many models"))?;
    // SAFETY: the caller (kscore.rank._mcmc) passes the address of a live
    // numpy bitgen_t and of numpy's random_standard_normal_fill, whose
    // signature is `NormalFill`; each row holds `l` doubles.
    unsafe {
        let fill = std::mem::transmute::<usize, NormalFill>(normal_fill);
        let g = bitgen as *mut BitGen;
        for (row, ut) in zs.chunks_exact_mut(l).zip(us.iter_mut()) {
            fill(g, width, row.as_mut_ptr());
            *ut = ((*g).next_double)((*g).state);
        }
    }
    Ok(())
}

/// The room's functions, registered in `_kscore` (one line in lib.rs).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(elo, m)?)?;
    m.add_function(wrap_pyfunction!(glicko, m)?)?;
    m.add_function(wrap_pyfunction!(trueskill, m)?)?;
    m.add_function(wrap_pyfunction!(bt_mcmc, m)?)?;
    m.add_function(wrap_pyfunction!(numpy_draws, m)?)?;
    Ok(())
}
