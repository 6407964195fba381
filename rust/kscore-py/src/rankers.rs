//! scorio.rank's pairwise, voting and graph rankers (python/kscore/rank/):
//! the shared counts of a response tensor and the graph steps of the
//! Condorcet rules (`kscore_core::rank::{pairs, voting, kemeny, markov}`).

use std::time::{Duration, Instant};

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use kscore_core::rank::kemeny::{kemeny, Outcome, MAX_COMPONENT};
use kscore_core::rank::markov::stationary;
use kscore_core::rank::pairs::{greater_counts, inverse_difficulty, read_board, sample_wins, Levels, Want};
use kscore_core::rank::voting::{level_scores, lock_pairs, majority_groups, strongest_paths};

use crate::enter::{enter, enter_long};
use crate::matrix::{on_view, Outcomes};

/// An n x n matrix from a row-major vector.
fn square<'py, T: numpy::Element>(py: Python<'py>, data: Vec<T>, n: usize) -> PyResult<Bound<'py, PyArray2<T>>> {
    data.into_pyarray(py)
        .reshape([n, n])
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The contiguous data of a square matrix, with its side.
fn square_data<T: numpy::Element + Copy>(m: &PyReadonlyArray2<'_, T>, name: &str) -> PyResult<(Vec<T>, usize)> {
    let view = m.as_array();
    let (rows, cols) = view.dim();
    if rows != cols {
        return Err(PyValueError::new_err(format!("{name} must be a square matrix")));
    }
    Ok((view.iter().copied().collect(), rows))
}

/// The counts of a binary response matrix, models x (questions * trials):
/// `(totals, levels, greater, wins)`: successes per model (float64), the
/// per-question successes (models x questions, uint8 or uint16) if
/// `levels`, #{m : k_im > k_jm} (models x models, float64) if `greater`,
/// and #{(m, n) : R_imn = 1 > R_jmn} if `wins`.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn rank_board<'py>(
    py: Python<'py>,
    r: Outcomes<'py>,
    trials: usize,
    levels: bool,
    greater: bool,
    wins: bool,
) -> PyResult<(
    Bound<'py, PyArray1<f64>>,
    Option<Bound<'py, PyAny>>,
    Option<Bound<'py, PyArray2<f64>>>,
    Option<Bound<'py, PyArray2<f64>>>,
)> {
    let want = Want {
        levels: levels || greater,
        bits: wins,
    };
    let (board, g, w) = on_view!(r, view => {
        let (models, width) = view.dim();
        let pair_cost = models.saturating_mul(models) / 2;
        let cost = width.saturating_mul(models) + pair_cost.saturating_mul(width / 16);
        enter_long(py, cost, || {
            let board = read_board(view, trials, want)?;
            let g = if greater { Some(greater_counts(&board)?) } else { None };
            let w = if wins { Some(sample_wins(&board)?) } else { None };
            Ok((board, g, w))
        })
    })?;
    let (models, questions) = (board.models, board.questions);
    let totals = board
        .totals
        .iter()
        .map(|&t| t as f64)
        .collect::<Vec<f64>>()
        .into_pyarray(py);
    let level_array = if levels {
        match board.levels {
            Some(Levels::U8(k)) => Some(
                k.into_pyarray(py)
                    .reshape([models, questions])
                    .map_err(|e| PyValueError::new_err(e.to_string()))?
                    .into_any(),
            ),
            Some(Levels::U16(k)) => Some(
                k.into_pyarray(py)
                    .reshape([models, questions])
                    .map_err(|e| PyValueError::new_err(e.to_string()))?
                    .into_any(),
            ),
            None => None,
        }
    } else {
        None
    };
    let g = g.map(|g| square(py, g, models)).transpose()?;
    let w = w.map(|w| square(py, w, models)).transpose()?;
    Ok((totals, level_array, g, w))
}

/// Schulze's strongest-path strengths of a preference matrix.
#[pyfunction]
pub fn schulze_paths<'py>(py: Python<'py>, pref: PyReadonlyArray2<'py, f64>) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let (p, n) = square_data(&pref, "pref")?;
    let cost = n.saturating_mul(n).saturating_mul(n);
    let out = enter_long(py, cost, || Ok(strongest_paths(&p, n)))?;
    square(py, out, n)
}

