//! `Credit`: the credit vector that defines a metric, built in the core.

use numpy::PyReadonlyArray1;
use pyo3::prelude::*;

use kscore_core::finite::credit::Credit as CoreCredit;
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

    fn __repr__(&self) -> String {
        let shape = match self.0.shape {
            kscore_core::finite::credit::Shape::Constant(_) => "constant",
            kscore_core::finite::credit::Shape::Step(_) => "step",
            kscore_core::finite::credit::Shape::General(_) => "general",
        };
        format!("Credit(k={}, shape={shape:?})", self.0.k)
    }
}
