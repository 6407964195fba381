"""The variance of a per-question estimate given the question (its answer
sampling noise), estimated from the question's category counts alone
(docs/rankings.md, *Plan*): unbiased wherever an unbiased estimate exists.

* Mean rewards (avg@n, pass@1) and Bayes@N, affine in the mean reward
  ``rbar`` of the question's ``n`` samples: ``a^2 s^2 / n`` with ``s^2`` the
  rewards' sample variance (``ddof=1``) and ``a`` the slope (1; Bayes@N's
  posterior mean ``(n rbar + sum(w - w_0) + (C+1) w_0) / (n + C + 1)`` has
  ``a = n / (n + C + 1)``): E. Miller's unbiased within-question estimate
  (arXiv 2411.00640, section 3).
* The binary metrics whose per-question estimate is a U-statistic of
  degree ``k`` (pass@k, pass^k, G-Pass@k, mG-Pass@k, maj@k, auc@k: checked
  on the board's states, the estimate at ``n`` is the mean of its values
  at ``n = k`` over the k-subsets of the samples): ``f^2`` minus the
  unbiased estimate of ``E[f]^2``, the mean of ``h(S1) h(S2)`` over ordered
  pairs of disjoint k-subsets (``h``: the estimate on k samples), which
  needs ``n >= 2k``; the number of pairs with ``j1`` and ``j2`` correct is
  ``C(c, j1) C(n-c, k-j1) C(c-j1, j2) C(n-c-k+j1, k-j2)``.
* Otherwise (fewer than ``2k`` samples, max@k, cons@k): the jackknife over
  the question's samples (the estimate with one sample of category ``j``
  left out, ``c_j`` times each), which errs on the large side (Efron and
  Stein)."""

from __future__ import annotations

import numpy as np

from ..._arrays import FloatArray, IntArray
from .._spec import Metric
from .estimates import question_estimates


def within_variance(cats: IntArray, metric: Metric, w: FloatArray) -> FloatArray:
    """The estimated variance of the metric's per-question estimate given
    the question, one per row of category counts ``cats`` (module
    docstring); NaN where a question has one sample, or too few for the
    metric with one left out.

    Examples:
        >>> v = within_variance(np.array([[1, 3]]), Metric("pass_at_k", 1), np.array([0.0, 1.0]))
        >>> round(float(v[0]), 6)  # s^2 / n = (3 * 1 / (4 * 3)) / 4
        0.0625
    """
    kind = metric.kind
    n = cats.sum(axis=1)
    if kind in ("avg_at_n", "bayes"):
        return _mean_like(cats, w, bayes=kind == "bayes")
    out = jackknife(cats, metric, w)
    if metric.k >= 1 and kind not in ("max_at_k",):
        h = _kernel(metric, w, cats.shape[1])
        ok = n >= 2 * metric.k
        if ok.any() and _is_u_statistic(cats[n >= metric.k], metric, w, h):
            out[ok] = _u_variance(cats[ok, -1], n[ok], metric.k, h, question_estimates(cats[ok], metric, w))
    return out


def _mean_like(cats: IntArray, w: FloatArray, bayes: bool) -> FloatArray:
    n = cats.sum(axis=1).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (cats @ w) / n
        dev = w[None, :] - mean[:, None]
        s2 = (cats * dev * dev).sum(axis=1) / (n - 1.0)
        var = s2 / n
        if bayes:
            var *= (n / (n + cats.shape[1])) ** 2
    out: FloatArray = np.where(n >= 2, var, np.nan)
    return out


def _kernel(metric: Metric, w: FloatArray, width: int) -> FloatArray:
    """The estimate on ``k`` samples with ``j`` correct, j = 0..k."""
    k = metric.k
    rows = np.zeros((k + 1, width), np.int64)
    rows[:, -1] = np.arange(k + 1)
    rows[:, 0] += k - np.arange(k + 1)
    return question_estimates(rows, metric, w)


