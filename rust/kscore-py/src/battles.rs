//! Arena's boards (`kscore_core::battles`): `BattleBoard` holds a board's
//! unique rows for the fit, sandwich, bootstrap and refits on changed
//! counts (fragility); `StyleBoard` holds battles with style features.

use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use kscore_core::battles::bootstrap::{bootstrap, Unit};
use kscore_core::battles::columns::{self, Column};
use kscore_core::battles::encode::{encode, encode_sorted, Strings};
use kscore_core::battles::fit::{fit, Pairs};
use kscore_core::battles::sandwich::{sandwich, Ridge};
use kscore_core::battles::style;
use kscore_core::battles::ties::{self, TieModel};
use kscore_core::battles::{aggregate, Battles, Board, Prior};

use crate::enter::enter_long;
use crate::matrix::to_pyarray2;

type F64Vec<'py> = Bound<'py, PyArray1<f64>>;
type F64Mat<'py> = Bound<'py, PyArray2<f64>>;
type U32Vec<'py> = Bound<'py, PyArray1<u32>>;

fn matrix<'py>(py: Python<'py>, v: Vec<f64>, rows: usize, cols: usize) -> PyResult<F64Mat<'py>> {
    to_pyarray2(py, rows, cols, v)
}

fn ridge_of(ridge: Option<f64>) -> Ridge {
    ridge.map_or(Ridge::Centred, Ridge::Diagonal)
}

fn tie_model_of(model: &str) -> PyResult<TieModel> {
    match model {
        "davidson" => Ok(TieModel::Davidson),
        "rao_kupper" => Ok(TieModel::RaoKupper),
        _ => Err(PyValueError::new_err(format!(
            "tie model must be 'davidson' or 'rao_kupper', not {model:?}"
        ))),
    }
}

fn unit_of(by: &str) -> PyResult<Unit> {
    match by {
        "battle" => Ok(Unit::Battle),
        "prompt" => Ok(Unit::Prompt),
        _ => Err(PyValueError::new_err(format!(
            "bootstrap unit must be 'battle' or 'prompt', not {by:?}"
        ))),
    }
}

/// `(codes, names)`: a code per string of an Arrow string column given as
/// its offsets (int32 or int64) and bytes, and the distinct strings (bytes) in order
/// of first appearance.
#[pyfunction]
pub fn encode_strings<'py>(
    py: Python<'py>,
    offsets: &Bound<'py, PyAny>,
    data: PyReadonlyArray1<'_, u8>,
) -> PyResult<(U32Vec<'py>, Vec<Bound<'py, PyBytes>>)> {
    let data = data.as_slice()?;
    let (codes, names) = if let Ok(o) = offsets.extract::<PyReadonlyArray1<'_, i32>>() {
        let o = o.as_slice()?;
        enter_long(py, o.len().saturating_mul(20), || encode(o, data))?
    } else {
        let o = offsets.extract::<PyReadonlyArray1<'_, i64>>()?;
        let o = o.as_slice()?;
        enter_long(py, o.len().saturating_mul(20), || encode(o, data))?
    };
    let names = names.iter().map(|s| PyBytes::new(py, s)).collect();
    Ok((codes.into_pyarray(py), names))
}

