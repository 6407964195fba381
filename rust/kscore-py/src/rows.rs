//! `RowCounter`: the leaderboard's long-format rows, one Arrow batch at a
//! time (numpy views of its buffers), counted per (model, question) in the
//! core (`kscore_core::intake::rows`). A batch the core cannot vouch for
//! returns why, and the caller counts the input the general way.

use std::sync::{Mutex, MutexGuard, TryLockError};

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

use kscore_core::intake::rows::{self, Halt, Ints, ModelColumn};

use crate::enter::enter;

/// A borrowed integer vector of any of the widths the core counts.
enum IntVector<'py> {
    I8(PyReadonlyArray1<'py, i8>),
    U8(PyReadonlyArray1<'py, u8>),
    I16(PyReadonlyArray1<'py, i16>),
    I32(PyReadonlyArray1<'py, i32>),
    I64(PyReadonlyArray1<'py, i64>),
}

fn borrow<'py, T: numpy::Element>(obj: &Bound<'py, PyAny>) -> Option<PyResult<PyReadonlyArray1<'py, T>>> {
    obj.cast::<PyArray1<T>>()
        .ok()
        .map(|a| a.try_readonly().map_err(|e| PyValueError::new_err(e.to_string())))
}

impl<'py> IntVector<'py> {
    fn of(obj: &Bound<'py, PyAny>, name: &str) -> PyResult<Self> {
        if let Some(a) = borrow::<i8>(obj) {
            return a.map(IntVector::I8);
        }
        if let Some(a) = borrow::<u8>(obj) {
            return a.map(IntVector::U8);
        }
        if let Some(a) = borrow::<i16>(obj) {
            return a.map(IntVector::I16);
        }
        if let Some(a) = borrow::<i32>(obj) {
            return a.map(IntVector::I32);
        }
        if let Some(a) = borrow::<i64>(obj) {
            return a.map(IntVector::I64);
        }
        Err(PyTypeError::new_err(format!(
            "{name} must be a 1-D int8/uint8/int16/int32/int64 numpy array"
        )))
    }

    fn ints(&self) -> PyResult<Ints<'_>> {
        let bad = |_| PyValueError::new_err("arrays must be contiguous");
        Ok(match self {
            IntVector::I8(a) => Ints::I8(a.as_slice().map_err(bad)?),
            IntVector::U8(a) => Ints::U8(a.as_slice().map_err(bad)?),
            IntVector::I16(a) => Ints::I16(a.as_slice().map_err(bad)?),
            IntVector::I32(a) => Ints::I32(a.as_slice().map_err(bad)?),
            IntVector::I64(a) => Ints::I64(a.as_slice().map_err(bad)?),
        })
    }
}

/// A dictionary column of a batch: int32 indices, offsets (int32/int64) and data (uint8).
type Dictionary<'py> = (PyReadonlyArray1<'py, i32>, Bound<'py, PyAny>, PyReadonlyArray1<'py, u8>);

fn codes(names: &mut rows::Interner, offsets: &Bound<'_, PyAny>, data: &[u8]) -> PyResult<Option<Vec<u32>>> {
    if let Ok(o) = offsets.cast::<PyArray1<i32>>() {
        let o = o.try_readonly().map_err(|e| PyValueError::new_err(e.to_string()))?;
        return Ok(names.dictionary(
            o.as_slice()
                .map_err(|_| PyValueError::new_err("offsets not contiguous"))?,
            data,
        ));
    }
    if let Ok(o) = offsets.cast::<PyArray1<i64>>() {
        let o = o.try_readonly().map_err(|e| PyValueError::new_err(e.to_string()))?;
        return Ok(names.dictionary(
            o.as_slice()
                .map_err(|_| PyValueError::new_err("offsets not contiguous"))?,
            data,
        ));
    }
    Err(PyTypeError::new_err(
        "dictionary offsets must be an int32 or int64 numpy array",
    ))
}

/// Per-(model, question) category counts of long-format rows, batch by
/// batch; `ids`: sample ids are `0..ids` (0: no sample column).
#[pyclass(frozen, module = "kscore._kscore")]
pub struct RowCounter {
    inner: Mutex<Option<rows::RowCounter>>,
}

/// The counter's lock, without waiting: a thread that waited for it while
/// holding the interpreter could deadlock with the holder, which releases the
/// interpreter while it counts and needs it back to return.
fn try_lock(inner: &Mutex<Option<rows::RowCounter>>) -> PyResult<MutexGuard<'_, Option<rows::RowCounter>>> {
    match inner.try_lock() {
        Ok(guard) => Ok(guard),
        Err(TryLockError::Poisoned(e)) => Ok(e.into_inner()),
        Err(TryLockError::WouldBlock) => Err(PyRuntimeError::new_err("this RowCounter is in use by another thread")),
    }
}

impl RowCounter {
    fn with<T>(&self, work: impl FnOnce(&mut rows::RowCounter) -> PyResult<T>) -> PyResult<T> {
        let mut guard = try_lock(&self.inner)?;
        let counter = guard
            .as_mut()
            .ok_or_else(|| PyRuntimeError::new_err("this RowCounter has finished"))?;
        work(counter)
    }
}

