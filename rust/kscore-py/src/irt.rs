//! Item response theory (`kscore_core::irt`): the checks and joint fits
//! behind `kscore.rank`'s IRT rankers. Count matrices come as C-contiguous
//! uint8 or uint32 (models x questions); the Python layer makes them.

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use kscore_core::irt::logistic::{Guessing, Logistic};
use kscore_core::irt::newton::{minimise, Fit, Setup};
use kscore_core::irt::prior::Prior;
use kscore_core::irt::rasch::Rasch;
use kscore_core::irt::{board, orbits, schur, Count};
use kscore_core::Error;

use crate::enter::enter_long;

/// A count matrix borrowed in place.
pub enum Counts<'py> {
    U8(PyReadonlyArray2<'py, u8>),
    U32(PyReadonlyArray2<'py, u32>),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Counts<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let expected = "expected a C-contiguous 2-D numpy array of uint8 or uint32 counts";
        let array = obj
            .cast::<PyUntypedArray>()
            .map_err(|_| PyTypeError::new_err(expected))?
            .to_owned();
        let dtype = array.dtype();
        if array.ndim() == 2 && dtype.is_native_byteorder().unwrap_or(true) && dtype.kind() == b'u' {
            // SAFETY: kind, item size, byte order and ndim match the type.
            match dtype.itemsize() {
                1 => {
                    let typed = unsafe { array.cast_unchecked::<PyArray2<u8>>() };
                    return typed
                        .try_readonly()
                        .map(Counts::U8)
                        .map_err(|e| PyValueError::new_err(e.to_string()));
                }
                4 => {
                    let typed = unsafe { array.cast_unchecked::<PyArray2<u32>>() };
                    return typed
                        .try_readonly()
                        .map(Counts::U32)
                        .map_err(|e| PyValueError::new_err(e.to_string()));
                }
                _ => {}
            }
        }
        Err(PyTypeError::new_err(expected))
    }
}

/// `(slice, rows, cols)` of a contiguous count matrix, by element type.
macro_rules! on_counts {
    ($counts:expr, ($k:ident, $l:ident, $m:ident) => $body:expr) => {
        match &$counts {
            Counts::U8(a) => {
                let ($l, $m) = a.as_array().dim();
                let $k: &[u8] = a.as_slice()?;
                $body
            }
            Counts::U32(a) => {
                let ($l, $m) = a.as_array().dim();
                let $k: &[u32] = a.as_slice()?;
                $body
            }
        }
    };
}

fn prior_of(
    kind: &str,
    a: f64,
    b: f64,
    means: Option<PyReadonlyArray1<'_, f64>>,
    variances: Option<PyReadonlyArray1<'_, f64>>,
) -> PyResult<Prior> {
    let or = |given: Option<PyReadonlyArray1<'_, f64>>, one: f64| -> PyResult<Vec<f64>> {
        Ok(match given {
            Some(v) => v.as_slice()?.to_vec(),
            None => vec![one],
        })
    };
    Ok(match kind {
        "flat" => Prior::Flat,
        "gaussian" => Prior::Gaussian {
            mean: or(means, a)?,
            var: or(variances, b)?,
        },
        "laplace" => Prior::Laplace { loc: a, scale: b },
        "cauchy" => Prior::Cauchy { loc: a, scale: b },
        _ => return Err(PyValueError::new_err(format!("unknown prior kind {kind:?}"))),
    })
}

/// Whether the person/item response graph of `k` (counts out of `n`) is
/// strongly connected: a finite joint estimate exists (no separation).
#[pyfunction]
pub fn irt_connected(py: Python<'_>, k: Counts<'_>, n: u32) -> PyResult<bool> {
    on_counts!(k, (k, l, m) => enter_long(py, l.saturating_mul(m).saturating_mul(2), || board::strongly_connected(k, l, m, n)))
}

