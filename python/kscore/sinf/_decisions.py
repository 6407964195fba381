r"""The five decisions of scorio.sinf 0.2.3, with its argument handling
(Python ``float`` conversions, the order and wording of its checks, Python's
``min``/``max`` where scorio uses them) so that edge cases (NaN, infinite
sigmas, equal means) come out as scorio's do.

The normal CDF is Cephes' ``ndtr`` (scipy's) written over ``math.erf`` and
``math.erfc``: within an ulp or two of scipy's (the C library's erf against
Cephes'); the quantile is the Rust core's ``ndtri``, scipy's bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from .. import _kscore

_SQRTH = math.sqrt(0.5)


def _ndtr(x: float) -> float:
    """Standard normal CDF, Cephes' ``ndtr`` (as ``scipy.stats.norm.cdf``)."""
    if math.isnan(x):
        return math.nan
    t = x * _SQRTH
    z = abs(t)
    if z < _SQRTH:
        return 0.5 + 0.5 * math.erf(t)
    y = 0.5 * math.erfc(z)
    return 1.0 - y if t > 0 else y


def _quantile(confidence: Any) -> float:
    """``norm.ppf(0.5 + confidence / 2)`` (NaN outside [0, 1], as scipy)."""
    return float(_kscore.ndtri(float(0.5 + confidence / 2.0)))


def ranking_confidence(mu_a: float, sigma_a: float, mu_b: float, sigma_b: float) -> tuple[float, float]:
    r"""Confidence that two candidates are ordered, under a normal
    approximation of their difference.

    .. math::

        z = \frac{|\mu_a - \mu_b|}{\sqrt{\sigma_a^2 + \sigma_b^2}}, \qquad
        \rho = \Phi(z)

    Args:
        mu_a: posterior mean of candidate a.
        sigma_a: posterior standard deviation of a.
        mu_b: posterior mean of candidate b.
        sigma_b: posterior standard deviation of b.

    Returns:
        ``(rho, z)``; with both sigmas zero, ``(0.5, inf)`` for equal means
        and ``(1.0, inf)`` otherwise.

    Examples:
        >>> ranking_confidence(0.5, 0.0, 0.5, 0.0)
        (0.5, inf)
    """
    denom = math.sqrt(float(sigma_a) ** 2 + float(sigma_b) ** 2)
    if denom == 0.0:
        if float(mu_a) == float(mu_b):
            return 0.5, float("inf")
        return 1.0, float("inf")
    z = abs(float(mu_a) - float(mu_b)) / denom
    return _ndtr(z), float(z)


def ci_from_mu_sigma(
    mu: float,
    sigma: float,
    confidence: float = 0.95,
    clip: tuple[float, float] | None = None,
) -> tuple[float, float]:
    """A central normal interval ``mu -/+ z sigma``, ``z = Phi^-1(0.5 +
    confidence / 2)``, optionally clipped to ``clip = (lo, hi)``.

    Args:
        mu: posterior mean.
        sigma: posterior standard deviation, >= 0.
        confidence: level in (0, 1).
        clip: bounds applied to the interval.

    Returns:
        ``(lo, hi)``.

    Examples:
        >>> lo, hi = ci_from_mu_sigma(0.5, 0.1, clip=(0.0, 0.6))
        >>> round(lo, 4), hi
        (0.304, 0.6)
    """
    if not (0.0 < confidence < 1.0):
        raise ValueError("confidence must be in (0, 1).")
    if sigma < 0:
        raise ValueError("sigma must be >= 0.")
    z = _quantile(confidence)
    lo = mu - z * sigma
    hi = mu + z * sigma
    if clip is not None:
        lo = max(clip[0], lo)
        hi = min(clip[1], hi)
    return float(lo), float(hi)


def should_stop(
    sigma: float,
    confidence: float = 0.95,
    max_ci_width: float | None = None,
    max_half_width: float | None = None,
) -> bool:
    """Whether a metric's normal interval is narrow enough to stop sampling:
    half-width ``z sigma`` at most ``max_half_width``, or full width at most
    ``max_ci_width`` (exactly one of the two).

    Args:
        sigma: posterior standard deviation.
        confidence: interval level.
        max_ci_width: the largest full width.
        max_half_width: the largest half-width.

    Returns:
        True when the width target is met.

    Examples:
        >>> should_stop(0.01, confidence=0.95, max_half_width=0.02)
        True
    """
    if (max_ci_width is None) == (max_half_width is None):
        raise ValueError("Provide exactly one of max_ci_width or max_half_width.")
    half = _quantile(confidence) * float(sigma)
    if max_half_width is not None:
        return half <= float(max_half_width)
    assert max_ci_width is not None
    return 2.0 * half <= float(max_ci_width)


