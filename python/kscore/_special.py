"""Special functions shared by the rooms, in plain Python floats.

The regularised incomplete beta function ``I_x(a, b)`` and its complement:
eval's Beta threshold weights (eval/tailpass_weights.py, ``beta_weights``)
and the leaderboard's small-board interval (leaderboard/stats/small.py: the
t distribution's tail for a non-integer degrees of freedom) use the same
evaluation, each from its smaller side (no cancellation near 1)."""

from __future__ import annotations

import math


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta ``I_x(a, b)``, from its smaller side."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    if x > (a + 1.0) / (a + b + 2.0):
        return 1.0 - betaincc(a, b, x)
    log_front = a * math.log(x) + b * math.log1p(-x) - (math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b))
    return math.exp(log_front) * _betacf(a, b, x) / a


def betaincc(a: float, b: float, x: float) -> float:
    """``1 - I_x(a, b) = I_{1-x}(b, a)``, from its smaller side."""
    if x <= 0.0:
        return 1.0
    if x >= 1.0:
        return 0.0
    if x < (a + 1.0) / (a + b + 2.0):
        return 1.0 - betainc(a, b, x)
    log_front = a * math.log(x) + b * math.log1p(-x) - (math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b))
    return math.exp(log_front) * _betacf(b, a, 1.0 - x) / b
