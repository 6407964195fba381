//! `group_answers` and `vote`: kscore.aggregate's kernels (kscore_core::aggregate).

use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::enter::enter;
use crate::matrix::to_pyarray2;

fn slice<'a, T: numpy::Element>(a: &'a PyReadonlyArray2<'_, T>, name: &str) -> PyResult<&'a [T]> {
    a.as_slice()
        .map_err(|_| PyValueError::new_err(format!("{name} must be C-contiguous")))
}

/// Row-local group codes (first appearance 0, 1, ...; -1 where `valid` is
/// false) of `answers`: an (M, N * width) uint8 view of a fixed-width array.
#[pyfunction]
pub fn group_answers<'py>(
    py: Python<'py>,
    answers: PyReadonlyArray2<'py, u8>,
    valid: PyReadonlyArray2<'py, bool>,
) -> PyResult<Bound<'py, PyArray2<i32>>> {
    let (rows, cols) = (valid.shape()[0], valid.shape()[1]);
    let bytes = answers.shape()[1];
    if answers.shape()[0] != rows || (cols > 0 && bytes % cols != 0) || (cols == 0 && bytes != 0) {
        return Err(PyValueError::new_err(
            "answers and valid must have the same rows and columns",
        ));
    }
    let width = bytes.checked_div(cols).unwrap_or(0);
    let (a, v) = (slice(&answers, "answers")?, slice(&valid, "valid")?);
    let codes = enter(py, || kscore_core::aggregate::group_rows(a, v, rows, cols, width))?;
    to_pyarray2(py, rows, cols, codes)
}

/// Columns of each question's winning answer and representative, and the
/// questions to replay in Python (a NaN compared): scorio's `_plurality`.
#[pyfunction]
#[pyo3(signature = (codes, part, weights = None, seq = None, scores = None))]
#[allow(clippy::type_complexity)]
pub fn vote<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray2<'py, i32>,
    part: PyReadonlyArray2<'py, bool>,
    weights: Option<PyReadonlyArray2<'py, f64>>,
    seq: Option<PyReadonlyArray2<'py, i64>>,
    scores: Option<PyReadonlyArray2<'py, f64>>,
) -> PyResult<(
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<bool>>,
)> {
    let (rows, cols) = (codes.shape()[0], codes.shape()[1]);
    let c = slice(&codes, "codes")?;
    let p = slice(&part, "part")?;
    let w = weights.as_ref().map(|a| slice(a, "weights")).transpose()?;
    let q = seq.as_ref().map(|a| slice(a, "seq")).transpose()?;
    let s = scores.as_ref().map(|a| slice(a, "scores")).transpose()?;
    let out = enter(py, || {
        kscore_core::aggregate::vote(&kscore_core::aggregate::Vote {
            codes: c,
            rows,
            cols,
            weights: w,
            part: p,
            seq: q,
            scores: s,
        })
    })?;
    Ok((
        out.answer.into_pyarray(py),
        out.rep.into_pyarray(py),
        out.replay.into_pyarray(py),
    ))
}

/// Per question, the columns by descending score among the voters (`part`),
/// ties to the lower column, then the rest by column (`seq`), each column's
/// place in that order, and the questions with a NaN voter (sort in Python).
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn order_by_score<'py>(
    py: Python<'py>,
    scores: PyReadonlyArray2<'py, f64>,
    part: PyReadonlyArray2<'py, bool>,
) -> PyResult<(
    Bound<'py, PyArray2<i64>>,
    Bound<'py, PyArray2<i64>>,
    Bound<'py, PyArray1<bool>>,
)> {
    let (rows, cols) = (scores.shape()[0], scores.shape()[1]);
    if part.shape() != scores.shape() {
        return Err(PyValueError::new_err("scores and part must have the same shape"));
    }
    let (s, p) = (slice(&scores, "scores")?, slice(&part, "part")?);
    let out = enter(py, || kscore_core::aggregate::order::by_score(s, p, rows, cols))?;
    let shaped = |v: Vec<i64>| to_pyarray2(py, rows, cols, v);
    Ok((shaped(out.seq)?, shaped(out.place)?, out.nan.into_pyarray(py)))
}

