"""The normal-approximation credible interval of every ``*_ci`` function."""

from __future__ import annotations

from typing import Any

from . import _kscore


def z_value(confidence: Any) -> float:
    """``z = ndtri(0.5 + confidence/2)``; confidence must lie in (0, 1)."""
    if not (0.0 < confidence < 1.0):
        raise ValueError(f"confidence must be in (0,1); got {confidence}")
    return _kscore.ndtri(0.5 + 0.5 * confidence)


def normal_ci(
    mu: float, sigma: float, confidence: Any = 0.95, bounds: Any = None
) -> tuple[float, float, float, float]:
    """``(mu, sigma, mu - z sigma, mu + z sigma)``, both ends clamped into
    ``bounds`` with Python's min/max (so NaN bounds are ignored), as scorio."""
    z = z_value(confidence)
    lo, hi = mu - z * sigma, mu + z * sigma
    if bounds is not None:
        b_lo, b_hi = bounds
        if b_lo > b_hi:
            raise ValueError("bounds must satisfy bounds[0] <= bounds[1]")
        lo = min(max(lo, b_lo), b_hi)
        hi = min(max(hi, b_lo), b_hi)
    return float(mu), float(sigma), float(lo), float(hi)
