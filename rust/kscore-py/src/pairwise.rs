//! Paired comparisons (`kscore_core::pairwise`): the Bradley-Terry /
//! Davidson / Rao-Kupper fit on a table of pairs, and the paired counts of
//! packed binary rows, for `kscore.rank` and the arena.

use std::sync::Mutex;

use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use kscore_core::pairwise::counts::{pair_counts as core_pair_counts, twins, Packed};
use kscore_core::pairwise::{fit, Fit, Hook, Model, Options, Pairs, Param, Prior, Ties};
use kscore_core::Error;

use crate::enter::enter;
use crate::matrix::to_pyarray2;

/// Packed rows (`numpy.packbits(rows, axis=1)`, C order) of `events` outcomes.
pub(crate) fn packed<'a>(bits: &'a PyReadonlyArray2<'_, u8>, events: usize) -> PyResult<Packed<'a>> {
    let (rows, bytes) = (bits.as_array().nrows(), bits.as_array().ncols());
    if bytes != events.div_ceil(8) {
        return Err(PyValueError::new_err("bits must have ceil(events / 8) columns"));
    }
    let data = bits
        .as_slice()
        .map_err(|_| PyValueError::new_err("bits must be C-contiguous"))?;
    Ok(Packed {
        data,
        rows,
        bytes,
        events,
    })
}

type CountArrays<'py> = (
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
);

/// Every pair `i < j` of the packed rows (in order (0,1), (0,2), ...):
/// `(i, j, wins of i, wins of j, ties)`, a win being "right where the other
/// is wrong" and a tie agreement.
#[pyfunction]
pub fn pair_counts<'py>(py: Python<'py>, bits: PyReadonlyArray2<'py, u8>, events: usize) -> PyResult<CountArrays<'py>> {
    let rows = packed(&bits, events)?;
    let c = enter(py, || Ok(core_pair_counts(rows)))?;
    Ok((
        c.i.into_pyarray(py),
        c.j.into_pyarray(py),
        c.win_i.into_pyarray(py),
        c.win_j.into_pyarray(py),
        c.tie.into_pyarray(py),
    ))
}

/// For each packed row, the index of the first row identical to it.
#[pyfunction]
pub fn twin_rows<'py>(
    py: Python<'py>,
    bits: PyReadonlyArray2<'py, u8>,
    events: usize,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    let rows = packed(&bits, events)?;
    Ok(enter(py, || Ok(twins(rows)))?.into_pyarray(py))
}

/// Whether every item reaches every other along the directed edges of
/// the pairs (`i -> j` where `forward`, `j -> i` where `backward`): the
/// strong connectivity that decides whether a maximum-likelihood fit is finite.
#[pyfunction]
pub fn strongly_connected(
    items: usize,
    i: PyReadonlyArray1<'_, i64>,
    j: PyReadonlyArray1<'_, i64>,
    forward: PyReadonlyArray1<'_, bool>,
    backward: PyReadonlyArray1<'_, bool>,
) -> PyResult<bool> {
    let (iv, jv) = (indices(&i)?, indices(&j)?);
    let (f, b) = (forward.as_array(), backward.as_array());
    let n = iv.len();
    if jv.len() != n || f.len() != n || b.len() != n {
        return Err(PyValueError::new_err(
            "i, j, forward and backward must have the same length",
        ));
    }
    if iv.iter().chain(&jv).any(|&v| v as usize >= items) {
        return Err(PyValueError::new_err("pairs: an item index is out of range"));
    }
    let zeros = vec![0.0; n];
    let pairs = Pairs {
        i: &iv,
        j: &jv,
        win_i: &zeros,
        win_j: &zeros,
        tie: &zeros,
    };
    Ok(kscore_core::pairwise::table::strongly_connected(items, &pairs, |r| {
        (f[r], b[r])
    }))
}

/// A Python penalty `hook(theta, derivatives)`: a float, or with
/// `derivatives` the tuple `(value, gradient, hessian_diagonal)`. Its
/// exception is kept and raised by the binding.
pub(crate) struct PyHook {
    f: Py<PyAny>,
    error: Mutex<Option<PyErr>>,
}

impl PyHook {
    pub(crate) fn new(f: Py<PyAny>) -> Self {
        PyHook {
            f,
            error: Mutex::new(None),
        }
    }

    /// The exception the hook raised, if any (taken).
    pub(crate) fn raised(&self) -> Option<PyErr> {
        self.error.lock().ok().and_then(|mut e| e.take())
    }