#[pymethods]
impl RowCounter {
    #[new]
    fn new(categories: usize, ids: usize) -> PyResult<Self> {
        if categories < 2 {
            return Err(PyValueError::new_err("categories must be at least 2"));
        }
        Ok(RowCounter {
            inner: Mutex::new(Some(rows::RowCounter::new(categories, ids))),
        })
    }

    /// The code of a model named once for a whole batch (a file's model).
    fn model_code(&self, name: &str) -> PyResult<u32> {
        self.with(|c| Ok(c.models.code(name.as_bytes())))
    }

    /// Count one batch. `model`: a model code (`model_code`) or a
    /// dictionary column `(indices, offsets, data)`; `question`: a
    /// dictionary column; `outcome`, `sample`: integer vectors. Returns
    /// None, or why the rows cannot be counted here (the counter is then
    /// spent).
    #[pyo3(signature = (model, question, outcome, sample=None))]
    fn add(
        &self,
        py: Python<'_>,
        model: &Bound<'_, PyAny>,
        question: Dictionary<'_>,
        outcome: &Bound<'_, PyAny>,
        sample: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<&'static str>> {
        let outcome = IntVector::of(outcome, "outcome")?;
        let sample = sample.map(|s| IntVector::of(s, "sample")).transpose()?;
        let coded: Option<Dictionary<'_>> = if model.extract::<u32>().is_ok() {
            None
        } else {
            Some(model.extract()?)
        };
        let constant = model.extract::<u32>().ok();
        let mut guard = try_lock(&self.inner)?;
        let Some(counter) = guard.as_mut() else {
            return Err(PyRuntimeError::new_err("this RowCounter has finished"));
        };
        let (q_idx, q_off, q_data) = &question;
        let q_data = q_data
            .as_slice()
            .map_err(|_| PyValueError::new_err("data not contiguous"))?;
        let Some(q_map) = codes(&mut counter.questions, q_off, q_data)? else {
            *guard = None;
            return Ok(Some(Halt::Index.reason()));
        };
        let m_map = match &coded {
            Some((_, off, data)) => {
                let data = data
                    .as_slice()
                    .map_err(|_| PyValueError::new_err("data not contiguous"))?;
                match codes(&mut counter.models, off, data)? {
                    Some(map) => Some(map),
                    None => {
                        *guard = None;
                        return Ok(Some(Halt::Index.reason()));
                    }
                }
            }
            None => None,
        };
        let m_idx = match &coded {
            Some((idx, _, _)) => Some(
                idx.as_slice()
                    .map_err(|_| PyValueError::new_err("indices not contiguous"))?,
            ),
            None => None,
        };
        let q_idx = q_idx
            .as_slice()
            .map_err(|_| PyValueError::new_err("indices not contiguous"))?;
        let outcome = outcome.ints()?;
        let sample = match &sample {
            Some(s) => Some(s.ints()?),
            None => None,
        };
        let column = match (m_idx, &m_map, constant) {
            (Some(idx), Some(map), _) => ModelColumn::Coded(idx, map),
            (_, _, Some(code)) => ModelColumn::Constant(code),
            _ => return Err(PyTypeError::new_err("model must be a code or a dictionary column")),
        };
        let counter_ref = &mut *counter;
        let cell = Mutex::new(Some(counter_ref));
        let halted = enter(py, || {
            let mut c = cell.lock().unwrap_or_else(|e| e.into_inner());
            let counter = c.as_mut().expect("one call");
            Ok(counter.add(
                match column {
                    ModelColumn::Constant(m) => ModelColumn::Constant(m),
                    ModelColumn::Coded(i, m) => ModelColumn::Coded(i, m),
                },
                (q_idx, &q_map),
                outcome,
                sample,
            ))
        })?;
        match halted {
            Ok(()) => Ok(None),
            Err(halt) => {
                *guard = None;
                Ok(Some(halt.reason()))
            }
        }
    }

    /// Cells counted so far.
    fn cells(&self) -> PyResult<usize> {
        self.with(|c| Ok(c.cells()))
    }

    /// The counts: (models, questions) sorted, and per cell (by model, then
    /// question) its model and question index and the category counts as a
    /// `categories x cells` int64 array.
    #[allow(clippy::type_complexity)]
    fn finish<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(
        Bound<'py, PyList>,
        Bound<'py, PyList>,
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray2<i64>>,
    )> {
        let counter = {
            let mut guard = try_lock(&self.inner)?;
            guard
                .take()
                .ok_or_else(|| PyRuntimeError::new_err("this RowCounter has finished"))?
        };
        let cell = Mutex::new(Some(counter));
        let out = enter(py, || {
            let counter = cell.lock().unwrap_or_else(|e| e.into_inner()).take().expect("one call");
            Ok(counter.finish())
        })?;
        let text = |names: Vec<Box<[u8]>>| -> PyResult<Bound<'py, PyList>> {
            let mut list = Vec::with_capacity(names.len());
            for n in names {
                list.push(String::from_utf8(n.into_vec()).map_err(|_| PyValueError::new_err("a name is not UTF-8"))?);
            }
            PyList::new(py, list)
        };
        let cells = out.model.len();
        let counts = ndarray::Array2::from_shape_vec((out.categories, cells), out.counts)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        Ok((
            text(out.models)?,
            text(out.questions)?,
            out.model.into_pyarray(py),
            out.question.into_pyarray(py),
            counts.into_pyarray(py),
        ))
    }
}
