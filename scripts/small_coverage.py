"""Coverage and mean width at 95% of the small-board interval
(``interval="wilson"``, kscore.leaderboard.stats.small; docs/rankings.md *Small
boards*) beside the normal interval over questions and the previous Wilson
(t on the groups' degrees of freedom, no effective df), on simulated boards:
the grid of tests/test_small_coverage.py and skewed extremes (means 0.01 to
0.05 and 0.95 to 0.99, 10 to 100 questions, 2 to 20 clusters, 1 to 16
samples per question). Prints a Markdown table.

Each board is one model's Q questions: question chances ~ Beta(mean conc,
(1 - mean) conc) or, with clusters, a cluster chance ~ that Beta and the
questions' ~ Beta around it (as in the tests); K samples each, pass@1.
The estimate and its cluster-robust standard error are the board's
(kscore.leaderboard.stats.intervals), computed here on arrays for speed; the
leaderboard itself is checked on the same kind of boards by the tests.

Run: ``python scripts/small_coverage.py [boards per case, default 2000]``
(about a minute).
"""

from __future__ import annotations

import sys

import numpy as np

from kscore._interval import z_value
from kscore.leaderboard.stats.small import effective_df, wilson_bounds

CASES = [  # questions, samples, mean, concentration, cluster size (None: every question its own)
    (10, 1, 0.9, 20.0, None), (20, 4, 0.05, 2.0, None), (12, 4, 0.5, 5.0, None), (30, 1, 0.5, 20.0, 5),
    (40, 8, 0.97, 20.0, 4), (100, 4, 0.2, 20.0, 5),
    # the skewed extremes
    (100, 4, 0.03, 2.0, 5), (100, 1, 0.03, 2.0, 5), (100, 16, 0.03, 2.0, 5), (100, 4, 0.01, 2.0, 5),
    (50, 4, 0.05, 2.0, 5), (25, 4, 0.05, 2.0, 5), (10, 4, 0.05, 2.0, 2), (100, 4, 0.97, 2.0, 5),
    (100, 4, 0.99, 2.0, 5), (50, 16, 0.95, 2.0, 10), (10, 1, 0.05, 2.0, None), (100, 1, 0.01, 2.0, None),
    (100, 16, 0.01, 2.0, None), (40, 4, 0.02, 2.0, None), (100, 4, 0.03, 2.0, 20), (20, 16, 0.99, 2.0, 4),
]


def simulate(rng: np.random.Generator, B: int, Q: int, K: int, mean: float, conc: float,
             cluster: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """B boards: each one's per-question pass@1, its mean, and its
    cluster-robust standard error; the number of groups."""
    a, b = mean * conc, (1 - mean) * conc
    if cluster:
        G = Q // cluster
        cm = rng.beta(a, b, (B, G)).repeat(cluster, axis=1)
        p = rng.beta(cm * 2 * conc + 1e-9, (1 - cm) * 2 * conc + 1e-9)
    else:
        G = Q
        p = rng.beta(a, b, (B, Q))
    x = rng.binomial(K, p) / K
    m = x.mean(axis=1)
    r = x - m[:, None]
    rs = r.reshape(B, G, Q // G).sum(axis=2)
    se = np.sqrt(G / (G - 1) * (rs**2).sum(axis=1) / Q**2)
    return x, m, se, G


def main(B: int) -> None:
    rng = np.random.default_rng(2503)
    z = z_value(0.95)
    print(f"Coverage at 95% ({B} boards per case), mean width in brackets; pass@1.\n")
    print("| questions | samples | mean | clusters | Wilson, effective df | previous Wilson | normal |")
    print("|---:|---:|---:|---|---:|---:|---:|")
    worst = 1.0
    for Q, K, mean, conc, cl in CASES:
        x, m, se, G = simulate(rng, B, Q, K, mean, conc, cl)
        model = np.repeat(np.arange(B), Q)
        cluster = None if cl is None else np.tile(np.arange(Q) // cl, B)
        q, g, s = (np.full(B, n, np.int64) for n in (Q, G, Q * K))
        d = effective_df(x.ravel(), model, cluster, m)
        new = wilson_bounds(m, se, q, g, s, 0.95, df_eff=d)
        old = wilson_bounds(m, se, q, g, s, 0.95)
        normal = (np.clip(m - z * se, 0, 1), np.clip(m + z * se, 0, 1))
        cells = []
        for lo, hi in (new, old, normal):
            hit = float(np.mean((lo - 1e-12 <= mean) & (mean <= hi + 1e-12)))
            cells.append(f"{100 * hit:.1f}% ({float(np.mean(hi - lo)):.3f})")
            if lo is new[0]:
                worst = min(worst, hit)
        where = "-" if cl is None else f"{G} of {cl}"
        print(f"| {Q} | {K} | {mean:.2f} | {where} | " + " | ".join(cells) + " |")
    print(f"\nlowest coverage of the effective-df Wilson: {100 * worst:.1f}%")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
