"""Credible intervals from counts, ``n`` varying per question: groups of
equal ``n`` pooled exactly (the Beta posterior of :mod:`kscore.eval`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .._inputs import finite_positive, validate_tau
from .._interval import normal_ci
from ._intake import _budget, _counts_where, _credit, _fits, _nonempty, _states
from ._types import Trials

CI = tuple[float, float, float, float]


def _finite_ci(
    n: object,
    c: object,
    k: object,
    metric: str,
    confidence: Any,
    bounds: Any,
    alpha0: Any,
    beta0: Any,
    tau: object = None,
    weights: object = None,
) -> CI:
    """Counts, k (``1 <= k <= n`` everywhere), priors, [moments], confidence,
    bounds: :mod:`kscore.eval`'s order."""
    states = _states(n, c, "n", "c", index=False)
    budget = _budget(k)
    _nonempty(states, "c")
    _fits(states, budget, _counts_where(n, "n"))
    credit = _credit(metric, budget, tau, weights)
    a0 = finite_positive(alpha0, name="alpha0")
    b0 = finite_positive(beta0, name="beta0")
    mu, var = states.posterior(credit, a0, b0)
    return normal_ci(mu, float(np.sqrt(var)), confidence, bounds)


def pass_at_k_ci(
    n: Trials, c: npt.ArrayLike, k: int, confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0), alpha0: float = 1.0, beta0: float = 1.0,
) -> CI:
    r"""Bayesian ``(mu, sigma, lo, hi)`` of Pass@k from counts, each question
    with its own ``n``: :math:`p_i \sim \mathrm{Beta}(\alpha_0 + c_i, \beta_0 + n_i - c_i)`,
    target :math:`g(p) = 1 - (1-p)^k`,
    :math:`\mu = \frac1M\sum_i E[g(p_i)]`,
    :math:`\sigma = \frac1M\sqrt{\sum_i \mathrm{Var}[g(p_i)]}`, and the
    normal interval :math:`\mu \mp z\sigma` clipped into ``bounds``. On
    rectangular data it is ``kscore.eval.pass_at_k_ci``.

    Examples:
        >>> mu, sigma, lo, hi = pass_at_k_ci([5, 10], [3, 4], 2)
        >>> round(mu, 6), round(sigma, 6)
        (0.71337, 0.112354)
    """
    return _finite_ci(n, c, k, "pass_at_k", confidence, bounds, alpha0, beta0)


def pass_hat_k_ci(
    n: Trials, c: npt.ArrayLike, k: int, confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0), alpha0: float = 1.0, beta0: float = 1.0,
) -> CI:
    """Bayesian ``(mu, sigma, lo, hi)`` of Pass^k (``g(p) = p^k``) from counts;
    see :func:`pass_at_k_ci`."""
    return _finite_ci(n, c, k, "pass_hat_k", confidence, bounds, alpha0, beta0)


def g_pass_at_k_tau_ci(
    n: Trials, c: npt.ArrayLike, k: int, tau: float, confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0), alpha0: float = 1.0, beta0: float = 1.0,
) -> CI:
    """Bayesian ``(mu, sigma, lo, hi)`` of G-Pass@k_tau (at least ``j0(tau, k)``
    of k fresh draws correct) from counts; see :func:`pass_at_k_ci`."""
    validate_tau(tau)
    return _finite_ci(n, c, k, "g_pass_at_k_tau", confidence, bounds, alpha0, beta0, tau=tau)


def mg_pass_at_k_ci(
    n: Trials, c: npt.ArrayLike, k: int, confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0), alpha0: float = 1.0, beta0: float = 1.0,
) -> CI:
    """Bayesian ``(mu, sigma, lo, hi)`` of mG-Pass@k from counts; see
    :func:`pass_at_k_ci`."""
    return _finite_ci(n, c, k, "mg_pass_at_k", confidence, bounds, alpha0, beta0)


def maj_at_k_ci(
    n: Trials, c: npt.ArrayLike, k: int, confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0), alpha0: float = 1.0, beta0: float = 1.0,
) -> CI:
    """Bayesian ``(mu, sigma, lo, hi)`` of Maj@k (a strict majority of k fresh
    draws correct) from counts; see :func:`pass_at_k_ci`."""
    return _finite_ci(n, c, k, "maj_at_k", confidence, bounds, alpha0, beta0)


def auc_at_k_ci(
    n: Trials, c: npt.ArrayLike, k: int, confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0), alpha0: float = 1.0, beta0: float = 1.0,
) -> CI:
    """Bayesian ``(mu, sigma, lo, hi)`` of AUC@k from counts; see
    :func:`pass_at_k_ci`."""
    return _finite_ci(n, c, k, "auc_at_k", confidence, bounds, alpha0, beta0)


def threshold_spectrum_at_k_ci(
    n: Trials, c: npt.ArrayLike, k: int, weights: npt.ArrayLike, confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0), alpha0: float = 1.0, beta0: float = 1.0,
) -> CI:
    """Bayesian ``(mu, sigma, lo, hi)`` of the threshold spectrum from counts
    (``weights``: length k, non-negative, sum <= 1); see :func:`pass_at_k_ci`."""
    return _finite_ci(n, c, k, "threshold_spectrum_at_k", confidence, bounds, alpha0, beta0,
                      weights=weights)
