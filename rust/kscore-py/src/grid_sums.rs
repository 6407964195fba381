//! `grid_sums`: a leaderboard's per-model sums over its grid of states
//! (kscore_core::grid_sums), for `kscore.leaderboard.stats.intervals`.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::enter::enter;
use crate::matrix::to_pyarray2;

/// `$body` with `$s` the C-order values of `$grid` (a 2-D uint8 or uint16
/// array: a grid of states) and `$models`, `$questions` its shape; the
/// dispatch on the state type that every grid kernel shares.
macro_rules! on_grid {
    ($grid:expr, |$s:ident, $models:ident, $questions:ident| $body:expr) => {{
        if $grid.cast::<PyArray2<u8>>().is_ok() {
            on_grid!(@typed u8, $grid, $s, $models, $questions, $body)
        } else if $grid.cast::<PyArray2<u16>>().is_ok() {
            on_grid!(@typed u16, $grid, $s, $models, $questions, $body)
        } else {
            return Err(PyTypeError::new_err("grid must be a 2-D uint8 or uint16 array"));
        }
    }};
    (@typed $ty:ty, $grid:expr, $s:ident, $models:ident, $questions:ident, $body:expr) => {{
        let g = $grid
            .cast::<PyArray2<$ty>>()?
            .try_readonly()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let ($models, $questions) = (g.as_array().nrows(), g.as_array().ncols());
        let $s = g
            .as_slice()
            .map_err(|_| PyValueError::new_err("grid must be C-contiguous"))?;
        $body
    }};
}

/// The table's values (C order) and its width.
fn table_of<'a>(table: &'a PyReadonlyArray2<'_, f64>) -> PyResult<(&'a [f64], usize)> {
    let t = table
        .as_slice()
        .map_err(|_| PyValueError::new_err("table must be C-contiguous"))?;
    Ok((t, table.as_array().ncols()))
}

/// The sums as a models x width array.
fn sums_array(py: Python<'_>, models: usize, width: usize, out: Vec<f64>) -> PyResult<Bound<'_, PyArray2<f64>>> {
    to_pyarray2(py, models, width, out)
}

/// `out[i, j]`: the sequential sum over model `i`'s questions (in order) of
/// `table[base_i + grid[i, q], j]` (`grid`: models x questions, uint8 or
/// uint16, C order; `table`: rows x values, C order; `base_i = i *
/// rows_per_model`, 0 for one table for all).
#[pyfunction]
#[pyo3(signature = (grid, table, rows_per_model = 0))]
pub fn grid_sums<'py>(
    py: Python<'py>,
    grid: &Bound<'py, PyAny>,
    table: PyReadonlyArray2<'py, f64>,
    rows_per_model: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let (t, width) = table_of(&table)?;
    let (models, out) = on_grid!(grid, |s, models, questions| {
        let out = enter(py, || {
            kscore_core::grid_sums::grid_sums(s, models, questions, t, width, rows_per_model)
        })?;
        (models, out)
    });
    sums_array(py, models, width, out)
}

/// `out[i, j]`: the sequential sum over model `i`'s run of `states`
/// (`states[offsets[i]:offsets[i + 1]]`, uint8 or uint16) of
/// `table[base_i + state, j]` (as `grid_sums`; an empty run: zeros).
#[pyfunction]
#[pyo3(signature = (states, offsets, table, rows_per_model = 0))]
pub fn segment_sums<'py>(
    py: Python<'py>,
    states: &Bound<'py, PyAny>,
    offsets: PyReadonlyArray1<'py, i64>,
    table: PyReadonlyArray2<'py, f64>,
    rows_per_model: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let (t, width) = table_of(&table)?;
    let offsets: Vec<usize> = offsets
        .as_array()
        .iter()
        .map(|&o| usize::try_from(o).map_err(|_| PyValueError::new_err("offsets must be non-negative")))
        .collect::<PyResult<_>>()?;
    let models = offsets.len().saturating_sub(1);
    macro_rules! run {
        ($ty:ty) => {{
            let g = states
                .cast::<PyArray1<$ty>>()?
                .try_readonly()
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            let s = g
                .as_slice()
                .map_err(|_| PyValueError::new_err("states must be contiguous"))?;
            enter(py, || {
                kscore_core::grid_sums::segment_sums(s, &offsets, t, width, rows_per_model)
            })?
        }};
    }
    let out = if states.cast::<PyArray1<u8>>().is_ok() {
        run!(u8)
    } else if states.cast::<PyArray1<u16>>().is_ok() {
        run!(u16)
    } else {
        return Err(PyTypeError::new_err("states must be a 1-D uint8 or uint16 array"));
    };
    sums_array(py, models, width, out)
}

/// `out[r, t] = table[grid[rows[r], t]]` (a state past the table: its last
/// value, as numpy's `take(mode="clip")`): the rows `rows` of a models x
/// questions grid of states (uint8 or uint16, C order) looked up in
/// `table`, on the core's pool.
#[pyfunction]
pub fn gather_rows<'py>(
    py: Python<'py>,
    grid: &Bound<'py, PyAny>,
    rows: Vec<usize>,
    table: PyReadonlyArray1<'py, f64>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let t = table
        .as_slice()
        .map_err(|_| PyValueError::new_err("table must be contiguous"))?;
    let (questions, out) = on_grid!(grid, |s, models, questions| {
        let out = enter(py, || {
            kscore_core::grid_sums::gather_rows(s, models, questions, &rows, t)
        })?;
        (questions, out)
    });
    let n = rows.len();
    sums_array(py, n, questions, out)
}