enum Offsets<'py> {
    Narrow(PyReadonlyArray1<'py, i32>),
    Wide(PyReadonlyArray1<'py, i64>),
}

/// `(codes, names)`: the strings of several Arrow string arrays, each given
/// as `(offsets, data)` (int32 or int64 offsets), coded over one set of
/// names sorted by their bytes (Python's order of `str`s for UTF-8), a
/// code array per array.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn encode_sorted_strings<'py>(
    py: Python<'py>,
    arrays: Vec<(Bound<'py, PyAny>, PyReadonlyArray1<'py, u8>)>,
) -> PyResult<(Vec<U32Vec<'py>>, Vec<Bound<'py, PyBytes>>)> {
    let mut held = Vec::with_capacity(arrays.len());
    for (offsets, data) in arrays {
        let o = if let Ok(o) = offsets.extract::<PyReadonlyArray1<'py, i32>>() {
            Offsets::Narrow(o)
        } else {
            Offsets::Wide(offsets.extract::<PyReadonlyArray1<'py, i64>>()?)
        };
        held.push((o, data));
    }
    let mut strings = Vec::with_capacity(held.len());
    let mut rows = 0usize;
    for (o, d) in &held {
        let d = d.as_slice()?;
        strings.push(match o {
            Offsets::Narrow(a) => {
                let a = a.as_slice()?;
                rows = rows.saturating_add(a.len());
                Strings::Narrow(a, d)
            }
            Offsets::Wide(a) => {
                let a = a.as_slice()?;
                rows = rows.saturating_add(a.len());
                Strings::Wide(a, d)
            }
        });
    }
    let (codes, names) = enter_long(py, rows.saturating_mul(10), || encode_sorted(&strings))?;
    let codes = codes.into_iter().map(|c| c.into_pyarray(py)).collect();
    let names = names.iter().map(|s| PyBytes::new(py, s)).collect();
    Ok((codes, names))
}

/// One string array as Python hands it over: offsets (int32 or int64),
/// bytes, and the validity bitmap with the bit of row 0 (None: no nulls).
type ArrayArg<'py> = (
    Bound<'py, PyAny>,
    PyReadonlyArray1<'py, u8>,
    Option<(PyReadonlyArray1<'py, u8>, usize)>,
);

struct Held<'py> {
    offsets: Offsets<'py>,
    data: PyReadonlyArray1<'py, u8>,
    valid: Option<(PyReadonlyArray1<'py, u8>, usize)>,
}

fn hold(arrays: Vec<ArrayArg<'_>>) -> PyResult<Vec<Held<'_>>> {
    let mut held = Vec::with_capacity(arrays.len());
    for (offsets, data, valid) in arrays {
        let offsets = if let Ok(o) = offsets.extract::<PyReadonlyArray1<'_, i32>>() {
            Offsets::Narrow(o)
        } else {
            Offsets::Wide(offsets.extract::<PyReadonlyArray1<'_, i64>>()?)
        };
        held.push(Held { offsets, data, valid });
    }
    Ok(held)
}

fn column_views<'a>(held: &'a [Held<'_>]) -> PyResult<Vec<Column<'a>>> {
    let mut out = Vec::with_capacity(held.len());
    for h in held {
        let d = h.data.as_slice()?;
        let strings = match &h.offsets {
            Offsets::Narrow(a) => Strings::Narrow(a.as_slice()?, d),
            Offsets::Wide(a) => Strings::Wide(a.as_slice()?, d),
        };
        let valid = match &h.valid {
            Some((bits, at)) => Some((bits.as_slice()?, *at)),
            None => None,
        };
        out.push(Column { strings, valid });
    }
    Ok(out)
}

/// What `code_battles` returns: the codes of model_a and model_b, the
/// outcome of model_a and the flags per battle, the names, the board.
type CodedBattles<'py> = (
    U32Vec<'py>,
    U32Vec<'py>,
    Bound<'py, PyArray1<u8>>,
    Bound<'py, PyArray1<u8>>,
    Vec<Bound<'py, PyBytes>>,
    Option<BattleBoard>,
);

/// `(a, b, outcome, flags, names, board)`: battles from their string
/// columns (model_a, model_b, winner: each a list of arrays given as
/// `(offsets, data, validity)`) in one pass of the core
/// (kscore_core::battles::columns): the models' codes over the names sorted
/// by their bytes, the result of model_a (0, 1, 2; 255: not a winner value)
/// and what is wrong per battle (1, 2: model_a, model_b missing; 4: a model
/// against itself; 8: not a winner value), and the unique rows of the good
/// battles (None past 836 models). `outcomes(words)` is called once, with
/// the distinct winner words (bytes), and gives each its outcome.
#[pyfunction]
pub fn code_battles<'py>(
    py: Python<'py>,
    model_a: Vec<ArrayArg<'py>>,
    model_b: Vec<ArrayArg<'py>>,
    winner: Vec<ArrayArg<'py>>,
    outcomes: &Bound<'py, PyAny>,
) -> PyResult<CodedBattles<'py>> {
    let (ha, hb, hw) = (hold(model_a)?, hold(model_b)?, hold(winner)?);
    let (ca, cb, cw) = (column_views(&ha)?, column_views(&hb)?, column_views(&hw)?);
    let rows: usize = ca.iter().map(|c| c.strings.len()).sum();
    let pending = enter_long(py, rows.saturating_mul(30), || columns::code(&ca, &cb, &cw))?;
    let words: Vec<Bound<'py, PyBytes>> = pending.words().iter().map(|w| PyBytes::new(py, w)).collect();
    let given: Vec<u8> = outcomes.call1((words,))?.extract()?;
    let coded = enter_long(py, rows.saturating_mul(6), || pending.finish(&given))?;
    let names = coded.names.iter().map(|s| PyBytes::new(py, s)).collect();
    Ok((
        coded.a.into_pyarray(py),
        coded.b.into_pyarray(py),
        coded.outcome.into_pyarray(py),
        coded.flags.into_pyarray(py),
        names,
        coded.board.map(|board| BattleBoard { board }),
    ))
}

