"""kscore.rank's item response theory rankers beside scorio.rank 0.2.3's, in
one run: issue 37's small board (20 models x 500 questions x 8 samples) and,
for kscore alone where scorio takes minutes, its large one (100 x 2000 x 4).
Medians of single calls, the two libraries taking turns
(``conftest.interleaved_medians``); scorio's slow calls get one timed call a
round. A scorio call that raises (its optimiser stopping short) is
recorded as a failure, not a time.

Run: ``python -m pytest benches/bench_rank_irt.py -s`` (several minutes:
scorio's ``rasch_mml`` takes about a minute a call at 20 x 500 x 8);
``IRT_BENCH_NAMES=rasch,rasch_map`` picks rankers.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from scorio import rank as sr

import kscore.rank as kr

from conftest import interleaved_medians, record

BOARDS = {"20x500x8": (20, 500, 8), "100x2000x4": (100, 2000, 4)}


def board(L: int, M: int, N: int, seed: int = 37) -> np.ndarray:  # noqa: N803
    """A 2PL board without all-correct or all-wrong questions (the joint
    fits refuse those, in both libraries)."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, L)
    b = rng.normal(0, 1, M)
    a = np.exp(rng.normal(0, 0.3, M))
    p = 1 / (1 + np.exp(-a * (theta[:, None] - b[None, :])))
    R = (rng.random((L, M, N)) < p[:, :, None]).astype(np.int64)
    totals = R.sum(axis=(0, 2))
    return R[:, (totals > 0) & (totals < L * N)]


TENSORS = {name: board(*shape) for name, shape in BOARDS.items()}

CALLS: dict[str, Callable[[Any, np.ndarray], Any]] = {
    "rasch": lambda m, R: m.rasch(R),
    "rasch_map": lambda m, R: m.rasch_map(R),
    "rasch_2pl": lambda m, R: m.rasch_2pl(R),
    "rasch_2pl_map": lambda m, R: m.rasch_2pl_map(R),
    "rasch_3pl": lambda m, R: m.rasch_3pl(R),
    "rasch_mml": lambda m, R: m.rasch_mml(R),
    "rasch_mml_credible": lambda m, R: m.rasch_mml_credible(R),
    "dynamic_irt": lambda m, R: m.dynamic_irt(R, variant="growth", assume_time_axis=True),
    "mirt": lambda m, R: m.mirt(R, n_factors=1),
}
#: Where scorio is timed on the large board too (one call: 8-45 s in issue
#: 37's table); the others take over a minute a call there.
SCORIO_LARGE = {"rasch", "rasch_map"}
PICKED = [n for n in os.environ.get("IRT_BENCH_NAMES", ",".join(CALLS)).split(",") if n]


def _once(fn: Callable[[], Any]) -> tuple[float, str | None]:
    t0 = time.perf_counter()
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 (scorio's failure is the result)
        return time.perf_counter() - t0, f"{type(exc).__name__}: {exc}"[:90]
    return time.perf_counter() - t0, None


@pytest.mark.parametrize("shape", list(BOARDS))
@pytest.mark.parametrize("name", PICKED)
def test_irt(name: str, shape: str) -> None:
    R = TENSORS[shape]
    call = CALLS[name]
    group = f"rank.{name} {shape} {R.shape[0]}x{R.shape[1]}x{R.shape[2]}"
    ours = lambda: call(kr, R)  # noqa: E731
    if shape == "100x2000x4" and name not in SCORIO_LARGE:
        (t,) = interleaved_medians([ours], [3], rounds=3, budget_s=30.0)
        record(group, "kscore", t)
        return
    seconds, failure = _once(lambda: call(sr, R))
    if failure is not None or seconds > 20.0:
        # One scorio call only: too slow (or failing) to repeat.
        record(group, "scorio (1 call)" + (f" FAILED {failure}" if failure else ""), seconds)
        (t,) = interleaved_medians([ours], [5], rounds=3, budget_s=20.0)
        record(group, "kscore", t)
        return
    t_ours, t_theirs = interleaved_medians(
        [ours, lambda: call(sr, R)], [5, 1], rounds=3, gap_s=0.0, budget_s=30.0
    )
    record(group, "scorio", t_theirs)
    record(group, "kscore", t_ours)
