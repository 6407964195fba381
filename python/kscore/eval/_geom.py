"""Geometric blends of Pass@k with Unanimous@k or a threshold spectrum, and
the threshold spectrum itself, on the observed finite bank."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _kscore
from .._inputs import (
    binary_bank,
    mg_spectrum_weights,
    resolve_lambda,
    spectrum_weights,
    validate_finite_k,
)
from ._blend import blend_args, real_powers, weighted_geometric_mean, weighted_geometric_means


def threshold_spectrum_at_k(R: Any, k: int, weights: Any) -> float:
    r"""Finite-bank threshold spectrum :math:`S_{w,k}(R)`.

    With :math:`T_{r,k}` the probability of at least r successes among k
    trials drawn without replacement and weights :math:`w_r \ge 0`,
    :math:`\sum_r w_r \le 1`:

    .. math::

        S_{w,k}(R) = \sum_{r=1}^{k} w_r\,T_{r,k}(R)
                   = \frac{1}{M}\sum_\alpha \mathbb{E}[A_X],\quad A_j = \sum_{r\le j} w_r

    Reference: *Geom@k: Stable Evaluation and Fast Rank Recovery for LLM
    Reasoning*, the paper scorio 0.2.3 cites for the spectrum family (no
    authors or arXiv id given there); :math:`T_{r,k}` is G-Pass@k at
    :math:`\tau = r/k` (Liu et al., 2024, arXiv:2412.13147).

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(threshold_spectrum_at_k(R, 2, [0.5, 0.5]), 6)
        0.7
    """
    bank = binary_bank(R)
    k = validate_finite_k(bank.n, k)
    w = spectrum_weights(weights, k)
    return bank.mean(_kscore.Credit.of("threshold_spectrum_at_k", k, weights=w))


def _pass_and_unanimous(R: Any, k: object) -> tuple[_kscore.BinaryBank, _kscore.Credit, _kscore.Credit]:
    """The bank and the two credits every Geom@k blend mixes (k checked)."""
    bank = binary_bank(R)
    budget = validate_finite_k(bank.n, k)
    return bank, _kscore.Credit.of("pass_at_k", budget), _kscore.Credit.of("pass_hat_k", budget)


def geom_ds_at_k(
    R: Any, k: int, pass_power: float = 0.5, unanimous_power: float = 0.5
) -> float:
    r"""Dataset-level geometric blend of Pass@k and Unanimous@k:

    .. math::

        G_{\mathrm{ds},k}(R; a, b) = \mathrm{Pass@}k(R)^a\,\mathrm{Unanimous@}k(R)^b

    The default is the geometric mean (a = b = 1/2). For the blend taken per
    question before averaging, see :func:`geom_at_k`.

    Reference: *Geom@k: Stable Evaluation and Fast Rank Recovery for LLM
    Reasoning*, the paper scorio 0.2.3 cites for these blends (scorio gives
    no authors or arXiv id); the components are Pass@k (Chen et al., 2021,
    arXiv:2107.03374) and Pass^k (Yao et al., 2024, arXiv:2406.12045).

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(geom_ds_at_k(R, 2), 6)
        0.653835
    """
    bank, pass_credit, unanimous_credit = _pass_and_unanimous(R, k)
    if real_powers(pass_power, unanimous_power):
        return bank.blend(pass_credit, unanimous_credit, *blend_args(pass_power, unanimous_power), False)
    p, u = bank.mean(pass_credit), bank.mean(unanimous_credit)
    return weighted_geometric_mean(p, u, pass_power, unanimous_power)


def geom_at_k(
    R: Any, k: int, pass_power: float = 0.5, unanimous_power: float = 0.5
) -> float:
    r"""Questionwise Geom@k: blend per question, then average.

    .. math::

        \mathrm{Geom@}k = \frac{1}{M}\sum_\alpha
            \left(1 - \frac{\binom{N-\nu_\alpha}{k}}{\binom{N}{k}}\right)^{a}
            \left(\frac{\binom{\nu_\alpha}{k}}{\binom{N}{k}}\right)^{b}

    scorio's questionwise variant of the dataset-level blend
    :func:`geom_ds_at_k`; the default is a = b = 1/2.

    Reference: *Geom@k: Stable Evaluation and Fast Rank Recovery for LLM
    Reasoning*, the paper scorio 0.2.3 cites for these blends (scorio gives
    no authors or arXiv id); the components are Pass@k (Chen et al., 2021,
    arXiv:2107.03374) and Pass^k (Yao et al., 2024, arXiv:2406.12045).

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(geom_at_k(R, 2), 6)
        0.647106
    """
    bank, pass_credit, unanimous_credit = _pass_and_unanimous(R, k)
    if real_powers(pass_power, unanimous_power):
        return bank.blend(pass_credit, unanimous_credit, *blend_args(pass_power, unanimous_power), True)
    p, u = bank.state_values(pass_credit), bank.state_values(unanimous_credit)
    vals = weighted_geometric_means(p, u, pass_power, unanimous_power)
    return float(np.dot(bank.freqs().astype(np.float64), vals) / bank.m)


def geo_spectrum_at_k(
    R: Any,
    k: int,
    lam: float = 0.5,
    weights: Any = None,
    lambda_: float | None = None,
) -> float:
    r""":math:`\mathrm{GeoSpectrum}_{\lambda,w}@k` on the observed finite bank:

    .. math::

        \mathrm{GeoSpectrum}_{\lambda,w}@k(R) = \mathrm{Pass@}k(R)^{\lambda}\,
            S_{w,k}(R)^{1-\lambda}

    ``weights=None`` selects the upper-half mG weights (``2/k`` at positions
    :math:`r \ge \lceil k/2\rceil + 1`), giving GeoSpectrum*@k. ``lambda_`` is
    an alias of ``lam``. With ``lam == 1`` the weights are ignored.
    :math:`S_{w,k}` is :func:`threshold_spectrum_at_k`.

    Reference: *Geom@k: Stable Evaluation and Fast Rank Recovery for LLM
    Reasoning*, the paper scorio 0.2.3 cites for GeoSpectrum (no authors or
    arXiv id given there); the spectrum's thresholds are G-Pass@k at
    :math:`\tau = r/k` (Liu et al., 2024, arXiv:2412.13147).

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(geo_spectrum_at_k(R, 3), 6)
        0.408248
        >>> geo_spectrum_at_k(R, 3, lam=1.0)
        1.0
    """
    lam = resolve_lambda(lam, lambda_)
    bank = binary_bank(R)
    k = validate_finite_k(bank.n, k)
    pass_credit = _kscore.Credit.of("pass_at_k", k)
    if lam == 1.0:
        return bank.mean(pass_credit)
    w = mg_spectrum_weights(k) if weights is None else spectrum_weights(weights, k)
    spectrum_credit = _kscore.Credit.of("threshold_spectrum_at_k", k, weights=w)
    if lam == 0.0:
        return bank.mean(spectrum_credit)
    return bank.blend(pass_credit, spectrum_credit, *blend_args(lam, 1.0 - lam), False)


def geo_spectrum_star_at_k(R: Any, k: int) -> float:
    r"""GeoSpectrum*@k: :math:`\sqrt{\mathrm{Pass@}k \cdot \mathrm{mG\text{-}Pass@}k}`,
    i.e. :func:`geo_spectrum_at_k` with its defaults. It is 0 at k = 1.

    Reference: *Geom@k: Stable Evaluation and Fast Rank Recovery for LLM
    Reasoning*, the paper scorio 0.2.3 cites for GeoSpectrum (no authors or
    arXiv id given there); mG-Pass@k is from Liu et al. (2024),
    arXiv:2412.13147.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(geo_spectrum_star_at_k(R, 3), 6)
        0.408248
    """
    return geo_spectrum_at_k(R, k)
