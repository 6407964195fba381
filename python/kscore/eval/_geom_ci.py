r"""Bayesian credible intervals for the latent threshold spectrum and the
geometric blends (Geom@k, dataset-level Geom@k, GeoSpectrum). The budget
``k`` is latent: any ``k >= 1``, including ``k > N``.

The blends :math:`x^a y^b` use the first-order delta method on the joint
posterior moments. Unlike scorio 0.2.3, a subnormal posterior mean (e.g.
Unanimous@k at large k) does not raise ``OverflowError`` while squaring the
gradient: the finite variance is returned.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _kscore
from .._inputs import (
    binary_bank,
    mg_spectrum_weights,
    resolve_lambda,
    spectrum_weights,
    validate_latent_k,
)
from .._interval import normal_ci
from ._blend import power as _power
from ._pass_ci import beta_prior


def _allocation_probe(size: int) -> None:
    """For absurd latent k, fail where scorio's first O(k) array does
    (numpy's MemoryError / "Maximum allowed dimension exceeded")."""
    if size > 2**31:
        np.zeros(size, dtype=np.float64)


def threshold_spectrum_at_k_ci(
    R: Any,
    k: int,
    weights: Any,
    confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0),
    alpha0: float = 1.0,
    beta0: float = 1.0,
) -> tuple[float, float, float, float]:
    r"""Posterior summary for the latent spectrum :math:`S_{w,k}(p)`:

    .. math::

        g(p) = \sum_{j=1}^{k} A_j \binom{k}{j} p^j (1-p)^{k-j},
        \qquad A_j = \sum_{r \le j} w_r,

    with :math:`p_\alpha \sim \mathrm{Beta}(\alpha_0 + c_\alpha, \beta_0 + N - c_\alpha)`,
    :math:`\mu = \frac1M\sum_\alpha \mathbb{E}[g(p_\alpha)]` and
    :math:`\sigma = \frac1M\sqrt{\sum_\alpha \mathrm{Var}[g(p_\alpha)]}`
    (docs/kernels.md, K4-K8). Unlike :func:`~kscore.eval.threshold_spectrum_at_k`,
    ``k`` may exceed N.

    References: *Geom@k: Stable Evaluation and Fast Rank Recovery for LLM
    Reasoning*, the paper scorio 0.2.3 cites for the spectrum family (no
    authors or arXiv id given there). Hariri et al. (2026), arXiv:2510.04265
    (posterior summaries).

    Returns:
        ``(mu, sigma, lo, hi)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> mu, sigma, lo, hi = threshold_spectrum_at_k_ci(R, 3, [0.0, 0.5, 0.5])
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.505952, 0.146387, 0.219, 0.7929)
        >>> mu, sigma, lo, hi = threshold_spectrum_at_k_ci(R, 8, [0.125] * 8)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.642857, 0.118451, 0.4107, 0.875)
    """
    k = validate_latent_k(k)
    w = spectrum_weights(weights, k)
    bank = binary_bank(R)
    a0, b0 = beta_prior(alpha0, beta0)
    spectrum = _kscore.Credit.of("threshold_spectrum_at_k", k, weights=w)
    mu, var = _kscore.posterior_moments(bank, spectrum, a0, b0)
    return normal_ci(mu, math.sqrt(var), confidence, bounds)


def _pass_unanimous(
    R: Any, k: Any, alpha0: Any, beta0: Any
) -> tuple[_kscore.BinaryBank, int, float, float]:
    k = validate_latent_k(k)
    _allocation_probe(k)
    bank = binary_bank(R)
    a0, b0 = beta_prior(alpha0, beta0)
    return bank, k, a0, b0