/// Row-local group codes of `answers`, an (M, N * width) uint8 view of a
/// fixed-width array of N answers per row, validity read from the bytes by
/// `kind` ("bytes": all valid; "float": NaN unparsable, -0.0 equal to 0.0;
/// "text": "" unparsable).
#[pyfunction]
pub fn group_typed<'py>(
    py: Python<'py>,
    answers: PyReadonlyArray2<'py, u8>,
    cols: usize,
    kind: &str,
) -> PyResult<Bound<'py, PyArray2<i32>>> {
    let kind = kscore_core::aggregate::Kind::parse(kind)
        .ok_or_else(|| PyValueError::new_err(format!("unknown answer kind {kind:?}")))?;
    let (rows, bytes) = (answers.shape()[0], answers.shape()[1]);
    if cols == 0 || bytes % cols != 0 {
        return Err(PyValueError::new_err("answers must hold whole answers of cols per row"));
    }
    let a = slice(&answers, "answers")?;
    let codes = enter(py, || {
        kscore_core::aggregate::group_typed(a, rows, cols, bytes / cols, kind)
    })?;
    to_pyarray2(py, rows, cols, codes)
}

/// scorio's mean vote and Best-of-Majority for every question: columns of each
/// question's winning answer and representative, and the questions to replay
/// in Python (a NaN score or reward). `reward`: "sum", "mean" or "max".
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn pick_group<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray2<'py, i32>,
    scores: PyReadonlyArray2<'py, f64>,
    reward: &str,
    alpha: f64,
) -> PyResult<(
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<bool>>,
)> {
    let reward = kscore_core::aggregate::Reward::parse(reward)
        .ok_or_else(|| PyValueError::new_err(format!("unknown reward {reward:?}")))?;
    let (rows, cols) = (codes.shape()[0], codes.shape()[1]);
    if scores.shape() != codes.shape() {
        return Err(PyValueError::new_err("codes and scores must have the same shape"));
    }
    let (c, s) = (slice(&codes, "codes")?, slice(&scores, "scores")?);
    let out = enter(py, || {
        kscore_core::aggregate::pick_group(c, s, rows, cols, reward, alpha)
    })?;
    Ok((
        out.answer.into_pyarray(py),
        out.rep.into_pyarray(py),
        out.replay.into_pyarray(py),
    ))
}

/// Each voter's weight from its place among its question's voters: "borda"
/// (`(n - t)^power`, an integer power, exact), "borda_real" (`((n - t) / n)^power`)
/// or "mob" (`(n - t)^m - (n - t - 1)^m`, `m = powers[row]`, exact); 0 elsewhere.
#[pyfunction]
#[pyo3(signature = (place, part, rule, power = 1.0, powers = None))]
pub fn rank_weights<'py>(
    py: Python<'py>,
    place: PyReadonlyArray2<'py, i64>,
    part: PyReadonlyArray2<'py, bool>,
    rule: &str,
    power: f64,
    powers: Option<PyReadonlyArray1<'py, i64>>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    use kscore_core::aggregate::order::RankWeight;
    let (rows, cols) = (place.shape()[0], place.shape()[1]);
    if part.shape() != place.shape() {
        return Err(PyValueError::new_err("place and part must have the same shape"));
    }
    let (pl, pa) = (slice(&place, "place")?, slice(&part, "part")?);
    let m = match &powers {
        Some(a) => Some(
            a.as_slice()
                .map_err(|_| PyValueError::new_err("powers must be C-contiguous"))?,
        ),
        None => None,
    };
    let rule = match rule {
        "borda" if power >= 0.0 && power <= f64::from(u32::MAX) && power.fract() == 0.0 => {
            RankWeight::Borda(power as u32)
        }
        "borda_real" => RankWeight::BordaReal(power),
        "mob" => RankWeight::Mob(m.ok_or_else(|| PyValueError::new_err("mob needs powers"))?),
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown rank weight {other:?} (power {power})"
            )))
        }
    };
    let w = enter(py, || {
        kscore_core::aggregate::order::rank_weights(pl, pa, rows, cols, rule)
    })?;
    to_pyarray2(py, rows, cols, w)
}

/// Each valid candidate's vote from its score: "softmax" (`exp((s - max) /
/// param)`) or "logit" (`ln(s / (1 - s)) - param`), with the C library's
/// `exp`/`log`; and the questions whose maximum met a NaN (softmax).
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn score_weights<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray2<'py, i32>,
    scores: PyReadonlyArray2<'py, f64>,
    rule: &str,
    param: f64,
) -> PyResult<(Bound<'py, PyArray2<f64>>, Bound<'py, PyArray1<bool>>)> {
    use kscore_core::aggregate::ScoreWeight;
    let rule = match rule {
        "softmax" => ScoreWeight::Softmax(param),
        "logit" => ScoreWeight::Logit(param),
        other => return Err(PyValueError::new_err(format!("unknown score weight {other:?}"))),
    };
    let (rows, cols) = (codes.shape()[0], codes.shape()[1]);
    if scores.shape() != codes.shape() {
        return Err(PyValueError::new_err("codes and scores must have the same shape"));
    }
    let (c, s) = (slice(&codes, "codes")?, slice(&scores, "scores")?);
    let (w, nan) = enter(py, || kscore_core::aggregate::score_weights(c, s, rows, cols, rule))?;
    Ok((to_pyarray2(py, rows, cols, w)?, nan.into_pyarray(py)))
}

