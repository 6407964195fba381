"""Bayes@N's posterior of one model from its distinct states
(docs/leaderboard.md, *Intervals*).

:func:`kscore.counts.bayes_ci` sums a value per question with ``math.fsum``,
the correctly rounded sum. A model's questions take few distinct states
(stats/states.py), and the exact sum of count x value over them, rounded once,
is the same correctly rounded number: the same ``(mu, sigma, lo, hi)``
without a pass over the model's questions."""

from __future__ import annotations

import math
from fractions import Fraction

from ..._arrays import FloatArray, IntArray
from ..._dirichlet import question_moments
from ..._interval import normal_ci


def _exact_sum(values: FloatArray, counts: IntArray) -> float:
    """``math.fsum`` of each value repeated its count times: the exact sum,
    rounded once (int / int is correctly rounded)."""
    total = sum((Fraction(float(v)) * int(k) for v, k in zip(values, counts)), Fraction(0))
    return float(total)


def bayes_ci_states(cats: IntArray, count: IntArray, w: FloatArray, confidence: float,
                    bounds: tuple[float, float]) -> tuple[float, float, float, float]:
    """``kscore.counts.bayes_ci`` of a model with ``count[s]`` questions in
    state ``cats[s]`` (category counts), computed as bayes_ci computes it
    per question."""
    row_mean, row_spread = question_moments(cats, w)
    M = int(count.sum())
    mu = float(w[0] + _exact_sum(row_mean, count) / M)
    sigma = math.sqrt(_exact_sum(row_spread, count)) / M
    return normal_ci(mu, sigma, confidence, bounds)