/// The unique (prompt, pair, outcome, weight) rows of a set of battles.
#[pyclass(frozen, module = "kscore._kscore")]
pub struct BattleBoard {
    board: Board,
}

impl BattleBoard {
    fn pair_view<'a>(&'a self, n: &'a [f64], s: &'a [f64]) -> Pairs<'a> {
        Pairs {
            models: self.board.models,
            i: &self.board.pair_i,
            j: &self.board.pair_j,
            n,
            s,
        }
    }

    fn counts(&self, counts: Option<&[f64]>) -> PyResult<Vec<f64>> {
        match counts {
            None => Ok(self.board.row_count.clone()),
            Some(c) if c.len() == self.board.row_count.len() => Ok(c.to_vec()),
            Some(_) => Err(PyValueError::new_err("counts: one per row")),
        }
    }
}

/// Count the unique rows of battles given as codes (`outcome`: the result
/// of `a`, 0 loss, 1 tie, 2 win).
#[pyfunction]
#[pyo3(signature = (models, a, b, outcome, weight=None, cluster=None, clusters=0))]
#[allow(clippy::too_many_arguments)]
pub fn battle_board(
    py: Python<'_>,
    models: usize,
    a: PyReadonlyArray1<'_, u32>,
    b: PyReadonlyArray1<'_, u32>,
    outcome: PyReadonlyArray1<'_, u8>,
    weight: Option<PyReadonlyArray1<'_, f64>>,
    cluster: Option<PyReadonlyArray1<'_, u32>>,
    clusters: usize,
) -> PyResult<BattleBoard> {
    let (a, b, outcome) = (a.as_slice()?, b.as_slice()?, outcome.as_slice()?);
    let weight = weight.as_ref().map(|w| w.as_slice()).transpose()?;
    let cluster = cluster.as_ref().map(|c| c.as_slice()).transpose()?;
    let battles = Battles {
        models,
        a,
        b,
        outcome,
        weight,
        cluster: cluster.map(|c| (c, clusters)),
    };
    let board = enter_long(py, a.len().saturating_mul(20), || aggregate(&battles))?;
    Ok(BattleBoard { board })
}

#[pymethods]
impl BattleBoard {
    #[getter]
    fn models(&self) -> usize {
        self.board.models
    }

    #[getter]
    fn battles(&self) -> u64 {
        self.board.battles
    }

    #[getter]
    fn clusters(&self) -> usize {
        self.board.clusters()
    }

