"""Robustness to dropping questions (kscore.leaderboard.stats.robust): the
greedy count (drop the largest per-question differences first) against
every subset of the questions, on small random pairs with ties and with
questions one model lacks."""

from __future__ import annotations

from itertools import combinations

import numpy as np

from kscore.leaderboard.stats.robust import fewest_flips


def brute(d: np.ndarray) -> int:
    """The fewest questions whose removal leaves a negative sum over the
    rest (at least one question left); -1 if none."""
    n = len(d)
    scale = float(np.abs(d).sum())
    for k in range(n):
        for s in combinations(range(n), k):
            if np.delete(d, list(s)).sum() < -1e-12 * max(scale, 1e-300):
                return k
    return -1


def test_greedy_equals_every_subset_on_random_pairs() -> None:
    rng = np.random.default_rng(2026)
    P, Q = 300, 10
    # Differences of per-question estimates with 1 to 4 samples: many ties, many zeros.
    K = rng.integers(1, 5, (P, 1))
    D = (rng.integers(0, 5, (P, Q)) % (K + 1) - rng.integers(0, 5, (P, Q)) % (K + 1)) / K
    D[:40] = np.abs(D[:40])  # the upper model never behind: no removal flips
    D[40:60] += 0.6  # mostly ahead
    M = rng.random((P, Q)) > 0.2
    M[:, 0] = True
    flips = fewest_flips(D, M)
    for p in range(P):
        assert flips.k[p] == brute(D[p, M[p]]), (p, D[p, M[p]])
    assert (flips.k[:40] == -1).all()
    assert (flips.k >= 0).sum() > 100 and flips.k.max() >= 3


def test_influential_questions_are_the_largest_differences_and_blocks_agree() -> None:
    rng = np.random.default_rng(3)
    D = rng.normal(0.05, 0.3, (5000, 300))  # several blocks of pairs
    M = rng.random(D.shape) > 0.1
    f = fewest_flips(D, M, n_top=3)
    for p in (0, 1234, 4999):
        present = np.flatnonzero(M[p])
        top = present[np.argsort(-D[p, present], kind="stable")[:3]]
        assert f.top[p].tolist() == top.tolist()
        assert f.top_d[p].tolist() == D[p, top].tolist()
    one = fewest_flips(D[3000:3001], M[3000:3001])
    assert one.k[0] == f.k[3000]


def test_already_behind_on_the_common_questions_is_zero() -> None:
    f = fewest_flips(np.array([[-0.5, 0.25, 0.0]]), np.ones((1, 3), bool))
    assert f.k[0] == 0
