"""The small-board interval (``interval="wilson"``, kscore.leaderboard.stats.small;
docs/rankings.md *Small boards*) by simulation: at 95% it covers the
population value in at least 93% of simulated boards of 10 to 100
questions, near the ends of the range and with clustered questions, where
the normal interval over questions falls far short. Its t quantile is
checked against scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

import kscore
from kscore.leaderboard import Counts
from kscore.leaderboard.stats.small import effective_df, t_two_sided, unreliable, wilson_bounds

BOARDS = 600  # independent boards per case: the binomial sd of a 95% coverage is 0.009


def boards(rng: np.random.Generator, Q: int, K: int, mean: float, conc: float, cluster: int | None) -> Counts:
    """BOARDS models, each with its own independent draw of Q questions (the
    same question ids, so the board stays small; every model is one board):
    each question's chance ~ Beta(mean conc, (1 - mean) conc), or, with
    clusters of ``cluster`` questions, a cluster chance ~ that Beta and the
    questions' ~ Beta around it."""
    a, b = mean * conc, (1 - mean) * conc
    if cluster:
        G = Q // cluster
        cm = rng.beta(a, b, (BOARDS, G)).repeat(cluster, axis=1)
        p = rng.beta(cm * 2 * conc + 1e-9, (1 - cm) * 2 * conc + 1e-9)
    else:
        p = rng.beta(a, b, (BOARDS, Q))
    c = rng.binomial(K, p).ravel()
    attrs: dict[str, list[str | None]] = {"passage": [f"g{i // cluster}" for i in range(Q)]} if cluster else {}
    return Counts([f"b{i}" for i in range(BOARDS)], [f"q{i}" for i in range(Q)], np.repeat(np.arange(BOARDS), Q),
                  np.tile(np.arange(Q), BOARDS), np.stack([K - c, c], axis=1).astype(np.int64), attrs)


def coverage(counts: Counts, metric: str, truth: float, interval: str, cluster: str | None) -> tuple[float, float]:
    board = kscore.leaderboard(counts, metrics=metric, interval=interval, cluster=cluster)
    vals = [r.values[metric] for r in board.rows]
    hit = np.mean([v is not None and v.lo - 1e-12 <= truth <= v.hi + 1e-12 for v in vals])
    width = np.mean([v.hi - v.lo for v in vals if v is not None])
    return float(hit), float(width)


CASES = [  # questions, samples, mean, concentration, cluster size, metric
    (10, 1, 0.9, 20.0, None, "pass@1"),
    (20, 4, 0.05, 2.0, None, "pass@1"),
    (12, 4, 0.5, 5.0, None, "pass@1"),  # a near-tie board's typical middle model, few questions
    (30, 1, 0.5, 20.0, 5, "pass@1"),
    (40, 8, 0.97, 20.0, 4, "pass@1"),
    (30, 4, 0.15, 4.0, None, "pass@2"),
    (100, 4, 0.2, 20.0, 5, "pass@1"),
    # skewed extremes: a few clusters (or questions) carry all the spread
    (100, 4, 0.03, 2.0, 5, "pass@1"),
    (100, 16, 0.03, 2.0, 5, "pass@1"),
    (50, 16, 0.95, 2.0, 10, "pass@1"),
    (100, 16, 0.01, 2.0, None, "pass@1"),
]


@pytest.mark.parametrize("seed", range(len(CASES)), ids=[f"Q{c[0]}-K{c[1]}-p{c[2]}-cl{c[4]}-{c[5]}" for c in CASES])
def test_wilson_covers_at_least_93_percent(seed: int) -> None:
    Q, K, mean, conc, cluster, metric = CASES[seed]
    rng = np.random.default_rng(1000 + seed)
    counts = boards(rng, Q, K, mean, conc, cluster)
    k = int(metric.split("@")[1])
    a, b = mean * conc, (1 - mean) * conc
    # E[1 - (1 - p)^k], p ~ Beta(a, b) (the cluster mixture keeps the mean only for k = 1).
    truth = 1.0 - math.exp(special.betaln(a, b + k) - special.betaln(a, b)) if k > 1 else mean
    assert cluster is None or k == 1
    cl = "passage" if cluster else None
    hit, width = coverage(counts, metric, truth, "wilson", cl)
    normal, normal_width = coverage(counts, metric, truth, "normal", cl)  # (the default before issue 36)
    assert hit >= 0.93, (hit, normal)
    # The default interval (issue 36) holds on these boards too, drawn by another generator than its suite's.
    default, _ = coverage(counts, metric, truth, "questions", cl)
    assert default >= 0.93, default
    if normal >= 0.9:  # where the normal interval nearly holds, the price in width is bounded
        # (1.2x at 100 questions; 1.5x with 6 clusters, where the effective df is often 3)
        assert width < (1.3 if Q >= 100 else 1.6) * normal_width, (width, normal_width)
    if mean in (0.01, 0.03, 0.05, 0.9, 0.95, 0.97):  # at the ends the normal interval undercovers badly
        assert normal < 0.9, normal


def test_t_quantile_equals_scipy() -> None:
    for df in (1, 1.0625, 1.5, 2, 2.5, 3, 3.3, 4, 5, 6, 7.75, 9, 10, 19.9, 29, 30, 99, 150.5, 500, 1999, 2000, 2001,
               10**5):
        for c in (0.5, 0.8, 0.9, 0.95, 0.99, 0.999):
            assert math.isclose(t_two_sided(c, df), float(stats.t.ppf(0.5 + c / 2, df)), rel_tol=1e-9), (df, c)
    with pytest.raises(ValueError):
        t_two_sided(0.95, 0)


