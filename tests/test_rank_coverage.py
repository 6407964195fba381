"""Coverage of the rank ranges by simulation (issue 28, part 1): boards of
8 models on 300 questions drawn afresh from a population of questions,
4 samples each, three groups of near-tied models; joint coverage is the
share of boards where every model's rank range holds its true rank (the
order of the models' means over the population of questions, computed
once from 400 000 questions). Two populations: independent questions, and
questions in clusters of 10 sharing a difficulty (ranked with their
clusters: ``cluster``). The simultaneous sets must hold at least 95% at
95% over 200 boards each, and be narrower on average than Holm's (issue 36,
item 4: the step-down max-t run to its end); the
unadjusted ranges (each pair at 95%) are reported beside them. A normal
test (some 20 s here): it runs in CI's pytest run.

Printed (``pytest -s``): coverage and mean width (hi - lo) per procedure.
"""

from __future__ import annotations

import numpy as np
import pytest

from kscore.leaderboard.stats.ranges import rank_sets

#: Abilities (logit): three groups of near-tied models.
ABILITY = np.array([1.0, 0.97, 0.94, 0.5, 0.48, 0.0, -0.02, -0.6])
BOARDS, QUESTIONS, SAMPLES, CLUSTER = 200, 300, 4, 10


def _difficulty(rng: np.random.Generator, n: int, clustered: bool) -> np.ndarray:
    if not clustered:
        return rng.normal(0.0, 1.5, n)
    shared = np.repeat(rng.normal(0.0, 1.3, n // CLUSTER), CLUSTER)  # a cluster's common difficulty
    return shared + rng.normal(0.0, 0.75, n)


def _true_ranks(clustered: bool) -> np.ndarray:
    rng = np.random.default_rng(0)
    d = _difficulty(rng, 400_000, clustered)
    means = (1 / (1 + np.exp(-(ABILITY[:, None] - d[None, :])))).mean(axis=1)
    order = np.argsort(-means)
    ranks = np.empty(len(means), np.int64)
    ranks[order] = np.arange(1, len(means) + 1)
    return ranks


def _simulate(clustered: bool) -> dict[str, tuple[float, float]]:
    true = _true_ranks(clustered)
    rng = np.random.default_rng(1 if clustered else 2)
    hits = {a: 0 for a in ("none", "holm", "simultaneous")}
    width = {a: 0.0 for a in hits}
    models = [str(i) for i in range(len(ABILITY))]
    cluster = np.repeat(np.arange(QUESTIONS // CLUSTER), CLUSTER) if clustered else None
    for _ in range(BOARDS):
        d = _difficulty(rng, QUESTIONS, clustered)
        p = 1 / (1 + np.exp(-(ABILITY[:, None] - d[None, :])))
        X = rng.binomial(SAMPLES, p) / SAMPLES  # pass@1 per question
        order = np.argsort(-X.mean(axis=1), kind="stable")  # the board's order
        for adjust in hits:
            sets = rank_sets(X[order], np.ones_like(X, bool), cluster, [models[i] for i in order], 0.95, adjust)
            assert sets.adjust == adjust
            t = true[order]
            hits[adjust] += bool(np.all((sets.lo <= t) & (t <= sets.hi)))
            width[adjust] += float(np.mean(sets.hi - sets.lo)) / BOARDS
    return {a: (hits[a] / BOARDS, width[a]) for a in hits}


@pytest.mark.parametrize("clustered", [False, True], ids=["independent", "clustered"])
def test_simultaneous_rank_sets_hold_jointly(clustered: bool) -> None:
    got = _simulate(clustered)
    print(f"\n{'clustered' if clustered else 'independent'} questions, {BOARDS} boards: "
          + "; ".join(f"{a}: coverage {c:.1%}, mean width {w:.2f}" for a, (c, w) in got.items()))
    coverage, width = got["simultaneous"]
    assert coverage >= 0.95
    assert width < got["holm"][1]
    assert got["holm"][0] >= 0.93
