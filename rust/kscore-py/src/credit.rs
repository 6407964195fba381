//! `Credit`: the credit vector that defines a metric, built in the core.

use numpy::PyReadonlyArray1;
use pyo3::prelude::*;

use kscore_core::credit::Credit as CoreCredit;
use kscore_core::metric::{self, Metric, Needs};

use crate::enter::enter;

/// A metric name parsed once against the core's metric table (names and
/// aliases; an unknown name is a ValueError naming it).
#[derive(Clone, Copy, Debug)]
pub struct MetricName(pub Metric);

impl<'a, 'py> FromPyObject<'a, 'py> for MetricName {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let name: &str = obj.extract()?;
        Metric::parse(name)
            .map(MetricName)
            .ok_or_else(|| pyo3::exceptions::PyValueError::new_err(format!("unknown metric '{name}'")))
    }
}

/// The metric table as `(name, canonical name, needs)` for every name and
/// alias, needs being "nothing", "tau" or "weights".
#[pyfunction]
pub fn metric_table() -> Vec<(&'static str, &'static str, &'static str)> {
    metric::TABLE
        .iter()
        .flat_map(|row| {
            let needs = match row.needs {
                Needs::Nothing => "nothing",
                Needs::Tau => "tau",
                Needs::Weights => "weights",
            };
            std::iter::once(row.name)
                .chain(row.aliases.iter().copied())
                .map(move |n| (n, row.name, needs))
        })
        .collect()
}

/// A credit vector `A_0..=A_k` scoring a bank of k draws by its successes.
#[pyclass(frozen, module = "kscore._kscore")]
pub struct Credit(pub CoreCredit);

#[pymethods]
impl Credit {
    /// `A_j = 1{j >= t}` (Pass@k is t = 1, Pass^k is t = k).
    #[staticmethod]
    fn at_least(py: Python<'_>, k: u64, t: u64) -> PyResult<Self> {
        enter(py, || Ok(Credit(CoreCredit::step(k, t))))
    }

    /// Maj@k: `A_j = 1{j >= floor(k/2) + 1}`.
    #[staticmethod]
    fn majority(py: Python<'_>, k: u64) -> PyResult<Self> {
        enter(py, || Ok(Credit(CoreCredit::majority(k))))
    }

    /// G-Pass@k_tau: `A_j = 1{j >= j0(tau, k)}` with scorio's float rule.
    #[staticmethod]
    fn tau(py: Python<'_>, k: u64, tau: f64) -> PyResult<Self> {
        enter(py, || Ok(Credit(CoreCredit::tau(k, tau))))
    }

    /// mG-Pass@k: `A_j = (2/k) max(j - ceil(k/2), 0)`.
    #[staticmethod]
    fn mg(py: Python<'_>, k: u64) -> PyResult<Self> {
        enter(py, || Ok(Credit(CoreCredit::mg(k))))
    }

    /// AUC@k: trapezoid mean of Pass@1..Pass@k (closed form).
    #[staticmethod]
    fn auc(py: Python<'_>, k: u64) -> PyResult<Self> {
        enter(py, || Ok(Credit(CoreCredit::auc(k))))
    }

    /// The credit of any metric of the table at budget k; `tau` and
    /// `weights` (validated by the caller) where the metric needs them.
    #[staticmethod]
    #[pyo3(signature = (metric, k, tau = 0.0, weights = None))]
    fn of(
        py: Python<'_>,
        metric: MetricName,
        k: u64,
        tau: f64,
        weights: Option<PyReadonlyArray1<'_, f64>>,
    ) -> PyResult<Self> {
        let w = match &weights {
            Some(w) => w.as_slice()?,
            None => &[],
        };
        enter(py, || metric.0.credit(k, tau, w).map(Credit))
    }

    /// Threshold spectrum: `A_0 = 0`, `A_j = w_1 + ... + w_j`.
    #[staticmethod]
    fn spectrum(py: Python<'_>, weights: PyReadonlyArray1<'_, f64>) -> PyResult<Self> {
        let w = weights.as_slice()?;
        enter(py, || CoreCredit::spectrum(w).map(Credit))
    }

    fn __repr__(&self) -> String {
        let shape = match self.0.shape {
            kscore_core::credit::Shape::Constant(_) => "constant",
            kscore_core::credit::Shape::Step(_) => "step",
            kscore_core::credit::Shape::General(_) => "general",
        };
        format!("Credit(k={}, shape={shape:?})", self.0.k)
    }
}
