"""Finite-bank point metrics against 50-digit mpmath references built from
the definitions (binomial ratios walked by exact recurrences in mpmath),
at N = 4096 and N = 100000: relative error <= 1e-13."""

from __future__ import annotations

import math
from collections.abc import Callable

import mpmath as mp
import numpy as np
import pytest

from kscore import eval as ke

mp.mp.dps = 50


def pmf(n: int, c: int, k: int) -> tuple[int, list[mp.mpf]]:
    """Exact hypergeometric pmf of X ~ Hyp(n, c, k) on its support (lo, masses)."""
    lo, hi = max(0, k - (n - c)), min(k, c)
    p = mp.binomial(c, lo) * mp.binomial(n - c, k - lo) / mp.binomial(n, k)
    out = [p]
    for j in range(lo, hi):
        p = p * (c - j) * (k - j) / ((j + 1) * (n - c - k + j + 1))
        out.append(p)
    return lo, out


def expect(n: int, c: int, k: int, credit: Callable[[int], mp.mpf]) -> mp.mpf:
    lo, masses = pmf(n, c, k)
    return mp.fsum(credit(lo + i) * m for i, m in enumerate(masses))


def auc_ref(n: int, c: int, k: int) -> mp.mpf:
    """Trapezoid over the exact Pass@j curve (independent of the closed form)."""
    if k == 1:
        return mp.mpf(c) / n
    q = mp.mpf(1)
    total = mp.mpf(0)
    for j in range(1, k + 1):
        q = q * (n - c - j + 1) / (n - j + 1) if n - c - j + 1 > 0 else mp.mpf(0)
        cj = mp.mpf(1) / (2 * (k - 1)) if j in (1, k) else mp.mpf(1) / (k - 1)
        total += cj * (1 - q)
    return total


def tau_threshold(tau: float, k: int) -> int:
    j = math.floor(tau * k)
    if tau > j / k:
        j += 1
    return max(1, j)


def bank(n: int, counts: list[int]) -> np.ndarray:
    R = np.zeros((len(counts), n), dtype=np.uint8)
    for row, c in enumerate(counts):
        R[row, :c] = 1
    return R


CASES = [
    (4096, [0, 1, 5, 100, 2047, 2048, 3000, 4000, 4095, 4096]),
    (100000, [0, 3, 1000, 50000, 99990, 100000]),
]


def rel_ok(ours: float, ref: mp.mpf) -> bool:
    return bool(abs(mp.mpf(ours) - ref) <= mp.mpf("1e-13") * abs(ref) + mp.mpf("1e-300"))


@pytest.mark.parametrize("n,counts", CASES, ids=["N4096", "N100000"])
def test_point_metrics_match_mpmath(n: int, counts: list[int]) -> None:
    R = bank(n, counts)
    m = len(counts)
    for k in sorted({1, n // 8 + 1, n // 2, n}):
        half = (k + 1) // 2
        two_k = mp.mpf(2) / k
        t_tau = tau_threshold(0.3, k)
        # The credits are called within this iteration only (B023: late binding cannot bite).
        credits: dict[str, Callable[[int], mp.mpf]] = {
            "pass_at_k": lambda j: mp.mpf(j >= 1),
            "pass_hat_k": lambda j: mp.mpf(j == k),  # noqa: B023
            "maj_at_k": lambda j: mp.mpf(j >= k // 2 + 1),  # noqa: B023
            "mg_pass_at_k": lambda j: two_k * max(j - half, 0),  # noqa: B023
            "g_pass_at_k_tau": lambda j: mp.mpf(j >= t_tau),  # noqa: B023
        }
        for name, credit in credits.items():
            ref = mp.fsum(expect(n, c, k, credit) for c in counts) / m
            args = (0.3,) if name == "g_pass_at_k_tau" else ()
            ours = getattr(ke, name)(R, k, *args)
            assert rel_ok(ours, ref), (name, n, k, ours, ref)
        ref = mp.fsum(auc_ref(n, c, k) for c in counts) / m
        ours = ke.auc_at_k(R, k)
        assert rel_ok(ours, ref), ("auc_at_k", n, k, ours, ref)


def test_more_accurate_than_boost_on_an_exact_quarter() -> None:
    """scorio (Boost) returns 0.25000000000000006 here; the exact value is 1/4."""
    R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    assert ke.pass_hat_k(R, 3) == 0.25


def test_nothing_non_finite_at_scale() -> None:
    n = 100000
    R = bank(n, [0, 1, 50000, 99999, 100000])
    for k in (1, 2, 77777, n):
        for fn in (ke.pass_at_k, ke.pass_hat_k, ke.maj_at_k, ke.mg_pass_at_k, ke.auc_at_k, ke.geom_at_k,
                   ke.geo_spectrum_star_at_k):
            assert math.isfinite(fn(R, k))