/// Ranked pairs' locked edges of a preference matrix (`by_votes`: winning
/// votes as the primary strength instead of the margin).
#[pyfunction]
pub fn ranked_pairs_lock<'py>(
    py: Python<'py>,
    pref: PyReadonlyArray2<'py, f64>,
    by_votes: bool,
) -> PyResult<Bound<'py, PyArray2<bool>>> {
    let (p, n) = square_data(&pref, "pref")?;
    let cost = n.saturating_mul(n).saturating_mul(n) / 32;
    let out = enter_long(py, cost, || Ok(lock_pairs(&p, n, by_votes)))?;
    square(py, out, n)
}

/// scorio's topological level scores of a dominance relation.
#[pyfunction]
pub fn dominance_levels<'py>(py: Python<'py>, adj: PyReadonlyArray2<'py, bool>) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (a, n) = square_data(&adj, "adj")?;
    let out = enter(py, || Ok(level_scores(&a, n)))?;
    Ok(out.into_pyarray(py))
}

/// scorio's `inverse_difficulty` scores of a binary response matrix,
/// models x (questions * trials), in one pass over it on the pool (the
/// weights from the solve rates clipped to `[low, high]`).
#[pyfunction]
pub fn inverse_difficulty_scores<'py>(
    py: Python<'py>,
    r: Outcomes<'py>,
    trials: usize,
    low: f64,
    high: f64,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let scores = on_view!(r, view => {
        let (models, width) = view.dim();
        enter_long(py, width.saturating_mul(models), || inverse_difficulty(view, trials, low, high))
    })?;
    Ok(scores.into_pyarray(py))
}

/// Majority judgment's class of every model (0 the lowest, ascending) from
/// its per-question grades `levels` (models x questions, each in
/// `0..=trials`).
#[pyfunction]
pub fn majority_classes<'py>(
    py: Python<'py>,
    levels: PyReadonlyArray2<'py, u8>,
    trials: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let view = levels.as_array();
    let (models, questions) = view.dim();
    if trials > u8::MAX as usize {
        return Err(PyValueError::new_err(
            "majority_classes: grades are bytes (trials <= 255)",
        ));
    }
    let owned;
    let data: &[u8] = match view.as_slice() {
        Some(s) => s,
        None => {
            owned = view.iter().copied().collect::<Vec<u8>>();
            &owned
        }
    };
    if data.iter().any(|&g| g as usize > trials) {
        return Err(PyValueError::new_err("majority_classes: a grade above trials"));
    }
    let group = enter(py, || Ok(majority_groups(data, models, questions, trials)))?;
    Ok(group
        .into_iter()
        .map(|g| g as i64)
        .collect::<Vec<i64>>()
        .into_pyarray(py))
}

/// Exact Kemeny-Young on integer margins: `("solved", forced, order)`,
/// `("too_large", size, limit)` or `("time_limit",)`, as a tuple whose first item
/// says which.
#[pyfunction]
#[pyo3(signature = (margin, time_limit=None))]
pub fn kemeny_search<'py>(
    py: Python<'py>,
    margin: PyReadonlyArray2<'py, i64>,
    time_limit: Option<f64>,
) -> PyResult<Bound<'py, PyAny>> {
    let (m, n) = square_data(&margin, "margin")?;
    let deadline = match time_limit {
        Some(t) if t.is_finite() && t > 0.0 => Some(Instant::now() + Duration::from_secs_f64(t.min(1e9))),
        _ => None,
    };
    // Any search may take long: always watched for Ctrl-C.
    let outcome = enter_long(py, usize::MAX, || kemeny(&m, n, deadline))?;
    let result = match outcome {
        Outcome::Solved { forced, order } => {
            let order: Vec<i64> = order.into_iter().map(|v| v as i64).collect();
            ("solved", square(py, forced, n)?, order.into_pyarray(py))
                .into_pyobject(py)?
                .into_any()
        }
        Outcome::TooLarge { size } => ("too_large", size, MAX_COMPONENT).into_pyobject(py)?.into_any(),
        Outcome::TimeLimit => ("time_limit",).into_pyobject(py)?.into_any(),
    };
    Ok(result)
}

/// The stationary distribution of an irreducible row-stochastic matrix
/// (GTH elimination; the diagonal is not read).
#[pyfunction]
pub fn markov_stationary<'py>(py: Python<'py>, p: PyReadonlyArray2<'py, f64>) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (a, n) = square_data(&p, "p")?;
    let cost = n.saturating_mul(n).saturating_mul(n) / 3;
    let out = enter_long(py, cost, || stationary(&a, n))?;
    Ok(out.into_pyarray(py))
}
