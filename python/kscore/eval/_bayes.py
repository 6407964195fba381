"""Bayes@N and Avg@N: Dirichlet(+1) posterior moments of categorical outcomes."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _kscore
from .._interval import normal_ci
from ._categorical import prepare_bank


def bayes(R: Any, w: Any = None, R0: Any = None) -> tuple[float, float]:
    r"""Performance evaluation using the Bayes@N framework.

    Each question :math:`\alpha` gets a Dirichlet posterior over the
    categories :math:`0..C` with counts from ``R``, optional prior outcomes
    ``R0`` and one pseudo-count per category:
    :math:`\nu_{\alpha k} = n_{\alpha k} + n^0_{\alpha k} + 1`, summing to
    :math:`T = 1 + C + D + N`. With rewards :math:`w`:

    .. math::

        \mu = w_0 + \frac{1}{M T} \sum_{\alpha} \sum_{j} \nu_{\alpha j}(w_j - w_0)

        \sigma = \sqrt{\frac{1}{M^2 (T+1)} \sum_\alpha \Big[\sum_j
            \tfrac{\nu_{\alpha j}}{T}(w_j - w_0)^2
            - \Big(\sum_j \tfrac{\nu_{\alpha j}}{T}(w_j - w_0)\Big)^2\Big]}

    Sums run in rescaled rewards, so huge rewards (e.g. ``[-1e308, 1e308]``)
    stay finite; a constant ``w`` gives ``(w[0], 0.0)``.

    Reference: Hariri, M., Samandar, A., Hinczewski, M., & Chaudhary, V.
    (2026). Don't Pass@k: A Bayesian Framework for Large Language Model
    Evaluation. ICLR 2026, arXiv:2510.04265.

    Args:
        R: :math:`M \times N` int matrix with entries in :math:`\{0..C\}`
            (1-D is one question).
        w: length :math:`C+1` reward vector; if omitted, ``R`` must be binary
            and ``w = [0, 1]``.
        R0: optional :math:`M \times D` prior outcomes (1-D is split into M
            equal rows).

    Returns:
        tuple[float, float]: :math:`(\mu, \sigma)`.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 2, 2, 1],
        ...               [1, 1, 0, 2, 2]])
        >>> w = np.array([0.0, 0.5, 1.0])
        >>> R0 = np.array([[0, 2],
        ...                [1, 2]])
        >>> mu, sigma = bayes(R, w, R0)
        >>> round(mu, 6), round(sigma, 6)
        (0.575, 0.084275)
        >>> mu2, sigma2 = bayes(R, w)
        >>> round(mu2, 6), round(sigma2, 6)
        (0.5625, 0.091998)
    """
    if type(R) is np.ndarray and type(w) is np.ndarray and (R0 is None or type(R0) is np.ndarray):
        # The common calls, in one Rust call (with R0: the validating path's
        # own counts and kernel, so the same bits); None sends anything
        # unusual to the validating path below (scorio's errors, in scorio's
        # order).
        fast = _kscore.dirichlet_of_matrix(R, w, False, R0)
        if fast is not None:
            return fast
    bank = prepare_bank(R, w, R0)
    return _kscore.bayes(bank.counts, bank.prior, bank.weights)


def bayes_ci(
    R: Any,
    w: Any = None,
    R0: Any = None,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = None,
) -> tuple[float, float, float, float]:
    r"""Bayes@N posterior mean, uncertainty, and credible interval.

    :math:`(\mu, \sigma)` as :func:`bayes`, then
    :math:`\mu \pm z_{(1+\gamma)/2}\,\sigma`, both ends clipped into
    ``bounds`` when given (no clipping by default).

    Reference: Hariri, M., Samandar, A., Hinczewski, M., & Chaudhary, V.
    (2026). Don't Pass@k: A Bayesian Framework for Large Language Model
    Evaluation. ICLR 2026, arXiv:2510.04265.

    Args:
        R: :math:`M \times N` int matrix with entries in :math:`\{0..C\}`.
        w: optional length :math:`C+1` reward vector (default ``[0, 1]``).
        R0: optional :math:`M \times D` prior outcomes.
        confidence: credibility level :math:`\gamma \in (0, 1)`.
        bounds: optional ``(lo, hi)`` clipping bounds.

    Returns:
        tuple[float, float, float, float]: ``(mu, sigma, lo, hi)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> mu, sigma, lo, hi = bayes_ci(R, bounds=(0.0, 1.0))
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.642857, 0.118451, 0.4107, 0.875)
    """
    if type(R) is np.ndarray and type(w) is np.ndarray and (R0 is None or type(R0) is np.ndarray):
        fast = _kscore.dirichlet_of_matrix(R, w, False, R0)  # bayes's one call, without its frame
        if fast is not None:
            return normal_ci(fast[0], fast[1], confidence, bounds)
    mu, sigma = bayes(R, w, R0)
    return normal_ci(mu, sigma, confidence, bounds)


def avg(R: Any, w: Any = None) -> tuple[float, float]:
    r"""Avg@N plus a Bayesian uncertainty on the same scale.

    :math:`a` is the observed (weighted) mean
    :math:`\frac{1}{MN}\sum_{\alpha,i} w_{R_{\alpha i}}`, and with the uniform
    prior (:math:`D = 0`, :math:`T = 1 + C + N`) Eq. 20 of the Bayes@N paper
    gives :math:`\sigma_a = \frac{T}{N}\,\sigma_{\mathrm{Bayes}}(R, w)`.

    Reference: Hariri et al. (2026), arXiv:2510.04265 (see :func:`bayes`).

    Args:
        R: :math:`M \times N` int matrix with entries in :math:`\{0..C\}`.
        w: optional length :math:`C+1` reward vector; if omitted, ``R`` must
            be binary.

    Returns:
        tuple[float, float]: :math:`(a, \sigma_a)`.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> a, sigma = avg(R)
        >>> round(a, 6), round(sigma, 6)
        (0.7, 0.165831)
        >>> R = np.array([[0, 1, 2, 2, 1],
        ...               [1, 1, 0, 2, 2]])
        >>> a, sigma = avg(R, np.array([0.0, 0.5, 1.0]))
        >>> round(a, 6), round(sigma, 6)
        (0.6, 0.147196)
    """
    if type(R) is np.ndarray and type(w) is np.ndarray:
        fast = _kscore.dirichlet_of_matrix(R, w, True)  # as in bayes
        if fast is not None:
            return fast
    bank = prepare_bank(R, w, binary_message="Entries of R must be integers in [0, 1].")
    return _kscore.avg(bank.counts, bank.weights)


def avg_ci(
    R: Any,
    w: Any = None,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = None,
) -> tuple[float, float, float, float]:
    r"""Avg@N with Bayesian :math:`\sigma` and a normal credible interval.

    :math:`\text{lo}, \text{hi} = a \pm z_{(1+\gamma)/2}\,\sigma_a`, clipped
    to ``bounds`` when given.

    Reference: Hariri et al. (2026), arXiv:2510.04265 (see :func:`bayes`).

    Args:
        R: :math:`M \times N` int matrix with entries in :math:`\{0..C\}`.
        w: optional length :math:`C+1` reward vector (default ``[0, 1]``).
        confidence: credibility level :math:`\gamma \in (0, 1)`.
        bounds: optional ``(lo, hi)`` clipping bounds.

    Returns:
        tuple[float, float, float, float]: ``(a, sigma_a, lo, hi)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> a, sigma, lo, hi = avg_ci(R, bounds=(0.0, 1.0))
        >>> round(a, 4), round(sigma, 4), round(lo, 4), round(hi, 4)
        (0.7, 0.1658, 0.375, 1.0)
    """
    a, sigma = avg(R, w)
    return normal_ci(a, sigma, confidence, bounds)
