//! Categorical banks: per-row category counts of R (and R0) read in one pass,
//! and the Bayes@N, Avg and Max@k kernels over them.

use numpy::PyReadonlyArray1;
use pyo3::prelude::*;

use kscore_core::categorical::bank::{CategoricalBank, Levels};
use kscore_core::categorical::{dirichlet, maxk, maxk_posterior};
use kscore_core::error::Error;
use kscore_core::intake::matrix::{self, CategoryCounts as CoreCounts};
use kscore_core::intake::moments::CountMoments;

use crate::enter::enter;
use crate::matrix::{on_view, Outcomes};

/// Per-row counts of the categories `0..categories` of an outcome matrix.
#[pyclass(frozen, module = "kscore._kscore")]
pub struct CategoryCounts {
    inner: CoreCounts,
    rows: usize,
    trials: usize,
}

#[pymethods]
impl CategoryCounts {
    /// Validate every entry of a 2-D matrix (finite, integer, fits int64; any
    /// supported dtype and layout, no copy) and count categories per row.
    /// Entries outside `0..categories` set `in_range` to False instead of
    /// raising, so the caller can order its errors.
    #[staticmethod]
    fn from_matrix(py: Python<'_>, matrix: Outcomes<'_>, categories: usize, name: &str) -> PyResult<Self> {
        on_view!(matrix, view => {
            let (rows, trials) = view.dim();
            enter(py, move || matrix::category_counts(view, categories, name))
                .map(|inner| CategoryCounts { inner, rows, trials })
        })
    }

    /// Whether every entry lies in `0..categories`.
    #[getter]
    fn in_range(&self) -> bool {
        self.inner.in_range
    }

    /// Questions (M).
    #[getter]
    fn rows(&self) -> usize {
        self.rows
    }

    /// Trials per question (N, or D for R0).
    #[getter]
    fn trials(&self) -> usize {
        self.trials
    }

    /// The counts as a (rows, categories) uint32 array (TailPass groups them).
    fn to_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, numpy::PyArray2<u32>>> {
        let shape = (self.rows, self.inner.categories);
        numpy::ndarray::Array2::from_shape_vec(shape, self.inner.counts.clone())
            .map(|a| numpy::IntoPyArray::into_pyarray(a, py))
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
    }
}

impl CategoryCounts {
    fn bank<'a>(&'a self, prior: Option<&'a CategoryCounts>) -> Result<CategoricalBank<'a>, Error> {
        if !self.inner.in_range || prior.is_some_and(|p| !p.inner.in_range) {
            return Err(Error::value("category counts hold out-of-range entries"));
        }
        if let Some(p) = prior {
            if p.rows != self.rows || p.inner.categories != self.inner.categories {
                return Err(Error::value("R0 counts must match R counts in rows and categories"));
            }
        }
        CategoricalBank::new(
            &self.inner.counts,
            prior.map(|p| p.inner.counts.as_slice()),
            self.inner.categories,
            self.trials,
            prior.map_or(0, |p| p.trials),
        )
        .map(|bank| bank.with_moments(self.inner.moments.as_ref()))
    }
}

fn weights_for(bank: &CategoricalBank, weights: &[f64]) -> Result<(), Error> {
    if weights.len() != bank.categories {
        return Err(Error::value("one weight per category is required"));
    }
    Ok(())
}

/// Bayes@N `(mu, sigma)` from counts of R, optional counts of R0 and rewards.
#[pyfunction]
#[pyo3(signature = (counts, prior, weights))]
pub fn bayes(
    py: Python<'_>,
    counts: &CategoryCounts,
    prior: Option<&CategoryCounts>,
    weights: PyReadonlyArray1<'_, f64>,
) -> PyResult<(f64, f64)> {
    let w = weights.as_slice()?;
    enter(py, || {
        let bank = counts.bank(prior)?;
        weights_for(&bank, w)?;
        Ok(dirichlet::bayes(&bank, w))
    })
}

