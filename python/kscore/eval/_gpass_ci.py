"""Bayesian credible intervals for G-Pass@k, G-Pass@k_tau, mG-Pass@k, Maj@k
and AUC@k: the posterior target is the metric's credit applied to ``k``
fresh i.i.d. Bernoulli(p) draws, p per question from its Beta posterior
(see :mod:`kscore.eval._pass_ci`)."""

from __future__ import annotations

from typing import Any

from .. import _kscore
from ._inputs import integral_scalar, validate_tau
from ._pass_ci import finite_bank_ci, pass_at_k_ci, pass_hat_k_ci


def g_pass_at_k_ci(
    R: Any,
    k: int,
    confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0),
    alpha0: float = 1.0,
    beta0: float = 1.0,
) -> tuple[float, float, float, float]:
    r"""Bayesian posterior summary for G-Pass@k, the all-success threshold:
    the same target as :func:`pass_hat_k_ci`.

    Returns:
        ``(mu, sigma, lo, hi)``.
    """
    return pass_hat_k_ci(
        R, k, confidence=confidence, bounds=bounds, alpha0=alpha0, beta0=beta0
    )


def g_pass_at_k_tau_ci(
    R: Any,
    k: int,
    tau: float,
    confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0),
    alpha0: float = 1.0,
    beta0: float = 1.0,
) -> tuple[float, float, float, float]:
    r"""Bayesian posterior summary for thresholded G-Pass@k: the probability
    that at least :math:`j_0 = \max(1, \lceil \tau k \rceil)` of ``k`` i.i.d.
    draws succeed (:math:`j_0` by the float rule of :func:`g_pass_at_k_tau`).

    Returns:
        ``(mu, sigma, lo, hi)``.
    """
    return finite_bank_ci(
        R, k, lambda k: _kscore.Credit.tau(k, float(tau)), confidence, bounds, alpha0, beta0,
        after_r=lambda: validate_tau(tau),
    )


def mg_pass_at_k_ci(
    R: Any,
    k: int,
    confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0),
    alpha0: float = 1.0,
    beta0: float = 1.0,
) -> tuple[float, float, float, float]:
    r"""Bayesian posterior summary for mG-Pass@k, the published discrete
    threshold weighting :math:`A_j = \frac{2}{k}\max(j - \lceil k/2 \rceil, 0)`.
    mG-Pass@1 is identically 0, so ``k = 1`` gives ``(0, 0, 0, 0)``.

    Returns:
        ``(mu, sigma, lo, hi)``.
    """
    return finite_bank_ci(R, k, _kscore.Credit.mg, confidence, bounds, alpha0, beta0)


def maj_at_k_ci(
    R: Any,
    k: int,
    confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0),
    alpha0: float = 1.0,
    beta0: float = 1.0,
) -> tuple[float, float, float, float]:
    r"""Bayesian posterior summary for :func:`maj_at_k`: a strict majority,
    at least :math:`\lfloor k/2 \rfloor + 1` of ``k`` i.i.d. draws correct.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> mu, sigma, lo, hi = maj_at_k_ci(R, 2)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.446429, 0.146167, 0.1599, 0.7329)
        >>> mu, sigma, lo, hi = maj_at_k_ci(R, 3)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.684524, 0.151958, 0.3867, 0.9824)
    """
    return finite_bank_ci(R, k, _kscore.Credit.majority, confidence, bounds, alpha0, beta0)


def auc_at_k_ci(
    R: Any,
    k: int,
    confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0),
    alpha0: float = 1.0,
    beta0: float = 1.0,
) -> tuple[float, float, float, float]:
    r"""Bayesian posterior summary for the latent AUC@k target, the
    trapezoid-weighted sum of i.i.d. Pass@1..Pass@k. AUC@1 is Pass@1, so
    ``k = 1`` returns :func:`pass_at_k_ci` with ``k = 1``.

    Returns:
        ``(mu, sigma, lo, hi)``.
    """
    budget = integral_scalar(k, name="k")
    if budget == 1:
        return pass_at_k_ci(
            R, 1, confidence=confidence, bounds=bounds, alpha0=alpha0, beta0=beta0
        )
    return finite_bank_ci(R, budget, _kscore.Credit.auc, confidence, bounds, alpha0, beta0)