def geom_at_k_ci(
    R: Any,
    k: int,
    pass_power: float = 0.5,
    unanimous_power: float = 0.5,
    confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0),
    alpha0: float = 1.0,
    beta0: float = 1.0,
) -> tuple[float, float, float, float]:
    r"""Approximate posterior summary for questionwise Geom@k: the delta
    method through :math:`g(x, y) = x^a y^b` on each question's latent
    Pass@k and Unanimous@k, then averaged over questions:

    .. math::

        \mu = \frac1M\sum_\alpha \bar x_\alpha^a \bar y_\alpha^b,\qquad
        \sigma^2 = \frac1{M^2}\sum_\alpha \bigl(g_x^2 v_x + g_y^2 v_y
            + 2 g_x g_y c_{xy}\bigr)_\alpha

    with :math:`\bar x, \bar y` the posterior means, :math:`v, c` the
    posterior (co)variances and :math:`g_x = a \bar x^{a-1}\bar y^b`,
    :math:`g_y = b \bar x^a \bar y^{b-1}` (docs/kernels.md, K7, K9). ``k``
    may exceed N.

    References: *Geom@k: Stable Evaluation and Fast Rank Recovery for LLM
    Reasoning*, the paper scorio 0.2.3 cites for these blends (no authors or
    arXiv id given there). Hariri et al. (2026), arXiv:2510.04265
    (posterior summaries).

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> mu, sigma, lo, hi = geom_at_k_ci(R, 2)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.610666, 0.133107, 0.3498, 0.8716)
    """
    bank, k, a0, b0 = _pass_unanimous(R, k, alpha0, beta0)
    a, a_text = _power(pass_power)
    b, b_text = _power(unanimous_power)
    mu, var = _kscore.geom_posterior(bank, k, a, b, a_text, b_text, a0, b0)
    return normal_ci(mu, math.sqrt(var), confidence, bounds)


def geom_ds_at_k_ci(
    R: Any,
    k: int,
    pass_power: float = 0.5,
    unanimous_power: float = 0.5,
    confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0),
    alpha0: float = 1.0,
    beta0: float = 1.0,
) -> tuple[float, float, float, float]:
    r"""Approximate posterior summary for dataset-level Geom@k: the delta
    method through :math:`g(x, y) = x^a y^b` on the latent dataset Pass@k and
    Unanimous@k (with their posterior covariance):

    .. math::

        \mu = \bar x^a \bar y^b,\qquad
        \sigma^2 = g_x^2 v_x + g_y^2 v_y + 2 g_x g_y c_{xy},\qquad
        g_x = a \bar x^{a-1}\bar y^b,\ g_y = b \bar x^a \bar y^{b-1},

    where :math:`\bar x, \bar y, v, c` are the dataset-level posterior
    moments (docs/kernels.md, K9). ``k`` may exceed N.

    References: *Geom@k: Stable Evaluation and Fast Rank Recovery for LLM
    Reasoning*, the paper scorio 0.2.3 cites for the dataset-level blend (no
    authors or arXiv id given there). Hariri et al. (2026), arXiv:2510.04265
    (posterior summaries).

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> mu, sigma, lo, hi = geom_ds_at_k_ci(R, 2)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.612112, 0.132755, 0.3519, 0.8723)
    """
    bank, k, a0, b0 = _pass_unanimous(R, k, alpha0, beta0)
    a, a_text = _power(pass_power)
    b, b_text = _power(unanimous_power)
    mx, vx, my, vy, cov = _kscore.joint_posterior_moments(
        bank, _kscore.Credit.of("pass_at_k", k), _kscore.Credit.of("pass_hat_k", k), a0, b0
    )
    mu, var = _kscore.delta_blend(mx, vx, my, vy, cov, a, b, a_text, b_text)
    return normal_ci(mu, math.sqrt(var), confidence, bounds)


