//! `Credit`: the credit vector that defines a metric, built in the core.

use numpy::PyReadonlyArray1;
use pyo3::prelude::*;

use kscore_core::credit::Credit as CoreCredit;

use crate::enter::enter;

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