/// Bayes@N (or, with `observed`, Avg@N) `(mu, sigma)` straight from a 2-D
/// matrix R and a contiguous float64 reward vector, for the common call
/// with no R0: one pass, no intermediate Python objects. With a 2-D `prior`
/// R0 (Bayes@N only), see `bayes_with_prior`. Returns None for
/// anything unusual (another dtype or shape of either argument, a flaw or
/// an out-of-range entry in R or R0, a non-finite or over-long `w`), so that
/// the caller takes its validating path, which raises scorio's error in
/// scorio's order; it never raises for bad values itself.
#[pyfunction]
#[pyo3(signature = (matrix, weights, observed, prior = None))]
pub fn dirichlet_of_matrix(
    py: Python<'_>,
    matrix: &Bound<'_, PyAny>,
    weights: &Bound<'_, PyAny>,
    observed: bool,
    prior: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<(f64, f64)>> {
    let Some((matrix, weights)) = fast_arguments(matrix, weights) else {
        return Ok(None);
    };
    let w = weights.as_slice()?;
    if let Some(prior) = prior {
        if observed {
            return Ok(None); // Avg@N takes no prior
        }
        return Ok(bayes_with_prior(py, &matrix, prior, w));
    }
    on_view!(matrix, view => {
        let (rows, trials) = view.dim();
        if rows == 0 || trials == 0 {
            return Ok(None);
        }
        // One row repeated (np.broadcast_to): its moments times M, so even
        // 1e9 rows cost one row's read (the moments are all Bayes@N needs).
        let repeated = rows > 1 && view.strides()[0] == 0;
        if repeated && w.len() > dirichlet::MOMENT_CATEGORIES {
            return Ok(None);
        }
        let result = enter(py, move || {
            let c = w.len();
            // The moments folded block by block, where the count does not
            // give them itself: no M x C counts written.
            if !repeated && c <= dirichlet::MOMENT_CATEGORIES {
                if let Some(moments) = matrix::category_moments(view, c) {
                    // One placeholder row: with the moments given and at most
                    // MOMENT_CATEGORIES categories, no kernel reads counts by row.
                    let placeholder = vec![0u32; c];
                    let mut bank = CategoricalBank::new(&placeholder, None, c, trials, 0)?;
                    bank.rows = rows;
                    let bank = bank.with_moments(Some(&moments));
                    return Ok(Some(if observed { dirichlet::avg(&bank, w) } else { dirichlet::bayes(&bank, w) }));
                }
            }
            let view = if repeated { view.slice_move(ndarray::s![..1, ..]) } else { view };
            let counts = matrix::category_counts(view, w.len(), "R")?;
            if !counts.in_range {
                return Ok(None);
            }
            let own = counts.moments.clone().or_else(|| repeated.then(|| CountMoments::of_rows(&counts.counts, None, c, trials as u64)));
            let moments = own.map(|m| if repeated { m.repeated(rows as u64) } else { m });
            let mut bank = CategoricalBank::new(&counts.counts, None, c, trials, 0)?.with_moments(moments.as_ref());
            // M rows (one row of counts when repeated): with the moments given and
            // at most MOMENT_CATEGORIES categories, no kernel reads counts by row.
            bank.rows = rows;
            Ok(Some(if observed { dirichlet::avg(&bank, w) } else { dirichlet::bayes(&bank, w) }))
        });
        // Errors (a flaw in R) are reported by the validating path.
        Ok(result.unwrap_or(None))
    })
}

/// Bayes@N with R0 from the two matrices in one call: the validating
/// path's own steps (`CategoryCounts::from_matrix` of R0 and of R, then
/// `bayes` on their bank), so its numbers bit for bit, without the Python
/// objects between them. None for a prior that is not a 2-D array of R's
/// row count with at least one column, or for a flaw or an out-of-range
/// entry in either matrix (the validating path orders those errors).
fn bayes_with_prior(py: Python<'_>, matrix: &Outcomes<'_>, prior: &Bound<'_, PyAny>, w: &[f64]) -> Option<(f64, f64)> {
    let prior = prior.extract::<Outcomes>().ok()?;
    let c = w.len();
    // R0's count as a closure over its view, run inside R's one `enter`
    // (one release of the interpreter, one dtype dispatch per matrix).
    type PriorCount<'a> = Box<dyn Fn() -> Result<CoreCounts, Error> + Send + Sync + 'a>;
    let (prior_rows, prior_trials, count_prior): (usize, usize, PriorCount<'_>) = on_view!(prior, view => {
        let (rows, trials) = view.dim();
        (rows, trials, Box::new(move || matrix::category_counts(view, c, "R0")))
    });
    on_view!(matrix, view => {
        let (rows, trials) = view.dim();
        if rows == 0 || trials == 0 || rows != prior_rows || prior_trials == 0 {
            return None;
        }
        let result = enter(py, || {
            let prior_counts = count_prior()?;
            let counts = matrix::category_counts(view, c, "R")?;
            if !counts.in_range || !prior_counts.in_range {
                return Ok(None);
            }
            let bank = CategoricalBank::new(&counts.counts, Some(&prior_counts.counts), c, trials, prior_trials)?
                .with_moments(counts.moments.as_ref());
            Ok(Some(dirichlet::bayes(&bank, w)))
        });
        result.ok().flatten()
    })
}

/// The matrix and rewards of a one-call fast path: a 2-D outcome array
/// and a contiguous float64 vector of 1 to 64 finite rewards; None for
/// anything else (the caller's validating path raises scorio's error).
fn fast_arguments<'py>(
    matrix: &Bound<'py, PyAny>,
    weights: &Bound<'py, PyAny>,
) -> Option<(Outcomes<'py>, PyReadonlyArray1<'py, f64>)> {
    let matrix = matrix.extract::<Outcomes>().ok()?;
    let weights = weights.extract::<PyReadonlyArray1<f64>>().ok()?;
    let w = weights.as_slice().ok()?;
    (!w.is_empty() && w.len() <= 64 && w.iter().all(|x| x.is_finite())).then_some((matrix, weights))
}