    fn call(&self, theta: &[f64], derivatives: Option<(&mut [f64], &mut [f64])>) -> PyResult<f64> {
        Python::attach(|py| {
            let arg = PyArray1::from_slice(py, theta);
            let want = derivatives.is_some();
            let out = self.f.bind(py).call1((arg, want))?;
            match derivatives {
                None => out.extract::<f64>(),
                Some((g, h)) => {
                    let t = out.cast::<PyTuple>()?;
                    let value: f64 = t.get_item(0)?.extract()?;
                    let grad: Vec<f64> = t.get_item(1)?.extract()?;
                    let diag: Vec<f64> = t.get_item(2)?.extract()?;
                    if grad.len() != g.len() || diag.len() != h.len() {
                        return Err(PyValueError::new_err(
                            "penalty hook: gradient and Hessian need one value per item",
                        ));
                    }
                    for k in 0..g.len() {
                        g[k] += grad[k];
                        h[k] += diag[k];
                    }
                    Ok(value)
                }
            }
        })
    }
}

impl Hook for PyHook {
    fn eval(&self, theta: &[f64], derivatives: Option<(&mut [f64], &mut [f64])>) -> Result<f64, Error> {
        match self.call(theta, derivatives) {
            Ok(v) => Ok(v),
            Err(e) => {
                if let Ok(mut slot) = self.error.lock() {
                    slot.get_or_insert(e);
                }
                Err(Error::value("the penalty hook raised"))
            }
        }
    }
}

/// A fit's results.
#[pyclass(frozen, module = "kscore._kscore")]
pub struct PairwiseFit(pub(crate) Fit);

#[pymethods]
impl PairwiseFit {
    /// Log-strengths, centred (`sum = 0`).
    #[getter]
    fn theta<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.0.theta)
    }
    /// Davidson's nu or Rao-Kupper's kappa (fitted or fixed); None for Bradley-Terry.
    #[getter]
    fn tie_parameter(&self) -> Option<f64> {
        self.0.tie_parameter
    }
    #[getter]
    fn objective(&self) -> f64 {
        self.0.objective
    }
    /// Largest entry of the constrained gradient at the optimum.
    #[getter]
    fn residual(&self) -> f64 {
        self.0.residual
    }
    /// The gradient's scale (largest total weight of one item).
    #[getter]
    fn scale(&self) -> f64 {
        self.0.scale
    }
    #[getter]
    fn iterations(&self) -> usize {
        self.0.iterations
    }
    #[getter]
    fn converged(&self) -> bool {
        self.0.converged
    }
    /// Hessian of the objective's smooth part at the optimum, in
    /// `(theta, log tie parameter if fitted)`.
    #[getter]
    fn hessian<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        square(py, self.0.dim, self.0.hessian.clone())
    }
    /// Coordinates held at a Laplace penalty's location.
    #[getter]
    fn held<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        PyArray1::from_slice(py, &self.0.held)
    }
    /// The inverse Hessian under the centring constraint.
    fn covariance<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let c = enter(py, || self.0.covariance())?;
        square(py, self.0.dim, c)
    }
}

fn square(py: Python<'_>, n: usize, data: Vec<f64>) -> PyResult<Bound<'_, PyArray2<f64>>> {
    to_pyarray2(py, n, n, data)
}

/// The model from its name, the tie rule and the tie parameter (None: fitted).
fn model_of(model: &str, ties: &str, tie_parameter: Option<f64>) -> PyResult<Model> {
    let param = tie_parameter.map_or(Param::Fitted, Param::Fixed);
    match (model, ties) {
        ("bradley_terry", "ignore") => Ok(Model::BradleyTerry(Ties::Ignore)),
        ("bradley_terry", "half") => Ok(Model::BradleyTerry(Ties::HalfWin)),
        ("bradley_terry", other) => Err(PyValueError::new_err(format!(
            "ties must be 'ignore' or 'half', got {other:?}"
        ))),
        ("davidson", _) => Ok(Model::Davidson(param)),
        ("rao_kupper", _) => Ok(Model::RaoKupper(param)),
        (other, _) => Err(PyValueError::new_err(format!(
            "model must be 'bradley_terry', 'davidson' or 'rao_kupper', got {other:?}"
        ))),
    }
}

/// A prior from its kind and parameters (see `pairwise_fit`).
pub(crate) fn prior_of<'a>(
    kind: &str,
    mean: Option<&'a [f64]>,
    precision: Option<&'a [f64]>,
    loc: f64,
    weight: f64,
    scale: f64,
) -> PyResult<Prior<'a>> {
    match kind {
        "none" => Ok(Prior::None),
        "gaussian" => match (mean, precision) {
            (Some(mean), Some(precision)) => Ok(Prior::Gaussian { mean, precision }),
            _ => Err(PyValueError::new_err("a gaussian prior needs mean and precision")),
        },
        "laplace" => Ok(Prior::Laplace { loc, weight }),
        "cauchy" => Ok(Prior::Cauchy { loc, scale }),
        other => Err(PyValueError::new_err(format!(
            "prior must be 'none', 'gaussian', 'laplace' or 'cauchy', got {other:?}"
        ))),
    }
}

