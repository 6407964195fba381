//! Array intake: an outcome matrix of any supported dtype and any layout is
//! borrowed in place (no copy) as one variant of `Outcomes`, and `on_view!`
//! hands its `ArrayView2` to a generic kernel (monomorphised once per dtype).
//! The Python layer has already turned array-likes into numpy arrays and rare
//! dtypes (float16, longdouble, non-native byte order) into common ones.
//!
//! The dtype is read once from the array's descriptor (kind and item size)
//! rather than by trying each element type in turn: a call on a small matrix
//! costs a few microseconds, and eleven failed casts were a visible part of
//! it (docs/threads.md).

use numpy::{PyArray2, PyArrayDescrMethods, PyArrayMethods, PyReadonlyArray2, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// A 2-D outcome matrix of one of the element types the core reads in place.
pub enum Outcomes<'py> {
    Bool(PyReadonlyArray2<'py, bool>),
    U8(PyReadonlyArray2<'py, u8>),
    I8(PyReadonlyArray2<'py, i8>),
    U16(PyReadonlyArray2<'py, u16>),
    I16(PyReadonlyArray2<'py, i16>),
    U32(PyReadonlyArray2<'py, u32>),
    I32(PyReadonlyArray2<'py, i32>),
    U64(PyReadonlyArray2<'py, u64>),
    I64(PyReadonlyArray2<'py, i64>),
    F32(PyReadonlyArray2<'py, f32>),
    F64(PyReadonlyArray2<'py, f64>),
}

const EXPECTED: &str = "expected a 2-D numpy array of bool, int8..int64, uint8..uint64, float32 or float64";

fn borrow<'py, T: numpy::Element>(array: &Bound<'py, PyUntypedArray>) -> PyResult<PyReadonlyArray2<'py, T>> {
    // SAFETY: the caller matched the descriptor's kind, item size, native byte
    // order and ndim == 2 to `T`, which is what `PyArray2<T>` requires.
    let typed = unsafe { array.cast_unchecked::<PyArray2<T>>() };
    typed.try_readonly().map_err(|e| PyValueError::new_err(e.to_string()))
}

impl<'a, 'py> FromPyObject<'a, 'py> for Outcomes<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let Ok(array) = obj.cast::<PyUntypedArray>() else {
            return Err(PyTypeError::new_err(format!("{EXPECTED}; got not a numpy array")));
        };
        let array = array.to_owned();
        let dtype = array.dtype();
        let native = dtype.is_native_byteorder().unwrap_or(true);
        if array.ndim() == 2 && native {
            match (dtype.kind(), dtype.itemsize()) {
                (b'b', 1) => return borrow(&array).map(Outcomes::Bool),
                (b'u', 1) => return borrow(&array).map(Outcomes::U8),
                (b'i', 1) => return borrow(&array).map(Outcomes::I8),
                (b'u', 2) => return borrow(&array).map(Outcomes::U16),
                (b'i', 2) => return borrow(&array).map(Outcomes::I16),
                (b'u', 4) => return borrow(&array).map(Outcomes::U32),
                (b'i', 4) => return borrow(&array).map(Outcomes::I32),
                (b'u', 8) => return borrow(&array).map(Outcomes::U64),
                (b'i', 8) => return borrow(&array).map(Outcomes::I64),
                (b'f', 4) => return borrow(&array).map(Outcomes::F32),
                (b'f', 8) => return borrow(&array).map(Outcomes::F64),
                _ => {}
            }
        }
        Err(PyTypeError::new_err(format!(
            "{EXPECTED}; got a {}-D array of dtype {}",
            array.ndim(),
            dtype
        )))
    }
}

/// Evaluate `$body` with `$view` bound to the `ArrayView2` of `$outcomes`
/// (one copy of `$body` per element type; no early return).
macro_rules! on_view {
    ($outcomes:expr, $view:ident => $body:expr) => {
        match &$outcomes {
            $crate::matrix::Outcomes::Bool(a) => {
                let $view = a.as_array();
                $body
            }
            $crate::matrix::Outcomes::U8(a) => {
                let $view = a.as_array();
                $body
            }
            $crate::matrix::Outcomes::I8(a) => {
                let $view = a.as_array();
                $body
            }
            $crate::matrix::Outcomes::U16(a) => {
                let $view = a.as_array();
                $body
            }
            $crate::matrix::Outcomes::I16(a) => {
                let $view = a.as_array();
                $body
            }
            $crate::matrix::Outcomes::U32(a) => {
                let $view = a.as_array();
                $body
            }
            $crate::matrix::Outcomes::I32(a) => {
                let $view = a.as_array();
                $body
            }
            $crate::matrix::Outcomes::U64(a) => {
                let $view = a.as_array();
                $body
            }
            $crate::matrix::Outcomes::I64(a) => {
                let $view = a.as_array();
                $body
            }
            $crate::matrix::Outcomes::F32(a) => {
                let $view = a.as_array();
                $body
            }
            $crate::matrix::Outcomes::F64(a) => {
                let $view = a.as_array();
                $body
            }
        }
    };
}

pub(crate) use on_view;

/// A core result of `rows * cols` values, row-major, as a new numpy array of
/// that shape: the one way the bindings hand a matrix back.
pub fn to_pyarray2<T: numpy::Element>(
    py: Python<'_>,
    rows: usize,
    cols: usize,
    v: Vec<T>,
) -> PyResult<Bound<'_, PyArray2<T>>> {
    numpy::ndarray::Array2::from_shape_vec((rows, cols), v)
        .map(|a| numpy::IntoPyArray::into_pyarray(a, py))
        .map_err(|e| PyValueError::new_err(e.to_string()))
}
