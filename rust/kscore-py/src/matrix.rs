//! Array intake: an outcome matrix of any supported dtype and any layout is
//! borrowed as an ndarray view (no copy) and handed to a generic kernel.
//! The Python layer has already turned array-likes into 2-D numpy arrays and
//! rare dtypes (float16, longdouble, non-native byte order) into common ones.

/// Bind `$view` to an `ArrayView2<T>` of `$obj`'s dtype and evaluate `$body`
/// (monomorphised once per dtype).
macro_rules! with_matrix {
    ($obj:expr, $view:ident => $body:expr) => {{
        use numpy::{PyArray2, PyArrayMethods, PyUntypedArrayMethods};
        let obj = $obj;
        macro_rules! try_dtype {
            ($t:ty) => {
                if let Ok(array) = obj.cast::<PyArray2<$t>>() {
                    let readonly = array.try_readonly().map_err(|e| {
                        pyo3::exceptions::PyValueError::new_err(e.to_string())
                    })?;
                    let $view = readonly.as_array();
                    return $body;
                }
            };
        }
        try_dtype!(bool);
        try_dtype!(u8);
        try_dtype!(i8);
        try_dtype!(i16);
        try_dtype!(u16);
        try_dtype!(i32);
        try_dtype!(u32);
        try_dtype!(i64);
        try_dtype!(u64);
        try_dtype!(f32);
        try_dtype!(f64);
        let described = match obj.cast::<numpy::PyUntypedArray>() {
            Ok(a) => format!("a {}-D array of dtype {}", a.ndim(), a.dtype()),
            Err(_) => "not a numpy array".to_string(),
        };
        Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "expected a 2-D numpy array of bool, int8..int64, uint8..uint64, float32 or float64; got {described}"
        )))
    }};
}

pub(crate) use with_matrix;