/// `fast_arguments` and a budget k that is a non-negative integer (the
/// Max@k bindings; each checks its own bounds on k).
fn fast_arguments_with_k<'py>(
    matrix: &Bound<'py, PyAny>,
    weights: &Bound<'py, PyAny>,
    k: &Bound<'py, PyAny>,
) -> Option<(Outcomes<'py>, PyReadonlyArray1<'py, f64>, u64)> {
    let (matrix, weights) = fast_arguments(matrix, weights)?;
    Some((matrix, weights, k.extract::<u64>().ok()?))
}

/// Finite-bank Max@k straight from a 2-D matrix R, contiguous float64
/// rewards and 2 <= k <= N, its category counts folded into the level
/// histograms block by block (`maxk::max_at_k_of_rows`). None for anything
/// unusual, as `dirichlet_of_matrix`: the caller's validating path raises.
#[pyfunction]
pub fn max_at_k_of_matrix(
    py: Python<'_>,
    matrix: &Bound<'_, PyAny>,
    weights: &Bound<'_, PyAny>,
    k: &Bound<'_, PyAny>,
) -> PyResult<Option<f64>> {
    let Some((matrix, weights, k)) = fast_arguments_with_k(matrix, weights, k) else {
        return Ok(None);
    };
    let w = weights.as_slice()?;
    on_view!(matrix, view => {
        let trials = view.ncols() as u64;
        if view.nrows() == 0 || k < 2 || k > trials {
            return Ok(None);
        }
        let result = enter(py, move || maxk::max_at_k_of_rows(view, &Levels::from_weights(w)?, k));
        Ok(result.unwrap_or(None))
    })
}

/// Latent Max@k `(mu, sigma)` straight from a 2-D matrix R (no R0),
/// contiguous float64 rewards and k >= 2, its category counts folded into
/// the level tables block by block (`maxk_posterior::max_at_k_posterior_of_rows`).
/// None for anything unusual or where the tables do not apply, as
/// `dirichlet_of_matrix`: the caller's validating path takes it.
#[pyfunction]
pub fn max_at_k_posterior_of_matrix(
    py: Python<'_>,
    matrix: &Bound<'_, PyAny>,
    weights: &Bound<'_, PyAny>,
    k: &Bound<'_, PyAny>,
) -> PyResult<Option<(f64, f64)>> {
    let Some((matrix, weights, k)) = fast_arguments_with_k(matrix, weights, k) else {
        return Ok(None);
    };
    let w = weights.as_slice()?;
    on_view!(matrix, view => {
        if k < 2 {
            return Ok(None);
        }
        let result = enter(py, move || maxk_posterior::max_at_k_posterior_of_rows(view, &Levels::from_weights(w)?, k));
        Ok(result.unwrap_or(None))
    })
}

/// Avg@N `(a, sigma_a)` from counts of R and rewards.
#[pyfunction]
pub fn avg(py: Python<'_>, counts: &CategoryCounts, weights: PyReadonlyArray1<'_, f64>) -> PyResult<(f64, f64)> {
    let w = weights.as_slice()?;
    enter(py, || {
        let bank = counts.bank(None)?;
        weights_for(&bank, w)?;
        Ok(dirichlet::avg(&bank, w))
    })
}

/// The observed weighted mean (Max@1).
#[pyfunction]
pub fn observed_mean(py: Python<'_>, counts: &CategoryCounts, weights: PyReadonlyArray1<'_, f64>) -> PyResult<f64> {
    let w = weights.as_slice()?;
    enter(py, || {
        let bank = counts.bank(None)?;
        weights_for(&bank, w)?;
        Ok(dirichlet::observed_mean(&bank, w))
    })
}

/// Finite-bank Max@k from counts of R and the rewards of its categories.
#[pyfunction]
pub fn max_at_k(py: Python<'_>, counts: &CategoryCounts, weights: PyReadonlyArray1<'_, f64>, k: u64) -> PyResult<f64> {
    let w = weights.as_slice()?;
    enter(py, || {
        let bank = counts.bank(None)?;
        weights_for(&bank, w)?;
        maxk::max_at_k(&bank, &Levels::from_weights(w)?, k)
    })
}

/// Latent Max@k `(mu, sigma)` under the Dirichlet(+1) posterior.
#[pyfunction]
#[pyo3(signature = (counts, prior, weights, k))]
pub fn max_at_k_posterior(
    py: Python<'_>,
    counts: &CategoryCounts,
    prior: Option<&CategoryCounts>,
    weights: PyReadonlyArray1<'_, f64>,
    k: u64,
) -> PyResult<(f64, f64)> {
    let w = weights.as_slice()?;
    enter(py, || {
        let bank = counts.bank(prior)?;
        weights_for(&bank, w)?;
        maxk_posterior::max_at_k_posterior(&bank, &Levels::from_weights(w)?, k)
    })
}
