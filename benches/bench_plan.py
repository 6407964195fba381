"""The design diagnostics (``Leaderboard.plan``: variance split, detectable
differences, robustness of every adjacent pair) and the small-board
interval (``interval="wilson"``) beside the leaderboard they add to, in the
same process and the same rounds (interleaved, medians of 5).

Workloads (fixed seed, counts tables, no reading):

- 1,000 models x 500 questions x 8 samples (500,000 cells): the
  leaderboard (pass@1, its default intervals and all paired comparisons),
  then its plan; the leaderboard with ``interval="wilson"``;
- 10,000 models x 200 questions x 8 samples: the whole ``plan()`` on a
  board built without its L x L paired comparisons (the leaderboard's
  rows from ``stats.metrics.compute``: those comparisons at 10,000 models are
  the ``scale`` work's, not timed here), and the plan's own work on the
  models x questions grid (``stats.plan._spreads`` and ``stats.plan._pairs``,
  adjacent pairs only).

Run ``python benches/bench_plan.py`` or ``python -m pytest
benches/bench_plan.py -s``. No timing is asserted; the figures are printed
(docs/rankings.md, *Speed*)."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import kscore
from kscore.leaderboard import Counts


def board(L: int, Q: int, K: int, seed: int = 0) -> Counts:
    rng = np.random.default_rng(seed)
    theta = rng.beta(2, 2, Q)
    skill = np.sort(rng.normal(0, 0.05, L))[::-1]
    p = np.clip(theta[None, :] + skill[:, None] + rng.normal(0, 0.05, (L, Q)), 0, 1)
    c = rng.binomial(K, p).ravel()
    return Counts([f"m{i:05d}" for i in range(L)], [f"q{i}" for i in range(Q)], np.repeat(np.arange(L), Q),
                  np.tile(np.arange(Q), L), np.stack([K - c, c], axis=1).astype(np.int64))


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def unpaired_board(counts: Counts) -> Any:
    """A pass@1 Leaderboard of ``counts`` without the paired comparisons."""
    from kscore.leaderboard import Leaderboard
    from kscore.leaderboard._spec import parse_metrics
    from kscore.leaderboard.stats.metrics import compute
    from kscore.leaderboard.stats.rank import sort_rows
    from kscore.leaderboard.stats.scores import scores

    w = np.array([0.0, 1.0])
    chosen = parse_metrics(["pass@1"], [1])
    sc = scores(counts, chosen, w, None)
    rows = sort_rows(compute(sc, chosen, w, 0.95, "questions"), chosen[0])
    return Leaderboard(rows, chosen, chosen[0], 0.95, "bench", len(counts.questions), 0, [0.0, 1.0], counts,
                       scores=sc)


def run(rounds: int = 5) -> dict[str, float]:
    from kscore.leaderboard.stats.plan import _pairs, _spreads

    counts = board(1000, 500, 8)
    big = unpaired_board(board(10_000, 200, 8, seed=2))
    rng = np.random.default_rng(1)
    L, Q = 10_000, 200
    X = np.clip(rng.beta(2, 2, Q)[None, :] + rng.normal(0, 0.1, (L, Q)), 0, 1)
    X = X[np.argsort(-X.mean(axis=1))]
    V = X * (1 - X) / 8
    N = np.full((L, Q), 8.0)
    names = [f"m{i}" for i in range(L)]
    qnames = [f"q{i}" for i in range(Q)]
    times: dict[str, list[float]] = {k: [] for k in ("leaderboard 1k", "plan 1k", "leaderboard 1k wilson",
                                                     "plan 10k", "plan core 10k")}
    for _ in range(rounds):
        t, lb = timed(lambda: kscore.leaderboard(counts, metrics="pass@1"))
        times["leaderboard 1k"].append(t)
        times["plan 1k"].append(timed(lb.plan)[0])
        times["leaderboard 1k wilson"].append(timed(lambda: kscore.leaderboard(counts, metrics="pass@1",
                                                                               interval="wilson"))[0])
        times["plan 10k"].append(timed(big.plan)[0])
        times["plan core 10k"].append(timed(lambda: (_spreads(names, X, V, N),
                                                     _pairs(names, X, V, N, None, qnames, 0.95, 0.8)))[0])
    return {k: statistics.median(v) for k, v in times.items()}


def report(med: dict[str, float]) -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [f"{k:>24}: {v:8.3f} s" for k, v in med.items()]
    lines.append(f"{'plan adds (1k models)':>24}: {med['plan 1k']:8.3f} s "
                 f"({100 * med['plan 1k'] / med['leaderboard 1k']:.0f}% of the leaderboard)")
    lines.append(f"{'wilson adds (1k models)':>24}: {med['leaderboard 1k wilson'] - med['leaderboard 1k']:8.3f} s")
    lines.append(f"{'load average':>24}: {load:8.2f}")
    return "\n".join(lines)


def test_bench_plan() -> None:
    print("\n" + report(run()))


if __name__ == "__main__":
    print(report(run()))