def test_wilson_bounds_equal_the_formula_and_the_board() -> None:
    rng = np.random.default_rng(5)
    counts = boards(rng, 15, 3, 0.3, 3.0, 5)
    solved = counts.categories[:, 1] / 3

    def per_question(model: str) -> list[float]:
        mine = counts.model == counts.models.index(model)
        return [float(solved[j]) for j in np.flatnonzero(mine)[np.argsort(counts.question[mine])]]

    board = kscore.leaderboard(counts, metrics="pass@1,bayes@N", interval="wilson", cluster="passage")
    plain = kscore.leaderboard(counts, metrics="pass@1,bayes@N", cluster="passage")
    for r, s in zip(board.rows[:50], plain.rows[:50]):
        v, u = r.values["pass@1"], s.values["pass@1"]
        assert v is not None and u is not None
        assert (v.estimate, v.sigma) == (u.estimate, u.sigma)
        p, se = v.estimate, v.sigma
        n = min(p * (1 - p) / se**2, 45) if se > 0 and 0 < p < 1 else 15
        # 3 clusters of 5: t on min(2, the clusters' effective number), in sixteenths (below 4)
        rs = [sum(x - p for x in xs[5 * g:5 * g + 5]) for g in range(3)] if (xs := per_question(r.model)) else []
        w = [x * x for x in rs]
        df = min(2.0, math.floor(16 * max(sum(w) ** 2 / sum(x * x for x in w), 1.0)) / 16) if sum(w) > 0 else 2.0
        t = float(stats.t.ppf(0.975, df))
        centre = (p + t * t / (2 * n)) / (1 + t * t / n)
        half = t / (1 + t * t / n) * math.sqrt(p * (1 - p) / n + t * t / (4 * n * n))
        assert math.isclose(v.lo, max(centre - half, 0.0), abs_tol=1e-12)
        assert math.isclose(v.hi, min(centre + half, 1.0), abs_tol=1e-12)
        assert v.lo <= v.estimate <= v.hi
    # Rewards in [lo, hi] are rescaled: Bayes@N with weights 0..2.
    lo, hi = wilson_bounds(np.array([1.5]), np.array([0.1]), np.array([30]), np.array([30]), np.array([90]), 0.95,
                           (0.0, 2.0))
    lo1, hi1 = wilson_bounds(np.array([0.75]), np.array([0.05]), np.array([30]), np.array([30]), np.array([90]), 0.95)
    assert math.isclose(lo[0], 2 * lo1[0]) and math.isclose(hi[0], 2 * hi1[0])


def test_unreliable_names_the_reason() -> None:
    assert unreliable(0.5, 0.05, 40, 0.95) == "40 questions"
    assert unreliable(0.5, 0.02, 400, 0.95) is None
    assert unreliable(0.99, 0.006, 400, 0.95) is not None
    assert unreliable(1.0, 0.0, 400, 0.95) is not None


def test_effective_df_counts_the_groups_that_carry_the_spread() -> None:
    # Equal spread over 4 questions: 4; all of it in one question: 1; none: NaN.
    x = np.array([0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.5, 0.5, 0.5, 0.5])
    d = effective_df(x, np.repeat([0, 1, 2], 4), None, np.array([0.5, 0.25, 0.5]))
    assert math.isclose(d[0], 4.0) and math.isclose(d[1], (3 * 0.0625 + 0.5625) ** 2 / (3 * 0.0625**2 + 0.5625**2))
    assert np.isnan(d[2])
    # Clusters {0, 1}, {2, 3}: the residuals sum within each (here to +-0.5 and -+0.5: 2 equal groups).
    d = effective_df(x[:4], np.zeros(4, np.int64), np.array([0, 0, 1, 1]), np.array([0.25]))
    assert math.isclose(d[0], 2.0)
    # A degree of freedom below the groups' lowers the t quantile's df, and so widens the interval.
    args = (np.array([0.1]), np.array([0.03]), np.array([40]), np.array([40]), np.array([160]), 0.95)
    lo1, hi1 = wilson_bounds(*args, df_eff=np.array([2.0]))
    lo0, hi0 = wilson_bounds(*args)
    assert lo1[0] < lo0[0] and hi1[0] > hi0[0]


def test_effective_df_is_rounded_down_and_t_is_scipys() -> None:
    # df_eff 2.3 -> 2.25 (sixteenths below 4), 7.9 -> 7 (integers to 32), 40.5 -> 40 (steps of 2 from 32 to 63),
    # 103 -> 100 (steps of 4 from 64 to 127); capped at the groups less one (30 groups: 29); NaN: the groups' 29.
    d = np.array([2.3, 7.9, 40.5, 103.0, np.nan])
    want = [2.25, 7.0, 29.0, 29.0, 29.0]
    L = len(d)
    p, se = np.full(L, 0.2), np.full(L, 0.05)
    lo, hi = wilson_bounds(p, se, np.full(L, 30), np.full(L, 30), np.full(L, 120), 0.95, df_eff=d)
    lo2, hi2 = wilson_bounds(p[:2], se[:2], np.full(2, 200), np.full(2, 200), np.full(2, 800), 0.95,
                             df_eff=np.array([40.5, 103.0]))
    n = 0.2 * 0.8 / 0.05**2
    for df, got in zip(want + [40.0, 100.0], list(zip(lo, hi)) + list(zip(lo2, hi2))):
        t = float(stats.t.ppf(0.975, df))
        centre = (0.2 + t * t / (2 * n)) / (1 + t * t / n)
        half = t / (1 + t * t / n) * math.sqrt(0.16 / n + t * t / (4 * n * n))
        assert math.isclose(got[0], centre - half, rel_tol=1e-9) and math.isclose(got[1], centre + half, rel_tol=1e-9)
