"""The simultaneous rank sets without held pairs (kscore.leaderboard.stats.simultaneous)
decide as the code they replaced, kept verbatim in tests/simultaneous_oracle.py:
the same critical value ``t_crit`` and Holm ``p_crit`` (bit for bit) and the
same ranges, on random full grids up to 2 000 models (near-ties, duplicated
models, clusters, several confidence levels), also with the histogram made
so coarse that nearly every count needs its exact sweep, and past 2 000
models (where the old code was not run on the board: Holm's ranges stood
in), with the step-down run to its end (issue 36) and stopped early past
``STEP_DOWN_MAX``. The histogram's bounds hold the exact counts; the kernel's maxima are
the numpy loop's."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from kscore import _kscore
from kscore.leaderboard.stats import simultaneous as sim
from kscore.leaderboard.stats.pair_tests import u_threshold
from kscore.leaderboard.stats.pairs import Pairs
from kscore.leaderboard.stats.ranges import rank_sets
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
    assert got.adjust == "simultaneous"
    # (past STEP_DOWN_MAX models the step-down ends early, and --verbose says so)
    assert ("ends at a step that rejects under a tenth" in got.note) == (len(X) > sim.STEP_DOWN_MAX)
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


@pytest.mark.parametrize("step_down_max", [10_000, 2_000])
def test_equal_past_2000_models(step_down_max: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # The old code, run here on a board it would have handed to Holm; with the step-down
    # to its end, and (STEP_DOWN_MAX lowered) stopped at a step rejecting under a tenth.
    monkeypatch.setattr(sim, "STEP_DOWN_MAX", step_down_max)
    rng = np.random.default_rng(26)
    X, W, cl = _board(rng, 2300, 25, 1.0, 1)
    _same(X, W, cl, 0.95)


def _reference_partial(X: np.ndarray, W: np.ndarray, confidence: float) -> tuple[float | None, list[int], list[int]]:
    """The step-down max-t on a board with missing questions from its
    definition, pair by pair on the raw estimates: ``T*_ij = sum_q g_q e_q /
    sqrt(sum_q e_q^2)`` over the questions both have (``e_q``: the paired
    differences less their mean ``d``), ``|t| = |d| / sqrt(sum_q e_q^2 / (n
    (n - 1)))`` (held), Holm's rejections kept; the ranges."""
    from math import ceil, sqrt

    from kscore._interval import z_value
    from kscore.leaderboard.stats.intervals import holm, p_two_sided

    L, Q = X.shape
    alpha = 1 - confidence
    G = np.random.default_rng(sim.SEED).standard_normal((Q, sim.DRAWS)).T
    pairs, tabs, tstar, diff = [], [], [], {}
    for i in range(L):
        for j in range(i + 1, L):
            S = W[i] & W[j]
            n = int(S.sum())
            if n < 2:
                continue  # (no standard error: untested)
            e = (X[i] - X[j])[S]
            diff[i, j] = d = float(e.mean())
            e = e - d
            ss = float(e @ e)
            # (constant differences, e = 0 exactly on these quarter-valued scores: T* = 0)
            tstar.append(np.abs(G[:, S] @ e) / sqrt(ss) if ss > 0 else np.zeros(sim.DRAWS))
            tabs.append(abs(d) / sqrt(ss / (n * (n - 1))) if ss > 0 else (0.0 if d == 0 else np.inf))
            pairs.append((i, j))
    m = len(pairs)
    tabs_a = np.array(tabs)
    p = p_two_sided(tabs_a) if m else np.zeros(0)
    holm_sig = holm(p) < alpha if m else np.zeros(0, bool)
    floor = float(np.nextafter(u_threshold(alpha) * sqrt(2.0), 0.0))
    k = min(sim.DRAWS, ceil(confidence * (sim.DRAWS + 1))) - 1
    c_prev, done, t_crit = np.inf, 0, None
    while m:
        fam = [s for s in range(m) if tabs_a[s] <= c_prev]
        mx = np.max([tstar[s] for s in fam], axis=0) if fam else np.zeros(sim.DRAWS)
        c = max(min(float(np.sort(mx)[k]), z_value(1 - alpha / (m - done))), floor)
        now = int(np.count_nonzero((p < alpha) & (tabs_a > c)))
        if now == m or now == done:  # (to the end: a step that rejects nothing new; issue 36)
            t_crit = c if now else None
            break
        c_prev, done = c, now
    better, worse = np.zeros(L, int), np.zeros(L, int)
    for s, (i, j) in enumerate(pairs):
        if (holm_sig[s] or (t_crit is not None and tabs_a[s] > t_crit)) and tabs_a[s] > 0:
            if diff[i, j] > 0:
                worse[i] += 1
                better[j] += 1
            else:
                better[i] += 1
                worse[j] += 1
    return t_crit, (better + 1).tolist(), (L - worse).tolist()


@pytest.mark.parametrize("seed", range(16))
def test_missing_questions_as_defined(seed: int) -> None:
    # With missing questions (no clusters) the sets are made too: equal to their
    # definition, pair by pair (critical value to rounding, the same ranges).
    rng = np.random.default_rng(700 + seed)
    L, Q = int(rng.integers(3, 30)), int(rng.integers(3, 80))
    X, _, _ = _board(rng, L, Q, float(rng.choice([0.3, 1.0, 3.0])), 2 * seed + 1)
    W = rng.random(X.shape) > float(rng.choice([0.1, 0.4, 0.8]))
    X = np.where(W, X, 0.0)
    for confidence in (0.95, 0.8):
        got = rank_sets(X.copy(), W, None, [str(i) for i in range(L)], confidence, "simultaneous")
        t_crit, lo, hi = _reference_partial(X, W, confidence)
        assert got.adjust == "simultaneous" and not got.note
        assert (got.t_crit is None) == (t_crit is None)
        if t_crit is not None:
            assert got.t_crit == pytest.approx(t_crit, rel=1e-9)
        assert got.lo.tolist() == lo and got.hi.tolist() == hi


