//! The leaderboard's ranking kernels: the simultaneous rank sets' max-t
//! bootstrap over one block of pairs (`kscore_core::rank::max_t`).

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

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
