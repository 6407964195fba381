//! The leaderboard's interval kernels: the monotone envelope of the default
//! interval over questions (`kscore_core::interval::envelope`).

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;

use kscore_core::interval::envelope::{envelope, Models, Runs};

use crate::enter::enter_long;

/// Each model's envelope bound (rescaled): the least lower bound
/// (`upper`: the greatest upper bound) over its own board and the boards
/// that move `j` units of a run to the end, every `j` of every run
/// (python/kscore/leaderboard/stats/default_interval.py).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn interval_envelope<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    sums: [PyReadonlyArray1<'py, f64>; 8],
    s: PyReadonlyArray1<'py, f64>,
    m: PyReadonlyArray1<'py, f64>,
    c: PyReadonlyArray1<'py, f64>,
    z: f64,
    upper: bool,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let offsets: Vec<usize> = offsets.as_slice()?.iter().map(|&x| x.max(0) as usize).collect();
    let v: Vec<&[f64]> = sums.iter().map(|a| a.as_slice()).collect::<Result<_, _>>()?;
    let models = Models {
        offsets: &offsets,
        n: v[0],
        g: v[1],
        t1: v[2],
        t2: v[3],
        t3: v[4],
        t4: v[5],
        n_w: v[6],
        samples: v[7],
    };
    let runs = Runs {
        s: s.as_slice()?,
        m: m.as_slice()?,
        c: c.as_slice()?,
    };
    let cost = runs.c.iter().map(|&x| x.max(0.0)).sum::<f64>().min(1e15) as usize * 40;
    let out = enter_long(py, cost, || envelope(models, runs, z, upper))?;
    Ok(out.into_pyarray(py))
}
