"""Bayesian credible intervals for Pass@k and Pass^k (Unanimous@k).

Each question's success rate gets the posterior
:math:`p_\\alpha \\sim \\mathrm{Beta}(\\alpha_0 + c_\\alpha, \\beta_0 + N - c_\\alpha)`;
the latent target of ``k`` fresh i.i.d. draws is propagated to the dataset
mean, :math:`\\mu = \\frac1M\\sum_\\alpha E[g(p_\\alpha)]` and
:math:`\\sigma = \\frac1M\\sqrt{\\sum_\\alpha \\mathrm{Var}[g(p_\\alpha)]}`, and
``(lo, hi)`` is the normal interval :math:`\\mu \\mp z\\sigma` clipped into
``bounds``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .. import _kscore
from .._inputs import binary_bank, finite_positive, validate_finite_k
from .._interval import normal_ci


def beta_prior(alpha0: object, beta0: object) -> tuple[float, float]:
    """``alpha0`` then ``beta0``: finite positive real scalars (not bool)."""
    return finite_positive(alpha0, name="alpha0"), finite_positive(beta0, name="beta0")


def finite_bank_ci(
    R: Any,
    k: Any,
    credit: Any,
    confidence: Any,
    bounds: Any,
    alpha0: Any,
    beta0: Any,
    after_r: Callable[[], None] | None = None,
) -> tuple[float, float, float, float]:
    """R, [``after_r``], finite k, priors, [moments], confidence, bounds:
    scorio's order. ``credit`` maps the validated k to a ``_kscore.Credit``."""
    bank = binary_bank(R)
    if after_r is not None:
        after_r()
    k = validate_finite_k(bank.n, k)
    a0, b0 = beta_prior(alpha0, beta0)
    mu, var = _kscore.posterior_moments(bank, credit(k), a0, b0)
    return normal_ci(mu, math.sqrt(var), confidence, bounds)


def pass_at_k_ci(
    R: Any,
    k: int,
    confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0),
    alpha0: float = 1.0,
    beta0: float = 1.0,
) -> tuple[float, float, float, float]:
    r"""Bayesian :math:`\mu`, :math:`\sigma` and credible interval for
    i.i.d. Pass@k, :math:`g(p) = 1 - (1 - p)^k`.

    .. math::

        \mathbb{E}[g(p_\alpha)] = 1 - \frac{B(\alpha_\alpha, \beta_\alpha + k)}
            {B(\alpha_\alpha, \beta_\alpha)}

    with :math:`\alpha_\alpha = \alpha_0 + c_\alpha`,
    :math:`\beta_\alpha = \beta_0 + N - c_\alpha`; the variance is taken in a
    cancellation-free ratio form (docs/kernels.md, K7), and
    :math:`\mu = \frac1M\sum_\alpha \mathbb{E}[g(p_\alpha)]`,
    :math:`\sigma = \frac1M\sqrt{\sum_\alpha \mathrm{Var}[g(p_\alpha)]}`.

    References: Chen, M., Tworek, J., Jun, H., et al. (2021). Evaluating
    Large Language Models Trained on Code. arXiv:2107.03374 (the Pass@k
    target). Hariri, M., Samandar, A., Hinczewski, M., & Chaudhary, V.
    (2026). Don't Pass@k: A Bayesian Framework for Large Language Model
    Evaluation. arXiv:2510.04265 (posterior summaries of sampled
    evaluations; the Beta-posterior interval is scorio 0.2.3's).

    Args:
        R: :math:`M \times N` binary matrix.
        k: Number of samples, :math:`1 \le k \le N`.
        confidence: Credibility level of the interval (default 0.95).
        bounds: ``(lo, hi)`` clipping bounds (default ``(0, 1)``).
        alpha0, beta0: Beta prior parameters (default 1).

    Returns:
        ``(mu, sigma, lo, hi)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> mu, sigma, lo, hi = pass_at_k_ci(R, 1)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.642857, 0.118451, 0.4107, 0.875)
        >>> mu, sigma, lo, hi = pass_at_k_ci(R, 2)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.839286, 0.097263, 0.6487, 1.0)
    """
    return finite_bank_ci(
        R, k, lambda k: _kscore.Credit.of("pass_at_k", k), confidence, bounds, alpha0, beta0
    )


def pass_hat_k_ci(
    R: Any,
    k: int,
    confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0),
    alpha0: float = 1.0,
    beta0: float = 1.0,
) -> tuple[float, float, float, float]:
    r"""Bayesian :math:`\mu`, :math:`\sigma` and credible interval for
    i.i.d. Pass^k, :math:`g(p) = p^k`.

    .. math::

        \mathbb{E}[g(p_\alpha)] = \frac{B(\alpha_\alpha + k, \beta_\alpha)}
            {B(\alpha_\alpha, \beta_\alpha)}

    aggregated as in :func:`pass_at_k_ci`. :func:`unanimous_at_k_ci` and
    :func:`~kscore.eval.g_pass_at_k_ci` are the same target.

    References: Yao, S., Shinn, N., Razavi, P., & Narasimhan, K. (2024).
    tau-bench: A Benchmark for Tool-Agent-User Interaction in Real-World
    Domains. arXiv:2406.12045 (the Pass^k target). Hariri et al. (2026),
    arXiv:2510.04265 (see :func:`pass_at_k_ci`).

    Args and returns as :func:`pass_at_k_ci`.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> mu, sigma, lo, hi = pass_hat_k_ci(R, 1)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.642857, 0.118451, 0.4107, 0.875)
        >>> mu, sigma, lo, hi = pass_hat_k_ci(R, 2)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.446429, 0.146167, 0.1599, 0.7329)
    """
    return finite_bank_ci(
        R, k, lambda k: _kscore.Credit.of("pass_hat_k", k), confidence, bounds, alpha0, beta0
    )


#: Unanimous@k's interval is the same function as :func:`pass_hat_k_ci`.
unanimous_at_k_ci = pass_hat_k_ci
