//! The leaderboard's ranking kernels: the simultaneous rank sets' max-t
//! bootstrap over one block of pairs (`kscore_core::rank::max_t`), and the
//! rank ranges' folded count (`kscore_core::rank::folded`).

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

use kscore_core::rank::folded::{folded_count, Folded};
use kscore_core::rank::max_t::{max_t, Block};

use crate::enter::enter_long;

/// `mx` (one float32 per draw) raised to `|z[col0 + j] - z[row0 + i]| *
/// inv[i, j]` over the block's pairs with a nonzero weight (`z`: models x
/// draws; `inv`: the block's `1 / se`, rows x cols, float32): a new array.
#[pyfunction]
pub fn max_t_block<'py>(
    py: Python<'py>,
    z: PyReadonlyArray2<'py, f32>,
    inv: PyReadonlyArray2<'py, f32>,
    row0: usize,
    col0: usize,
    mx: PyReadonlyArray1<'py, f32>,
) -> PyResult<Bound<'py, PyArray1<f32>>> {
    let (_, draws) = z.as_array().dim();
    let (rows, cols) = inv.as_array().dim();
    let (z, inv, start) = (z.as_slice()?, inv.as_slice()?, mx.as_slice()?);
    let block = Block {
        z,
        draws,
        inv,
        rows,
        cols,
        row0,
        col0,
    };
    let cost = rows.saturating_mul(cols).saturating_mul(draws) / 2;
    // (into a copy: `enter_long` may run the work again after another call's Ctrl-C)
    let out = enter_long(py, cost, || {
        let mut acc = start.to_vec();
        max_t(block, &mut acc).map(|()| acc)
    })?;
    Ok(out.into_pyarray(py))
}

/// The folded count of the rank ranges (`kscore_core::rank::folded`): `a`,
/// `b` models x k in decreasing order of the models' sums, `reach` per
/// model, the margin `delta`. Returns `(worse, better, near)`: per sorted
/// position, the columns it is significantly better than and the rows
/// significantly better than it, and the near pairs (`n x 2`, `i < j`, sorted).
fn folded_any<'py, T: kscore_core::rank::folded::Real + numpy::Element>(
    py: Python<'py>,
    a: PyReadonlyArray2<'py, T>,
    b: PyReadonlyArray2<'py, T>,
    reach: PyReadonlyArray1<'py, i64>,
    delta: f64,
) -> PyResult<Folds<'py>> {
    let (models, k) = a.as_array().dim();
    let (a, b, reach) = (a.as_slice()?, b.as_slice()?, reach.as_slice()?);
    let args = Folded { a, b, k, reach, delta };
    let cost = models.saturating_mul(models).saturating_mul(k) / 32;
    let got = enter_long(py, cost, || folded_count(args))?;
    let near: Vec<i64> = got.near.iter().flat_map(|&(i, j)| [i as i64, j as i64]).collect();
    let pairs = got.near.len();
    let near = PyArray1::from_vec(py, near).reshape([pairs, 2])?;
    let as_i64 = |v: Vec<u64>| v.into_iter().map(|x| x as i64).collect::<Vec<i64>>().into_pyarray(py);
    Ok((as_i64(got.worse), as_i64(got.better), near))
}

type Folds<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray2<i64>>,
);

/// `folded_any` in single precision (large boards of few questions).
#[pyfunction]
pub fn folded_count32<'py>(
    py: Python<'py>,
    a: PyReadonlyArray2<'py, f32>,
    b: PyReadonlyArray2<'py, f32>,
    reach: PyReadonlyArray1<'py, i64>,
    delta: f64,
) -> PyResult<Folds<'py>> {
    folded_any(py, a, b, reach, delta)
}

/// `folded_any` in double precision.
#[pyfunction]
pub fn folded_count64<'py>(
    py: Python<'py>,
    a: PyReadonlyArray2<'py, f64>,
    b: PyReadonlyArray2<'py, f64>,
    reach: PyReadonlyArray1<'py, i64>,
    delta: f64,
) -> PyResult<Folds<'py>> {
    folded_any(py, a, b, reach, delta)
}
