"""The simultaneous rank sets without held pairs (kscore.leaderboard.stats.simultaneous)
decide as the code they replaced, kept verbatim in tests/simultaneous_oracle.py:
the same critical value ``t_crit`` and Holm ``p_crit`` (bit for bit) and the
same ranges, on random full grids up to 2 000 models (near-ties, duplicated
models, clusters, several confidence levels), also with the histogram made
so coarse that nearly every count needs its exact sweep, and past 2 000
models (where the old code was not run on the board: Holm's ranges stood
in). The histogram's bounds hold the exact counts; the kernel's maxima are
the numpy loop's."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from kscore import _kscore
from kscore.leaderboard.stats import simultaneous as sim
from kscore.leaderboard.stats.ranges import Pairs, rank_sets
from tests import simultaneous_oracle as oracle


def _board(rng: np.random.Generator, L: int, Q: int, spread: float, kind: int) -> tuple[
        np.ndarray, np.ndarray, np.ndarray | None]:
    """Full grids: models of logistic ability (kind % 3 == 0: ties of true
    ability, many near-ties), a duplicated model (kind % 4 == 2), clusters
    of questions (kind % 5 in (2, 3))."""
    ability = rng.normal(0, spread, L)
    if kind % 3 == 0:
        ability = np.round(ability * 3) / 3
    p = 1 / (1 + np.exp(-(ability[:, None] - rng.normal(0, 1, Q))))
    X = rng.binomial(4, p) / 4.0
    if kind % 4 == 2 and L > 2:
        X[L - 1] = X[0]
    X = X[np.argsort(-X.mean(axis=1), kind="stable")]  # (board order)
    cl = rng.integers(0, max(2, Q // 4), Q) if kind % 5 in (2, 3) else None
    return X, np.ones_like(X, bool), cl


def _same(X: np.ndarray, W: np.ndarray, cl: np.ndarray | None, confidence: float) -> None:
    models = [f"m{i}" for i in range(len(X))]
    got = rank_sets(X.copy(), W, cl, models, confidence, "simultaneous")
    old = oracle.rank_sets(X.copy(), W, cl, models, confidence)
    assert got.adjust == "simultaneous" and not got.note
    assert (got.t_crit, got.p_crit) == (old.t_crit, old.p_crit)
    assert got.lo.tolist() == old.lo.tolist() and got.hi.tolist() == old.hi.tolist()
    assert got.could_be_best == old.could_be_best


@pytest.mark.parametrize("seed", range(60))
def test_equal_to_the_held_pairs_code(seed: int) -> None:
    rng = np.random.default_rng(seed)
    L, Q = int(rng.integers(2, 160)), int(rng.integers(2, 120))
    X, W, cl = _board(rng, L, Q, float(rng.choice([0.05, 0.3, 1.0, 3.0])), seed)
    for confidence in (0.95, 0.8, 0.999):
        _same(X, W, cl, confidence)


@pytest.mark.parametrize("seed", range(12))
def test_equal_with_a_coarse_histogram(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # Four bins an octave, and everything from u = 2 in one: the bounds seldom
    # decide, so the exact counts (merged into the next step's sweep, or a
    # sweep of their own for Holm) make the decisions.
    monkeypatch.setattr(sim, "SHIFT", 50)
    monkeypatch.setattr(sim, "U_TOP", float(np.random.default_rng(seed).choice([2.0, 64.0])))
    rng = np.random.default_rng(500 + seed)
    X, W, cl = _board(rng, int(rng.integers(20, 400)), int(rng.integers(5, 150)),
                      float(rng.choice([0.3, 1.0, 3.0])), seed)
    for confidence in (0.95, 0.8):
        _same(X, W, cl, confidence)


@pytest.mark.parametrize("L,Q,kind", [(1000, 40, 0), (1000, 100, 2), (2000, 60, 1), (2000, 30, 3)])
def test_equal_up_to_2000_models(L: int, Q: int, kind: int) -> None:
    # Many blocks of rows (block boundaries inside the board), several steps.
    rng = np.random.default_rng(L + kind)
    X, W, cl = _board(rng, L, Q, [0.3, 1.0, 2.0, 0.5][kind], kind)
    _same(X, W, cl, 0.95)


def test_equal_past_2000_models() -> None:
    # The old code, run here on a board it would have handed to Holm.
    rng = np.random.default_rng(26)
    X, W, cl = _board(rng, 2300, 25, 1.0, 1)
    _same(X, W, cl, 0.95)


def test_missing_questions_still_give_holms_ranges_with_a_note() -> None:
    rng = np.random.default_rng(3)
    X, _, _ = _board(rng, 30, 40, 1.0, 1)
    W = rng.random(X.shape) > 0.1
    got = rank_sets(np.where(W, X, 0.0), W, None, [str(i) for i in range(30)], 0.95, "simultaneous")
    holm = rank_sets(np.where(W, X, 0.0), W, None, [str(i) for i in range(30)], 0.95, "holm")
    assert got.adjust == "holm" and "every model on every question" in got.note
    assert got.lo.tolist() == holm.lo.tolist() and got.hi.tolist() == holm.hi.tolist()


@pytest.mark.parametrize("seed", range(20))
def test_histogram_bounds_hold_the_counts(seed: int) -> None:
    rng = np.random.default_rng(seed)
    u_star = float(rng.choice([1.3859, 0.3, 2.5]))
    u = np.concatenate([u_star + rng.exponential(float(rng.choice([0.01, 1.0, 5.0])), 3000),
                        np.full(int(rng.integers(0, 5)), np.inf), np.full(3, u_star)])
    sketch = sim.Sketch(u_star)
    sketch.add(u[:1000])
    sketch.add(u[1000:])
    for c in [*rng.choice(u[np.isfinite(u)], 20) * np.sqrt(2.0), 0.0, 1e300]:
        lo, hi = sketch.bounds(sim._above(float(c)))
        assert lo <= int(np.count_nonzero(u * np.sqrt(2.0) > c)) <= hi
    for level in [1e-300, 1e-12, 1e-5, 0.01, 0.2]:
        lo, hi = sketch.bounds(sim._below(level))
        from math import erfc

        assert lo <= sum(erfc(x) < level for x in u.tolist()) <= hi


@pytest.mark.parametrize("seed", range(6))
def test_kernel_maxima_are_the_numpy_loops(seed: int) -> None:
    # The numpy loop the kernel replaced (float32: subtract, abs, multiply, max), on a block with
    # left-out pairs, an infinite weight on equal estimates (NaN, as numpy's 0 * inf) and tiny weights.
    rng = np.random.default_rng(seed)
    L, D = int(rng.integers(2, 300)), int(rng.integers(1, 260))
    a = int(rng.integers(0, L))
    rows = int(rng.integers(1, L - a + 1))
    Z = rng.normal(size=(L, D)).astype(np.float32)
    inv = (rng.random((rows, L - a)) * 10).astype(np.float32)
    inv[rng.random(inv.shape) < 0.3] = 0.0
    inv[rng.random(inv.shape) < 0.01] = 1e-40
    if seed % 2 and L - a > 1 and rows > 0:  # (model a + 1 equal to model a on 3 draws, weight +inf)
        Z[a + 1, :3] = Z[a, :3]
        inv[0, 1] = np.inf
    want = np.full(D, 0.25, np.float32)
    for r in range(rows):
        keep = np.flatnonzero(inv[r])
        if keep.size:
            d = Z[a + keep] - Z[a + r]
            np.abs(d, out=d)
            with np.errstate(invalid="ignore"):
                d *= inv[r, keep][:, None]
            np.maximum(want, d.max(axis=0), out=want)
    got = _kscore.max_t_block(Z, inv, a, a, np.full(D, 0.25, np.float32))
    assert np.array_equal(got.view(np.int32), want.view(np.int32))


def test_no_testable_pair() -> None:
    # One question (no standard error) or one cluster: no pair is tested, no set narrows.
    X = np.array([[1.0], [0.0], [0.5]])
    got = rank_sets(X, np.ones_like(X, bool), None, ["a", "b", "c"], 0.95, "simultaneous")
    assert (got.t_crit, got.p_crit, got.lo.tolist(), got.hi.tolist()) == (None, None, [1, 1, 1], [3, 3, 3])
    X = np.array([[1.0, 1, 1], [0, 0, 0]])
    got = rank_sets(X, np.ones_like(X, bool), np.zeros(3, np.int64), ["a", "b"], 0.95, "simultaneous")
    assert (got.t_crit, got.lo.tolist(), got.hi.tolist()) == (None, [1, 1], [2, 2])


def test_examples() -> None:
    result = doctest.testmod(sim, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_pairs_are_full_grids_only() -> None:
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    W = np.array([[True, False], [True, True]])
    with pytest.raises(ValueError, match="every model on every question"):
        sim.simultaneous(Pairs(X, W, None), 0.05, 1.386)