/// CGES for every question (kscore_core::aggregate::cges): the winner's first
/// column and best-scored member (-1: OTHER or no valid answer), whether OTHER
/// won, the winner's posterior, and each question's valid count.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn cges_rows<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray2<'py, i32>,
    scores: PyReadonlyArray2<'py, f64>,
    with_other: bool,
) -> PyResult<(
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<i64>>,
)> {
    let (rows, cols) = (codes.shape()[0], codes.shape()[1]);
    if scores.shape() != codes.shape() {
        return Err(PyValueError::new_err("codes and scores must have the same shape"));
    }
    let (c, s) = (slice(&codes, "codes")?, slice(&scores, "scores")?);
    let out = enter(py, || kscore_core::aggregate::cges::cges(c, s, rows, cols, with_other))?;
    Ok((
        out.first.into_pyarray(py),
        out.rep.into_pyarray(py),
        out.other.into_pyarray(py),
        out.prob.into_pyarray(py),
        out.valid.into_pyarray(py),
    ))
}

/// Per row of `counts` (0: no answer), the probability that answer
/// `leader[row]` has the largest share under `Dirichlet(counts + 1)`, by the
/// composite rule `nodes`/`weights` on [0, 1]; `log_fact[k] = ln k!`.
#[pyfunction]
pub fn dirichlet_leader<'py>(
    py: Python<'py>,
    counts: PyReadonlyArray2<'py, i64>,
    leader: PyReadonlyArray1<'py, i64>,
    nodes: PyReadonlyArray1<'py, f64>,
    weights: PyReadonlyArray1<'py, f64>,
    log_fact: PyReadonlyArray1<'py, f64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (rows, width) = (counts.shape()[0], counts.shape()[1]);
    let one = |a: &PyReadonlyArray1<'py, f64>, name: &str| -> PyResult<Vec<f64>> {
        Ok(a.as_slice()
            .map_err(|_| PyValueError::new_err(format!("{name} must be C-contiguous")))?
            .to_vec())
    };
    let (t, w, lf) = (
        one(&nodes, "nodes")?,
        one(&weights, "weights")?,
        one(&log_fact, "log_fact")?,
    );
    let l = leader
        .as_slice()
        .map_err(|_| PyValueError::new_err("leader must be C-contiguous"))?;
    let c = slice(&counts, "counts")?;
    let out = enter(py, || {
        kscore_core::aggregate::leader::leader_probabilities(c, rows, width, l, &t, &w, &lf)
    })?;
    Ok(out.into_pyarray(py))
}

/// A selection rule of kscore.aggregate on every question in one pass
/// (kscore_core::aggregate::select): the answers as an (M, N * width) uint8
/// view of a fixed-width array (`kind` as in [`group_typed`]) or as group
/// `codes`; `rule` and its parameters: "majority", "sum", "softmax"
/// (`param`: temperature), "logit" (`param`: the threshold's logit),
/// "linear" (`param`: threshold), "borda" (`count`: power), "borda_real"
/// (`param`: power), "filtered" (`count` kept, or `param` a fraction when
/// `count` is 0; `weighted`), "best_of_n", "mob" (`count`: m, 0 for isqrt),
/// "mean" / "sum_reward" / "max_reward" (`param`: alpha). Returns the
/// columns of each question's answer and representative, and the questions
/// to replay in Python.
#[pyfunction]
#[pyo3(signature = (rule, cols, scores = None, answers = None, kind = "bytes", codes = None, param = 0.0, count = 0, weighted = true))]
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
pub fn select_rows<'py>(
    py: Python<'py>,
    rule: &str,
    cols: usize,
    scores: Option<PyReadonlyArray2<'py, f64>>,
    answers: Option<PyReadonlyArray2<'py, u8>>,
    kind: &str,
    codes: Option<PyReadonlyArray2<'py, i32>>,
    param: f64,
    count: usize,
    weighted: bool,
) -> PyResult<(
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<bool>>,
)> {
    use kscore_core::aggregate::{Keep, Reward, Rule};
    let power = |p: usize| u32::try_from(p).map_err(|_| PyValueError::new_err("the power is too large"));
    let rule = match rule {
        "majority" => Rule::Majority,
        "sum" => Rule::Sum,
        "softmax" => Rule::Softmax(param),
        "logit" => Rule::Logit(param),
        "linear" => Rule::Linear(param),
        "borda" => Rule::Borda(power(count)?),
        "borda_real" => Rule::BordaReal(param),
        "filtered" => Rule::Filtered {
            keep: if count > 0 {
                Keep::Count(count)
            } else {
                Keep::Fraction(param)
            },
            weighted,
        },
        "best_of_n" => Rule::BestOfN,
        "mob" => Rule::Mob((count > 0).then(|| power(count)).transpose()?),
        "mean" => Rule::Pick(Reward::Mean, param),
        "sum_reward" => Rule::Pick(Reward::Sum, param),
        "max_reward" => Rule::Pick(Reward::Max, param),
        other => return Err(PyValueError::new_err(format!("unknown rule {other:?}"))),
    };
    let (a, rows) = batch_answers(&answers, kind, &codes, cols)?;
    let s = match &scores {
        Some(s) => {
            if s.shape() != [rows, cols] {
                return Err(PyValueError::new_err("scores must have one score per candidate"));
            }
            Some(slice(s, "scores")?)
        }
        None => None,
    };
    let out = enter(py, || kscore_core::aggregate::select(a, s, rows, cols, rule))?;
    Ok((
        out.answer.into_pyarray(py),
        out.rep.into_pyarray(py),
        out.replay.into_pyarray(py),
    ))
}

