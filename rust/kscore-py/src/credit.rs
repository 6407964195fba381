//! `Credit`: the credit vector that defines a metric, built in the core.

use numpy::{PyArray1, PyReadonlyArray1, ToPyArray};
use pyo3::prelude::*;

use kscore_core::credit::Credit as CoreCredit;

use crate::enter::to_pyerr;

/// A credit vector `A_0..=A_k` scoring a bank of k draws by its successes.
#[pyclass(frozen, module = "kscore._kscore")]
pub struct Credit(pub CoreCredit);

#[pymethods]
impl Credit {
    /// `A_j = 1{j >= t}` (Pass@k is t = 1, Pass^k is t = k).
    #[staticmethod]
    fn at_least(k: u64, t: u64) -> Self {
        Credit(CoreCredit::step(k, t))
    }

    /// Maj@k: `A_j = 1{j >= floor(k/2) + 1}`.
    #[staticmethod]
    fn majority(k: u64) -> Self {
        Credit(CoreCredit::majority(k))
    }

    /// G-Pass@k_tau: `A_j = 1{j >= j0(tau, k)}` with scorio's float rule.
    #[staticmethod]
    fn tau(k: u64, tau: f64) -> Self {
        Credit(CoreCredit::tau(k, tau))
    }

    /// mG-Pass@k: `A_j = (2/k) max(j - ceil(k/2), 0)`.
    #[staticmethod]
    fn mg(k: u64) -> Self {
        Credit(CoreCredit::mg(k))
    }

    /// AUC@k: trapezoid mean of Pass@1..Pass@k (closed form).
    #[staticmethod]
    fn auc(k: u64) -> Self {
        Credit(CoreCredit::auc(k))
    }

    /// Threshold spectrum: `A_0 = 0`, `A_j = w_1 + ... + w_j`.
    #[staticmethod]
    fn spectrum(weights: PyReadonlyArray1<'_, f64>) -> PyResult<Self> {
        let w = weights.as_slice()?;
        CoreCredit::spectrum(w).map(Credit).map_err(to_pyerr)
    }

    /// Any explicit vector of k + 1 finite values.
    #[staticmethod]
    fn from_values(values: PyReadonlyArray1<'_, f64>) -> PyResult<Self> {
        CoreCredit::from_values(values.as_slice()?.to_vec())
            .map(Credit)
            .map_err(to_pyerr)
    }

    /// The degree k.
    #[getter]
    fn k(&self) -> u64 {
        self.0.k
    }

    /// "constant", "step" or "general".
    #[getter]
    fn shape(&self) -> &'static str {
        match self.0.shape {
            kscore_core::credit::Shape::Constant(_) => "constant",
            kscore_core::credit::Shape::Step(_) => "step",
            kscore_core::credit::Shape::General(_) => "general",
        }
    }

    /// The dense values `A_0..=A_k`.
    fn values<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.0.values().to_pyarray(py)
    }

    fn __repr__(&self) -> String {
        format!("Credit(k={}, shape={:?})", self.0.k, self.shape())
    }
}
