"""The rank ranges made without L x L matrices (kscore.leaderboard.stats.ranges)
equal those of the all-pairs matrices, the code before issue 26 kept
verbatim in tests/rank_oracle.py (the oracle: the same products, p-values,
Holm over the upper triangle, significance matrix), on random boards up
to 1 000 models: near-ties, duplicated models, missing questions,
clusters, several confidence levels. The simultaneous sets are never wider
than Holm's; the streamed pairs equal the matrix's entries."""

from __future__ import annotations

import numpy as np
import pytest

import kscore
from kscore.leaderboard.stats.intervals import holm, p_two_sided
from kscore.leaderboard.stats.pair_rows import pair_rows
from kscore.leaderboard.stats.ranges import rank_sets
from tests import rank_oracle as oracle


def _board(rng: np.random.Generator, L: int, Q: int, spread: float, kind: int) -> tuple[
        np.ndarray, np.ndarray, np.ndarray | None]:
    ability = rng.normal(0, spread, L)
    if kind % 3 == 0:  # ties of true ability: many near-ties
        ability = np.round(ability * 3) / 3
    p = 1 / (1 + np.exp(-(ability[:, None] - rng.normal(0, 1, Q))))
    X = rng.binomial(4, p) / 4.0
    if kind % 4 == 2 and L > 2:  # a duplicated model: identical rows, t = 0 / 0
        X[L - 1] = X[0]
    W = np.ones_like(X, bool)
    if kind % 2 == 1:
        W = rng.random(X.shape) > 0.15
        X = np.where(W, X, 0.0)
    cl = rng.integers(0, max(2, Q // 4), Q) if kind % 5 in (2, 3) else None
    return X, W, cl


def _oracle(X: np.ndarray, W: np.ndarray, cl: np.ndarray | None, confidence: float, adjust: str) -> list[
        tuple[int, int]]:
    L = len(X)
    res = oracle.paired(X.copy(), W, cl)
    diff, se = res["diff"], res["se"]
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(se > 0, diff / se, np.where(diff == 0, 0.0, np.sign(diff) * np.inf))
    t = np.where(np.isnan(se), np.nan, t)
    p = p_two_sided(t)
    p_holm = np.full((L, L), np.nan)
    up = np.triu_indices(L, 1)
    p_holm[up] = holm(p[up])
    p_holm.T[up] = p_holm[up]
    return oracle.rank_ranges({"models": list(range(L)), "diff": diff, "p": p, "p_holm": p_holm}, confidence, adjust)


@pytest.mark.parametrize("seed", range(40))
def test_rank_ranges_equal_the_all_pairs_matrices(seed: int) -> None:
    rng = np.random.default_rng(seed)
    L, Q = int(rng.integers(2, 150)), int(rng.integers(2, 80))
    X, W, cl = _board(rng, L, Q, float(rng.choice([0.05, 0.3, 1.0])), seed)
    models = [f"m{i}" for i in range(L)]
    for confidence in (0.95, 0.8, 0.999):
        for adjust in ("none", "holm"):
            got = rank_sets(X.copy(), W, cl, models, confidence, adjust)
            assert list(zip(got.lo.tolist(), got.hi.tolist())) == _oracle(X, W, cl, confidence, adjust), (
                seed, confidence, adjust)


@pytest.mark.parametrize("kind", [0, 1, 2])
def test_rank_ranges_equal_the_matrices_at_1000_models(kind: int) -> None:
    # Several blocks of rows (the block boundaries inside the board), the
    # screened unadjusted path (kind 0: full grid) and the exact one.
    rng = np.random.default_rng(100 + kind)
    X, W, cl = _board(rng, 1000, 40, 0.3, kind)
    models = [str(i) for i in range(1000)]
    for adjust in ("none", "holm"):
        got = rank_sets(X.copy(), W, cl, models, 0.95, adjust)
        assert list(zip(got.lo.tolist(), got.hi.tolist())) == _oracle(X, W, cl, 0.95, adjust), adjust


def test_twins_with_different_missing_questions_are_not_told_apart() -> None:
    # Model 110 answers as model 0 on every question both have. The
    # matrices' products (X0 Wf^T against its transpose, two roundings of
    # the same terms) made their difference -8e-18 with a standard error of
    # 2e-18, "significant" (t = -3.48): the one kind of pair where the
    # blocks (which take both sides from one product each) and the oracle
    # differ, and the blocks are right.
    rng = np.random.default_rng(17)
    L, Q = int(rng.integers(2, 150)), int(rng.integers(2, 80))
    X, W, cl = _board(rng, L, Q, float(rng.choice([0.05, 0.3, 1.0])), 17)
    X[L - 1] = X[0]
    W[L - 1] = rng.random(Q) > 0.15
    X = np.where(W, X, 0.0)
    got = rank_sets(X.copy(), W, cl, [str(i) for i in range(L)], 0.95, "none")
    old = _oracle(X, W, cl, 0.95, "none")
    res = oracle.paired(X.copy(), W, cl)
    assert res["diff"][0, L - 1] != 0.0  # (the matrices' rounding)
    assert got.lo[0] <= got.lo[L - 1] <= got.hi[0] or got.lo[L - 1] <= got.lo[0] <= got.hi[L - 1]
    assert old != list(zip(got.lo.tolist(), got.hi.tolist()))


@pytest.mark.parametrize("seed", range(10))
def test_simultaneous_sets_are_no_wider_than_holm(seed: int) -> None:
    rng = np.random.default_rng(1000 + seed)
    X, W, cl = _board(rng, int(rng.integers(3, 60)), 100, 0.5, 2 * seed)  # (full grids: kind even)
    models = [str(i) for i in range(len(X))]
    holm_sets = rank_sets(X.copy(), W, cl, models, 0.95, "holm")
    sim = rank_sets(X.copy(), W, cl, models, 0.95, "simultaneous")
    none = rank_sets(X.copy(), W, cl, models, 0.95, "none")
    assert sim.adjust == "simultaneous"
    assert np.all(sim.lo >= holm_sets.lo) and np.all(sim.hi <= holm_sets.hi)
    assert np.all(sim.lo <= none.lo) and np.all(sim.hi >= none.hi)
    assert sim.could_be_best == [m for m, lo in zip(models, sim.lo.tolist()) if lo == 1]


def test_simultaneous_falls_back_to_holm_with_missing_questions_in_clusters() -> None:
    # (missing questions without clusters: tests/test_simultaneous_sets.py)
    rng = np.random.default_rng(7)
    X, W, _ = _board(rng, 10, 50, 0.5, 1)
    sets = rank_sets(X, W, rng.integers(0, 10, 50), [str(i) for i in range(10)], 0.95, "simultaneous")
    assert sets.adjust == "holm" and "Holm's ranges" in sets.note


def _long(L: int, Q: int, seed: int = 0) -> object:
    import pandas as pd

    rng = np.random.default_rng(seed)
    p = 1 / (1 + np.exp(-(rng.normal(0, 0.4, L)[:, None] - rng.normal(0, 1, Q))))
    c = rng.binomial(4, p)
    return pd.DataFrame({"model": np.repeat([f"model-{i:03d}" for i in range(L)], Q),
                         "question": np.tile([f"q{j}" for j in range(Q)], L),
                         "n": 4, "c": c.ravel()})


@pytest.mark.parametrize("adjust", ["none", "holm", "simultaneous"])
def test_streamed_pairs_equal_the_matrix(adjust: str) -> None:
    board = kscore.leaderboard(_long(30, 60), metrics="pass@1", adjust=adjust)
    pw = board.pairwise()
    sig = pw.significant()
    rows = list(pair_rows(board, "all"))
    assert len(rows) == 30 * 29 // 2
    for r in rows:
        i, j = pw.models.index(r["a"]), pw.models.index(r["b"])
        assert i < j
        assert r["diff"] == pytest.approx(pw.diff[i, j], abs=1e-12)
        assert r["sigma"] == pytest.approx(pw.sigma[i, j], rel=1e-9)
        assert r["p"] == pytest.approx(pw.p[i, j], rel=1e-6, abs=1e-300)
        assert r["significant"] == bool(sig[i, j] or sig[j, i])
    adjacent = list(pair_rows(board, "adjacent"))
    assert [(r["a"], r["b"]) for r in adjacent] == list(zip(pw.models, pw.models[1:]))
    for r in adjacent:
        i, j = pw.models.index(r["a"]), pw.models.index(r["b"])
        assert r["diff"] == pytest.approx(pw.diff[i, j], abs=1e-12)
        assert r["sigma"] == pytest.approx(pw.sigma[i, j], rel=1e-9)
    top = list(pair_rows(board, "top", 5))
    assert len(top) == 10 and {r["a"] for r in top} <= set(pw.models[:5])
    # The ranks count the board's significant pairs, as the matrix says.
    better = sig.sum(axis=0)
    assert [r.rank[0] if r.rank else None for r in board.rows] == [int(better[pw.models.index(r.model)]) + 1
                                                                  for r in board.rows]


@pytest.mark.parametrize("seed", range(4))
def test_float32_products_of_large_boards_decide_as_the_matrices(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # Past 2000 models the unadjusted count's products are float32, the pairs
    # near the threshold decided in float64: the same ranges (shown here on
    # smaller boards, with the switch lowered; no twins: their t is 0 / 0).
    from kscore.leaderboard.stats import folded, pairs

    monkeypatch.setattr(folded, "SINGLE", 10)
    monkeypatch.setattr(pairs, "GRAM_MODELS", 0)  # (the tiles' products, not the Gram matrix)
    rng = np.random.default_rng(200 + seed)
    X, W, _ = _board(rng, 400, [20, 100, 7, 300][seed], 0.3, 4)
    got = rank_sets(X.copy(), W, None, [str(i) for i in range(400)], 0.95, "none")
    assert list(zip(got.lo.tolist(), got.hi.tolist())) == _oracle(X, W, None, 0.95, "none")


@pytest.mark.parametrize("seed", range(12))
def test_folded_count_from_the_gram_matrix_equals_the_tiles(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # Few models on a full grid: every pair's test from the Gram matrix Pairs
    # makes anyway; more (GRAM_MODELS lowered to 0 here): the tiles' products.
    # Both equal the matrices, twins and near-ties included.
    from kscore.leaderboard.stats import pairs

    rng = np.random.default_rng(300 + seed)
    L, Q = int(rng.integers(2, 300)), int(rng.integers(2, 120))
    X, W, _ = _board(rng, L, Q, float(rng.choice([0.05, 0.3, 1.0])), [0, 2, 4, 6][seed % 4])
    models = [str(i) for i in range(L)]
    for adjust in ("none", "holm"):
        want = _oracle(X, W, None, 0.95, adjust)
        gram = rank_sets(X.copy(), W, None, models, 0.95, adjust, overwrite=True)
        with monkeypatch.context() as mp:
            mp.setattr(pairs, "GRAM_MODELS", 0)
            tiles = rank_sets(X.copy(), W, None, models, 0.95, adjust)
        assert list(zip(gram.lo.tolist(), gram.hi.tolist())) == want, (seed, adjust)
        assert list(zip(tiles.lo.tolist(), tiles.hi.tolist())) == want, (seed, adjust)


def test_holm_past_its_memory_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from kscore.leaderboard import LeaderboardError
    from kscore.leaderboard.stats import ranges as _ranges

    # (missing questions: the kept path; a full grid keeps nothing, below)
    monkeypatch.setattr(_ranges, "HOLM_MAX_KEPT", 10)
    rng = np.random.default_rng(9)
    X, W, _ = _board(rng, 40, 50, 1.0, 1)
    with pytest.raises(LeaderboardError, match="--adjust holm on 40 models keeps the t statistic"):
        rank_sets(X, W, None, [str(i) for i in range(40)], 0.95, "holm")


@pytest.mark.parametrize("seed", range(5))
def test_holm_level_is_the_products_threshold(seed: int) -> None:
    # Holm's test of the l-th p-value is the float product (m - l) p < alpha
    # (holm() in stats/intervals.py); holm_level gives the smallest p failing it.
    from kscore.leaderboard.stats.pair_tests import holm_level

    rng = np.random.default_rng(seed)
    for _ in range(200):
        alpha = float(rng.choice([0.05, 0.2, 0.001, float(rng.random())]))
        k = int(rng.integers(1, 10**int(rng.integers(1, 11))))
        a = holm_level(alpha, k)
        assert a * k >= alpha
        assert float(np.nextafter(a, 0.0)) * k < alpha


def test_rank_gives_each_row_its_models_range_in_any_order() -> None:
    """stats/rank.rank: rows in the sets' order (some rows without the
    metric between them: no range) and in another order (each row found by
    its name): every row gets its own model's range, the others None."""
    from types import SimpleNamespace
    from typing import cast

    from kscore.leaderboard.stats.ranges import RankSets
    from kscore.leaderboard.stats.rank import rank
    from kscore.leaderboard.stats.values import ModelRow

    sets = RankSets(["a", "b", "c"], np.array([1, 1, 3]), np.array([2, 3, 3]), "none", 0.95, 1.0)
    want = {"a": (1, 2), "b": (1, 3), "c": (3, 3), "x": None, "y": None}
    for names in (["a", "x", "b", "c", "y"], ["c", "x", "a", "b"], ["y", "b", "a"], ["a", "b", "c"]):
        rows = cast(list[ModelRow], [SimpleNamespace(model=m, rank=(9, 9)) for m in names])  # (rank reads these two)
        assert [r.rank for r in rank(rows, sets)] == [want[m] for m in names], names
