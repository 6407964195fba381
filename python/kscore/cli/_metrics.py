"""Leaderboard metrics from per-question outcome counts, via kscore.eval.

Every metric here is a mean over questions of a per-question quantity that
depends only on the question's counts (how many of its ``n`` samples fell in
each category), and every credible interval is the normal interval around
the posterior mean with ``sigma = sqrt(sum of per-question variances) / M``.
So a model whose questions have different sample counts (ragged data) is
computed exactly by splitting its questions into groups of equal ``n``,
calling kscore.eval on each group's outcome matrix (rebuilt from the counts:
the metrics do not depend on the order of samples), and pooling:
``mu = sum(M_g mu_g) / M`` and ``sigma = sqrt(sum((M_g sigma_g)^2)) / M``.

The classic point estimates (unbiased pass@k, pass^k, maj@k) come straight
from the per-question ``(n, c)`` arrays through :mod:`kscore.counts`, which
takes a different ``n`` per question in one call; ``kscore.counts`` has no
credible intervals, hence the equal-n groups for those.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import counts as kc
from .. import eval as ke
from .._interval import normal_ci
from ._errors import CliError, Issues
from ._read import Results


@dataclass(frozen=True)
class Metric:
    kind: str  # "pass", "pass^", "maj", "bayes"
    k: int = 0

    @property
    def name(self) -> str:
        if self.kind == "bayes":
            return "bayes@N"
        if self.kind == "pass^":
            return f"pass^{self.k}"
        return f"{self.kind}@{self.k}"


@dataclass
class Value:
    """``mean``, ``sigma``, ``lo``, ``hi``: the Bayesian posterior mean, sd
    and credible interval from the metric's ``*_ci`` function (what the
    leaderboard shows and ranks by); ``estimate``: the metric's classic point
    value (the unbiased pass@k / maj@k estimator; the posterior mean for
    Bayes@N), which the Beta(1, 1) prior can put outside the interval."""

    estimate: float
    mean: float
    sigma: float
    lo: float
    hi: float


@dataclass
class ModelRow:
    model: str
    questions: int
    n_min: int
    n_max: int
    accuracy: float
    values: dict[str, Value | None]
    rank: tuple[int, int] | None = None


DEFAULT_KS = (1, 4, 16)


def parse_ks(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        ks = sorted({int(t) for t in text.replace(" ", "").split(",") if t})
    except ValueError as exc:
        raise CliError(f"--k takes positive integers separated by commas, e.g. 1,4,16; got {text!r}") from exc
    if not ks or ks[0] < 1:
        raise CliError(f"--k takes positive integers separated by commas, e.g. 1,4,16; got {text!r}")
    return ks


def default_ks(n_min: int) -> list[int]:
    """1, 4, 16 bounded by the fewest samples any question has."""
    return sorted({min(k, n_min) for k in DEFAULT_KS})


_METRIC = re.compile(r"^(pass@|pass\^|maj@)(k|\d+)$|^(bayes|bayes@n)$")


def parse_metrics(specs: list[str] | None, ks: list[int]) -> list[Metric]:
    """``pass@K``, ``pass^K``, ``maj@K`` (``K`` a number, or ``k`` for each of
    the --k budgets) and ``bayes@N``; comma-separated or repeated."""
    if not specs:
        kmax = max(ks)
        return [Metric("pass", 1)] + [Metric("pass", k) for k in ks if k > 1] + [Metric("maj", kmax), Metric("bayes")]
    out: list[Metric] = []
    for spec in specs:
        for token in spec.replace(" ", "").split(","):
            if not token:
                continue
            m = _METRIC.match(token.lower())
            if m is None:
                raise CliError(f"unknown metric {token!r}; use pass@K, pass^K, maj@K (K a number or 'k' for each --k) "
                               "or bayes@N")
            if m.group(3):
                metrics = [Metric("bayes")]
            else:
                kind = {"pass@": "pass", "pass^": "pass^", "maj@": "maj"}[m.group(1)]
                kk = ks if m.group(2) == "k" else [int(m.group(2))]
                if min(kk) < 1:
                    raise CliError(f"metric {token!r}: k must be at least 1")
                metrics = [Metric(kind, k) for k in kk]
            out.extend(x for x in metrics if x not in out)
    return out


def resolve_sort(sort: str | None, metrics: list[Metric]) -> Metric:
    if sort is None:
        return next((m for m in metrics if m.kind == "bayes"), metrics[0])
    key = sort.lower()
    if key in ("bayes", "bayes@n"):
        key = "bayes@n"
    for m in metrics:
        if m.name.lower() == key:
            return m
    raise CliError(f"--sort {sort!r} is not one of the metrics shown: {', '.join(m.name for m in metrics)}")


# ------------------------------------------------------------------ compute


Matrix = npt.NDArray[Any]


def _binary(rows: npt.NDArray[np.int32], n: int) -> Matrix:
    """Outcome matrix with the counts' successes (top category) first."""
    return np.arange(n)[None, :] < rows[:, -1][:, None]