/// Each model's orbit under simultaneous model/question relabellings that
/// keep `k`: the smallest member's index.
#[pyfunction]
pub fn irt_orbits<'py>(py: Python<'py>, k: Counts<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let orbit = on_counts!(k, (k, l, m) => enter_long(py, l.saturating_mul(m).saturating_mul(20), || orbits::model_orbits(k, l, m)))?;
    Ok(orbit.into_iter().map(|v| v as i64).collect::<Vec<_>>().into_pyarray(py))
}

/// What a fit returns to Python: `(x, value, iterations, converged, gradient)`.
type FitResult<'py> = (Bound<'py, PyArray1<f64>>, f64, usize, bool, f64);

fn fit_result(py: Python<'_>, fit: Fit) -> FitResult<'_> {
    (
        fit.x.into_pyarray(py),
        fit.value,
        fit.iterations,
        fit.converged,
        fit.gradient,
    )
}

fn checked(x0: &[f64], dim: usize) -> Result<(), Error> {
    if x0.len() != dim || x0.iter().any(|v| !v.is_finite()) {
        return Err(Error::value("irt: the start must have one finite entry per parameter"));
    }
    Ok(())
}

/// The Rasch joint fit on grouped totals: abilities of the person groups
/// (`person_count` models, their totals summing to `person_total`), then
/// difficulties of the item groups, from `x0`; difficulties centred with
/// the item groups' sizes as weights.
#[pyfunction]
#[pyo3(signature = (n, person_count, person_total, item_count, item_total, x0, max_iter, prior="flat", prior_a=0.0, prior_b=1.0, prior_means=None, prior_variances=None))]
#[allow(clippy::too_many_arguments)]
pub fn irt_rasch<'py>(
    py: Python<'py>,
    n: u32,
    person_count: PyReadonlyArray1<'py, f64>,
    person_total: PyReadonlyArray1<'py, f64>,
    item_count: PyReadonlyArray1<'py, f64>,
    item_total: PyReadonlyArray1<'py, f64>,
    x0: PyReadonlyArray1<'py, f64>,
    max_iter: usize,
    prior: &str,
    prior_a: f64,
    prior_b: f64,
    prior_means: Option<PyReadonlyArray1<'py, f64>>,
    prior_variances: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<FitResult<'py>> {
    let prior = prior_of(prior, prior_a, prior_b, prior_means, prior_variances)?;
    let (pc, pt) = (person_count.as_slice()?, person_total.as_slice()?);
    let (ic, it) = (item_count.as_slice()?, item_total.as_slice()?);
    let x0 = x0.as_slice()?;
    let cost = pc.len().saturating_mul(ic.len()).saturating_mul(400);
    let fit = enter_long(py, cost, || {
        if pc.len() != pt.len() || ic.len() != it.len() {
            return Err(Error::value("irt_rasch: counts and totals must have equal lengths"));
        }
        checked(x0, pc.len() + ic.len())?;
        prior.check(pc.len())?;
        let mut model = Rasch::new(n, pc.to_vec(), pt.to_vec(), ic.to_vec(), it.to_vec());
        let setup = Setup {
            prior: &prior,
            theta_weight: pc,
            item_weight: ic,
            bound: None,
            max_iter,
        };
        minimise(&mut model, &setup, x0)
    })?;
    Ok(fit_result(py, fit))
}

