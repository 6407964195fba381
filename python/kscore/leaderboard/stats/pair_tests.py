"""Deciding the paired tests (docs/leaderboard.md, *Rank ranges*; the rules
are in stats/ranges.py's module docstring): the unadjusted rule ``erfc(u) <
alpha`` as a threshold ``u*`` on ``u = |t| / sqrt 2``, the erfc bounds and
Holm's levels, and adding a block's decisions to each model's counts of
models significantly better and worse. Shared by the rank ranges
(stats/ranges.py, stats/folded.py) and the simultaneous sets
(stats/simultaneous.py)."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..._arrays import FloatArray, IntArray


def u_threshold(alpha: float) -> float:
    """The smallest double ``u`` with ``math.erfc(u) < alpha`` (bisection on
    the doubles' bit patterns: positive doubles sort as integers)."""
    lo, hi = 0, int(np.float64(40.0).view(np.int64))
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if math.erfc(float(np.int64(mid).view(np.float64))) < alpha:
            hi = mid
        else:
            lo = mid
    return float(np.int64(hi).view(np.float64))


def u_of(t: FloatArray) -> FloatArray:
    return np.abs(t) / math.sqrt(2.0)  # (p_two_sided's argument of erfc, to the bit)


def count_block(better: IntArray, worse: IntArray, a: int, b: int, sig: npt.NDArray[np.bool_],
           diff: FloatArray) -> None:
    """Adds a block's significant pairs (``sig``: rows a..b vs columns a..L)
    to the counts of models significantly better / worse than each."""
    up = sig & (diff > 0)  # row better than column
    dn = sig & (diff < 0)
    worse[a:b] += up.sum(axis=1)
    better[a:] += up.sum(axis=0)
    better[a:b] += dn.sum(axis=1)
    worse[a:] += dn.sum(axis=0)


def unadjusted(u: FloatArray, u_star: float, alpha: float) -> npt.NDArray[np.bool_]:
    """``erfc(u) < alpha`` for every ``u`` (NaN: False), ``math.erfc`` itself
    near the threshold."""
    with np.errstate(invalid="ignore"):
        sig = u >= u_star
        near = np.flatnonzero(np.abs(u - u_star) <= 1e-9 * u_star)
    for k in near.tolist():
        sig.flat[k] = math.erfc(float(u.flat[k])) < alpha
    return sig


def erfc_upper(x: FloatArray) -> FloatArray:
    """An upper bound of ``erfc(x)`` for ``x >= 0`` (A&S 7.1.13, with a
    margin for rounding)."""
    with np.errstate(under="ignore", over="ignore"):
        return (2.0 / math.sqrt(math.pi)) * np.exp(-x * x) / (x + np.sqrt(x * x + 4.0 / math.pi)) * (1.0 + 1e-9)


def erfc_lower(x: FloatArray) -> FloatArray:
    """A lower bound of ``erfc(x)`` for ``x >= 0`` (A&S 7.1.13)."""
    with np.errstate(under="ignore", over="ignore"):
        return (2.0 / math.sqrt(math.pi)) * np.exp(-x * x) / (x + np.sqrt(x * x + 2.0)) * (1.0 - 1e-9)


def holm_crit(u_sorted: FloatArray, m: int, alpha: float) -> float | None:
    """Holm's largest rejected p-value (None: none rejected) from the ``u``
    of the pairs with ``p < alpha``, sorted decreasing, ``m`` the family's
    size: the first position ``l`` with ``(m - l) p_(l) >= alpha`` ends the
    rejections (``holm()`` in stats/intervals.py computes the same products)."""
    stop = len(u_sorted)
    for a in range(0, len(u_sorted), 1 << 20):  # (a chunk at a time: no array as long as the pairs)
        u = u_sorted[a:a + (1 << 20)]
        factor = (m - np.arange(a, a + len(u))).astype(np.float64)
        for k in np.flatnonzero(erfc_upper(u) * factor >= alpha).tolist():
            if math.erfc(float(u[k])) * factor[k] >= alpha:
                stop = a + k
                break
        if stop < len(u_sorted):
            break
    return None if stop == 0 else math.erfc(float(u_sorted[stop - 1]))


def holm_level(alpha: float, k: int) -> float:
    """The smallest double ``a`` with ``k * a >= alpha`` in floating point:
    ``k * p < alpha`` (Holm's product, as ``holm()`` in stats/intervals.py rounds
    it) is ``p < a``, the product being nondecreasing in ``p``."""
    lo, hi = 0, int(np.float64(alpha).view(np.int64))  # (k >= 1: alpha itself passes)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if float(np.int64(mid).view(np.float64)) * k >= alpha:
            hi = mid
        else:
            lo = mid
    return float(np.int64(hi).view(np.float64))
