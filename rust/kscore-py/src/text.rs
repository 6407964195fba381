//! `csv_lines`: a CSV body from columns of floats and integers (numpy) and
//! of fields already written (kscore_core::text), for
//! python/kscore/present/tabular.py.

use numpy::PyReadonlyArray1;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

use kscore_core::text::{csv_body, Column};

use crate::enter::enter;

/// One column as it came: a float64 or int64 array, or a list of str (its fields).
enum Given<'py> {
    Floats(PyReadonlyArray1<'py, f64>),
    Ints(PyReadonlyArray1<'py, i64>),
    Text(Vec<String>),
}

/// The lines of a CSV body (each ended by `"\n"`): row `i` is field `i` of
/// every column, joined by commas. A column is a 1-D float64 array (each
/// written as Python's `repr`, NaN as an empty field), a 1-D int64 array
/// (the minimum int64 an empty field) or a list of str (written as they
/// are: quote them first where they must be).
#[pyfunction]
pub fn csv_lines(py: Python<'_>, columns: &Bound<'_, PyList>) -> PyResult<String> {
    let mut given = Vec::with_capacity(columns.len());
    for (j, c) in columns.iter().enumerate() {
        if let Ok(a) = c.extract::<PyReadonlyArray1<'_, f64>>() {
            given.push(Given::Floats(a));
        } else if let Ok(a) = c.extract::<PyReadonlyArray1<'_, i64>>() {
            given.push(Given::Ints(a));
        } else if let Ok(list) = c.cast::<PyList>() {
            let mut fields = Vec::with_capacity(list.len());
            for x in list.iter() {
                fields.push(x.extract::<String>().map_err(|_| {
                    PyTypeError::new_err(format!("csv_lines: column {j} holds a {}, not a str", x.get_type()))
                })?);
            }
            given.push(Given::Text(fields));
        } else {
            return Err(PyTypeError::new_err(format!(
                "csv_lines: column {j} must be a 1-D float64 or int64 array or a list of str"
            )));
        }
    }
    let mut cols = Vec::with_capacity(given.len());
    for g in &given {
        cols.push(match g {
            Given::Floats(a) => Column::Floats(
                a.as_slice()
                    .map_err(|_| PyValueError::new_err("csv_lines: a float column must be contiguous"))?,
            ),
            Given::Ints(a) => Column::Ints(
                a.as_slice()
                    .map_err(|_| PyValueError::new_err("csv_lines: an integer column must be contiguous"))?,
            ),
            Given::Text(t) => Column::Text(t),
        });
    }
    enter(py, || csv_body(&cols))
}
