"""Each model's metrics from its per-question counts, through kscore.counts.

Every value is ``kscore.counts``' posterior ``(mu, sigma, lo, hi)`` from the
model's ``(n, c)`` arrays (``n`` may differ per question: ragged data are
exact) and its classic point estimate (``mean=True``); Bayes@N comes from the
category counts (:func:`kscore.counts.bayes_ci`). Nothing is recomputed
here (docs/leaderboard.md, *Metrics and ranking*)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .. import counts as kc
from ._counts import Counts
from ._issues import Issues
from ._spec import Metric


@dataclass
class Value:
    """``mean``, ``sigma``, ``lo``, ``hi``: the posterior mean, sd and
    credible interval (what the leaderboard shows and ranks by);
    ``estimate``: the classic point value (the unbiased pass@k / maj@k; the
    posterior mean for Bayes@N), which can lie outside the interval."""

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


_FUNCS = {
    "pass": (kc.pass_at_k, kc.pass_at_k_ci),
    "pass^": (kc.pass_hat_k, kc.pass_hat_k_ci),
    "maj": (kc.maj_at_k, kc.maj_at_k_ci),
}


def model_value(cats: npt.NDArray[np.int64], metric: Metric, w: npt.NDArray[np.float64],
                confidence: float) -> tuple[Value | None, str]:
    """One model's metric from its category counts (a row per question it
    has); ``(None, reason)`` when it cannot be computed."""
    n = cats.sum(axis=1)
    if metric.kind == "bayes":
        mu, sigma, lo, hi = kc.bayes_ci(cats, w, confidence, (float(w.min()), float(w.max())))
        return Value(mu, mu, sigma, lo, hi), ""
    n_min = int(n.min())
    if metric.k > n_min:
        return None, f"needs at least {metric.k} samples per question; some have {n_min}"
    point, ci = _FUNCS[metric.kind]
    c = cats[:, -1]
    estimate = float(point(n, c, metric.k, mean=True))
    mu, sigma, lo, hi = ci(n, c, metric.k, confidence)
    return Value(estimate, mu, sigma, lo, hi), ""


def by_model(counts: Counts) -> list[tuple[int, npt.NDArray[np.int64]]]:
    """(model index, its rows of ``counts``) for every model with results."""
    order = np.argsort(counts.model, kind="stable")
    m_sorted = counts.model[order]
    cuts = np.flatnonzero(np.diff(m_sorted)) + 1
    return [(int(counts.model[g[0]]), g) for g in np.split(order, cuts) if len(g)]


def compute(counts: Counts, metrics: list[Metric], w: npt.NDArray[np.float64], confidence: float,
            issues: Issues, progress: Callable[[int, int], None] | None = None) -> list[ModelRow]:
    rows: list[ModelRow] = []
    na: dict[str, list[str]] = {}
    groups = by_model(counts)
    for i, (m, idx) in enumerate(groups):
        name = counts.models[m]
        cats = counts.categories[idx]
        n = cats.sum(axis=1)
        # Mean reward per sample, averaged over questions (= classic pass@1).
        acc = float(np.mean((cats @ w) / n))
        row = ModelRow(name, len(idx), int(n.min()), int(n.max()), acc, {})
        for metric in metrics:
            value, reason = model_value(cats, metric, w, confidence)
            row.values[metric.name] = value
            if value is None:
                na.setdefault(f"{metric.name} {reason}", []).append(name)
        rows.append(row)
        if progress is not None:
            progress(i + 1, len(groups))
    for what, names in na.items():
        shown = ", ".join(f"'{x}'" for x in names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        issues.warn(f"{what}: not computed for {shown}")
    return rows


def curve(cats: npt.NDArray[np.int64], ks: list[int], confidence: float) -> npt.NDArray[np.float64]:
    """pass@k of one model for each k: rows (posterior mean, lo, hi, classic
    estimate); NaN where k exceeds a question's samples."""
    w = np.array([0.0, 1.0])
    binary = np.stack([cats[:, :-1].sum(axis=1), cats[:, -1]], axis=1)
    out = np.full((len(ks), 4), np.nan)
    for i, k in enumerate(ks):
        v, _ = model_value(binary, Metric("pass", k), w, confidence)
        if v is not None:
            out[i] = (v.mean, v.lo, v.hi, v.estimate)
    return out