/// Item indices as u32 (non-negative, below 2**32).
fn indices(values: &PyReadonlyArray1<'_, i64>) -> PyResult<Vec<u32>> {
    values
        .as_array()
        .iter()
        .map(|&v| u32::try_from(v).map_err(|_| PyValueError::new_err(format!("pairs: bad item index {v}"))))
        .collect()
}

/// Fit a paired-comparison model to a table of pairs `(i, j, win_i, win_j,
/// tie)` over `items` items.
///
/// `model`: "bradley_terry" (`ties`: "ignore" or "half"), "davidson" or
/// "rao_kupper" (`tie_parameter`: nu or kappa fixed, None to fit it).
/// `prior`: "none"; "gaussian" (`mean`, `precision`: one value per item);
/// "laplace" (`loc`, `weight`); "cauchy" (`loc`, `scale`). `hook`: an
/// extra penalty `hook(theta, derivatives)` (see `PyHook`). `init`:
/// starting strengths; `extra_init`: starting tie parameter.
#[pyfunction]
#[pyo3(signature = (
    items, i, j, win_i, win_j, tie, model = "bradley_terry", ties = "ignore", tie_parameter = None,
    prior = "none", mean = None, precision = None, loc = 0.0, weight = 0.0, scale = 1.0, hook = None,
    init = None, extra_init = None, max_iter = 200, tol = 1e-12
))]
#[allow(clippy::too_many_arguments)]
pub fn pairwise_fit(
    py: Python<'_>,
    items: usize,
    i: PyReadonlyArray1<'_, i64>,
    j: PyReadonlyArray1<'_, i64>,
    win_i: PyReadonlyArray1<'_, f64>,
    win_j: PyReadonlyArray1<'_, f64>,
    tie: PyReadonlyArray1<'_, f64>,
    model: &str,
    ties: &str,
    tie_parameter: Option<f64>,
    prior: &str,
    mean: Option<PyReadonlyArray1<'_, f64>>,
    precision: Option<PyReadonlyArray1<'_, f64>>,
    loc: f64,
    weight: f64,
    scale: f64,
    hook: Option<Py<PyAny>>,
    init: Option<PyReadonlyArray1<'_, f64>>,
    extra_init: Option<f64>,
    max_iter: usize,
    tol: f64,
) -> PyResult<PairwiseFit> {
    let model = model_of(model, ties, tie_parameter)?;
    let (iv, jv) = (indices(&i)?, indices(&j)?);
    let contiguous = |a: &PyReadonlyArray1<'_, f64>| -> PyResult<Vec<f64>> { Ok(a.as_array().to_vec()) };
    let (wi, wj, t) = (contiguous(&win_i)?, contiguous(&win_j)?, contiguous(&tie)?);
    let mean = mean.map(|m| m.as_array().to_vec());
    let precision = precision.map(|p| p.as_array().to_vec());
    let init = init.map(|v| v.as_array().to_vec());
    let prior = prior_of(prior, mean.as_deref(), precision.as_deref(), loc, weight, scale)?;
    let hook = hook.map(PyHook::new);
    let pairs = Pairs {
        i: &iv,
        j: &jv,
        win_i: &wi,
        win_j: &wj,
        tie: &t,
    };
    let options = Options {
        max_iter,
        tol,
        init: init.as_deref(),
        extra_init,
        hook: hook.as_ref().map(|h| h as &dyn Hook),
    };
    let result = enter(py, || fit(items, &pairs, model, &prior, &options));
    if let Some(err) = hook.as_ref().and_then(PyHook::raised) {
        return Err(err);
    }
    Ok(PairwiseFit(result?))
}

/// The room's functions and class, registered in `_kscore` (one line in lib.rs).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PairwiseFit>()?;
    m.add_function(wrap_pyfunction!(pairwise_fit, m)?)?;
    m.add_function(wrap_pyfunction!(pair_counts, m)?)?;
    m.add_function(wrap_pyfunction!(twin_rows, m)?)?;
    m.add_function(wrap_pyfunction!(strongly_connected, m)?)?;
    Ok(())
}