def test_past_the_caps_or_missing_questions_in_clusters_holms_ranges(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    X, _, _ = _board(rng, 30, 40, 1.0, 1)
    W = rng.random(X.shape) > 0.1
    X = np.where(W, X, 0.0)
    models = [str(i) for i in range(30)]
    holm = rank_sets(X.copy(), W, None, models, 0.95, "holm")
    got = rank_sets(X.copy(), W, rng.integers(0, 8, 40), models, 0.95, "simultaneous")
    assert got.adjust == "holm" and "without clusters" in got.note
    monkeypatch.setattr(sim, "PARTIAL_MAX", 30 * 30 * 40 - 1)
    got = rank_sets(X.copy(), W, None, models, 0.95, "simultaneous")
    assert got.adjust == "holm" and "30 models x 40 questions" in got.note
    assert got.lo.tolist() == holm.lo.tolist() and got.hi.tolist() == holm.hi.tolist()
    X, W, _ = _board(rng, 30, 40, 1.0, 1)
    monkeypatch.setattr(sim, "FULL_MAX", 29)
    got = rank_sets(X.copy(), W, None, models, 0.95, "simultaneous")
    assert got.adjust == "holm" and "at most 29 models" in got.note
    holm = rank_sets(X.copy(), W, None, models, 0.95, "holm")
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


def test_missing_questions_in_clusters_are_refused() -> None:
    X = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    W = np.array([[True, False, True], [True, True, True]])
    with pytest.raises(ValueError, match="without clusters"):
        sim.simultaneous(Pairs(X, W, np.array([0, 1, 1])), 0.05, 1.386)


@pytest.mark.parametrize("seed", range(3))
def test_many_blocks(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # A few rows a block: every block boundary inside the board, on both the
    # full grid (against the frozen code) and with missing questions (against the definition).
    from kscore.leaderboard.stats import pairs

    monkeypatch.setattr(pairs, "BLOCK", 7 * (seed + 1) * 60)
    rng = np.random.default_rng(900 + seed)
    X, W, cl = _board(rng, 60, 30, 1.0, seed)
    _same(X, W, cl, 0.95)
    W = rng.random(X.shape) > 0.3
    X = np.where(W, X, 0.0)
    got = rank_sets(X.copy(), W, None, [str(i) for i in range(60)], 0.95, "simultaneous")
    t_crit, lo, hi = _reference_partial(X, W, 0.95)
    assert got.t_crit == pytest.approx(t_crit, rel=1e-9)
    assert got.lo.tolist() == lo and got.hi.tolist() == hi


def test_coverage_with_missing_questions() -> None:
    # tests/test_rank_coverage.py's boards (8 models in three groups of near-ties, 300 questions
    # drawn afresh, 4 samples, 200 boards) with a fifth of the (model, question) cells missing at
    # random: the sets with missing questions hold jointly at least 93% at 95%, no wider than Holm's.
    from tests.test_rank_coverage import ABILITY, BOARDS, QUESTIONS, SAMPLES, _difficulty, _true_ranks

    true = _true_ranks(False)
    rng = np.random.default_rng(3)
    hits = {a: 0 for a in ("none", "holm", "simultaneous")}
    width = {a: 0.0 for a in hits}
    models = [str(i) for i in range(len(ABILITY))]
    for _ in range(BOARDS):
        d = _difficulty(rng, QUESTIONS, False)
        p = 1 / (1 + np.exp(-(ABILITY[:, None] - d[None, :])))
        X = rng.binomial(SAMPLES, p) / SAMPLES
        W = rng.random(X.shape) > 0.2
        X = np.where(W, X, 0.0)
        order = np.argsort(-(X.sum(axis=1) / W.sum(axis=1)), kind="stable")
        for adjust in hits:
            sets = rank_sets(X[order], W[order], None, [models[i] for i in order], 0.95, adjust)
            assert sets.adjust == adjust
            t = true[order]
            hits[adjust] += bool(np.all((sets.lo <= t) & (t <= sets.hi)))
            width[adjust] += float(np.mean(sets.hi - sets.lo)) / BOARDS
    print("\nmissing questions (20%), " + "; ".join(
        f"{a}: coverage {hits[a] / BOARDS:.1%}, mean width {width[a]:.2f}" for a in hits))
    assert hits["simultaneous"] / BOARDS >= 0.93
    assert width["simultaneous"] <= width["holm"] + 1e-12


def test_past_the_step_down_cap_the_board_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    # Past STEP_DOWN_MAX models the step-down ends at a step rejecting under a tenth of the
    # pairs left (as before issue 36) and the board's notes (printed unless --quiet) say so.
    from kscore.leaderboard import from_cells

    rng = np.random.default_rng(8)
    X, _, _ = _board(rng, 12, 30, 1.0, 1)
    m, q = np.nonzero(np.ones_like(X, bool))
    k = (X[m, q] * 4).astype(np.int64)
    counts = from_cells([f"m{i}" for i in range(12)], [f"q{j}" for j in range(30)], m.astype(np.int64),
                        q.astype(np.int64), np.stack([4 - k, k], axis=1))
    import kscore

    assert not any("step-down" in n for n in kscore.leaderboard(counts, adjust="simultaneous").notes)
    monkeypatch.setattr(sim, "STEP_DOWN_MAX", 11)
    notes = kscore.leaderboard(counts, adjust="simultaneous").notes
    assert any("over 11 models: the step-down max-t ends at a step that rejects under a tenth" in n for n in notes)
