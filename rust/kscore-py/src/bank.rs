//! `BinaryBank`: the histogram of per-question success counts of a binary
//! outcome matrix, read in one pass, and the finite-bank metrics over it.

use numpy::{PyArray1, ToPyArray};
use pyo3::prelude::*;

use kscore_core::finite::expectation;
use kscore_core::intake::histogram::Histogram;
use kscore_core::posterior::delta::{self, Powers};

use crate::credit::Credit;
use crate::enter::{cost, enter, enter_long};
use crate::matrix::{on_view, Outcomes};

/// Distinct success counts of a binary bank (ascending) with frequencies.
#[pyclass(frozen, module = "kscore._kscore")]
pub struct BinaryBank {
    pub hist: Histogram,
}

#[pymethods]
impl BinaryBank {
    /// Validate a 2-D binary matrix (any supported dtype and layout, no copy)
    /// and histogram its row sums in the same pass.
    #[staticmethod]
    fn from_matrix(py: Python<'_>, matrix: Outcomes<'_>) -> PyResult<Self> {
        let hist = on_view!(matrix, view => enter(py, || Histogram::from_binary(view)))?;
        Ok(BinaryBank { hist })
    }

    /// Trials per question (N).
    #[getter]
    fn n(&self) -> u64 {
        self.hist.n
    }

    /// Questions (M).
    #[getter]
    fn m(&self) -> u64 {
        self.hist.rows()
    }

    /// Rows per distinct count.
    fn freqs<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        self.hist.freqs.to_pyarray(py)
    }

    /// Mean over questions of `E[A_X]`, X ~ Hypergeom(N, c, k).
    fn mean(&self, py: Python<'_>, credit: &Credit) -> PyResult<f64> {
        let hist = &self.hist;
        let credit = &credit.0;
        let cost = cost::walks(hist.values.len(), credit.k);
        enter_long(py, cost, || Ok(expectation::histogram_mean(hist, credit)))
    }

    /// The geometric blend `x**a * y**b` of two credits, with scorio's zero
    /// rules and messages: of the two dataset means (Geom_ds@k,
    /// GeoSpectrum@k), or, `per_question`, per distinct count (ascending; the
    /// first offending state raises) and then averaged (Geom@k).
    #[allow(clippy::too_many_arguments)]
    fn blend(
        &self,
        py: Python<'_>,
        x: &Credit,
        y: &Credit,
        a: f64,
        b: f64,
        a_text: &str,
        b_text: &str,
        per_question: bool,
    ) -> PyResult<f64> {
        let (hist, x, y) = (&self.hist, &x.0, &y.0);
        let cost = cost::walks(hist.values.len(), x.k).saturating_add(cost::walks(hist.values.len(), y.k));
        enter_long(py, cost, || {
            let p = Powers { a, b, a_text, b_text };
            if !per_question {
                return delta::blend(
                    expectation::histogram_mean(hist, x),
                    expectation::histogram_mean(hist, y),
                    &p,
                );
            }
            let (xs, ys) = (
                expectation::histogram_values(hist, x),
                expectation::histogram_values(hist, y),
            );
            let blended = xs
                .iter()
                .zip(&ys)
                .map(|(&xi, &yi)| delta::blend(xi, yi, &p))
                .collect::<Result<Vec<f64>, _>>()?;
            Ok(expectation::weighted_mean(&hist.freqs, &blended))
        })
    }

    /// `E[A_X]` per distinct count (ascending counts).
    fn state_values<'py>(&self, py: Python<'py>, credit: &Credit) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let hist = &self.hist;
        let credit = &credit.0;
        let cost = cost::walks(hist.values.len(), credit.k);
        let out = enter_long(py, cost, || Ok(expectation::histogram_values(hist, credit)))?;
        Ok(out.to_pyarray(py))
    }
}
