//! `CountStates`: per-question `(n, c)` counts (from count arrays, outcome
//! matrices, packed matrices or several banks) validated and deduplicated in
//! the core, and the metrics over them: one credit, a direct metric, or a
//! curve over many budgets, reduced per question, to the mean or per bank.

use ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;

use kscore_core::finite::curve::{state_curves, Family};
use kscore_core::finite::reduce::{Direct, Reduce};
use kscore_core::intake::counts::{Names, Trials};
use kscore_core::intake::states::{Index, StateTable};
use kscore_core::intake::{matrix, packed};

use crate::credit::{Credit, MetricName};
use crate::enter::{cost, enter, enter_long};
use crate::matrix::{on_view, Outcomes};

/// Bind `$view` to an `ArrayView1` of an int64 or float64 vector.
macro_rules! with_vector {
    ($obj:expr, $name:expr, $view:ident => $body:expr) => {{
        let obj = $obj;
        if let Ok(a) = obj.cast::<PyArray1<i64>>() {
            let ro = a.try_readonly().map_err(|e| PyValueError::new_err(e.to_string()))?;
            let $view = ro.as_array();
            $body
        } else if let Ok(a) = obj.cast::<PyArray1<f64>>() {
            let ro = a.try_readonly().map_err(|e| PyValueError::new_err(e.to_string()))?;
            let $view = ro.as_array();
            $body
        } else {
            Err(PyTypeError::new_err(format!(
                "{} must be a 1-D int64 or float64 numpy array",
                $name
            )))
        }
    }};
}

/// A 1-D int64 numpy array.
type Int64Vector<'py> = Bound<'py, PyArray1<i64>>;

/// Per-row success counts of one outcome matrix (packed or not) and its N.
fn matrix_counts(py: Python<'_>, matrix: &Bound<'_, PyAny>, packed_n: Option<u64>) -> PyResult<(u64, Vec<u32>)> {
    if let Some(n) = packed_n {
        let array = matrix.cast::<PyArray2<u8>>().map_err(|_| {
            PyValueError::new_err("R must be a 2-D uint8 array from numpy.packbits when packed_n is given")
        })?;
        let ro = array.try_readonly().map_err(|e| PyValueError::new_err(e.to_string()))?;
        let view = ro.as_array();
        return enter(py, || packed::packed_counts(view, n, "R")).map(|c| (n, c));
    }
    let outcomes: Outcomes<'_> = matrix.extract()?;
    on_view!(outcomes, view => {
        let n = view.ncols() as u64;
        enter(py, || matrix::binary_counts(view)).map(|c| (n, c))
    })
}

fn parse_reduce<'a>(how: &str, offsets: &'a [usize], table: &StateTable) -> PyResult<Reduce<'a>> {
    let reduce = match how {
        "question" => Reduce::Question,
        "mean" => Reduce::Mean,
        "segments" => Reduce::Segments(offsets),
        _ => return Err(PyValueError::new_err(format!("unknown reduction {how:?}"))),
    };
    if !matches!(reduce, Reduce::Mean) && !table.has_index() {
        return Err(PyValueError::new_err(format!(
            "{how:?} output needs states built with index=True"
        )));
    }
    Ok(reduce)
}

/// Distinct `(n, c)` states of a set of questions (one or several banks).
#[pyclass(frozen, module = "kscore._kscore")]
pub struct CountStates {
    table: StateTable,
    /// Bank boundaries: `offsets[j]..offsets[j + 1]` are bank j's questions.
    offsets: Vec<usize>,
}

impl CountStates {
    fn single(table: StateTable) -> Self {
        let offsets = vec![0, table.len()];
        CountStates { table, offsets }
    }
}

#[pymethods]
impl CountStates {
    /// From per-question counts: `n` a Python int (all questions) or a 1-D
    /// int64/float64 array, `c` a 1-D int64/float64 array.
    /// With `index=False` the table keeps no per-question state index
    /// (memory O(states) beyond the counts): means and intervals only.
    #[staticmethod]
    #[pyo3(signature = (n, c, n_name, c_name, index=true))]
    fn from_counts(
        py: Python<'_>,
        n: &Bound<'_, PyAny>,
        c: &Bound<'_, PyAny>,
        n_name: &str,
        c_name: &str,
        index: bool,
    ) -> PyResult<Self> {
        let names = Names { n: n_name, c: c_name };
        let keep = if index { Index::Keep } else { Index::Skip };
        if let Ok(n0) = n.extract::<u64>() {
            return with_vector!(c, c_name, cv => {
                enter(py, || StateTable::from_counts(Trials::<i64>::All(n0), cv, names, keep)).map(Self::single)
            });
        }
        with_vector!(n, n_name, nv => {
            with_vector!(c, c_name, cv => {
                enter(py, || StateTable::from_counts(Trials::Each(nv), cv, names, keep)).map(Self::single)
            })
        })
    }

    /// From a 2-D outcome matrix (or a packed one with `packed_n` trials)
    /// whose rows are `banks` equal consecutive banks (a reshaped 3-D array).
    #[staticmethod]
    #[pyo3(signature = (matrix, packed_n=None, banks=1))]
    fn from_matrix(py: Python<'_>, matrix: &Bound<'_, PyAny>, packed_n: Option<u64>, banks: usize) -> PyResult<Self> {
        let (n, counts) = matrix_counts(py, matrix, packed_n)?;
        let banks = banks.max(1);
        if counts.len() % banks != 0 {
            return Err(PyValueError::new_err("rows must split evenly into banks"));
        }
        let per = counts.len() / banks;
        let table = enter(py, || Ok(StateTable::from_row_counts(n, &counts)))?;
        let offsets = (0..=banks).map(|j| j * per).collect();
        Ok(CountStates { table, offsets })
    }

