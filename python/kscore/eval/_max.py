"""Max@k: the expected best reward of k samples, on the observed bank and
under the Dirichlet(+1) posterior."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _kscore
from .._inputs import validate_finite_k, validate_latent_k
from .._interval import normal_ci
from ._bayes import bayes_ci
from ._categorical import prepare_bank

_U64_MAX = 2**64 - 1


def max_at_k(R: Any, k: int, w: Any = None) -> float:
    r"""Max@k: expected best reward among k sampled traces.

    With rewards sorted per question, :math:`g_{\alpha 1} \le \dots \le
    g_{\alpha N}`, the unbiased finite-sample estimator is

    .. math::

        \mathrm{Max@k}_\alpha = \frac{1}{\binom{N}{k}}
            \sum_{i=k}^{N} \binom{i-1}{k-1}\, g_{\alpha i},

    averaged over questions. It is evaluated in the level form
    :math:`r_1 + \sum_{l<L} (r_{l+1} - r_l)\,[1 - \binom{F_l}{k}/\binom{N}{k}]`
    with :math:`F_l` the number of trials rewarded at most :math:`r_l`. With
    ``w = [0, 1]`` it is Pass@k.

    References: Bagirov, F., et al. (2025). The Best of N Worlds: Aligning
    Reinforcement Learning with Best-of-N Sampling via max@k Optimization.
    arXiv:2510.23393. Walder, C., & Karkhanis, D. (2025). Pass@K Policy
    Optimization. arXiv:2505.15201.

    Args:
        R: :math:`M \times N` categorical outcomes in :math:`\{0..C\}`.
        k: number of selected samples, :math:`1 \le k \le N`.
        w: optional length :math:`C+1` reward vector (default ``[0, 1]``,
            which needs a binary ``R``).

    Returns:
        float: the average Max@k.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(max_at_k(R, 2), 6)
        0.95
        >>> R = np.array([[0, 1, 2, 2, 1],
        ...               [1, 1, 0, 2, 2]])
        >>> round(max_at_k(R, 2, w=np.array([0.0, 0.5, 1.0])), 6)
        0.85
    """
    if type(R) is np.ndarray and type(w) is np.ndarray and type(k) is int:
        # The common call, in one pass; None sends anything unusual to the
        # validating path below (scorio's errors, in scorio's order).
        fast = _kscore.max_at_k_of_matrix(R, w, k)
        if fast is not None:
            return fast
    bank = prepare_bank(R, w)
    k = validate_finite_k(bank.counts.trials, k)
    if k == 1:
        return _kscore.observed_mean(bank.counts, bank.weights)
    return _kscore.max_at_k(bank.counts, bank.weights, k)


def max_at_k_ci(
    R: Any,
    k: int,
    w: Any = None,
    R0: Any = None,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = None,
) -> tuple[float, float, float, float]:
    r"""Bayesian posterior summary for :func:`max_at_k` (latent, any k >= 1).

    Under the grouped Dirichlet(+1) posterior of :func:`bayes`, let
    :math:`r_1 < \dots < r_L` be the distinct rewards and
    :math:`A_{\alpha l}` the posterior probability of a reward at most
    :math:`r_l`. The target for k fresh draws is

    .. math::

        g_\alpha = r_L - \sum_{l=1}^{L-1} (r_{l+1} - r_l)\, A_{\alpha l}^k,

    whose mean and variance are closed-form (Beta moments of the cumulative
    masses, covariances by Dirichlet neutrality). ``mu`` is the mean over
    questions and ``sigma`` treats questions as independent. The interval is
    :math:`\mu \pm z\sigma`, clipped to ``bounds``; for k >= 2 an omitted
    ``bounds`` means ``(min(w), max(w))``. k = 1 is exactly :func:`bayes_ci`
    (which, as in scorio, does not clip when ``bounds`` is None).

    References: Bagirov, F., et al. (2025). The Best of N Worlds: Aligning
    Reinforcement Learning with Best-of-N Sampling via max@k Optimization.
    arXiv:2510.23393 (the Max@k target). Hariri et al. (2026),
    arXiv:2510.04265 (the Dirichlet posterior of :func:`bayes`); this
    uncertainty model is scorio 0.2.3's extension of both.

    Args:
        R: :math:`M \times N` categorical outcomes in :math:`\{0..C\}`.
        k: number of fresh draws, :math:`k \ge 1` (may exceed N).
        w: optional length :math:`C+1` reward vector (default ``[0, 1]``).
        R0: optional :math:`M \times D` prior outcomes.
        confidence: credibility level in (0, 1).
        bounds: optional ``(lo, hi)`` clipping bounds.

    Returns:
        tuple[float, float, float, float]: ``(mu, sigma, lo, hi)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> mu, sigma, lo, hi = max_at_k_ci(R, 2)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.839286, 0.097263, 0.6487, 1.0)
    """
    k = validate_latent_k(k)
    if k == 1:
        return bayes_ci(R, w=w, R0=R0, confidence=confidence, bounds=bounds)
    if R0 is None and type(R) is np.ndarray and type(w) is np.ndarray:
        # The common call, in one pass (as in max_at_k).
        fast = _kscore.max_at_k_posterior_of_matrix(R, w, k)
        if fast is not None:
            rewards = w.tolist()
            return normal_ci(*fast, confidence, bounds if bounds is not None else
                             (float(min(rewards)), float(max(rewards))))
    bank = prepare_bank(R, w, R0)
    if k > _U64_MAX:  # the core takes a u64 and refuses k >= 2**63 with this message
        raise ValueError(f"k is too large for the posterior moments; got k={k}")
    mu, sigma = _kscore.max_at_k_posterior(bank.counts, bank.prior, bank.weights, k)
    if bounds is None:
        rewards = bank.weights.tolist()
        bounds = (float(min(rewards)), float(max(rewards)))
    return normal_ci(mu, sigma, confidence, bounds)