    /// `(pair_i, pair_j)`: the pairs with battles, `i < j`.
    fn pairs<'py>(&self, py: Python<'py>) -> (Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<u32>>) {
        (
            self.board.pair_i.clone().into_pyarray(py),
            self.board.pair_j.clone().into_pyarray(py),
        )
    }

    /// `(row_pair, row_outcome, row_weight, row_count)` of the unique rows.
    #[allow(clippy::type_complexity)]
    fn rows<'py>(
        &self,
        py: Python<'py>,
    ) -> (
        Bound<'py, PyArray1<u32>>,
        Bound<'py, PyArray1<u8>>,
        F64Vec<'py>,
        F64Vec<'py>,
    ) {
        let b = &self.board;
        (
            b.row_pair.clone().into_pyarray(py),
            b.row_outcome.clone().into_pyarray(py),
            b.row_weight.clone().into_pyarray(py),
            b.row_count.clone().into_pyarray(py),
        )
    }

    /// `(n, s)` per pair for row counts `counts` (the board's if None).
    #[pyo3(signature = (counts=None))]
    fn pair_sums<'py>(
        &self,
        py: Python<'py>,
        counts: Option<PyReadonlyArray1<'_, f64>>,
    ) -> PyResult<(F64Vec<'py>, F64Vec<'py>)> {
        let counts = self.counts(counts.as_ref().map(|c| c.as_slice()).transpose()?)?;
        let (n, s) = self.board.pair_sums(&counts);
        Ok((n.into_pyarray(py), s.into_pyarray(py)))
    }

    /// Component label of each model in the graph of pairs with battles.
    #[pyo3(signature = (counts=None))]
    fn components<'py>(
        &self,
        py: Python<'py>,
        counts: Option<PyReadonlyArray1<'_, f64>>,
    ) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let counts = self.counts(counts.as_ref().map(|c| c.as_slice()).transpose()?)?;
        let (n, s) = self.board.pair_sums(&counts);
        Ok(self.pair_view(&n, &s).components().into_pyarray(py))
    }

    /// Whether the maximum likelihood estimate exists (strongly connected win graph).
    #[pyo3(signature = (counts=None))]
    fn mle_exists(&self, counts: Option<PyReadonlyArray1<'_, f64>>) -> PyResult<bool> {
        let counts = self.counts(counts.as_ref().map(|c| c.as_slice()).transpose()?)?;
        let (n, s) = self.board.pair_sums(&counts);
        Ok(self.pair_view(&n, &s).mle_exists())
    }

    /// `(theta, iterations)`: mean-zero ratings (natural-log scale) by
    /// Newton's method, with the prior `precision` (0: none), on the rows
    /// counted `counts` times (the board's if None), from `start`.
    #[pyo3(signature = (precision=0.0, counts=None, start=None))]
    fn fit<'py>(
        &self,
        py: Python<'py>,
        precision: f64,
        counts: Option<PyReadonlyArray1<'_, f64>>,
        start: Option<PyReadonlyArray1<'_, f64>>,
    ) -> PyResult<(F64Vec<'py>, usize)> {
        let counts = self.counts(counts.as_ref().map(|c| c.as_slice()).transpose()?)?;
        let start = start.as_ref().map(|s| s.as_slice()).transpose()?;
        if start.is_some_and(|s| s.len() != self.board.models) {
            return Err(PyValueError::new_err("start: one rating per model"));
        }
        let (n, s) = self.board.pair_sums(&counts);
        let cost = self.board.models.pow(3) / 3 * 8;
        let f = enter_long(py, cost, || fit(&self.pair_view(&n, &s), Prior { precision }, start))?;
        Ok((f.theta.into_pyarray(py), f.iterations))
    }

    /// The sandwich covariance (models x models) at `theta`; `ridge`: None
    /// for the centred (pseudo-inverse) form, a number for arena-rank's
    /// `(H + ridge I)^{-1}`; `clustered`: by prompt.
    #[pyo3(signature = (theta, precision=0.0, ridge=None, clustered=false))]
    fn sandwich<'py>(
        &self,
        py: Python<'py>,
        theta: PyReadonlyArray1<'_, f64>,
        precision: f64,
        ridge: Option<f64>,
        clustered: bool,
    ) -> PyResult<F64Mat<'py>> {
        let theta = theta.as_slice()?;
        let l = self.board.models;
        if theta.len() != l {
            return Err(PyValueError::new_err("theta: one rating per model"));
        }
        let cost = l.pow(3).saturating_mul(4);
        let v = enter_long(py, cost, || {
            sandwich(&self.board, theta, Prior { precision }, ridge_of(ridge), clustered)
        })?;
        matrix(py, v, l, l)
    }

    /// `(rounds x models ratings, rounds that needed the prior)`.
    #[pyo3(signature = (theta, rounds, seed, by="battle", precision=0.0))]
    fn bootstrap<'py>(
        &self,
        py: Python<'py>,
        theta: PyReadonlyArray1<'_, f64>,
        rounds: usize,
        seed: u64,
        by: &str,
        precision: f64,
    ) -> PyResult<(F64Mat<'py>, usize)> {
        let theta = theta.as_slice()?;
        let l = self.board.models;
        if theta.len() != l {
            return Err(PyValueError::new_err("theta: one rating per model"));
        }
        let unit = unit_of(by)?;
        let per = (self.board.battles as usize).saturating_mul(4) + l.pow(3);
        let got = enter_long(py, per.saturating_mul(rounds), || {
            bootstrap(&self.board, theta, rounds, seed, unit, Prior { precision })
        })?;
        Ok((matrix(py, got.theta, rounds, l)?, got.with_prior))
    }

    /// Ties as their own outcome (`model`: "davidson" or "rao_kupper"):
    /// `(theta, tie parameter, iterations, sandwich covariance)`, the
    /// covariance over the models and then `log nu | log kappa` (absent
    /// when the board has no tie: the parameter is then at its boundary,
    /// 0 or 1); `precision`: the prior on the ratings (0: none).
    #[pyo3(signature = (model, precision=0.0, clustered=false))]
    #[allow(clippy::type_complexity)]
    fn fit_ties<'py>(
        &self,
        py: Python<'py>,
        model: &str,
        precision: f64,
        clustered: bool,
    ) -> PyResult<(F64Vec<'py>, f64, usize, F64Mat<'py>)> {
        let model = tie_model_of(model)?;
        let b = &self.board;
        let cost = (b.models + 1).pow(3).saturating_mul(20) + b.row_pair.len().saturating_mul(100);
        let (f, v) = enter_long(py, cost, || {
            let f = ties::fit(b, &b.row_count, model, precision, None)?;
            let v = ties::sandwich(b, &f, model, clustered)?;
            Ok((f, v))
        })?;
        let tie = f.tie_parameter.unwrap_or(f64::NAN);
        let dim = f.dim;
        Ok((f.theta.into_pyarray(py), tie, f.iterations, matrix(py, v, dim, dim)?))
    }

    /// Bootstrap rounds of the tie model's fit (with the prior `precision`
    /// on the board, `prior` on rounds without a finite optimum):
    /// `(rounds x (models + 1): ratings then the tie parameter, rounds that needed the prior)`.
    #[pyo3(signature = (model, rounds, seed, by="battle", precision=0.0, prior=0.0))]
    #[allow(clippy::too_many_arguments)]
    fn bootstrap_ties<'py>(
        &self,
        py: Python<'py>,
        model: &str,
        rounds: usize,
        seed: u64,
        by: &str,
        precision: f64,
        prior: f64,
    ) -> PyResult<(F64Mat<'py>, usize)> {
        let model = tie_model_of(model)?;
        let unit = unit_of(by)?;
        let b = &self.board;
        let l = b.models;
        let per = (b.battles as usize).saturating_mul(4) + (l + 1).pow(3).saturating_mul(3);
        let got = enter_long(py, per.saturating_mul(rounds), || {
            let f = ties::fit(b, &b.row_count, model, precision, None)?;
            ties::bootstrap(b, &f, model, rounds, seed, unit, prior)
        })?;
        Ok((matrix(py, got.theta, rounds, l + 1)?, got.with_prior))
    }
}