def _categorical(rows: npt.NDArray[np.int32], n: int) -> Matrix:
    """Outcome matrix with each row's categories in increasing order."""
    cum = np.cumsum(rows, axis=1)[:, :-1]
    R: Matrix = (np.arange(n)[None, :, None] >= cum[:, None, :]).sum(axis=2).astype(np.int8)
    return R


def _funcs(metric: Metric) -> tuple[Callable[..., float], Callable[..., tuple[float, float, float, float]]]:
    """(point estimate from (n, c) arrays, credible interval from a matrix)."""
    if metric.kind == "pass":
        return kc.pass_at_k, ke.pass_at_k_ci
    if metric.kind == "pass^":
        return kc.pass_hat_k, ke.pass_hat_k_ci
    return kc.maj_at_k, ke.maj_at_k_ci


def _pool(parts: list[tuple[int, float, float, float, float, float]], confidence: float,
          bounds: tuple[float, float] | None) -> Value:
    """Pool equal-n groups (size, estimate, mu, sigma, lo, hi) into one value."""
    if len(parts) == 1:
        _, est, mu, sigma, lo, hi = parts[0]
        return Value(est, mu, sigma, lo, hi)
    total = sum(p[0] for p in parts)
    est = math.fsum(p[0] * p[1] for p in parts) / total
    mu = math.fsum(p[0] * p[2] for p in parts) / total
    sigma = math.sqrt(math.fsum((p[0] * p[3]) ** 2 for p in parts)) / total
    _, _, lo, hi = normal_ci(mu, sigma, confidence, bounds)
    return Value(est, mu, sigma, lo, hi)


def _bayes_counts(counts: npt.NDArray[np.int32], w: npt.NDArray[np.float64], confidence: float) -> Value:
    """Bayes@N (scorio's formula, Dirichlet(+1) prior, no R0) straight from
    counts; each question has its own T = 1 + C + n. Used while
    ``kscore.eval.bayes_ci`` has not landed on this branch."""
    C = counts.shape[1] - 1
    n = counts.sum(axis=1)
    nu = counts + 1.0
    T = (1 + C + n).astype(np.float64)
    p = nu / T[:, None]
    shift = w - w[0]
    row_mean = p @ shift
    row_var = np.maximum(p @ (shift**2) - row_mean**2, 0.0)
    M = len(n)
    mu = float(w[0] + row_mean.mean())
    sigma = math.sqrt(float(np.sum(row_var / (T + 1)))) / M
    _, _, lo, hi = normal_ci(mu, sigma, confidence, (float(w.min()), float(w.max())))
    return Value(mu, mu, sigma, lo, hi)


