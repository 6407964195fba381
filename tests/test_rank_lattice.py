"""The rank ranges of a lattice board (every estimate a count over the same
samples) counted in the core (rust/kscore-core/src/rank/lattice.rs, via
stats/folded.py's ``_folded_lattice``) equal a brute-force all-pairs
reference written here (each pair's paired t test, its two-sided p-value,
Holm's step-down over every pair) and the numpy tiles the core replaces,
on small boards forced onto the core's path: near-ties, clusters of equal
abilities, duplicated models, ragged samples (a common denominator),
several confidence levels; unadjusted and Holm (and simultaneous falling
back to Holm where it refuses a board)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from kscore import _kscore
from kscore.leaderboard.stats import folded as folded_mod
from kscore.leaderboard.stats import pairs as pairs_mod
from kscore.leaderboard.stats import ranges as ranges_mod
from kscore.leaderboard.stats import simultaneous as simultaneous_mod
from kscore.leaderboard.stats.ranges import rank_sets


def _board(rng: np.random.Generator, L: int, Q: int, kind: int) -> np.ndarray:
    """Models x questions of estimates c / n: kind 0 near-ties (a few
    abilities), 1 clusters of identical models, 2 ragged samples (1 to 6
    per model: denominators differ, their common one is at most 60), 3
    spread abilities."""
    spread = 0.05 if kind == 0 else 1.0
    ability = rng.normal(0, spread, L)
    if kind == 0:
        ability = np.round(ability * 2) / 2
    p = 1 / (1 + np.exp(-(ability[:, None] - rng.normal(0, 1, Q))))
    n = rng.integers(1, 7, L)[:, None] if kind == 2 else np.full((L, 1), int(rng.integers(1, 9)))
    X: np.ndarray = rng.binomial(n, p) / n
    if kind == 1:
        for i in range(1, L, 3):  # (groups of identical rows: t = 0 / 0 within a group)
            X[i] = X[i - 1]
    return X


def _reference(X: np.ndarray, confidence: float, adjust: str) -> tuple[list[int], list[int]]:
    """Each pair's paired t test from its own differences (float64, one pair
    at a time), p = erfc(|t| / sqrt 2), significant where p < alpha
    (unadjusted) or Holm's adjusted p-value (the running maximum of (m - k)
    p_(k)) is below alpha; the ranges from the counts."""
    L, Q = X.shape
    alpha = 1.0 - confidence
    tests = []
    for i in range(L):
        for j in range(i + 1, L):
            d = X[i] - X[j]
            mean = d.sum() / Q
            ss = float(((d - mean) ** 2).sum())
            se = math.sqrt(ss / (Q * (Q - 1)))
            t = mean / se if se > 0 else (0.0 if mean == 0 else math.copysign(math.inf, mean))
            tests.append((math.erfc(abs(t) / math.sqrt(2.0)), i, j, mean))
    sig = []
    if adjust == "none":
        sig = [(i, j, mean) for p, i, j, mean in tests if p < alpha]
    else:
        m = len(tests)
        running = 0.0
        for k, (p, i, j, mean) in enumerate(sorted(tests, key=lambda x: x[0])):
            running = max(running, (m - k) * p)
            if running >= alpha:
                break
            sig.append((i, j, mean))
    better = [0] * L
    worse = [0] * L
    for i, j, mean in sig:
        hi, lo = (i, j) if mean > 0 else (j, i)
        worse[hi] += 1
        better[lo] += 1
    return [b + 1 for b in better], [L - w for w in worse]


@pytest.fixture
def on_the_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small boards take the core's lattice count (not the Gram matrix)."""
    monkeypatch.setattr(folded_mod, "USE_LATTICE", True)
    monkeypatch.setattr(folded_mod, "LATTICE_MODELS", 2)
    monkeypatch.setattr(pairs_mod, "GRAM_MODELS", 0)


