"""FastChat's rating procedure (fastchat/serve/monitor/elo_analysis.py and
rating_systems.py, as LMArena ran it), written out here from its
description so that the benchmark can run it beside kscore and
arena-rank; no code of FastChat's is copied.

- dedup: the battles as rows (model_a id, model_b id, outcome id 2/1/0),
  ``np.unique(axis=0, return_counts=True)``: unique rows and their counts;
- fit: scipy L-BFGS-B from zeros on the weighted BT log-loss with its
  analytic gradient, ``gtol=1e-6``, ``maxiter=100`` (its defaults);
  ratings ``400 x r + 1000`` on the scale where a logit is ``ln(10) x r``;
- bootstrap: ``num_round`` multinomial draws of the board's size over the
  unique rows (seed 0), each fitted the same way in a process pool;
- rank: 1 + the models whose 2.5% quantile is above this one's 97.5%.

Usage (also imported by bench_arena.py): ``python benches/fastchat_procedure.py battles.parquet``.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import sys
import time
from functools import partial

import numpy as np


def dedup(a: np.ndarray, b: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    schedule = np.empty((len(a), 3), np.int32)
    schedule[:, 0], schedule[:, 1] = a, b
    schedule[:, 2] = np.rint(2 * y).astype(np.int32)
    rows, counts = np.unique(schedule, return_counts=True, axis=0)
    return rows[:, :2], rows[:, 2] / 2.0, counts.astype(np.float64)


def loss_and_grad(r: np.ndarray, pairs: np.ndarray, out: np.ndarray, w: np.ndarray, alpha: float
                  ) -> tuple[float, np.ndarray]:
    z = alpha * (r[pairs[:, 0]] - r[pairs[:, 1]])
    p = 1.0 / (1.0 + np.exp(-z))
    loss = -float(((np.log(p) * out + np.log(1.0 - p) * (1.0 - out)) * w).sum())
    g_rows = -alpha * (out - p) * w
    grad = np.zeros_like(r)
    np.add.at(grad, pairs[:, 0], g_rows)
    np.add.at(grad, pairs[:, 1], -g_rows)
    return loss, grad


def fit(pairs: np.ndarray, out: np.ndarray, models: int, w: np.ndarray, alpha: float = math.log(10.0),
        tol: float = 1e-6) -> np.ndarray:
    from scipy.optimize import minimize

    res = minimize(loss_and_grad, np.zeros(models), args=(pairs, out, w, alpha), jac=True, method="L-BFGS-B",
                   options={"disp": False, "maxiter": 100, "gtol": tol})
    return np.asarray(res.x)


def bootstrap(pairs: np.ndarray, out: np.ndarray, counts: np.ndarray, models: int, rounds: int,
              processes: int | None = None) -> np.ndarray:
    rng = np.random.default_rng(seed=0)
    n = int(counts.sum())
    draws = rng.multinomial(n, counts / counts.sum(), size=rounds).astype(np.float64) / n
    with mp.get_context("fork").Pool(processes) as pool:
        return np.array(pool.map(partial(fit, pairs, out, models), draws))


def elo(r: np.ndarray) -> np.ndarray:
    return 400.0 * r + 1000.0


def rank(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return 1 + (lo[None, :] > hi[:, None]).sum(axis=1)


def run(a: np.ndarray, b: np.ndarray, y: np.ndarray, models: int, rounds: int = 100) -> dict[str, object]:
    t0 = time.perf_counter()
    pairs, out, counts = dedup(a, b, y)
    t1 = time.perf_counter()
    r = fit(pairs, out, models, counts)
    t2 = time.perf_counter()
    boots = bootstrap(pairs, out, counts, models, rounds) if rounds else np.zeros((0, models))
    t3 = time.perf_counter()
    return {"rating": elo(r), "boot": elo(boots), "dedup_s": t1 - t0, "fit_s": t2 - t1, "bootstrap_s": t3 - t2}


if __name__ == "__main__":
    import pyarrow.parquet as pq

    t = pq.read_table(sys.argv[1]).to_pandas()
    codes, names = np.unique(np.concatenate([t.model_a, t.model_b]), return_inverse=True)
    n = len(t)
    y = t.winner.map({"model_a": 1.0, "model_b": 0.0}).fillna(0.5).to_numpy()
    got = run(names[:n], names[n:], y, len(codes))
    print({k: v for k, v in got.items() if k.endswith("_s")})