/// A style fit from its ratings and coefficients.
fn fitted(theta: &PyReadonlyArray1<'_, f64>, beta: &PyReadonlyArray1<'_, f64>) -> PyResult<style::StyleFit> {
    Ok(style::StyleFit {
        theta: theta.as_slice()?.to_vec(),
        beta: beta.as_slice()?.to_vec(),
        iterations: 0,
    })
}

/// Battles with style features (contextual Bradley-Terry).
#[pyclass(frozen, module = "kscore._kscore")]
pub struct StyleBoard {
    board: style::StyleBoard,
}

/// Hold battles with features `x` (battles x features) for style control;
/// `y` the result of `a` (1, 0.5, 0), `w` the weights.
#[pyfunction]
#[pyo3(signature = (models, a, b, y, w, x, cluster=None, clusters=0))]
#[allow(clippy::too_many_arguments)]
pub fn style_board(
    py: Python<'_>,
    models: usize,
    a: PyReadonlyArray1<'_, u32>,
    b: PyReadonlyArray1<'_, u32>,
    y: PyReadonlyArray1<'_, f64>,
    w: PyReadonlyArray1<'_, f64>,
    x: PyReadonlyArray2<'_, f64>,
    cluster: Option<PyReadonlyArray1<'_, u32>>,
    clusters: usize,
) -> PyResult<StyleBoard> {
    let features = x.as_array().ncols();
    let (a, b, y, w, x) = (
        a.as_slice()?,
        b.as_slice()?,
        y.as_slice()?,
        w.as_slice()?,
        x.as_slice()?,
    );
    let cluster = cluster.as_ref().map(|c| c.as_slice()).transpose()?;
    let board = enter_long(py, a.len().saturating_mul(40), || {
        style::StyleBoard::new(models, a, b, y, w, x, features, cluster.map(|c| (c, clusters)))
    })?;
    Ok(StyleBoard { board })
}

