"""TailPass: kscore.eval vs scorio.eval on the issue's workloads (medians).

scorio's slow workloads (11-30 s each) run only with KSCORE_BENCH_SCORIO_SLOW=1;
the M = 1e6 Monte Carlo interval (scorio: MemoryError) is kscore only and
runs only with KSCORE_BENCH_HUGE=1 (minutes: numpy draws 8e9 gamma variates).

The Monte Carlo interval's floor is numpy drawing the 8e6 gamma variates
that reproduce scorio's draws (contiguous shape arrays, reused output
buffers: the cheapest way numpy hands them out); it is recorded beside
kscore's ci() in its own group.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from scorio import eval as se

from kscore import eval as ke

from conftest import median_time, record

SLOW = os.environ.get("KSCORE_BENCH_SCORIO_SLOW") == "1"
HUGE = os.environ.get("KSCORE_BENCH_HUGE") == "1"

rng = np.random.default_rng(3)
EMP = (rng.random((1000, 4096)) < rng.random((1000, 1))).astype(np.int8)
SMALL = (rng.random((1000, 8)) < rng.random((1000, 1))).astype(np.int8)


def reference(name: str, fn: Callable[[], Any], slow: bool = True) -> tuple[str, Callable[[], Any]] | None:
    return (name, fn) if SLOW or not slow else None


def test_empirical_k2048(compare: Callable[..., None]) -> None:
    compare("tailpass_empirical M=1000 N=4096 k=2048", lambda: ke.tailpass_empirical(EMP, 2048),
            reference("scorio", lambda: se.tailpass_empirical(EMP, 2048)), repeat_ref=1)


def test_mean_1e6x512(compare: Callable[..., None]) -> None:
    big = (rng.random((1_000_000, 512)) < 0.4).astype(np.int8)
    compare("tailpass(R, 64).mean M=1e6 N=512", lambda: ke.tailpass(big, 64).mean,
            reference("scorio", lambda: se.tailpass(big, 64).mean), repeat_ref=1)
    for k in (256, 512):
        seconds = median_time(lambda k=k: ke.tailpass(big, k).mean, calls=5)
        record(f"tailpass(R, {k}).mean M=1e6 N=512", "kscore", seconds)


def numpy_floor(parameters: np.ndarray, n_draws: int = 4000, block: int = 32) -> None:
    """numpy's gamma variates for the draws alone, in scorio's stream order."""
    generator = np.random.default_rng(0)
    out = np.empty(block * n_draws * parameters.shape[1])
    for start in range(0, len(parameters), block):
        shapes = np.repeat(parameters[start : start + block], n_draws, axis=0)
        generator.standard_gamma(shapes, out=out[: shapes.size].reshape(shapes.shape))


def test_ci_mc_1000x8(compare: Callable[..., None]) -> None:
    compare("tailpass(R, 32).ci() M=1000 N=8", lambda: ke.tailpass(SMALL, 32).ci(rng=0),
            reference("scorio", lambda: se.tailpass(SMALL, 32).ci(rng=0)), repeat_ref=1)
    parameters = ke.tailpass(SMALL, 32)._posterior.parameters
    record("tailpass(R, 32).ci() M=1000 N=8: floor", "numpy gamma variates alone",
           median_time(lambda: numpy_floor(parameters), calls=7))


def test_small_profile(compare: Callable[..., None]) -> None:
    compare("tailpass(R, 8) mean+cov M=1000 N=8", lambda: ke.tailpass(SMALL, 8).covariance,
            reference("scorio", lambda: se.tailpass(SMALL, 8).covariance, slow=False))


@pytest.mark.skipif(not HUGE, reason="minutes of numpy draws: set KSCORE_BENCH_HUGE=1")
def test_ci_mc_1e6x8(compare: Callable[..., None]) -> None:
    huge = (rng.random((1_000_000, 8)) < 0.5).astype(np.int8)
    compare("tailpass(R, 32).ci() M=1e6 N=8 (scorio: MemoryError)", lambda: ke.tailpass(huge, 32).ci(rng=0), None)
