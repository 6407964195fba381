"""One model's Bayesian credible interval of a metric, conditional on its
questions (docs/leaderboard.md, *Intervals*, ``interval="posterior"``):
``kscore.counts``' ``*_ci`` for the table metrics, ``bayes_ci`` for Bayes@N,
``kscore.eval``'s ``avg_ci`` / ``max_at_k_ci`` for avg@n / max@k; and the
pass@k curve of one model with its intervals."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ... import counts as kc
from ..._arrays import FloatArray, IntArray
from ..._interval import normal_ci
from .._spec import Metric
from .estimates import bounds_of
from .states import row_sums


def _matrix(cats: IntArray) -> IntArray:
    """An outcome matrix with these category counts (rows of equal n)."""
    C1 = cats.shape[1]
    n = int(cats[0].sum())
    out: IntArray = np.repeat(np.tile(np.arange(C1), len(cats)), cats.ravel()).reshape(len(cats), n)
    return out


def _pooled(cats: IntArray, one: Callable[[IntArray], tuple[float, float]]) -> tuple[float, float]:
    """``(mu, sigma)`` of a per-question-independent posterior summary, from
    groups of equal n: ``mu`` weighted by questions, variances added."""
    n = cats.sum(axis=1)
    M = len(n)
    mu_sum, var_sum = 0.0, 0.0
    for value in np.unique(n):
        g = cats[n == value]
        mu, sigma = one(g)
        mu_sum += len(g) * mu
        var_sum += (len(g) * sigma) ** 2
    return mu_sum / M, float(np.sqrt(var_sum)) / M


def posterior(cats: IntArray, metric: Metric, w: FloatArray, confidence: float) -> tuple[float, float, float, float]:
    """One model's Bayesian ``(mu, sigma, lo, hi)`` from its category counts
    (a row per question; every question has at least the metric's budget):
    ``kscore.counts``' ``*_ci`` for the table metrics, ``bayes_ci`` for
    Bayes@N, ``kscore.eval.avg_ci`` / ``max_at_k_ci`` for avg@n / max@k
    (equal-n groups pooled exactly); NaN for cons@k (no posterior)."""
    from ... import eval as ke  # (imported on first use: kscore.eval takes 0.1-0.3 s to import, and only avg@n's
    # and max@k's posteriors need it; kscore/__init__.py imports it lazily too)

    n = row_sums(cats)
    c = cats[:, -1]
    bounds = bounds_of(metric, w)
    kind = metric.kind
    if kind == "bayes":
        return kc.bayes_ci(cats, w, confidence, bounds)
    if kind == "cons_at_k":
        return np.nan, np.nan, np.nan, np.nan
    if kind == "avg_at_n":
        mu, sigma = _pooled(cats, lambda g: ke.avg_ci(_matrix(g), w)[:2])
        return normal_ci(mu, sigma, confidence, bounds)
    if kind == "max_at_k":
        mu, sigma = _pooled(cats, lambda g: ke.max_at_k_ci(_matrix(g), metric.k, w, bounds=bounds)[:2])
        return normal_ci(mu, sigma, confidence, bounds)
    ci: Any = getattr(kc, kind + "_ci")
    if kind == "g_pass_at_k_tau":
        return ci(n, c, metric.k, float(metric.tau or 0.0), confidence)  # type: ignore[no-any-return]
    return ci(n, c, metric.k, confidence)  # type: ignore[no-any-return]


def curve(cats: IntArray, ks: list[int], confidence: float) -> FloatArray:
    """pass@k of one model for each k: rows (posterior mean, lo, hi, classic
    estimate); NaN where k exceeds a question's samples."""
    binary = np.stack([cats[:, :-1].sum(axis=1), cats[:, -1]], axis=1)
    n, c = binary.sum(axis=1), binary[:, 1]
    out = np.full((len(ks), 4), np.nan)
    for i, k in enumerate(ks):
        if k <= int(n.min()):
            mu, _, lo, hi = kc.pass_at_k_ci(n, c, k, confidence)
            out[i] = (mu, lo, hi, kc.pass_at_k(n, c, k, mean=True))
    return out