#[pymethods]
impl StyleBoard {
    /// `(theta, beta, iterations)` with the coefficients' penalty
    /// `precision` and the ratings' prior `prior`.
    #[pyo3(signature = (precision, prior=0.0, start=None))]
    fn fit<'py>(
        &self,
        py: Python<'py>,
        precision: f64,
        prior: f64,
        start: Option<(PyReadonlyArray1<'_, f64>, PyReadonlyArray1<'_, f64>)>,
    ) -> PyResult<(F64Vec<'py>, F64Vec<'py>, usize)> {
        let start = match &start {
            Some((t, b)) => Some((t.as_slice()?, b.as_slice()?)),
            None => None,
        };
        let cost = self.board.battles().saturating_mul(150);
        let f = enter_long(py, cost, || {
            self.board.fit(precision, Prior { precision: prior }, None, start)
        })?;
        Ok((f.theta.into_pyarray(py), f.beta.into_pyarray(py), f.iterations))
    }

    /// Sandwich covariance of `(theta, beta)`.
    #[pyo3(signature = (theta, beta, precision, prior=0.0, clustered=false, ridge=None))]
    #[allow(clippy::too_many_arguments)]
    fn sandwich<'py>(
        &self,
        py: Python<'py>,
        theta: PyReadonlyArray1<'_, f64>,
        beta: PyReadonlyArray1<'_, f64>,
        precision: f64,
        prior: f64,
        clustered: bool,
        ridge: Option<f64>,
    ) -> PyResult<F64Mat<'py>> {
        let fit = fitted(&theta, &beta)?;
        let d = self.board.models + self.board.features;
        let cost = self.board.battles().saturating_mul(60);
        let v = enter_long(py, cost, || {
            self.board
                .sandwich(&fit, precision, Prior { precision: prior }, clustered, ridge_of(ridge))
        })?;
        matrix(py, v, d, d)
    }

    /// `(rounds x (models + features), rounds that needed the prior)`.
    #[pyo3(signature = (theta, beta, precision, rounds, seed, by="battle", prior=0.0))]
    #[allow(clippy::too_many_arguments)]
    fn bootstrap<'py>(
        &self,
        py: Python<'py>,
        theta: PyReadonlyArray1<'_, f64>,
        beta: PyReadonlyArray1<'_, f64>,
        precision: f64,
        rounds: usize,
        seed: u64,
        by: &str,
        prior: f64,
    ) -> PyResult<(F64Mat<'py>, usize)> {
        let fit = fitted(&theta, &beta)?;
        let unit = unit_of(by)?;
        let d = self.board.models + self.board.features;
        let cost = self.board.battles().saturating_mul(300).saturating_mul(rounds);
        let (v, with_prior) = enter_long(py, cost, || {
            self.board
                .bootstrap(&fit, precision, Prior { precision: prior }, rounds, seed, unit)
        })?;
        Ok((matrix(py, v, rounds, d)?, with_prior))
    }
}
