"""Bayesian credible intervals for G-Pass@k, G-Pass@k_tau, mG-Pass@k, Maj@k
and AUC@k: the posterior target is the metric's credit applied to ``k``
fresh i.i.d. Bernoulli(p) draws, p per question from its Beta posterior
(see :mod:`kscore.eval._pass_ci`)."""

from __future__ import annotations

from typing import Any

from .. import _kscore
from .._inputs import integral_scalar, tau_double, validate_tau
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
    the same target as :func:`~kscore.eval.pass_hat_k_ci`,
    :math:`g(p) = p^k` with
    :math:`p_\alpha \sim \mathrm{Beta}(\alpha_0 + c_\alpha, \beta_0 + N - c_\alpha)`:

    .. math::

        \mathbb{E}[g(p_\alpha)] = \frac{B(\alpha_\alpha + k, \beta_\alpha)}
            {B(\alpha_\alpha, \beta_\alpha)},\qquad
        \mu = \frac1M\sum_\alpha \mathbb{E}[g(p_\alpha)],\qquad
        \sigma = \frac1M\sqrt{\textstyle\sum_\alpha \mathrm{Var}[g(p_\alpha)]}

    References: Liu, J., Liu, H., Xiao, L., et al. (2024). Are Your LLMs
    Capable of Stable Reasoning? arXiv:2412.13147 (the G-Pass@k target).
    Hariri et al. (2026), arXiv:2510.04265 (posterior summaries, see
    :func:`~kscore.eval.pass_at_k_ci`).

    Returns:
        ``(mu, sigma, lo, hi)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> mu, sigma, lo, hi = g_pass_at_k_ci(R, 2)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.446429, 0.146167, 0.1599, 0.7329)
        >>> mu, sigma, lo, hi = g_pass_at_k_ci(R, 3)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.327381, 0.148224, 0.0369, 0.6179)
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
    draws succeed (:math:`j_0` by the float rule of
    :func:`~kscore.eval.g_pass_at_k_tau`):

    .. math::

        g(p) = \sum_{j=j_0}^{k} \binom{k}{j} p^j (1-p)^{k-j},\qquad
        \mathbb{E}[g(p_\alpha)] = \sum_{j=j_0}^{k}
            \mathrm{BB}(j; k, \alpha_\alpha, \beta_\alpha)

    with the Beta-binomial law BB of the posterior
    :math:`p_\alpha \sim \mathrm{Beta}(\alpha_0 + c_\alpha, \beta_0 + N - c_\alpha)`;
    the variance comes from the Bernstein self-product of the step credit
    (docs/kernels.md, K4-K7), aggregated as in
    :func:`~kscore.eval.pass_at_k_ci`. ``tau = 0`` is Pass@k, ``tau = 1`` is
    Pass^k.

    References: Liu, J., et al. (2024). Are Your LLMs Capable of Stable
    Reasoning? arXiv:2412.13147. Hariri et al. (2026), arXiv:2510.04265
    (posterior summaries).

    Returns:
        ``(mu, sigma, lo, hi)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> mu, sigma, lo, hi = g_pass_at_k_tau_ci(R, 2, 0.5)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.839286, 0.097263, 0.6487, 1.0)
        >>> mu, sigma, lo, hi = g_pass_at_k_tau_ci(R, 4, 0.5)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.809524, 0.132049, 0.5507, 1.0)
    """
    return finite_bank_ci(
        R, k, lambda k: _kscore.Credit.of("g_pass_at_k_tau", k, tau_double(tau, k)), confidence, bounds, alpha0, beta0,
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
    threshold weighting :math:`A_j = \frac{2}{k}\max(j - \lceil k/2 \rceil, 0)`
    of ``k`` i.i.d. draws:

    .. math::

        g(p) = \sum_{j=0}^{k} A_j \binom{k}{j} p^j (1-p)^{k-j},\qquad
        \mathbb{E}[g(p_\alpha)] = \sum_j A_j\,
            \mathrm{BB}(j; k, \alpha_\alpha, \beta_\alpha)

    aggregated as in :func:`~kscore.eval.pass_at_k_ci`. mG-Pass@1 is
    identically 0, so ``k = 1`` gives ``(0, 0, 0, 0)``.

    References: Liu, J., et al. (2024). Are Your LLMs Capable of Stable
    Reasoning? arXiv:2412.13147. Hariri et al. (2026), arXiv:2510.04265
    (posterior summaries).

    Returns:
        ``(mu, sigma, lo, hi)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> mu, sigma, lo, hi = mg_pass_at_k_ci(R, 3)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.218254, 0.098816, 0.0246, 0.4119)
        >>> mu, sigma, lo, hi = mg_pass_at_k_ci(R, 4)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.404762, 0.156326, 0.0984, 0.7112)
        >>> mg_pass_at_k_ci(R, 1)
        (0.0, 0.0, 0.0, 0.0)
    """
    return finite_bank_ci(R, k, lambda k: _kscore.Credit.of("mg_pass_at_k", k), confidence, bounds, alpha0, beta0)


