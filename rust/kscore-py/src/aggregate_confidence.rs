//! `trace_signal` and `token_signal`: kscore.aggregate's confidence signals
//! (kscore_core::aggregate::confidence), for many traces at once.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use kscore_core::aggregate::confidence::{self, Reduce, Rows, Stat, Tokens};

use crate::enter::enter;

type Signal<'py> = (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<u8>>);

fn slice<'a, T: numpy::Element>(a: &'a PyReadonlyArray1<'_, T>, name: &str) -> PyResult<&'a [T]> {
    a.as_slice()
        .map_err(|_| PyValueError::new_err(format!("{name} must be C-contiguous")))
}

fn sizes(a: &[i64], name: &str) -> PyResult<Vec<usize>> {
    a.iter()
        .map(|&x| usize::try_from(x).map_err(|_| PyValueError::new_err(format!("{name} must be non-negative"))))
        .collect()
}

fn stat_of(name: &str) -> PyResult<Stat> {
    Stat::parse(name).ok_or_else(|| PyValueError::new_err(format!("unknown token statistic {name:?}")))
}

/// The traces' layout: `k` candidates per position, or row `bounds`.
struct Layout {
    bounds: Option<Vec<usize>>,
    starts: Vec<usize>,
    lens: Vec<usize>,
}

impl Layout {
    fn new(bounds: Option<&[i64]>, starts: &[i64], lens: &[i64]) -> PyResult<Layout> {
        Ok(Layout {
            bounds: bounds.map(|b| sizes(b, "bounds")).transpose()?,
            starts: sizes(starts, "starts")?,
            lens: sizes(lens, "lens")?,
        })
    }

    fn tokens<'a>(&'a self, values: &'a [f64], k: usize) -> Tokens<'a> {
        Tokens {
            values,
            rows: match &self.bounds {
                Some(b) => Rows::Bounds(b),
                None => Rows::Fixed(k),
            },
            starts: &self.starts,
            lens: &self.lens,
        }
    }
}

/// One number per trace (`stat` per token, then `reduce` over the trace) and
/// each trace's status (0 fine; 1 no tokens; 2 an empty row; 3 a value not
/// finite; 4 answer_start outside the trace). `k`: candidates per position
/// (ignored when `bounds` is given).
#[pyfunction]
#[pyo3(signature = (
    values, k, bounds, starts, lens, stat, reduce, window = 1, tail = 1, quantile = 0.1,
    answer_start = None, normalize = false, thresholds = None
))]
#[allow(clippy::too_many_arguments)]
pub fn trace_signal<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, f64>,
    k: usize,
    bounds: Option<PyReadonlyArray1<'py, i64>>,
    starts: PyReadonlyArray1<'py, i64>,
    lens: PyReadonlyArray1<'py, i64>,
    stat: &str,
    reduce: &str,
    window: usize,
    tail: usize,
    quantile: f64,
    answer_start: Option<PyReadonlyArray1<'py, i64>>,
    normalize: bool,
    thresholds: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Signal<'py>> {
    let stat = stat_of(stat)?;
    let v = slice(&values, "values")?;
    let b = bounds.as_ref().map(|a| slice(a, "bounds")).transpose()?;
    let layout = Layout::new(b, slice(&starts, "starts")?, slice(&lens, "lens")?)?;
    let a = answer_start.as_ref().map(|a| slice(a, "answer_start")).transpose()?;
    let th = thresholds.as_ref().map(|a| slice(a, "thresholds")).transpose()?;
    let missing = |what: &str| PyValueError::new_err(format!("reduce {reduce:?} needs {what}"));
    let reduce = match reduce {
        "mean" => Reduce::Mean,
        "min" => Reduce::Min,
        "max" => Reduce::Max,
        "sum" => Reduce::Sum,
        "last" => Reduce::Last,
        "prod" => Reduce::Prod,
        "perplexity" => Reduce::Perplexity,
        "tail" => Reduce::Tail(tail),
        "lowest_group" => Reduce::Lowest(window),
        "bottom_group" => Reduce::Bottom(window, quantile),
        "picsar" => Reduce::Picsar {
            answer_start: a.ok_or_else(|| missing("answer_start"))?,
            normalize,
        },
        "stop" => Reduce::Stop {
            window,
            thresholds: th.ok_or_else(|| missing("thresholds"))?,
        },
        other => return Err(PyValueError::new_err(format!("unknown reduction {other:?}"))),
    };
    let tokens = layout.tokens(v, k);
    let (out, status) = enter(py, || confidence::trace_signal(&tokens, stat, reduce))?;
    Ok((out.into_pyarray(py), status.into_pyarray(py)))
}

/// Every position's statistic, traces concatenated in order, and each
/// trace's status (as `trace_signal`).
#[pyfunction]
pub fn token_signal<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, f64>,
    k: usize,
    bounds: Option<PyReadonlyArray1<'py, i64>>,
    starts: PyReadonlyArray1<'py, i64>,
    lens: PyReadonlyArray1<'py, i64>,
    stat: &str,
) -> PyResult<Signal<'py>> {
    let stat = stat_of(stat)?;
    let v = slice(&values, "values")?;
    let b = bounds.as_ref().map(|a| slice(a, "bounds")).transpose()?;
    let layout = Layout::new(b, slice(&starts, "starts")?, slice(&lens, "lens")?)?;
    let tokens = layout.tokens(v, k);
    let (out, status) = enter(py, || confidence::token_signal(&tokens, stat))?;
    Ok((out.into_pyarray(py), status.into_pyarray(py)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(trace_signal, m)?)?;
    m.add_function(wrap_pyfunction!(token_signal, m)?)?;
    Ok(())
}
