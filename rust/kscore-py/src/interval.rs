//! The leaderboard's interval kernels: the monotone envelope of the default
//! interval over questions (`kscore_core::interval::envelope`).

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;

use kscore_core::interval::envelope::{bounds, envelope, Models, Runs, Units};

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

/// Every model's default interval before its last rescaling, the whole of
/// `bounds()`' work in one call (`kscore_core::interval::envelope::bounds`):
/// the envelopes `lo`, `hi` (rescaled, unclipped) and each model's units.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn interval_bounds<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    total: PyReadonlyArray1<'py, f64>,
    size: PyReadonlyArray1<'py, f64>,
    mult: PyReadonlyArray1<'py, f64>,
    lo_b: PyReadonlyArray1<'py, f64>,
    span: PyReadonlyArray1<'py, f64>,
    samples: PyReadonlyArray1<'py, f64>,
    z: f64,
) -> PyResult<BoundsArrays<'py>> {
    let offsets: Vec<usize> = offsets.as_slice()?.iter().map(|&x| x.max(0) as usize).collect();
    let units = Units {
        offsets: &offsets,
        total: total.as_slice()?,
        size: size.as_slice()?,
        mult: mult.as_slice()?,
    };
    let (lo_b, span, samples) = (lo_b.as_slice()?, span.as_slice()?, samples.as_slice()?);
    let cost = units.mult.iter().map(|&x| x.max(0.0)).sum::<f64>().min(1e15) as usize * 80;
    let out = enter_long(py, cost, || bounds(units, lo_b, span, samples, z))?;
    Ok((out.lo.into_pyarray(py), out.hi.into_pyarray(py), out.g.into_pyarray(py)))
}

/// [`interval_bounds`]' three arrays.
type BoundsArrays<'py> = (
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
);