/// Per question, the largest and second largest answer counts of a typed
/// batch (an (M, N * width) uint8 view, `kind` as in [`group_typed`]) or of
/// group `codes`.
#[pyfunction]
#[pyo3(signature = (cols, answers = None, kind = "bytes", codes = None))]
#[allow(clippy::type_complexity)]
pub fn top_two_counts<'py>(
    py: Python<'py>,
    cols: usize,
    answers: Option<PyReadonlyArray2<'py, u8>>,
    kind: &str,
    codes: Option<PyReadonlyArray2<'py, i32>>,
) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>)> {
    let (a, rows) = batch_answers(&answers, kind, &codes, cols)?;
    let (v1, v2) = enter(py, || kscore_core::aggregate::top_two_counts(a, rows, cols))?;
    Ok((v1.into_pyarray(py), v2.into_pyarray(py)))
}

/// `1 - I_{1/2}(v1 + 1, v2 + 1)` of each pair of counts, exactly (Python's
/// integer sum over one division); NaN where the sum passes the core's
/// range (`v1 + v2 + 1 > 127`, or a negative count): the caller's to make.
#[pyfunction]
pub fn top_two_betas<'py>(
    py: Python<'py>,
    v1: PyReadonlyArray1<'py, i64>,
    v2: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (a, b) = (v1.as_slice()?, v2.as_slice()?);
    if a.len() != b.len() {
        return Err(PyValueError::new_err("v1 and v2 must have the same length"));
    }
    let out = enter(py, || Ok(kscore_core::aggregate::top_two_betas(a, b)))?;
    Ok(out.into_pyarray(py))
}

/// The online Adaptive-Consistency rule replayed on every row (answers as in
/// [`top_two_counts`], in sampling order): per row the samples drawn when the
/// top-two probability first reaches `threshold` and whether it did; None
/// where `cols` is past the core's exact range (the caller replays in Python).
#[pyfunction]
#[pyo3(signature = (cols, threshold, answers = None, kind = "bytes", codes = None))]
#[allow(clippy::type_complexity)]
pub fn top_two_replay<'py>(
    py: Python<'py>,
    cols: usize,
    threshold: f64,
    answers: Option<PyReadonlyArray2<'py, u8>>,
    kind: &str,
    codes: Option<PyReadonlyArray2<'py, i32>>,
) -> PyResult<Option<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<bool>>)>> {
    let (a, rows) = batch_answers(&answers, kind, &codes, cols)?;
    let out = enter(py, || kscore_core::aggregate::top_two_replay(a, rows, cols, threshold))?;
    Ok(out.map(|(used, stopped)| (used.into_pyarray(py), stopped.into_pyarray(py))))
}

