"""The interval given the questions: answer sampling alone (issue 36;
``interval="answers"``; docs/leaderboard.md, *Intervals*).

Its target is a model's mean over *these* questions of each question's
expected metric (what infinitely many answers per question would give on
this question set), not the value on the population of questions the
default interval covers. The only randomness is the sampling of answers,
so the variance of the estimate is ``V = sum_i v_i / n^2``, ``v_i`` each
question's within-question variance estimated from its own counts
(stats/within.py: unbiased wherever an unbiased estimate exists, the
jackknife otherwise). The interval is the continuity-corrected Wilson
interval on the effective number of independent draws ``n* = p (1 - p) /
V`` (``p`` rescaled by the metric's range; at most the model's answers,
for Bayes@N the information they carry: the cap of every interval,
:func:`kscore.leaderboard.stats.default_interval.answers_cap`),
and where nothing is seen of the variance (``p`` at an end of the range,
every question's answers alike) on the model's disjoint k-draws, ``sum_i
floor(n_i / k)``: the rule of three on the draws, which holds whatever the
questions (the chance of all-right draws is at most the mean chance to the
power of their number, by the inequality of arithmetic and geometric
means).

It replaces what ``interval="posterior"`` was taken for: the Bayesian
credible interval under a uniform prior for each question is centred on
the posterior mean, pulled towards 0.5 where questions have few samples,
and covers the mean over the questions far less often than it says
(docs/rankings.md)."""

from __future__ import annotations

import numpy as np

from ..._arrays import FloatArray, IntArray
from ..._interval import z_value
from .._spec import Metric
from .default_interval import answers_cap, metric_range, wilson_cc
from .estimates import bounds_of
from .scores import Scores
from .values import ModelRow
from .within import within_variance


def answers_bounds(cats: IntArray, model: IntArray, models: int, metric: Metric, w: FloatArray, x: FloatArray,
                   confidence: float, lo_b: FloatArray, hi_b: FloatArray, n_max: IntArray) -> tuple[
                       FloatArray, FloatArray, FloatArray]:
    """Each model's interval given its questions (module docstring) and its
    standard error ``sqrt(V)``, from the rows' category counts ``cats``,
    models ``model`` and per-row estimates ``x`` (NaN rows left out);
    ``lo_b``/``hi_b``: each model's range of the per-question estimates,
    ``n_max`` its most answers on a question. NaN for a model without rows."""
    ok = ~np.isnan(x)
    cats, model, x = cats[ok], model[ok], x[ok]
    n_row = cats.sum(axis=1)
    n = n_row.astype(np.float64)
    v = within_variance(cats, metric, w)
    v = np.where(np.isnan(v), 0.25 * (hi_b - lo_b)[model] ** 2, v)  # (one answer: the most a value can vary)
    q = np.bincount(model, minlength=models).astype(np.float64)
    span = np.where(hi_b > lo_b, hi_b - lo_b, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.clip((np.bincount(model, weights=x, minlength=models) / q - lo_b) / span, 0.0, 1.0)
        var = np.bincount(model, weights=v, minlength=models) / (q * q) / (span * span)
        k = float(max(metric.budget, 1))
        draws = np.maximum(np.bincount(model, weights=np.floor(n / k), minlength=models), 1.0)
        cap = answers_cap(metric.kind, np.bincount(model, weights=n, minlength=models).astype(np.float64), n_row,
                          np.arange(len(n_row)), model, models, None, n_max, len(w))
        n_eff = np.where((var > 0) & (p > 0) & (p < 1), np.minimum(p * (1 - p) / var, cap), draws)
        n_eff = np.maximum(n_eff, 1.0)
        se = np.sqrt(var) * span  # (NaN for a model without rows)
    z = z_value(confidence)
    lo = lo_b + span * wilson_cc(p, n_eff, z, False)
    hi = lo_b + span * wilson_cc(p, n_eff, z, True)
    bad = q == 0
    return np.where(bad, np.nan, lo), np.where(bad, np.nan, hi), se


def given_questions(rows: list[ModelRow], sc: Scores, metrics: list[Metric], w: FloatArray,
                    confidence: float) -> None:
    """Sets every shown value's ``sigma``, ``lo`` and ``hi`` of ``rows`` (made
    with the estimates over questions) to the interval given the questions."""
    c = sc.counts
    L = len(c.models)
    code = {m: i for i, m in enumerate(c.models)}
    n_max = sc.per_model().n_max
    for metric in metrics:
        lo_b, hi_b = metric_range(metric.kind, w, n_max, bounds_of(metric, w))
        lo, hi, se = answers_bounds(c.categories, c.model, L, metric, w, sc.x[metric.name], confidence, lo_b, hi_b,
                                    n_max)
        for r in rows:
            v = r.values.get(metric.name)
            if v is not None:
                i = code[r.model]
                v.sigma, v.lo, v.hi = float(se[i]), min(float(lo[i]), v.estimate), max(float(hi[i]), v.estimate)
