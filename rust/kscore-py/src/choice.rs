//! Setwise Luce-family fits on the events of packed binary rows
//! (`kscore_core::choice`), for `kscore.rank`'s listwise rankers.

use numpy::{PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use kscore_core::choice::{fit, Events, Kind};
use kscore_core::pairwise::newton::Options;
use kscore_core::pairwise::{Fit, Hook};

use crate::enter::enter;
use crate::matrix::to_pyarray2;
use crate::pairwise::{packed, prior_of, PairwiseFit, PyHook};

type Summary<'py> = (f64, Bound<'py, PyArray2<f64>>, bool, bool);

/// The events of packed rows: `(number of events kept, memberships, whether
/// the winner -> loser graph is strongly connected, whether it is with
/// co-winner edges)`; `memberships[m, t - 1]`: events model `m` wins among
/// `t` winners.
#[pyfunction]
pub fn choice_events<'py>(py: Python<'py>, bits: PyReadonlyArray2<'py, u8>, events: usize) -> PyResult<Summary<'py>> {
    let rows = packed(&bits, events)?;
    let (kept, memberships, composite, davidson, l) = enter(py, || {
        let ev = Events::of(rows);
        let kept = ev.counts.iter().sum::<f64>();
        Ok((
            kept,
            ev.memberships(),
            ev.strongly_connected(false),
            ev.strongly_connected(true),
            ev.models,
        ))
    })?;
    Ok((kept, to_pyarray2(py, l, l, memberships)?, composite, davidson))
}

/// Fit a setwise likelihood (`kind`: "composite" for Bradley-Terry-Luce,
/// "davidson_luce") to the events of packed rows, with a prior as in
/// `pairwise_fit`: centred log-strengths in `theta`.
#[pyfunction]
#[pyo3(signature = (
    bits, events, kind, prior = "none", mean = None, precision = None, loc = 0.0, weight = 0.0, scale = 1.0,
    hook = None, init = None, max_iter = 200, tol = 1e-12
))]
#[allow(clippy::too_many_arguments)]
pub fn choice_fit(
    py: Python<'_>,
    bits: PyReadonlyArray2<'_, u8>,
    events: usize,
    kind: &str,
    prior: &str,
    mean: Option<PyReadonlyArray1<'_, f64>>,
    precision: Option<PyReadonlyArray1<'_, f64>>,
    loc: f64,
    weight: f64,
    scale: f64,
    hook: Option<Py<PyAny>>,
    init: Option<PyReadonlyArray1<'_, f64>>,
    max_iter: usize,
    tol: f64,
) -> PyResult<PairwiseFit> {
    let kind = match kind {
        "composite" => Kind::Composite,
        "davidson_luce" => Kind::DavidsonLuce,
        other => {
            return Err(PyValueError::new_err(format!(
                "kind must be 'composite' or 'davidson_luce', got {other:?}"
            )))
        }
    };
    let rows = packed(&bits, events)?;
    let mean = mean.map(|m| m.as_array().to_vec());
    let precision = precision.map(|p| p.as_array().to_vec());
    let init = init.map(|v| v.as_array().to_vec());
    let prior = prior_of(prior, mean.as_deref(), precision.as_deref(), loc, weight, scale)?;
    let hook = hook.map(PyHook::new);
    let options = Options {
        max_iter,
        tol,
        init: init.as_deref(),
        extra_init: None,
        hook: hook.as_ref().map(|h| h as &dyn Hook),
    };
    let result = enter(py, || {
        let ev = Events::of(rows);
        let s = fit(&ev, kind, &prior, &options)?;
        let dim = s.x.len();
        Ok(Fit {
            theta: s.x,
            tie_parameter: None,
            objective: s.objective,
            residual: s.residual,
            scale: s.scale,
            iterations: s.iterations,
            converged: s.converged,
            dim,
            hessian: s.hessian,
            held: s.held,
        })
    });
    if let Some(err) = hook.as_ref().and_then(PyHook::raised) {
        return Err(err);
    }
    Ok(PairwiseFit(result?))
}

/// The room's functions, registered in `_kscore` (one line in lib.rs).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(choice_events, m)?)?;
    m.add_function(wrap_pyfunction!(choice_fit, m)?)?;
    Ok(())
}