def _log_comb(a: IntArray, b: IntArray, lf: FloatArray) -> FloatArray:
    ok = (b >= 0) & (b <= a) & (a >= 0)
    out: FloatArray = np.where(ok, lf[np.clip(a, 0, None)] - lf[np.clip(b, 0, None)] -
                               lf[np.clip(a - b, 0, None)], -np.inf)
    return out


def _is_u_statistic(cats: IntArray, metric: Metric, w: FloatArray, h: FloatArray) -> bool:
    """Whether the estimate at every distinct (n, c) of ``cats`` (each with
    at least ``k`` samples) is the mean of ``h`` over the k-subsets."""
    if not len(cats):
        return False
    nc = np.unique(np.stack([cats.sum(axis=1), cats[:, -1]], axis=1), axis=0)
    k = metric.k
    lf = _log_factorials(int(nc[:, 0].max()))
    j = np.arange(k + 1)[None, :]
    n, c = nc[:, :1], nc[:, 1:]
    p = np.exp(_log_comb(c, j, lf) + _log_comb(n - c, k - j, lf) - _log_comb(n, np.full_like(n, k), lf))
    u = (p * h[None, :]).sum(axis=1)
    rows = np.zeros((len(nc), cats.shape[1]), np.int64)
    rows[:, -1], rows[:, 0] = nc[:, 1], nc[:, 0] - nc[:, 1]
    f = question_estimates(rows, metric, w)
    return bool(np.all(np.abs(u - f) <= 1e-10))


def _log_factorials(n: int) -> FloatArray:
    out: FloatArray = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1, dtype=np.float64)))])
    return out


def _u_variance(c: IntArray, n: IntArray, k: int, h: FloatArray, f: FloatArray) -> FloatArray:
    """``f^2`` minus the unbiased estimate of ``E[f]^2`` (module docstring),
    per row (``n >= 2k``), over its distinct (n, c)."""
    nc, at = np.unique(np.stack([n, c], axis=1), axis=0, return_inverse=True)
    N, C = nc[:, 0][:, None, None], nc[:, 1][:, None, None]
    lf = _log_factorials(int(N.max()))
    j1 = np.arange(k + 1)[None, :, None]
    j2 = np.arange(k + 1)[None, None, :]
    log_pairs = (_log_comb(C, j1, lf) + _log_comb(N - C, k - j1, lf) + _log_comb(C - j1, j2, lf)
                 + _log_comb(N - C - k + j1, k - j2, lf))
    log_total = _log_comb(N, np.full_like(N, k), lf) + _log_comb(N - k, np.full_like(N, k), lf)
    g2 = (np.exp(log_pairs - log_total) * (h[:, None] * h[None, :])[None]).sum(axis=(1, 2))
    out: FloatArray = f * f - g2[at.ravel()]
    return out


def jackknife(cats: IntArray, metric: Metric, w: FloatArray) -> FloatArray:
    """The jackknife variance of the per-question estimate over the
    question's samples, from its category counts (NaN: one sample, or too
    few for the metric with one left out).

    Examples:
        >>> v = jackknife(np.array([[1, 3]]), Metric("pass_at_k", 1), np.array([0.0, 1.0]))
        >>> round(float(v[0]), 6)  # for a mean: s^2 / n
        0.0625
    """
    n = cats.sum(axis=1)
    nf = n.astype(np.float64)
    loo = np.full(cats.shape, np.nan)
    for j in range(cats.shape[1]):
        has = cats[:, j] > 0
        if has.any():
            minus = cats[has].copy()
            minus[:, j] -= 1
            loo[has, j] = question_estimates(minus, metric, w)
    weights = cats.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nansum(weights * np.where(cats > 0, loo, 0.0), axis=1) / nf
        dev = np.where(cats > 0, loo - mean[:, None], 0.0)
        var = (nf - 1.0) / nf * np.sum(weights * dev * dev, axis=1)
        unknown = np.any((cats > 0) & np.isnan(loo), axis=1) | (n < 2)
    out: FloatArray = np.where(unknown, np.nan, np.maximum(var, 0.0))
    return out