    /// From a sequence of outcome matrices of any shapes (one bank each).
    #[staticmethod]
    #[pyo3(signature = (matrices, packed_n=None))]
    fn from_matrices(py: Python<'_>, matrices: Vec<Bound<'_, PyAny>>, packed_n: Option<u64>) -> PyResult<Self> {
        let mut banks = Vec::with_capacity(matrices.len());
        for (j, m) in matrices.iter().enumerate() {
            let bank = matrix_counts(py, m, packed_n).map_err(|e| {
                if e.is_instance_of::<PyValueError>(py) {
                    PyValueError::new_err(format!("models[{j}]: {}", e.value(py)))
                } else {
                    e
                }
            })?;
            banks.push(bank);
        }
        let (table, offsets) = enter(py, || Ok(StateTable::from_banks(&banks)))?;
        Ok(CountStates { table, offsets })
    }

    /// Questions in all banks.
    #[getter]
    fn m(&self) -> usize {
        self.table.len()
    }

    /// The smallest n over all questions (None when there are none).
    #[getter]
    fn min_n(&self) -> Option<u64> {
        self.table.min_n()
    }

    /// Bank boundaries (`banks + 1` offsets).
    #[getter]
    fn offsets(&self) -> Vec<usize> {
        self.offsets.clone()
    }

    /// The first question whose n is below k, and that n.
    fn first_short(&self, py: Python<'_>, k: u64) -> PyResult<Option<(usize, u64)>> {
        let table = &self.table;
        enter(py, || Ok(table.first_short(k)))
    }

    /// `(n, c)` per question as int64 arrays.
    fn question_counts<'py>(&self, py: Python<'py>) -> PyResult<(Int64Vector<'py>, Int64Vector<'py>)> {
        parse_reduce("question", &self.offsets, &self.table)?;
        let table = &self.table;
        let (n, c) = enter(py, || {
            let (n, c) = table.question_counts();
            Ok((
                n.into_iter().map(|x| x as i64).collect::<Vec<_>>(),
                c.into_iter().map(|x| x as i64).collect::<Vec<_>>(),
            ))
        })?;
        Ok((n.into_pyarray(py), c.into_pyarray(py)))
    }

    /// A finite-bank metric (its credit vector; `credit.k <= n` everywhere),
    /// reduced by `how`: "question", "mean" or "segments".
    fn evaluate<'py>(&self, py: Python<'py>, credit: &Credit, how: &str) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let reduce = parse_reduce(how, &self.offsets, &self.table)?;
        let table = &self.table;
        let credit = &credit.0;
        let cost = cost::walks(table.states.len(), credit.k);
        let out = enter_long(py, cost, || Ok(table.reduce(&table.credit_values(credit), 1, reduce)))?;
        Ok(out.into_pyarray(py))
    }

    /// Beta-posterior `(mean, variance)` of a credit over all questions, each
    /// with its own n (prior `Beta(alpha0, beta0)`).
    fn posterior(&self, py: Python<'_>, credit: &Credit, alpha0: f64, beta0: f64) -> PyResult<(f64, f64)> {
        let table = &self.table;
        let credit = &credit.0;
        let cost = cost::posterior(table.states.len(), credit.k, credit.k);
        enter_long(py, cost, || {
            kscore_core::posterior::credit_moments::posterior_ragged(&table.states, &table.freqs, credit, alpha0, beta0)
        })
    }

    /// A metric read off the counts: "avg" (c / n) or "cons" (1 if 2c > k;
    /// k = 0 means each question's own n).
    fn direct<'py>(&self, py: Python<'py>, kind: &str, k: u64, how: &str) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let reduce = parse_reduce(how, &self.offsets, &self.table)?;
        let metric = match kind {
            "avg" => Direct::Ratio,
            "cons" if k == 0 => Direct::MajorityOfOwn,
            "cons" => Direct::MajorityOf(k),
            _ => return Err(PyValueError::new_err(format!("unknown direct metric {kind:?}"))),
        };
        let table = &self.table;
        let out = enter(py, || Ok(table.reduce(&table.direct_values(metric), 1, reduce)))?;
        Ok(out.into_pyarray(py))
    }

    /// A metric family at every budget of `ks` (each in 1..=n everywhere):
    /// rows are questions, one row (the mean) or banks; columns follow `ks`.
    fn curve<'py>(
        &self,
        py: Python<'py>,
        family: MetricName,
        tau: f64,
        ks: Vec<u64>,
        how: &str,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let reduce = parse_reduce(how, &self.offsets, &self.table)?;
        let family = Family::new(family.0, tau).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let table = &self.table;
        let width = ks.len();
        let ks_ref = &ks;
        let cost = ks
            .iter()
            .fold(0usize, |acc, &k| acc.saturating_add(cost::walks(table.states.len(), k)));
        let out = enter_long(py, cost, || {
            Ok(table.reduce(&state_curves(&table.states, family, ks_ref), width, reduce))
        })?;
        let rows = out.len().checked_div(width).unwrap_or(0);
        let array = Array2::from_shape_vec((rows, width), out).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        Ok(array.into_pyarray(py))
    }
}
