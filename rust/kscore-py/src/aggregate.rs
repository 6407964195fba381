//! `group_answers` and `vote`: kscore.aggregate's kernels (kscore_core::aggregate).

use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::enter::enter;

fn slice<'a, T: numpy::Element>(a: &'a PyReadonlyArray2<'_, T>, name: &str) -> PyResult<&'a [T]> {
    a.as_slice()
        .map_err(|_| PyValueError::new_err(format!("{name} must be C-contiguous")))
}

/// Row-local group codes (first appearance 0, 1, ...; -1 where `valid` is
/// false) of `answers`: an (M, N * width) uint8 view of a fixed-width array.
#[pyfunction]
pub fn group_answers<'py>(
    py: Python<'py>,
    answers: PyReadonlyArray2<'py, u8>,
    valid: PyReadonlyArray2<'py, bool>,
) -> PyResult<Bound<'py, PyArray2<i32>>> {
    let (rows, cols) = (valid.shape()[0], valid.shape()[1]);
    let bytes = answers.shape()[1];
    if answers.shape()[0] != rows || (cols > 0 && bytes % cols != 0) || (cols == 0 && bytes != 0) {
        return Err(PyValueError::new_err(
            "answers and valid must have the same rows and columns",
        ));
    }
    let width = bytes.checked_div(cols).unwrap_or(0);
    let (a, v) = (slice(&answers, "answers")?, slice(&valid, "valid")?);
    let codes = enter(py, || kscore_core::aggregate::group_rows(a, v, rows, cols, width))?;
    let arr = ndarray::Array2::from_shape_vec((rows, cols), codes).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(arr.into_pyarray(py))
}

/// Columns of each question's winning answer and representative, and the
/// questions to replay in Python (a NaN compared): scorio's `_plurality`.
#[pyfunction]
#[pyo3(signature = (codes, part, weights = None, seq = None, scores = None))]
#[allow(clippy::type_complexity)]
pub fn vote<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray2<'py, i32>,
    part: PyReadonlyArray2<'py, bool>,
    weights: Option<PyReadonlyArray2<'py, f64>>,
    seq: Option<PyReadonlyArray2<'py, i64>>,
    scores: Option<PyReadonlyArray2<'py, f64>>,
) -> PyResult<(
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<bool>>,
)> {
    let (rows, cols) = (codes.shape()[0], codes.shape()[1]);
    let c = slice(&codes, "codes")?;
    let p = slice(&part, "part")?;
    let w = weights.as_ref().map(|a| slice(a, "weights")).transpose()?;
    let q = seq.as_ref().map(|a| slice(a, "seq")).transpose()?;
    let s = scores.as_ref().map(|a| slice(a, "scores")).transpose()?;
    let out = enter(py, || {
        kscore_core::aggregate::vote(&kscore_core::aggregate::Vote {
            codes: c,
            rows,
            cols,
            weights: w,
            part: p,
            seq: q,
            scores: s,
        })
    })?;
    Ok((
        out.answer.into_pyarray(py),
        out.rep.into_pyarray(py),
        out.replay.into_pyarray(py),
    ))
}