def model_value(counts: npt.NDArray[np.int32], metric: Metric, w: npt.NDArray[np.float64],
                confidence: float) -> tuple[Value | None, str]:
    """The metric of one model from its counts (questions it has only);
    ``(None, reason)`` when it cannot be computed."""
    n = counts.sum(axis=1)
    counts = counts[n > 0]
    n = n[n > 0]
    bayes_ci: Callable[..., tuple[float, float, float, float]] | None = getattr(ke, "bayes_ci", None)
    if metric.kind == "bayes" and bayes_ci is None:
        return _bayes_counts(counts, w, confidence), ""
    ns = np.unique(n)
    if metric.kind != "bayes" and metric.k > int(ns[0]):
        return None, f"needs at least {metric.k} samples per question; some have {int(ns[0])}"
    bounds: tuple[float, float] = (0.0, 1.0) if metric.kind != "bayes" else (float(w.min()), float(w.max()))
    parts: list[tuple[int, float, float, float, float, float]] = []
    if metric.kind != "bayes":
        point, ci = _funcs(metric)
        estimate = float(point(n, counts[:, -1], metric.k, mean=True))
    for nv in ns:
        rows = counts[n == nv]
        if metric.kind == "bayes":
            assert bayes_ci is not None
            R = _categorical(rows, int(nv)) if counts.shape[1] > 2 else _binary(rows, int(nv))
            mu, sigma, lo, hi = bayes_ci(R, w, confidence=confidence, bounds=bounds)
            parts.append((len(rows), mu, mu, sigma, lo, hi))
        else:
            mu, sigma, lo, hi = ci(_binary(rows, int(nv)), metric.k, confidence=confidence)
            parts.append((len(rows), estimate, mu, sigma, lo, hi))
    return _pool(parts, confidence, bounds), ""


def compute(results: Results, metrics: list[Metric], w: npt.NDArray[np.float64], confidence: float,
            issues: Issues, progress: Callable[[int], None] | None = None) -> list[ModelRow]:
    rows: list[ModelRow] = []
    na: dict[str, list[str]] = {}
    for m, name in enumerate(results.models):
        counts = results.counts[m]
        n = counts.sum(axis=1)
        have = n > 0
        if not have.any():
            issues.warn(f"model '{name}' has no valid results (left out)")
            continue
        # Mean reward per sample, averaged over questions (= classic pass@1).
        acc = float(np.mean((counts[have] @ w) / n[have]))
        row = ModelRow(name, int(have.sum()), int(n[have].min()), int(n[have].max()), acc, {})
        for metric in metrics:
            value, reason = model_value(counts, metric, w, confidence)
            row.values[metric.name] = value
            if value is None:
                na.setdefault(f"{metric.name} {reason}", []).append(name)
        rows.append(row)
        if progress is not None:
            progress(m + 1)
    for what, names in na.items():
        shown = ", ".join(f"'{x}'" for x in names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        issues.warn(f"{what}: not computed for {shown}")
    return rows


def rank(rows: list[ModelRow], sort: Metric) -> list[ModelRow]:
    """Sort by the metric's posterior mean (highest first; models without it last)
    and give each model a rank range: from 1 + the number of models whose
    interval lies entirely above its own, to the number of models whose
    interval does not lie entirely below. Models whose intervals overlap share
    rank ranges (e.g. 2-3)."""
    key = sort.name

    def sort_key(r: ModelRow) -> tuple[int, float, str]:
        v = r.values.get(key)
        return (0, -v.mean, r.model) if v is not None else (1, 0.0, r.model)

    rows = sorted(rows, key=sort_key)
    vals = [r.values.get(key) for r in rows]
    scored = [v for v in vals if v is not None]
    if scored:
        lo = np.array([v.lo for v in scored])
        hi = np.array([v.hi for v in scored])
        for r, v in zip(rows, vals):
            if v is None:
                continue
            better = int(np.sum(lo > v.hi))
            worse = int(np.sum(hi < v.lo))
            r.rank = (better + 1, len(scored) - worse)
    return rows


def rank_label(r: ModelRow) -> str:
    if r.rank is None:
        return "-"
    a, b = r.rank
    return str(a) if a == b else f"{a}-{b}"


def curve(counts: npt.NDArray[np.int32], ks: list[int], confidence: float) -> npt.NDArray[np.float64]:
    """pass@k for each k: rows (posterior mean, lo, hi, classic estimate);
    NaN where k > n."""
    w = np.array([0.0, 1.0])
    out = np.full((len(ks), 4), np.nan)
    for i, k in enumerate(ks):
        v, _ = model_value(counts, Metric("pass", k), w, confidence)
        if v is not None:
            out[i] = (v.mean, v.lo, v.hi, v.estimate)
    return out
