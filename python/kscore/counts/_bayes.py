"""Bayes@N from per-question category counts, ``n`` varying per question."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from .._dirichlet import question_moments
from .._interval import normal_ci

CI = tuple[float, float, float, float]


def bayes_ci(
    counts: npt.ArrayLike, w: npt.ArrayLike | None = None, confidence: float = 0.95,
    bounds: tuple[float, float] | None = None,
) -> CI:
    r"""Bayes@N ``(mu, sigma, lo, hi)`` from category counts: ``counts[i, j]``
    samples of question ``i`` in category ``j`` (0..C), rewards ``w``
    (default ``[0, 1]``), each question with its own ``n_i``.

    Question :math:`i` gets the Dirichlet posterior
    :math:`\nu_{ij} = n_{ij} + 1`, :math:`T_i = 1 + C + n_i`,
    :math:`p_{ij} = \nu_{ij} / T_i`, and

    .. math::

        \mu = w_0 + \frac1M \sum_i \sum_j p_{ij}(w_j - w_0), \qquad
        \sigma = \frac1M \sqrt{\sum_i \frac{\sum_j p_{ij}(w_j - w_0)^2
            - \big(\sum_j p_{ij}(w_j - w_0)\big)^2}{T_i + 1}}

    then the normal interval :math:`\mu \mp z\sigma`, clipped into
    ``bounds`` when given. With equal ``n`` it is
    ``kscore.eval.bayes_ci(R, w)`` of an outcome matrix with these counts.

    Reference: Hariri, M., Samandar, A., Hinczewski, M., & Chaudhary, V.
    (2026). Don't Pass@k: A Bayesian Framework for Large Language Model
    Evaluation. ICLR 2026, arXiv:2510.04265.

    Examples:
        >>> mu, sigma, lo, hi = bayes_ci([[2, 3], [1, 4]])
        >>> round(mu, 6), round(sigma, 6)
        (0.642857, 0.118451)
    """
    cat = np.asarray(counts)
    if cat.ndim != 2 or cat.shape[1] < 2 or cat.shape[0] == 0:
        raise ValueError("counts must be a non-empty questions x categories array (at least 2 categories)")
    if cat.dtype.kind not in "iu" or (cat.size and int(cat.min()) < 0):
        raise ValueError("counts must be non-negative integers")
    weights = np.array([0.0, 1.0]) if w is None else np.asarray(w, np.float64)
    if weights.shape != (cat.shape[1],) or not np.all(np.isfinite(weights)):
        raise ValueError(f"w must hold {cat.shape[1]} finite rewards, one per category")
    row_mean, row_spread = question_moments(cat, weights)
    M = cat.shape[0]
    mu = float(weights[0] + math.fsum(row_mean) / M)
    sigma = math.sqrt(math.fsum(row_spread)) / M
    return normal_ci(mu, sigma, confidence, bounds)
