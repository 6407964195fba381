"""Per-question estimates of a metric from the category counts of rows
(docs/leaderboard.md, *Metrics*): the unbiased estimator of each question
(``kscore.counts`` with ``mean=False``; max@k by reward levels; Bayes@N's
per-question posterior mean), one core call for all rows, and each metric's
range."""

from __future__ import annotations

import numpy as np

from ... import counts as kc
from ..._arrays import FloatArray, IntArray
from .._spec import Metric


def bounds_of(metric: Metric, w: FloatArray) -> tuple[float, float]:
    """The range of a metric: the rewards' for Bayes@N, avg@n and max@k."""
    if metric.kind in ("bayes", "avg_at_n", "max_at_k"):
        return float(w.min()), float(w.max())
    return 0.0, 1.0


def _max_per_question(cats: IntArray, w: FloatArray, k: int) -> FloatArray:
    """max@k per question in the level form ``r_1 + sum_l (r_{l+1} - r_l)
    pass@k(n, n - F_l)`` (F_l: samples rewarded at most r_l): one
    ``kscore.counts.pass_at_k`` call per reward level."""
    n = cats.sum(axis=1)
    levels = np.unique(w)
    out = np.full(len(n), float(levels[0]))
    for lo, hi in zip(levels[:-1], levels[1:]):
        F = cats[:, w <= lo].sum(axis=1)
        out += (hi - lo) * kc.pass_at_k(n, n - F, k)
    return out


def _bayes_per_question(cats: IntArray, w: FloatArray) -> FloatArray:
    """Each question's Bayes@N posterior mean reward (Dirichlet(+1)); their
    mean is :func:`kscore.counts.bayes_ci`'s ``mu``."""
    T = (cats.shape[1] + cats.sum(axis=1)).astype(np.float64)
    shift = w - w[0]
    out: FloatArray = w[0] + ((cats + 1.0) @ shift) / T
    return out


def question_estimates(cats: IntArray, metric: Metric, w: FloatArray, n: IntArray | None = None) -> FloatArray:
    """The metric's estimate on every row of ``cats`` (a row per (model,
    question), categories 0..C; ``n``: its row sums, if known): one core
    call for all rows; NaN on rows with fewer samples than the metric's
    budget."""
    n = cats.sum(axis=1) if n is None else n
    c = cats[:, -1]
    out = np.full(len(n), np.nan)
    ok = n >= metric.budget
    if not ok.any():
        return out
    nk, ck = n[ok], c[ok]
    kind = metric.kind
    if kind == "bayes":
        out[ok] = _bayes_per_question(cats[ok], w)
    elif kind == "avg_at_n":
        binary = len(w) == 2 and w[0] == 0.0 and w[1] == 1.0
        out[ok] = kc.avg_at_n(nk, ck) if binary else (cats[ok] @ w) / nk
    elif kind == "cons_at_k":
        out[ok] = kc.cons_at_k(nk, ck, metric.k or None)
    elif kind == "max_at_k":
        out[ok] = _max_per_question(cats[ok], w, metric.k)
    elif kind == "g_pass_at_k_tau":
        out[ok] = kc.g_pass_at_k_tau(nk, ck, metric.k, float(metric.tau or 0.0))
    else:
        out[ok] = getattr(kc, kind)(nk, ck, metric.k)
    return out
