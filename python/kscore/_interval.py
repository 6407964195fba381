"""The normal-approximation credible interval of every ``*_ci`` function."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _kscore


def z_value(confidence: Any) -> float:
    """``z = ndtri(0.5 + confidence/2)``; confidence must lie in (0, 1).

    ``p`` is computed with numpy's promotion, as scorio does; a float32 or
    float16 ``p`` gets scipy's ``ndtri`` loop for it (double precision,
    rounded to float32), and a long double one scipy's TypeError, so the
    interval matches scorio for numpy scalars too (tests/test_hostile_inputs.py).
    """
    if not (0.0 < confidence < 1.0):
        raise ValueError(f"confidence must be in (0,1); got {confidence}")
    p = 0.5 + 0.5 * confidence
    if type(p) is float:  # the common call, without numpy's ABC check
        return _kscore.ndtri(p)
    if isinstance(p, np.floating) and p.dtype.itemsize != 8:
        if p.dtype.itemsize > 8:
            raise TypeError(
                "ufunc 'ndtri' not supported for the input types, and the inputs could not be safely coerced "
                "to any supported types according to the casting rule ''safe''")
        return float(np.float32(_kscore.ndtri(float(p))))
    return _kscore.ndtri(p)


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
        # min(max(x, b_lo), b_hi) spelled out: the same comparisons
        # (b_lo > x, then b_hi < x) in the same order, so NaN bounds are
        # ignored and a bad bound raises the same TypeError, without the
        # cost of four builtin calls (0.4 us of a 2-5 us call).
        lo = b_lo if b_lo > lo else lo
        lo = b_hi if b_hi < lo else lo
        hi = b_lo if b_lo > hi else hi
        hi = b_hi if b_hi < hi else hi
    return float(mu), float(sigma), float(lo), float(hi)