/// The answers of a batch as the core reads them, and its rows.
fn batch_answers<'a>(
    answers: &'a Option<PyReadonlyArray2<'_, u8>>,
    kind: &str,
    codes: &'a Option<PyReadonlyArray2<'_, i32>>,
    cols: usize,
) -> PyResult<(kscore_core::aggregate::Answers<'a>, usize)> {
    use kscore_core::aggregate::Answers;
    match (answers, codes) {
        (Some(a), None) => {
            let kind = kscore_core::aggregate::Kind::parse(kind)
                .ok_or_else(|| PyValueError::new_err(format!("unknown answer kind {kind:?}")))?;
            let bytes = a.shape()[1];
            if cols == 0 || bytes % cols != 0 {
                return Err(PyValueError::new_err("answers must hold whole answers of cols per row"));
            }
            Ok((
                Answers::Typed {
                    bytes: slice(a, "answers")?,
                    width: bytes / cols,
                    kind,
                },
                a.shape()[0],
            ))
        }
        (None, Some(c)) => {
            if c.shape()[1] != cols {
                return Err(PyValueError::new_err("codes must have cols columns"));
            }
            Ok((Answers::Codes(slice(c, "codes")?), c.shape()[0]))
        }
        _ => Err(PyValueError::new_err("give answers or codes, not both")),
    }
}

/// FxHash over a byte string, 8 bytes at a time: the key of [`pick_text`]'s
/// cache of the strings it has made.
#[derive(Default)]
struct Fx(u64);

impl std::hash::Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }
}

/// Each question's chosen answer of a numpy `U` batch as a Python `str`: row r's
/// string at column `answer[r]` (`answers`: the (M, N * width) bytes of the
/// array; -1: `None`), as an (M,) object array, each distinct string made once
/// and shared by the rows that chose it (numpy makes one object per element;
/// the values are the same: trailing NULs dropped as numpy does). None where a
/// chosen string is not valid Unicode (a lone surrogate): the caller makes
/// them the numpy way.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn pick_text<'py>(
    py: Python<'py>,
    answers: PyReadonlyArray2<'py, u8>,
    cols: usize,
    answer: PyReadonlyArray1<'py, i64>,
) -> PyResult<Option<Bound<'py, PyArray1<Py<PyAny>>>>> {
    let (rows, bytes) = (answers.shape()[0], answers.shape()[1]);
    if cols == 0 || bytes % cols != 0 || !(bytes / cols).is_multiple_of(4) {
        return Err(PyValueError::new_err(
            "answers must hold whole UCS-4 strings of cols per row",
        ));
    }
    let width = bytes / cols;
    let a = slice(&answers, "answers")?;
    let chosen = answer
        .as_slice()
        .map_err(|_| PyValueError::new_err("answer must be contiguous"))?;
    if chosen.len() != rows {
        return Err(PyValueError::new_err("answer must have one column per row"));
    }
    let mut made: std::collections::HashMap<&[u8], Py<PyAny>, std::hash::BuildHasherDefault<Fx>> =
        std::collections::HashMap::default();
    let mut out: Vec<Py<PyAny>> = Vec::with_capacity(rows);
    let mut text = String::new();
    for (r, &j) in chosen.iter().enumerate() {
        if j < 0 {
            out.push(py.None());
            continue;
        }
        let j = usize::try_from(j)
            .ok()
            .filter(|&j| j < cols)
            .ok_or_else(|| PyValueError::new_err("a chosen column is outside the row"))?;
        let at = (r * cols + j) * width;
        let s = &a[at..at + width];
        if let Some(o) = made.get(s) {
            out.push(o.clone_ref(py));
            continue;
        }
        text.clear();
        let units: Vec<u32> = s
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let end = units.iter().rposition(|&u| u != 0).map_or(0, |i| i + 1);
        for &u in &units[..end] {
            match char::from_u32(u) {
                Some(ch) => text.push(ch),
                None => return Ok(None),
            }
        }
        let o = pyo3::types::PyString::new(py, &text).into_any().unbind();
        made.insert(s, o.clone_ref(py));
        out.push(o);
    }
    Ok(Some(PyArray1::from_vec(py, out)))
}

/// The kernels added for issue 37's speed pass (one registration line in lib.rs).
pub fn register_speed(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(order_by_score, m)?)?;
    m.add_function(wrap_pyfunction!(group_typed, m)?)?;
    m.add_function(wrap_pyfunction!(pick_group, m)?)?;
    m.add_function(wrap_pyfunction!(rank_weights, m)?)?;
    m.add_function(wrap_pyfunction!(score_weights, m)?)?;
    m.add_function(wrap_pyfunction!(cges_rows, m)?)?;
    m.add_function(wrap_pyfunction!(dirichlet_leader, m)?)?;
    m.add_function(wrap_pyfunction!(select_rows, m)?)?;
    m.add_function(wrap_pyfunction!(top_two_counts, m)?)?;
    m.add_function(wrap_pyfunction!(top_two_betas, m)?)?;
    m.add_function(wrap_pyfunction!(top_two_replay, m)?)?;
    m.add_function(wrap_pyfunction!(pick_text, m)?)?;
    Ok(())
}