def _sets(X: np.ndarray, confidence: float, adjust: str) -> tuple[list[int], list[int], float | None, str]:
    r = rank_sets(X.copy(), np.ones(X.shape, bool), None, [f"m{i}" for i in range(len(X))], confidence, adjust)
    return r.lo.tolist(), r.hi.tolist(), r.p_crit, r.adjust


@pytest.mark.parametrize("seed", range(24))
def test_the_core_count_equals_all_pairs_and_the_tiles(seed: int, on_the_core: None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    L, Q = int(rng.integers(3, 70)), int(rng.integers(2, 30))
    X = _board(rng, L, Q, seed % 4)
    assert folded_mod.lattice(X) is not None  # (the path under test is taken)
    called: list[int] = []
    real = _kscore.lattice_count

    def spy(*args: Any) -> Any:
        called.append(1)
        return real(*args)

    monkeypatch.setattr(_kscore, "lattice_count", spy)
    for confidence in (0.95, 0.9, 0.99):
        for adjust in ("none", "holm"):
            got = _sets(X, confidence, adjust)
            assert called, "the core's count was not used"
            called.clear()
            assert got[:2] == _reference(X, confidence, adjust), (L, Q, confidence, adjust)
            with monkeypatch.context() as m:  # the numpy tiles it replaces: the same ranges and Holm level
                m.setattr(ranges_mod, "lattice", lambda X: None)
                assert _sets(X, confidence, adjust) == got


@pytest.mark.parametrize("seed", range(4))
def test_large_board_counts_equal_the_tiles(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past LATTICE_MODELS models (float32 tiles and their listed pairs on few
    questions, float64 tiles on more): the same ranges with and without the
    core; simultaneous refused (past a lowered size limit) falls back to Holm's."""
    monkeypatch.setattr(folded_mod, "USE_LATTICE", True)
    monkeypatch.setattr(simultaneous_mod, "FULL_MAX", 1000)
    rng = np.random.default_rng(100 + seed)
    L, Q = (2500, 12) if seed % 2 == 0 else (1300, 40)
    X = _board(rng, L, Q, seed % 4)
    for adjust in ("none", "holm", "simultaneous"):
        on = rank_sets(X.copy(), np.ones(X.shape, bool), None, [f"m{i}" for i in range(L)], 0.95, adjust)
        with monkeypatch.context() as m:
            m.setattr(ranges_mod, "lattice", lambda X: None)
            off = rank_sets(X.copy(), np.ones(X.shape, bool), None, [f"m{i}" for i in range(L)], 0.95, adjust)
        assert on.lo.tolist() == off.lo.tolist() and on.hi.tolist() == off.hi.tolist(), adjust
        assert (on.p_crit, on.t_crit, on.adjust, on.note) == (off.p_crit, off.t_crit, off.adjust, off.note)
        assert on.adjust == ("none" if adjust == "none" else "holm")


def test_lattice_reads_counts_to_the_bit() -> None:
    X = np.array([[0.25, 0.5], [1.0, 0.0]])
    C, N = folded_mod.lattice(X)  # type: ignore[misc]
    assert N == 4 and C.tolist() == [[1, 2], [4, 0]] and C.dtype == np.uint8
    assert folded_mod.lattice(np.array([[1 / 3, 2 / 3], [1.0, 0.0]]))[1] == 3  # type: ignore[index]
    assert folded_mod.lattice(np.array([[0.1234567, 0.5]])) is None
    assert folded_mod.lattice(np.array([[1 / 200, 0.5]])) is None  # (a denominator past 127)
    assert folded_mod.lattice(np.zeros((0, 3))) is None


def test_core_count_rejects_bad_arguments() -> None:
    C = np.array([[1, 2], [3, 4]], np.uint8)
    with pytest.raises(ValueError, match="reach"):
        _kscore.lattice_count(C, np.array([0, 2]), 1.0, 4.0, 0.0)
    with pytest.raises(ValueError, match="127"):
        _kscore.lattice_count(np.array([[1, 200], [3, 4]], np.uint8), np.array([2, 2]), 1.0, 4.0, 0.0)
    assert _kscore.lattice_tier() in ("avx512vnni", "portable")


def _p_values(X: np.ndarray) -> list[float]:
    """Every pair's two-sided p-value, from its own differences (as _reference)."""
    L, Q = X.shape
    out = []
    for i in range(L):
        for j in range(i + 1, L):
            d = X[i] - X[j]
            mean = d.sum() / Q
            ss = float(((d - mean) ** 2).sum())
            if ss > 0:
                out.append(math.erfc(abs(mean / math.sqrt(ss / (Q * (Q - 1)))) / math.sqrt(2.0)))
    return out


@pytest.mark.parametrize("seed", range(8))
def test_levels_at_pairs_own_p_values(seed: int, on_the_core: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Confidence levels put on pairs' own p-values (alpha = p, and a step
    either side): those pairs' F sits within rounding of 0, where the core
    lists them as near and the exact statistics decide: the same ranges as
    the brute-force reference (where its p and the level are not one
    rounding apart) and as the numpy tiles."""
    rng = np.random.default_rng(300 + seed)
    L, Q = int(rng.integers(20, 60)), int(rng.integers(3, 25))
    X = _board(rng, L, Q, seed % 4)
    ps = sorted({p for p in _p_values(X) if 1e-4 < p < 0.5})
    assert ps
    for p in [ps[k] for k in rng.choice(len(ps), min(4, len(ps)), replace=False)]:
        for alpha in (p, float(np.nextafter(p, 1.0)), p * (1 + 1e-12), p * (1 - 1e-12)):
            confidence = 1.0 - alpha
            for adjust in ("none", "holm"):
                got = _sets(X, confidence, adjust)
                with monkeypatch.context() as m:
                    m.setattr(ranges_mod, "lattice", lambda X: None)
                    assert _sets(X, confidence, adjust) == got, (p, alpha, adjust)
                # (the reference's p of a pair and 1 - confidence may differ by a rounding: compare off the edge)
                if all(abs(q - (1.0 - confidence)) > 1e-13 * q for q in ps):
                    assert got[:2] == _reference(X, confidence, adjust), (p, alpha, adjust)


def test_the_same_counts_at_every_thread_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """The core's count runs its bands on the pool: the same counts and near
    pairs (and so the same ranges) on 1, 2 and 3 threads, on a board of many
    models and few sums (panels of one sum and mixed ones, identical models)."""
    from kscore.leaderboard.runtime import threads

    monkeypatch.setattr(folded_mod, "USE_LATTICE", True)
    rng = np.random.default_rng(7)
    X = _board(rng, 3000, 6, 1)
    C, N = folded_mod.lattice(X)  # type: ignore[misc]
    order = np.argsort(-C.sum(axis=1, dtype=np.int64), kind="stable")
    Cs = np.ascontiguousarray(C[order])
    reach = np.full(len(Cs), len(Cs), np.int64)
    reach[::5] = np.minimum(np.arange(1, len(Cs) + 1, 5) + 700, len(Cs))
    Q = X.shape[1]
    t2 = 1.959963984540054 ** 2
    runs = []
    ranges = []
    try:
        for n in (1, 2, 3):
            threads.use(n)
            w, b, near = _kscore.lattice_count(Cs, reach, (Q - 1 + t2) / Q, t2, 1e-9)
            runs.append((w.tolist(), b.tolist(), near.tolist()))
            r = rank_sets(X.copy(), np.ones(X.shape, bool), None, [f"m{i}" for i in range(len(X))], 0.95)
            ranges.append((r.lo.tolist(), r.hi.tolist()))
    finally:
        threads.use(None)
    assert len(runs[0][2]) > 0 and sum(runs[0][0]) > 0  # (near pairs and significant ones both met)
    assert runs[0] == runs[1] == runs[2]
    assert ranges[0] == ranges[1] == ranges[2]
