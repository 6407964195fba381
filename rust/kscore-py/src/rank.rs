//! The leaderboard's ranking kernels: the simultaneous rank sets' max-t
//! bootstrap over one block of pairs (`kscore_core::rank::max_t`), and the
//! rank ranges' count on a lattice board (`kscore_core::rank::lattice`).

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

use kscore_core::rank::lattice::{lattice_count as count, tier, Lattice};
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

/// Per sorted position: (worse, better) counts, and the near pairs (`n x 2`).
type Counts<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray2<i64>>,
);

/// The rank ranges' unadjusted count on a lattice board
/// (`kscore_core::rank::lattice`): `counts` models x questions (uint8, at
/// most 127, sorted by decreasing sum), each row's `reach`, the test's `c`
/// and `t2`, the margin `delta`. Returns `(worse, better, near)`.
#[pyfunction]
pub fn lattice_count<'py>(
    py: Python<'py>,
    counts: PyReadonlyArray2<'py, u8>,
    reach: PyReadonlyArray1<'py, i64>,
    c: f64,
    t2: f64,
    delta: f64,
) -> PyResult<Counts<'py>> {
    let (models, q) = counts.as_array().dim();
    let (counts, reach) = (counts.as_slice()?, reach.as_slice()?);
    let lat = Lattice {
        counts,
        q,
        reach,
        c,
        t2,
        delta,
    };
    let cost = models.saturating_mul(models).saturating_mul(q) / 128;
    let got = enter_long(py, cost, || count(lat))?;
    let pairs = got.near.len();
    let near: Vec<i64> = got.near.iter().flat_map(|&(i, j)| [i as i64, j as i64]).collect();
    let near = PyArray1::from_vec(py, near).reshape([pairs, 2])?;
    let as_i64 = |v: Vec<u64>| v.into_iter().map(|x| x as i64).collect::<Vec<i64>>().into_pyarray(py);
    Ok((as_i64(got.worse), as_i64(got.better), near))
}

/// The instructions `lattice_count` runs on here: "avx512vnni" or "portable".
#[pyfunction]
pub fn lattice_tier() -> &'static str {
    tier()
}

/// Registers `lattice_count` and `lattice_tier` (one line in lib.rs).
pub fn register_lattice(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(lattice_count, m)?)?;
    m.add_function(wrap_pyfunction!(lattice_tier, m)?)?;
    Ok(())
}