def geo_spectrum_at_k_ci(
    R: Any,
    k: int,
    lam: float = 0.5,
    weights: Any = None,
    lambda_: float | None = None,
    confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0),
    alpha0: float = 1.0,
    beta0: float = 1.0,
) -> tuple[float, float, float, float]:
    r"""Approximate posterior summary for latent
    :math:`\mathrm{GeoSpectrum}_{\lambda,w}@k = x^\lambda y^{1-\lambda}`,
    x the latent Pass@k and y the latent spectrum :math:`S_{w,k}`, by the
    delta method. ``weights=None`` selects the upper-half mG weights
    (GeoSpectrum*@k); with ``lam == 1`` the weights are ignored. ``lambda_``
    is an alias of ``lam``. With posterior means :math:`\bar x, \bar y`,
    variances :math:`v_x, v_y` and covariance :math:`c_{xy}`:

    .. math::

        \mu = \bar x^\lambda \bar y^{1-\lambda},\qquad
        \sigma^2 = g_x^2 v_x + g_y^2 v_y + 2 g_x g_y c_{xy},\qquad
        g_x = \lambda \frac{\mu}{\bar x},\ g_y = (1-\lambda)\frac{\mu}{\bar y}

    (docs/kernels.md, K9); ``lam`` 0 or 1 gives the spectrum's or Pass@k's
    own moments. ``k`` may exceed N.

    References: *Geom@k: Stable Evaluation and Fast Rank Recovery for LLM
    Reasoning*, the paper scorio 0.2.3 cites for GeoSpectrum (no authors or
    arXiv id given there). Hariri et al. (2026), arXiv:2510.04265
    (posterior summaries).

    Returns:
        ``(mu, sigma, lo, hi)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> mu, sigma, lo, hi = geo_spectrum_at_k_ci(R, 3)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.447288, 0.114255, 0.2234, 0.6712)
        >>> mu, sigma, lo, hi = geo_spectrum_at_k_ci(R, 3, lam=1.0)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.916667, 0.07321, 0.7732, 1.0)
    """
    lam = resolve_lambda(lam, lambda_)
    k = validate_latent_k(k)
    bank = binary_bank(R)
    _allocation_probe(k + 1)
    pass_credit = _kscore.Credit.of("pass_at_k", k)
    if lam == 1.0:
        a0, b0 = beta_prior(alpha0, beta0)
        mu, var = _kscore.posterior_moments(bank, pass_credit, a0, b0)
    else:
        w = mg_spectrum_weights(k) if weights is None else spectrum_weights(weights, k)
        spectrum = _kscore.Credit.of("threshold_spectrum_at_k", k, weights=w)
        a0, b0 = beta_prior(alpha0, beta0)
        if lam == 0.0:
            mu, var = _kscore.posterior_moments(bank, spectrum, a0, b0)
        else:
            mx, vx, my, vy, cov = _kscore.joint_posterior_moments(
                bank, pass_credit, spectrum, a0, b0
            )
            b = 1.0 - lam
            mu, var = _kscore.delta_blend(mx, vx, my, vy, cov, lam, b, f"{lam}", f"{b}")
    return normal_ci(mu, math.sqrt(var), confidence, bounds)


def geo_spectrum_star_at_k_ci(
    R: Any,
    k: int,
    confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0),
    alpha0: float = 1.0,
    beta0: float = 1.0,
) -> tuple[float, float, float, float]:
    r"""Approximate posterior summary for latent GeoSpectrum*@k:
    :func:`geo_spectrum_at_k_ci` with its default upper-half mG weights,
    i.e. the delta method through
    :math:`\sqrt{x\,y}` with :math:`x` the latent Pass@k and :math:`y` the
    latent spectrum with weights :math:`w_r = \frac{2}{k}\,
    \mathbf{1}\{r \ge \lceil k/2 \rceil + 1\}` (mG-Pass@k up to rounding).
    It is 0 at k = 1; ``k`` may exceed N.

    References: *Geom@k: Stable Evaluation and Fast Rank Recovery for LLM
    Reasoning*, the paper scorio 0.2.3 cites for GeoSpectrum (no authors or
    arXiv id given there); mG-Pass@k from Liu et al. (2024),
    arXiv:2412.13147. Hariri et al. (2026), arXiv:2510.04265
    (posterior summaries).

    Returns:
        ``(mu, sigma, lo, hi)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> mu, sigma, lo, hi = geo_spectrum_star_at_k_ci(R, 3)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.447288, 0.114255, 0.2234, 0.6712)
        >>> mu, sigma, lo, hi = geo_spectrum_star_at_k_ci(R, 8)
        >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
        (0.610391, 0.137055, 0.3418, 0.879)
    """
    return geo_spectrum_at_k_ci(
        R, k, confidence=confidence, bounds=bounds, alpha0=alpha0, beta0=beta0
    )