def maj_at_k_ci(
    R: Any,
    k: int,
    confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0),
    alpha0: float = 1.0,
    beta0: float = 1.0,
) -> tuple[float, float, float, float]:
    r"""Bayesian posterior summary for :func:`~kscore.eval.maj_at_k`: a strict
    majority, at least :math:`\lfloor k/2 \rfloor + 1` of ``k`` i.i.d. draws
    correct:

    .. math::

        \mathbb{E}[g(p_\alpha)] = \sum_{j=\lfloor k/2 \rfloor + 1}^{k}
            \mathrm{BB}(j; k, \alpha_\alpha, \beta_\alpha)

    aggregated as in :func:`~kscore.eval.pass_at_k_ci`.

    References: Wang, X., et al. (2023). Self-Consistency Improves Chain of
    Thought Reasoning in Language Models. arXiv:2203.11171 (majority
    voting). Hariri et al. (2026), arXiv:2510.04265 (posterior summaries).

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
    return finite_bank_ci(R, k, lambda k: _kscore.Credit.of("maj_at_k", k), confidence, bounds, alpha0, beta0)


def auc_at_k_ci(
    R: Any,
    k: int,
    confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0),
    alpha0: float = 1.0,
    beta0: float = 1.0,
) -> tuple[float, float, float, float]:
    r"""Bayesian posterior summary for the latent AUC@k target, the
    trapezoid-weighted sum of i.i.d. Pass@1..Pass@k:

    .. math::

        g(p) = \sum_{j=1}^{k} c_j \bigl(1 - (1-p)^j\bigr),\qquad
        c_1 = c_k = \tfrac{1}{2(k-1)},\ c_j = \tfrac{1}{k-1}\ (1<j<k),

    evaluated as the credit vector
    :math:`A_s = 1 - \frac{(k-s)(2k-s-1)}{2k(s+1)(k-1)}` (:math:`A_0 = 0`)
    against the Beta-binomial posterior predictive (docs/kernels.md, K1, K4)
    and aggregated as in :func:`~kscore.eval.pass_at_k_ci`. AUC@1 is Pass@1,
    so ``k = 1`` returns :func:`~kscore.eval.pass_at_k_ci` with ``k = 1``.

    References: Hu, Z., et al. (2026). Rewarding the Rare: Uniqueness-Aware
    RL for Creative Problem Solving in LLMs. arXiv:2601.08763 (the AUC@k
    target). Hariri et al. (2026), arXiv:2510.04265 (posterior summaries).

    Returns:
        ``(mu, sigma, lo, hi)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> mu, sigma, lo, hi = auc_at_k_ci(R, 3)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.809524, 0.09506, 0.6232, 0.9958)
        >>> mu, sigma, lo, hi = auc_at_k_ci(R, 5)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.878788, 0.074401, 0.733, 1.0)
    """
    budget = integral_scalar(k, name="k")
    if budget == 1:
        return pass_at_k_ci(
            R, 1, confidence=confidence, bounds=bounds, alpha0=alpha0, beta0=beta0
        )
    return finite_bank_ci(R, budget, lambda k: _kscore.Credit.of("auc_at_k", k), confidence, bounds, alpha0, beta0)
