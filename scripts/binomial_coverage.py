"""Exact coverage of binomial intervals by enumeration (docs/rankings.md, *The
posterior*; stats/posterior.py): where a board's units are all-or-nothing
(pass@k with k near the samples, a mean near 0 or 1, few questions),
``interval="posterior"`` given the dispersion is a binomial interval on
``n_w`` outcomes; this prints, for each ``n``, the lowest and the average
coverage over chances from 0.001 to 0.5 (the other half is the mirror) and
the average width, of Jeffreys' interval (the posterior before session 4),
the mid-p one (the posterior now: the central quantiles of the equal mixture
of Beta(x, n - x + 1) and Beta(x + 1, n - x)) and Clopper-Pearson's.

    python scripts/binomial_coverage.py [--confidence 0.95]
"""

from __future__ import annotations

import argparse

import numpy as np
import numpy.typing as npt
from scipy import special, stats

F = npt.NDArray[np.float64]


def bounds(x: F, n: int, kind: str, a: float) -> tuple[F, F]:
    """Each count's ``(lo, hi)`` of ``n`` for ``kind``, ``a`` the tail."""
    safe = np.maximum
    if kind == "jeffreys":
        return (np.where(x > 0, special.betaincinv(x + 0.5, n - x + 0.5, a), 0.0),
                np.where(x < n, special.betaincinv(x + 0.5, n - x + 0.5, 1 - a), 1.0))
    if kind == "clopper-pearson":
        return (np.where(x > 0, special.betaincinv(safe(x, 1e-300), n - x + 1, a), 0.0),
                np.where(x < n, special.betaincinv(x + 1, safe(n - x, 1e-300), 1 - a), 1.0))

    def cdf(t: F) -> F:  # the mid-p mixture's; a Beta with a zero parameter the point at the end
        low = np.where(x > 0, special.betainc(safe(x, 1e-300), n - x + 1, t), 1.0)
        high = np.where(x < n, special.betainc(x + 1, safe(n - x, 1e-300), t), 0.0)
        out: F = 0.5 * (low + high)
        return out

    def quantile(level: float) -> F:
        lo, hi = np.zeros_like(x), np.ones_like(x)
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            below = cdf(mid) < level
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        out: F = 0.5 * (lo + hi)
        return out

    return np.where(x > 0, quantile(a), 0.0), np.where(x < n, quantile(1 - a), 1.0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--confidence", type=float, default=0.95)
    args = ap.parse_args()
    a = (1 - args.confidence) / 2
    chances = np.linspace(0.001, 0.5, 2000)
    kinds = ("jeffreys", "mid-p", "clopper-pearson")
    print(f"Exact coverage at {args.confidence:.0%} over chances 0.001-0.5: lowest / average / average width.\n")
    print("| n | " + " | ".join(kinds) + " |")
    print("|---:|" + "---:|" * len(kinds))
    for n in (5, 10, 15, 20, 30, 40, 60, 100):
        x = np.arange(n + 1.0)
        pmf = stats.binom.pmf(x[None, :], n, chances[:, None])
        cells = []
        for kind in kinds:
            lo, hi = bounds(x, n, kind, a)
            cover = (pmf * ((lo[None] <= chances[:, None]) & (chances[:, None] <= hi[None]))).sum(axis=1)
            width = (pmf * (hi - lo)[None]).sum(axis=1)
            cells.append(f"{100 * cover.min():.1f}% / {100 * cover.mean():.1f}% / {width.mean():.3f}")
        print(f"| {n} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
