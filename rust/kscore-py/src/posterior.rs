//! Beta-posterior moments of credit vectors and the delta-method blends:
//! the numbers behind every binary `*_ci` function. Each call runs in the
//! core with the interpreter released (`enter`).

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;

use kscore_core::posterior::credit_moments;
use kscore_core::posterior::delta::{self, Powers};

use crate::bank::BinaryBank;
use crate::credit::Credit;
use crate::enter::{cost, enter, enter_long};

/// `(mean, variance)` of the dataset posterior target of `credit` (any
/// degree k >= 1) under p ~ Beta(alpha0 + c, beta0 + N - c) per question.
#[pyfunction]
pub fn posterior_moments(
    py: Python<'_>,
    bank: &BinaryBank,
    credit: &Credit,
    alpha0: f64,
    beta0: f64,
) -> PyResult<(f64, f64)> {
    let (hist, credit) = (&bank.hist, &credit.0);
    let cost = cost::posterior(hist.values.len(), credit.k, credit.k);
    enter_long(py, cost, || {
        credit_moments::posterior(hist, credit, alpha0, beta0).map(|m| (m.mean, m.var))
    })
}

/// `(mean_x, var_x, mean_y, var_y, cov)` of two dataset posterior targets.
#[pyfunction]
pub fn joint_posterior_moments(
    py: Python<'_>,
    bank: &BinaryBank,
    left: &Credit,
    right: &Credit,
    alpha0: f64,
    beta0: f64,
) -> PyResult<(f64, f64, f64, f64, f64)> {
    let (hist, l, r) = (&bank.hist, &left.0, &right.0);
    // Two marginals and the cross moment.
    let cost = (cost::posterior(hist.values.len(), l.k, l.k))
        .saturating_add(cost::posterior(hist.values.len(), r.k, r.k))
        .saturating_add(cost::posterior(hist.values.len(), l.k, r.k));
    enter_long(py, cost, || {
        credit_moments::joint(hist, l, r, alpha0, beta0)
            .map(|j| (j.left.mean, j.left.var, j.right.mean, j.right.var, j.cov))
    })
}

/// Delta-method `(mean, variance)` of `x**a * y**b`; `a_text`/`b_text` are
/// the powers as Python prints them (for scorio's messages).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn delta_blend(
    py: Python<'_>,
    mean_x: f64,
    var_x: f64,
    mean_y: f64,
    var_y: f64,
    cov: f64,
    a: f64,
    b: f64,
    a_text: &str,
    b_text: &str,
) -> PyResult<(f64, f64)> {
    enter(py, || {
        delta::delta(mean_x, var_x, mean_y, var_y, cov, &Powers { a, b, a_text, b_text })
    })
}

/// `x**a * y**b` element-wise with scorio's zero rules and Python's
/// OverflowError; the first offending element (in order) raises.
#[pyfunction]
pub fn blend<'py>(
    py: Python<'py>,
    x: PyReadonlyArray1<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    a: f64,
    b: f64,
    a_text: &str,
    b_text: &str,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (x, y) = (x.as_slice()?, y.as_slice()?);
    let out = enter(py, || {
        let p = Powers { a, b, a_text, b_text };
        x.iter()
            .zip(y)
            .map(|(&xi, &yi)| delta::blend(xi, yi, &p))
            .collect::<Result<Vec<f64>, _>>()
    })?;
    Ok(out.into_pyarray(py))
}

/// Questionwise Geom@k posterior `(mean, variance)`: the delta method per
/// distinct count on Pass@k and Unanimous@k, then averaged.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn geom_posterior(
    py: Python<'_>,
    bank: &BinaryBank,
    k: u64,
    a: f64,
    b: f64,
    a_text: String,
    b_text: String,
    alpha0: f64,
    beta0: f64,
) -> PyResult<(f64, f64)> {
    let hist = &bank.hist;
    enter(py, || {
        let p = Powers {
            a,
            b,
            a_text: &a_text,
            b_text: &b_text,
        };
        delta::geom_questionwise(hist, k, &p, alpha0, beta0)
    })
}
