//! TailPass kernels for binary banks (docs/kernels.md, K16): numpy arrays of
//! state parameters and integer cutoffs in, profiles and moments out. Each
//! call runs in the core with the interpreter released (`enter`).

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyReadonlyArray3, PyReadwriteArray2};
use pyo3::prelude::*;

use kscore_core::error::Error;
use kscore_core::posterior::endpoint;
use kscore_core::tailpass::{binary, draws};

use crate::enter::{enter, enter_long};

type F64Vector<'py> = Bound<'py, PyArray1<f64>>;
type F64Matrix<'py> = Bound<'py, PyArray2<f64>>;

fn matrix(rows: usize, cols: usize, data: Vec<f64>) -> Result<Array2<f64>, Error> {
    Array2::from_shape_vec((rows, cols), data).map_err(|e| Error::value(e.to_string()))
}

/// Predictive profiles `P(X >= c_t)`, X ~ BB(k, a_u, b_u): shape (U, T).
#[pyfunction]
pub fn tailpass_state_tails<'py>(
    py: Python<'py>,
    k: u64,
    a: PyReadonlyArray1<'py, f64>,
    b: PyReadonlyArray1<'py, f64>,
    cutoffs: PyReadonlyArray1<'py, u64>,
) -> PyResult<F64Matrix<'py>> {
    let (a, b, c) = (a.as_slice()?, b.as_slice()?, cutoffs.as_slice()?);
    let cost = work_ns(&[a.len(), k as usize + c.len() + 1, 20]);
    let out = enter_long(py, cost, || matrix(a.len(), c.len(), binary::state_tails(k, a, b, c)?))?;
    Ok(out.into_pyarray(py))
}

/// Per-state `(means, variances)` of a payoff `u(0..=k)` of the success count.
#[pyfunction]
pub fn tailpass_payoff_moments<'py>(
    py: Python<'py>,
    k: u64,
    a: PyReadonlyArray1<'py, f64>,
    b: PyReadonlyArray1<'py, f64>,
    payoff: PyReadonlyArray1<'py, f64>,
) -> PyResult<(F64Vector<'py>, F64Vector<'py>)> {
    let (a, b, u) = (a.as_slice()?, b.as_slice()?, payoff.as_slice()?);
    let (m, v) = enter(py, || binary::payoff_moments(k, a, b, u))?;
    Ok((m.into_pyarray(py), v.into_pyarray(py)))
}

/// Per-state `(means, variances)` of Pass@k (`pass_ = True`) or Pass^k.
#[pyfunction]
pub fn tailpass_endpoint<'py>(
    py: Python<'py>,
    k: u64,
    a: PyReadonlyArray1<'py, f64>,
    b: PyReadonlyArray1<'py, f64>,
    pass_: bool,
) -> PyResult<(F64Vector<'py>, F64Vector<'py>)> {
    let (a, b) = (a.as_slice()?, b.as_slice()?);
    let (m, v): (Vec<f64>, Vec<f64>) = enter(py, || {
        Ok(a.iter()
            .zip(b)
            .map(|(&a, &b)| {
                let (m, v, _) = if pass_ {
                    endpoint::pass(a, b, k)
                } else {
                    endpoint::unanimous(a, b, k)
                };
                (m, v)
            })
            .unzip())
    })?;
    Ok((m.into_pyarray(py), v.into_pyarray(py)))
}

/// `sum_u f_u Cov_u` of the profile, shape (T, T) (not divided by M^2).
#[pyfunction]
pub fn tailpass_covariance<'py>(
    py: Python<'py>,
    k: u64,
    a: PyReadonlyArray1<'py, f64>,
    b: PyReadonlyArray1<'py, f64>,
    freqs: PyReadonlyArray1<'py, f64>,
    cutoffs: PyReadonlyArray1<'py, u64>,
) -> PyResult<F64Matrix<'py>> {
    let (a, b, f, c) = (a.as_slice()?, b.as_slice()?, freqs.as_slice()?, cutoffs.as_slice()?);
    let cost = work_ns(&[a.len(), k as usize + 1, k as usize + c.len() + 1, 20]);
    let out = enter_long(py, cost, || {
        matrix(c.len(), c.len(), binary::covariance(k, a, b, f, c)?)
    })?;
    Ok(out.into_pyarray(py))
}

/// `sum_u f_u P(X_u >= c_t)`, X_u hypergeometric (k of n, c_u successes).
#[pyfunction]
pub fn tailpass_empirical<'py>(
    py: Python<'py>,
    n: u64,
    successes: PyReadonlyArray1<'py, u64>,
    freqs: PyReadonlyArray1<'py, u64>,
    k: u64,
    cutoffs: PyReadonlyArray1<'py, u64>,
) -> PyResult<F64Vector<'py>> {
    let (s, f, c) = (successes.as_slice()?, freqs.as_slice()?, cutoffs.as_slice()?);
    let out = enter(py, || binary::empirical(n, s, f, k, c))?;
    Ok(out.into_pyarray(py))
}

/// Per-draw profiles summed over questions: theta (draws, q) in, (draws, T) out.
#[pyfunction]
pub fn tailpass_draw_tails<'py>(
    py: Python<'py>,
    k: u64,
    theta: PyReadonlyArray2<'py, f64>,
    cutoffs: PyReadonlyArray1<'py, u64>,
) -> PyResult<F64Matrix<'py>> {
    let (draws, q) = theta.as_array().dim();
    let (th, c) = (theta.as_slice()?, cutoffs.as_slice()?);
    let cost = work_ns(&[draws, q, k as usize + 21]);
    let out = enter_long(py, cost, || matrix(draws, c.len(), draws::draw_tails(k, th, q, c)?))?;
    Ok(out.into_pyarray(py))
}

/// Add per-draw profiles straight from numpy's gamma variates: gammas
/// (q, draws, 2) in numpy's stream order, `out` (draws, T) updated in place;
/// `split = False` keeps the work on the calling thread.
#[pyfunction]
#[pyo3(signature = (k, gammas, cutoffs, out, split = true))]
pub fn tailpass_add_gamma_tails<'py>(
    py: Python<'py>,
    k: u64,
    gammas: PyReadonlyArray3<'py, f64>,
    cutoffs: PyReadonlyArray1<'py, u64>,
    mut out: PyReadwriteArray2<'py, f64>,
    split: bool,
) -> PyResult<()> {
    let (_, n, two) = gammas.as_array().dim();
    if two != 2 {
        return Err(pyo3::exceptions::PyValueError::new_err("gammas must be (q, draws, 2)"));
    }
    let (g, c) = (gammas.as_slice()?, cutoffs.as_slice()?);
    let o = out.as_slice_mut()?;
    // The work adds into a copy: `enter` may run it again after another
    // call's Ctrl-C, and an in-place sum would then count twice.
    let start: &[f64] = o;
    let cost = work_ns(&[g.len() / 2, k as usize + 21]);
    let sum = enter_long(py, cost, || {
        let mut acc = start.to_vec();
        draws::add_gamma_tails(k, g, n, c, &mut acc, split).map(|()| acc)
    })?;
    o.copy_from_slice(&sum);
    Ok(())
}

/// Estimated nanoseconds of single-core work, the product of `factors`
/// (saturating): calls estimated past `enter::WATCH_NS` are watched for
/// Ctrl-C, and their kernels stop between pieces of work.
fn work_ns(factors: &[usize]) -> usize {
    factors.iter().fold(1usize, |a, &f| a.saturating_mul(f))
}
