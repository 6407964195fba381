"""Typical sizes: every public function of kscore.eval on the matrices people
evaluate (AIME 30 x 64, MATH-500 x 8, HumanEval 164 x 200, 5000 x 16), int64
as numpy makes them, side by side with scorio 0.2.3 in one run.

Every figure is the median of single calls in a process whose thread pool has
already been used (the state a real program is in), timed back to back and
with 1 ms of idle time between calls (both libraries, compared alike).
Categorical functions get 3-category matrices of the same shapes. A second
table sets each point metric beside ``np.count_nonzero(R, axis=1)`` on the
same matrix (the floor: reading R once).

The two sides of every comparison take turns in one loop
(``conftest.interleaved_medians``): blocks of back-to-back calls, or single
calls 1 ms apart, alternating, so both see the same state of the shared
machine; timed in separate loops, the same spaced call drifts 1.5-3x within
a minute here.

Run: ``python -m pytest benches/bench_small.py`` (about two minutes).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from scorio import eval as se

import kscore.counts as kc
from kscore import eval as ke

from conftest import interleaved_medians, record

rng = np.random.default_rng(7)

# Wake the pool once, as any program that has scored a large matrix has.
ke.pass_at_k(rng.random((200_000, 64)) < 0.5, 8)

SHAPES = {  # name: (M, N, k)
    "30x64": (30, 64, 8),
    "500x8": (500, 8, 4),
    "164x200": (164, 200, 10),
    "5000x16": (5000, 16, 4),
}


def binary(m: int, n: int) -> np.ndarray:
    p = rng.beta(0.7, 0.7, size=(m, 1))
    return (rng.random((m, n)) < p).astype(np.int64)


BANKS = {s: binary(m, n) for s, (m, n, _) in SHAPES.items()}
CATS = {s: rng.integers(0, 3, size=(m, n)) for s, (m, n, _) in SHAPES.items()}
W3 = np.array([0.0, 0.5, 1.0])


def calls(R: np.ndarray, C: np.ndarray, k: int) -> dict[str, Callable[[Any], Any]]:
    """Every public function of scorio.eval 0.2.3 but tailpass, as a call on a module."""
    spectrum = np.full(k, 1.0 / k)
    return {
        "pass_at_k": lambda m: m.pass_at_k(R, k),
        "pass_hat_k": lambda m: m.pass_hat_k(R, k),
        "unanimous_at_k": lambda m: m.unanimous_at_k(R, k),
        "g_pass_at_k": lambda m: m.g_pass_at_k(R, k),
        "g_pass_at_k_tau": lambda m: m.g_pass_at_k_tau(R, k, 0.5),
        "mg_pass_at_k": lambda m: m.mg_pass_at_k(R, k),
        "maj_at_k": lambda m: m.maj_at_k(R, k),
        "auc_at_k": lambda m: m.auc_at_k(R, k),
        "threshold_spectrum_at_k": lambda m: m.threshold_spectrum_at_k(R, k, spectrum),
        "geom_at_k": lambda m: m.geom_at_k(R, k),
        "geom_ds_at_k": lambda m: m.geom_ds_at_k(R, k),
        "geo_spectrum_at_k": lambda m: m.geo_spectrum_at_k(R, k),
        "geo_spectrum_star_at_k": lambda m: m.geo_spectrum_star_at_k(R, k),
        "max_at_k": lambda m: m.max_at_k(C, k, W3),
        "bayes": lambda m: m.bayes(C, W3),
        "avg": lambda m: m.avg(C, W3),
        "pass_at_k_ci": lambda m: m.pass_at_k_ci(R, k),
        "pass_hat_k_ci": lambda m: m.pass_hat_k_ci(R, k),
        "unanimous_at_k_ci": lambda m: m.unanimous_at_k_ci(R, k),
        "g_pass_at_k_ci": lambda m: m.g_pass_at_k_ci(R, k),
        "g_pass_at_k_tau_ci": lambda m: m.g_pass_at_k_tau_ci(R, k, 0.5),
        "mg_pass_at_k_ci": lambda m: m.mg_pass_at_k_ci(R, k),
        "maj_at_k_ci": lambda m: m.maj_at_k_ci(R, k),
        "auc_at_k_ci": lambda m: m.auc_at_k_ci(R, k),
        "threshold_spectrum_at_k_ci": lambda m: m.threshold_spectrum_at_k_ci(R, k, spectrum),
        "geom_at_k_ci": lambda m: m.geom_at_k_ci(R, k),
        "geom_ds_at_k_ci": lambda m: m.geom_ds_at_k_ci(R, k),
        "geo_spectrum_at_k_ci": lambda m: m.geo_spectrum_at_k_ci(R, k),
        "geo_spectrum_star_at_k_ci": lambda m: m.geo_spectrum_star_at_k_ci(R, k),
        "max_at_k_ci": lambda m: m.max_at_k_ci(C, k, W3),
        "bayes_ci": lambda m: m.bayes_ci(C, W3),
        "avg_ci": lambda m: m.avg_ci(C, W3),
    }


NAMES = list(calls(BANKS["30x64"], CATS["30x64"], 8))


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("name", NAMES)
def test_typical_size(name: str, shape: str) -> None:
    m, n, k = SHAPES[shape]
    fn = calls(BANKS[shape], CATS[shape], k)[name]
    group = f"{name} {shape} k={k}"
    kscore, scorio = interleaved_medians([lambda: fn(ke), lambda: fn(se)], [300, 30], rounds=5, budget_s=10.0)
    record(group, "scorio", scorio)
    record(group, "kscore", kscore)
    # Both libraries spaced alike: a caller idle 1 ms between calls pays the
    # cold caches and clocks of this shared machine in either.
    kscore, scorio = interleaved_medians([lambda: fn(ke), lambda: fn(se)], [2, 1], rounds=75, gap_s=1e-3,
                                         budget_s=8.0)
    record(group, "kscore, 1 ms apart", kscore)
    record(group, "scorio, 1 ms apart", scorio)


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("name", ["pass_at_k", "geom_ds_at_k", "maj_at_k_ci"])
def test_several_k_in_a_row(name: str, shape: str) -> None:
    m, n, _ = SHAPES[shape]
    R = BANKS[shape]
    ks = [k for k in (1, 2, 4, 8) if k <= n]

    def loop(mod: Any) -> list[Any]:
        return [getattr(mod, name)(R, k) for k in ks]

    group = f"{name} {shape} k={','.join(map(str, ks))} in a row"
    kscore, scorio = interleaved_medians([lambda: loop(ke), lambda: loop(se)], [100, 20], rounds=5, budget_s=10.0)
    record(group, "scorio", scorio)
    record(group, "kscore", kscore)


def test_harness_164_problems() -> None:
    n = np.full(164, 200)
    c = rng.integers(0, 201, size=164)
    group = "estimate_pass_at_k 164 problems n=200 k=10"
    floor = lambda: np.count_nonzero(BANKS["164x200"], axis=1)  # noqa: E731
    kscore = lambda: kc.estimate_pass_at_k(n, c, 10)  # noqa: E731
    timed, floor_timed = interleaved_medians([kscore, floor], [300, 300], rounds=5)
    record(group, "np.count_nonzero floor (164x200 int64)", floor_timed)
    record(group, "kscore", timed)
    timed, floor_timed = interleaved_medians([kscore, floor], [1, 1], rounds=150, gap_s=1e-3)
    record(group, "np.count_nonzero floor, 1 ms apart", floor_timed)
    record(group, "kscore, 1 ms apart", timed)


# Matrices up to 64 KB against the cost of reading them once.
FLOOR_SHAPES = [(20, 8, np.int8), (20, 8, np.int64), (30, 64, np.int64), (1024, 64, np.int8), (512, 16, np.int64)]
POINT = NAMES[:16]


@pytest.mark.parametrize("m,n,dtype", FLOOR_SHAPES, ids=lambda v: getattr(v, "__name__", str(v)))
@pytest.mark.parametrize("name", POINT)
def test_against_count_nonzero(name: str, m: int, n: int, dtype: type) -> None:
    R = binary(m, n).astype(dtype)
    C = rng.integers(0, 3, size=(m, n)).astype(dtype)
    k = min(4, n)
    fn = calls(R, C, k)[name]
    group = f"{name} {m}x{n} {np.dtype(dtype).name} vs count_nonzero"
    pair = [lambda: fn(ke), lambda: np.count_nonzero(R, axis=1)]
    for calls_, rounds, gap, label in (([300, 300], 5, 0.0, ""), ([1, 1], 150, 1e-3, ", 1 ms apart")):
        kscore, floor = interleaved_medians(pair, calls_, rounds=rounds, gap_s=gap)
        record(group, "count_nonzero" + label, floor)
        record(group, "kscore" + label, kscore)