/// The 2PL/3PL joint fit on the count matrix `k` (out of `n`): parameters
/// `[theta (L), (b, log a[, guessing logit]) per item]` from `x0`, the log
/// discriminations kept in `[-bound, bound]`, difficulties centred.
/// `guessing`: "zero" (2PL), "fixed" (`c`), or "free" (`c = upper
/// sigmoid(gamma)`, ridge `reg_guessing` on gamma).
#[pyfunction]
#[pyo3(signature = (k, n, x0, max_iter, reg_discrimination, bound, guessing="zero", c=0.0, reg_guessing=0.0, prior="flat", prior_a=0.0, prior_b=1.0, prior_means=None, prior_variances=None))]
#[allow(clippy::too_many_arguments)]
pub fn irt_logistic<'py>(
    py: Python<'py>,
    k: Counts<'py>,
    n: u32,
    x0: PyReadonlyArray1<'py, f64>,
    max_iter: usize,
    reg_discrimination: f64,
    bound: f64,
    guessing: &str,
    c: f64,
    reg_guessing: f64,
    prior: &str,
    prior_a: f64,
    prior_b: f64,
    prior_means: Option<PyReadonlyArray1<'py, f64>>,
    prior_variances: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<FitResult<'py>> {
    let prior = prior_of(prior, prior_a, prior_b, prior_means, prior_variances)?;
    let guessing = match guessing {
        "zero" => Guessing::Zero,
        "fixed" => Guessing::Fixed(c),
        "free" => Guessing::Free {
            upper: c,
            reg: reg_guessing,
        },
        _ => return Err(PyValueError::new_err(format!("unknown guessing {guessing:?}"))),
    };
    let x0 = x0.as_slice()?;
    let fit = on_counts!(k, (k, l, m) => {
        let cost = l.saturating_mul(m).saturating_mul(2000);
        enter_long(py, cost, || {
            let p = if matches!(guessing, Guessing::Free { .. }) { 3 } else { 2 };
            checked(x0, l + m * p)?;
            prior.check(l)?;
            generic_logistic(k, l, m, n, guessing, reg_discrimination, bound, &prior, x0, max_iter)
        })
    })?;
    Ok(fit_result(py, fit))
}

#[allow(clippy::too_many_arguments)]
fn generic_logistic<T: Count>(
    k: &[T],
    l: usize,
    m: usize,
    n: u32,
    guessing: Guessing,
    reg_d: f64,
    bound: f64,
    prior: &Prior,
    x0: &[f64],
    max_iter: usize,
) -> Result<Fit, Error> {
    let mut model = Logistic::new(k, l, m, n, guessing, reg_d);
    let (tw, iw) = (vec![1.0; l], vec![1.0; m]);
    let setup = Setup {
        prior,
        theta_weight: &tw,
        item_weight: &iw,
        bound: Some((1, -bound, bound)),
        max_iter,
    };
    minimise(&mut model, &setup, x0)
}

/// `dynamic_irt`'s Newton step with the difficulties eliminated
/// (`kscore_core::irt::schur`): the ability-side step, or None where the
/// Schur complement is not positive definite.
#[pyfunction]
pub fn irt_eliminated_step<'py>(
    py: Python<'py>,
    a: PyReadonlyArray2<'py, f64>,
    b: PyReadonlyArray2<'py, f64>,
    dg: PyReadonlyArray1<'py, f64>,
    gp: PyReadonlyArray1<'py, f64>,
    gb: PyReadonlyArray1<'py, f64>,
) -> PyResult<Option<Bound<'py, PyArray1<f64>>>> {
    let (p, m) = (gp.len(), gb.len());
    if a.shape() != [p, p] || b.shape() != [p, m] || dg.len() != m {
        return Err(PyValueError::new_err(
            "irt_eliminated_step: a must be p x p, b p x m and dg of length m (p = len(gp), m = len(gb))",
        ));
    }
    let (a, b, dg, gp, gb) = (
        a.as_slice()?,
        b.as_slice()?,
        dg.as_slice()?,
        gp.as_slice()?,
        gb.as_slice()?,
    );
    let cost = p.saturating_mul(p).saturating_mul(m);
    let step = enter_long(py, cost, || Ok(schur::eliminated_step(a, b, dg, gp, gb)))?;
    Ok(step.map(|v| v.into_pyarray(py)))
}

/// Add this module's functions to `_kscore`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(irt_connected, m)?)?;
    m.add_function(wrap_pyfunction!(irt_orbits, m)?)?;
    m.add_function(wrap_pyfunction!(irt_rasch, m)?)?;
    m.add_function(wrap_pyfunction!(irt_logistic, m)?)?;
    m.add_function(wrap_pyfunction!(irt_eliminated_step, m)?)?;
    Ok(())
}