def _vectors(mus: Any, sigmas: Any) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    m = np.asarray(mus, dtype=float)
    s = np.asarray(sigmas, dtype=float)
    if m.shape != s.shape or m.ndim != 1:
        raise ValueError("mus_in_id_order and sigmas_in_id_order must be 1D and same shape.")
    return m, s


def should_stop_top1(
    mus_in_id_order: Sequence[float],
    sigmas_in_id_order: Sequence[float],
    confidence: float = 0.95,
    method: Literal["ci_overlap", "zscore"] = "ci_overlap",
) -> dict[str, Any]:
    """Whether the model with the highest mean is resolved from every other.

    ``"ci_overlap"``: the leader's lower bound lies above every other
    model's upper bound; ``"zscore"``: the leader's ranking confidence
    against every other model is at least ``confidence``.

    Args:
        mus_in_id_order: means, in model order.
        sigmas_in_id_order: standard deviations, in the same order.
        confidence: level in (0, 1).
        method: ``"ci_overlap"`` or ``"zscore"``.

    Returns:
        ``{"stop": bool, "leader": int, "ambiguous": [int, ...]}``.

    Examples:
        >>> should_stop_top1([0.9, 0.5, 0.4], [0.01, 0.01, 0.01])
        {'stop': True, 'leader': 0, 'ambiguous': []}
    """
    mus, sigmas = _vectors(mus_in_id_order, sigmas_in_id_order)
    if len(mus) == 0:
        raise ValueError("Empty inputs.")
    leader = int(np.argmax(mus))
    others = np.arange(len(mus)) != leader
    if method == "ci_overlap":
        z = _quantile(confidence)
        lo_leader = mus[leader] - z * sigmas[leader]
        unresolved = (lo_leader <= mus + z * sigmas) & others
        ambiguous = np.flatnonzero(unresolved).tolist()
        return {"stop": len(ambiguous) == 0, "leader": leader, "ambiguous": ambiguous}
    if method == "zscore":
        ambiguous = [
            j
            for j in np.flatnonzero(others).tolist()
            if ranking_confidence(mus[leader], sigmas[leader], mus[j], sigmas[j])[0] < confidence
        ]
        return {"stop": len(ambiguous) == 0, "leader": leader, "ambiguous": ambiguous}
    raise ValueError("method must be 'ci_overlap' or 'zscore'.")


def suggest_next_allocation(
    mus_in_id_order: Sequence[float],
    sigmas_in_id_order: Sequence[float],
    confidence: float = 0.95,
    method: Literal["ci_overlap", "zscore"] = "ci_overlap",
) -> tuple[int, int]:
    """The pair to sample next: the leader (highest mean) and its most
    ambiguous competitor (smallest interval separation for
    ``"ci_overlap"``, smallest z for ``"zscore"``; the first on ties).

    Args:
        mus_in_id_order: means, in model order.
        sigmas_in_id_order: standard deviations, in the same order.
        confidence: level in (0, 1).
        method: ``"ci_overlap"`` or ``"zscore"``.

    Returns:
        ``(leader, competitor)``.

    Examples:
        >>> suggest_next_allocation([0.9, 0.85, 0.4], [0.02, 0.02, 0.02])
        (0, 1)
    """
    mus, sigmas = _vectors(mus_in_id_order, sigmas_in_id_order)
    if len(mus) < 2:
        raise ValueError("Need at least two methods to allocate.")
    leader = int(np.argmax(mus))
    candidates = [j for j in range(len(mus)) if j != leader]
    if method == "ci_overlap":
        z = _quantile(confidence)
        lo_leader = mus[leader] - z * sigmas[leader]
        separation = (lo_leader - (mus + z * sigmas)).tolist()
        return leader, int(min(candidates, key=separation.__getitem__))
    if method == "zscore":
        zs = [ranking_confidence(mus[leader], sigmas[leader], mus[j], sigmas[j])[1] for j in range(len(mus))]
        return leader, int(min(candidates, key=zs.__getitem__))
    raise ValueError("method must be 'ci_overlap' or 'zscore'.")
