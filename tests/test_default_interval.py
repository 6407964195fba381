"""The default interval over questions (kscore.leaderboard.stats.default_interval;
issue 36, docs/rankings.md *The default interval*):

* the leaderboard's bounds equal the coverage suite's array implementation
  of the same rule (tests/coverage_intervals.py: dense per-board arrays, every
  prefix of the envelope), on boards with and without clusters, ragged, for
  pass@k, maj@k and Bayes@N;
* coverage on a fast subset of the suite's families, through
  ``kscore.leaderboard`` itself (each model of one big board is one simulated
  board): at 95%, at least 93.5% over the models and 90% for every model;
* monotone and sane (hypothesis): adding one failure never moves the lower
  bound up by more than ``MONOTONE_TOL`` nor the width by more than
  ``WIDTH_LIPSCHITZ`` times the change it makes to the estimate plus the
  same tolerance; bounds within the metric's range around the estimate; a
  board with every answer right gets the binomial bound on its questions
  (the rule of three), a non-zero width.

The full suite (1,000 boards per family, every candidate) is
``python scripts/coverage.py``.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kscore
from kscore.leaderboard import Counts, from_cells
from kscore.leaderboard.stats import default_interval as di
from tests import coverage_intervals as ci
from tests.coverage_families import FAMILIES, HELD_OUT, Family, boards, estimates, truth

#: The most adding one failure may raise the lower bound (the largest seen in
#: a long search is 0.0054, on boards of three or four questions; the
#: continuity-corrected score on the effective counts is not exactly
#: monotone where the effective number of questions grows faster than the
#: estimate falls, docs/rankings.md).
MONOTONE_TOL = 0.01
#: The width moves by at most this many times the change one failure makes
#: to the estimate, plus MONOTONE_TOL (the first failure of an all-right board
#: moves it most: docs/rankings.md).
WIDTH_LIPSCHITZ = 12.0


def board_of(c: npt.NDArray[np.int64], n: npt.NDArray[np.int64]) -> Counts:
    """One Counts table whose models are the (board, model) pairs of the
    suite's arrays ``c``, ``n`` (boards, models, questions): each model its
    own board, the questions shared by id (so that clusters by position hold);
    missing cells (n = 0) left out."""
    B, L, Q = c.shape
    cc, nn = c.reshape(B * L, Q), n.reshape(B * L, Q)
    m, q = np.nonzero(nn > 0)
    k = cc[m, q]
    cats = np.stack([nn[m, q] - k, k], axis=1).astype(np.int64)
    return from_cells([f"m{i}" for i in range(B * L)], [f"q{j}" for j in range(Q)], m.astype(np.int64),
                      q.astype(np.int64), cats)


def with_cluster(counts: Counts, cluster: npt.NDArray[np.int64]) -> Counts:
    attrs: dict[str, list[str | None]] = {"passage": [f"g{int(g)}" for g in cluster]}
    return Counts(counts.models, counts.questions, counts.model, counts.question, counts.categories, attrs)


def leaderboard_bounds(fam: Family, c: npt.NDArray[np.int64], n: npt.NDArray[np.int64],
                       cluster: npt.NDArray[np.int64] | None, metric: str) -> tuple[npt.NDArray[np.float64], ...]:
    counts = board_of(c, n)
    if cluster is not None:
        counts = with_cluster(counts, cluster)
    board = kscore.leaderboard(counts, metrics=metric, cluster="passage" if cluster is not None else None,
                               adjust="none")
    B, L, _ = c.shape
    lo, hi, est = (np.full(B * L, np.nan) for _ in range(3))
    for r in board.rows:
        v = r.values[metric]
        i = int(r.model[1:])
        if v is not None:
            lo[i], hi[i], est[i] = v.lo, v.hi, v.estimate
    return lo.reshape(B, L), hi.reshape(B, L), est.reshape(B, L)


def family(name: str) -> Family:
    return next(f for f in FAMILIES if f.name == name)


@pytest.mark.parametrize("name,metric", [
    ("8 models x 40 questions, heterogeneous", "pass@2"),
    ("near the ceiling: 0.97-0.995, 30 x 4", "pass@1"),
    ("near 0: 0.005-0.03, 30 x 4", "maj@3"),
    ("10 clusters of 10, --cluster", "pass@4"),
    ("unequal clusters (40, 20, 10, 5, 5, 5, 5, 5, 3, 2), --cluster", "pass@1"),
    ("ragged 1-16 samples, 15% missing, 100 q", "bayes@N"),
    ("5 questions", "bayes@N"),
])
def test_leaderboard_equals_the_suites_implementation(name: str, metric: str) -> None:
    fam = family(name)
    chunk = next(boards(fam, 12, seed=3))
    lo, hi, est = leaderboard_bounds(fam, chunk.c, chunk.n, chunk.cluster, metric)
    x = np.where(chunk.n > 0, estimates(metric, chunk.c, chunk.n), np.nan)
    bounds: tuple[npt.NDArray[np.float64] | float, npt.NDArray[np.float64] | float] = (0.0, 1.0)
    if metric == "bayes@N":
        nmax = chunk.n.max(axis=-1).astype(np.float64)
        bounds = (1.0 / (nmax + 2.0), (nmax + 1.0) / (nmax + 2.0))
    u = ci.units(x, chunk.n, chunk.cluster, bounds)
    if metric == "bayes@N":
        u = ci.bayes_capped(u, chunk.n)
    ref_lo, ref_hi = ci.envelope(u, 0.95, core="wcc")
    np.testing.assert_allclose(est, u.mean, rtol=0, atol=1e-12)
    np.testing.assert_allclose(lo, ref_lo, rtol=0, atol=1e-9)
    np.testing.assert_allclose(hi, ref_hi, rtol=0, atol=1e-9)


#: (family, metric, boards): a fast subset of scripts/coverage.py's table.
COVERAGE = [
    ("8 models x 40 questions, heterogeneous", "pass@2", 300),
    ("near the ceiling: 0.97-0.995, 30 x 4", "pass@1", 300),
    ("near 0: 0.005-0.03, 30 x 4", "pass@4", 300),
    ("pass@4 on 40 x 8", "pass@4", 300),
    ("pass@k up to n: 40 x 8", "pass@8", 300),
    ("10 clusters of 10, --cluster", "pass@1", 300),
    ("5 questions", "maj@3", 300),
    ("skewed, 30 q", "bayes@N", 300),
]


@pytest.mark.parametrize("name,metric,n_boards", COVERAGE, ids=[f"{c[0][:24]}-{c[1]}" for c in COVERAGE])
def test_default_interval_covers(name: str, metric: str, n_boards: int) -> None:
    fam = family(name)
    chunk = next(boards(fam, n_boards, seed=11, chunk=n_boards))
    lo, hi, _ = leaderboard_bounds(fam, chunk.c, chunk.n, chunk.cluster, metric)
    tr = truth(fam, metric)
    hit = (lo - 1e-12 <= tr) & (tr <= hi + 1e-12)
    per_model = hit.mean(axis=0)
    assert hit.mean() >= 0.935, (hit.mean(), per_model)
    assert per_model.min() >= 0.90, per_model


def one_model(c: list[int], n: int, cluster: list[int] | None = None, metric: str = "pass@1") -> tuple[
        float, float, float]:
    cats = np.array([[n - x, x] for x in c], np.int64)
    counts = from_cells(["a"], [f"q{i}" for i in range(len(c))], np.zeros(len(c), np.int64),
                        np.arange(len(c), dtype=np.int64), cats)
    if cluster is not None:
        counts = with_cluster(counts, np.asarray(cluster, np.int64))
    board = kscore.leaderboard(counts, metrics=metric, cluster="passage" if cluster is not None else None)
    v = board.rows[0].values[metric]
    assert v is not None
    return v.estimate, v.lo, v.hi


def test_the_score_bound_equals_scipys_wilsoncc() -> None:
    from scipy.special import erfinv
    from scipy.stats import binomtest

    for x, n in ((0, 20), (10, 20), (20, 20), (1, 40), (39, 40), (3, 7), (15, 148), (1, 1), (0, 2)):
        for conf in (0.8, 0.95, 0.99):
            ref = binomtest(x, n).proportion_ci(conf, "wilsoncc")
            z = float(np.sqrt(2.0) * erfinv(conf))
            p, nn = np.array([x / n]), np.array([float(n)])
            assert float(di.wilson_cc(p, nn, z, False)[0]) == pytest.approx(ref.low, abs=1e-12)
            assert float(di.wilson_cc(p, nn, z, True)[0]) == pytest.approx(ref.high, abs=1e-12)


def test_every_answer_right_gets_the_rule_of_three() -> None:
    for q, k in ((30, 4), (100, 1), (12, 16)):
        est, lo, hi = one_model([k] * q, k)
        z = 1.959963984540054
        assert est == 1.0 and hi == 1.0
        # the continuity-corrected Wilson bound at q all-right outcomes, below Clopper-Pearson's (0.025^(1/q))
        assert lo == pytest.approx(float(di.wilson_cc(np.array([1.0]), np.array([float(q)]), z, False)[0]), abs=1e-12)
        assert 1.0 - 5.0 / q < lo < 0.025 ** (1.0 / q)
    # clusters: the units are the clusters
    est, lo, hi = one_model([4] * 30, 4, [i // 3 for i in range(30)])
    assert lo == pytest.approx(float(di.wilson_cc(np.array([1.0]), np.array([10.0]), 1.959963984540054, False)[0]))
    # and the mirror: nothing right
    est, lo, hi = one_model([0] * 30, 4)
    assert (est, lo) == (0.0, 0.0) and 1.0 - 0.025 ** (1.0 / 30) < hi < 5.0 / 30


@st.composite
def small_boards(draw: st.DrawFn) -> tuple[list[int], int, list[int] | None, str]:
    q = draw(st.integers(2, 12))
    k = draw(st.integers(1, 8))
    mode = draw(st.sampled_from(["any", "top", "bottom"]))
    elems = {"any": st.integers(0, k), "top": st.sampled_from([k, k, k, max(k - 1, 0), 0]),
             "bottom": st.sampled_from([0, 0, 0, min(1, k), k])}[mode]
    c = draw(st.lists(elems, min_size=q, max_size=q))
    cluster = None
    if draw(st.booleans()) and q >= 4:
        g = draw(st.sampled_from([d for d in range(2, q) if q % d == 0] or [q]))
        cluster = [i // (q // g) for i in range(q)]
    metric = draw(st.sampled_from(["pass@1", f"pass@{max(1, k // 2)}", f"pass@{k}", f"maj@{k}", "bayes@N"]))
    return c, k, cluster, metric


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_boards(), st.data())
def test_one_more_failure_never_raises_the_lower_bound(board: tuple[list[int], int, list[int] | None, str],
                                                       data: st.DataObject) -> None:
    c, k, cluster, metric = board
    est, lo, hi = one_model(c, k, cluster, metric)
    assert 0.0 <= lo <= est <= hi <= 1.0
    assert hi - lo > 0  # never a zero width
    right = [i for i, x in enumerate(c) if x > 0]
    if not right:
        return
    i = data.draw(st.sampled_from(right))
    c2 = list(c)
    c2[i] -= 1
    est2, lo2, hi2 = one_model(c2, k, cluster, metric)
    assert est2 <= est
    assert lo2 <= lo + MONOTONE_TOL, (lo, lo2)
    assert abs((hi2 - lo2) - (hi - lo)) <= WIDTH_LIPSCHITZ * (est - est2) + MONOTONE_TOL, (lo, hi, lo2, hi2)
    # and the mirror: one more success never lowers the upper bound
    wrong = [j for j, x in enumerate(c) if x < k]
    if wrong:
        j = data.draw(st.sampled_from(wrong))
        c3 = list(c)
        c3[j] += 1
        _, _, hi3 = one_model(c3, k, cluster, metric)
        assert hi3 >= hi - MONOTONE_TOL, (hi, hi3)


def test_the_interval_moves_no_more_than_the_stated_amount_on_the_suites_boards() -> None:
    """The same property measured on realistic boards (the suite's, 8 models,
    40 questions and the near-ceiling one): every single failure added."""
    worst = 0.0
    for name in ("8 models x 40 questions, heterogeneous", "near the ceiling: 0.97-0.995, 30 x 4"):
        fam = family(name)
        chunk = next(boards(fam, 6, seed=5))
        c, n = chunk.c[:, :3], chunk.n[:, :3]
        for b in range(c.shape[0]):
            for mdl in range(c.shape[1]):
                cc = c[b, mdl].tolist()
                base = one_model(cc, int(n[b, mdl, 0]))
                for i in [j for j, x in enumerate(cc) if x > 0][:10]:
                    c2 = list(cc)
                    c2[i] -= 1
                    worst = max(worst, one_model(c2, int(n[b, mdl, 0]))[1] - base[1])
    assert worst <= MONOTONE_TOL
    assert math.isfinite(worst)


@pytest.mark.parametrize("n", [[4] * 10, [1] * 12, [1, 2, 3, 5, 8, 8, 2, 1], [16, 1, 1, 7, 3], [2, 2, 3]])
def test_bayes_cap_is_the_least_outcomes_the_answers_allow(n: list[int]) -> None:
    """Bayes@N's cap on ``n*`` (default_interval.bayes_answers) against its
    definition, by enumeration: over every chance ``p`` of the answers (the
    same on every question: the least variance a board can have), the
    effective outcomes ``P (1 - P) / Var`` of the mean of the questions'
    rescaled posterior means ``(c + 1) / (n + 2)``, ``c ~ Binomial(n, p)``;
    the cap is its least value (at ``p = 1/2``) and never above it."""
    N = max(n)
    lo_b, span = 1.0 / (N + 2), N / (N + 2)
    ratios = []
    for p in [0.001, 0.01, 0.1, 0.3, 0.45, 0.5, 0.55, 0.7, 0.9, 0.99, 0.999]:
        P = var = 0.0
        for ni in n:
            pmf = [math.comb(ni, c) * p**c * (1 - p) ** (ni - c) for c in range(ni + 1)]
            x = [((c + 1) / (ni + 2) - lo_b) / span for c in range(ni + 1)]
            m1 = sum(w * v for w, v in zip(pmf, x))
            m2 = sum(w * v * v for w, v in zip(pmf, x))
            P += m1 / len(n)
            var += (m2 - m1 * m1) / len(n) ** 2
        ratios.append(P * (1 - P) / var)
    q = np.array([float(len(n))])
    cap = float(di.bayes_answers(q, np.array([float(di.bayes_cost(np.array(n, np.float64), 2).sum())]),
                                 np.array([float(N)]), 2)[0])
    assert cap == pytest.approx(min(ratios), rel=1e-9)
    assert cap == pytest.approx(ratios[5], rel=1e-9)  # at p = 1/2
    if len(set(n)) == 1:  # every question answered N times: the count of the answers
        assert cap == pytest.approx(float(sum(n)), rel=1e-12)


def test_bayes_cap_reaches_the_leaderboard() -> None:
    """The leaderboard's Bayes@N interval on a ragged board uses the cap of
    the answers' information: the suite's array implementation with that cap
    gives its bounds, and with the count of the answers other (wider) ones."""
    fam = next(f for f in HELD_OUT if "ragged 1-8" in f.name)
    chunk = next(boards(fam, 40, seed=4))
    lo, hi, _ = leaderboard_bounds(fam, chunk.c, chunk.n, chunk.cluster, "bayes@N")
    x = np.where(chunk.n > 0, estimates("bayes@N", chunk.c, chunk.n), np.nan)
    nmax = chunk.n.max(axis=-1).astype(np.float64)
    u = ci.units(x, chunk.n, chunk.cluster, (1.0 / (nmax + 2.0), (nmax + 1.0) / (nmax + 2.0)))
    capped = ci.bayes_capped(u, chunk.n)
    assert (capped.samples > u.samples).mean() > 0.9
    ref_lo, ref_hi = ci.envelope(capped, 0.95, core="wcc")
    np.testing.assert_allclose(lo, ref_lo, rtol=0, atol=1e-9)
    np.testing.assert_allclose(hi, ref_hi, rtol=0, atol=1e-9)
    old_lo, old_hi = ci.envelope(u, 0.95, core="wcc")
    assert np.nanmean(old_hi - old_lo) > np.nanmean(hi - lo)


def _bounds_of(counts: Counts, metric: str, interval: str) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    board = kscore.leaderboard(counts, metrics=metric, interval=interval, adjust="none")
    lo, hi = np.full(len(counts.models), np.nan), np.full(len(counts.models), np.nan)
    for r in board.rows:
        v = r.values[metric]
        if v is not None:
            lo[int(r.model[1:])], hi[int(r.model[1:])] = v.lo, v.hi
    return lo, hi


@pytest.mark.parametrize("interval", ["questions", "posterior", "answers"])
def test_one_cap_for_every_interval(interval: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default interval, ``interval="posterior"`` and
    ``interval="answers"`` cap Bayes@N's effective outcomes with one
    function (default_interval.answers_cap), whose value is the cap of the
    definition (tests/coverage_intervals.py's ``bayes_capped``, written apart):
    on a ragged board (1-8 answers a question) above the count of the
    answers, and on a board where every question has its N answers the
    count itself, exactly. Swapping the function for the count moves the
    ragged board's intervals and leaves the full board's bit for bit."""
    from kscore.leaderboard.stats import answers as answers_mod
    from kscore.leaderboard.stats import metrics as metrics_mod

    calls: list[tuple[str, npt.NDArray[np.float64], npt.NDArray[np.float64]]] = []

    def spy(kind: str, samples: npt.NDArray[np.float64], *args: object) -> npt.NDArray[np.float64]:
        out = di.answers_cap(kind, samples, *args)  # type: ignore[arg-type]
        calls.append((kind, samples.copy(), out.copy()))
        return out

    def count(kind: str, samples: npt.NDArray[np.float64], *args: object) -> npt.NDArray[np.float64]:
        return samples

    module = answers_mod if interval == "answers" else metrics_mod
    ragged = next(boards(next(f for f in HELD_OUT if "ragged 1-8" in f.name), 30, seed=5))
    full_fam = family("8 models x 40 questions, heterogeneous")
    full = next(boards(full_fam, 30, seed=6))
    for chunk, is_full in ((ragged, False), (full, True)):
        counts = board_of(chunk.c, chunk.n)
        calls.clear()
        monkeypatch.setattr(module, "answers_cap", spy)
        lo, hi = _bounds_of(counts, "bayes@N", interval)
        monkeypatch.setattr(module, "answers_cap", count)
        lo_n, hi_n = _bounds_of(counts, "bayes@N", interval)
        monkeypatch.undo()
        assert [k for k, _, _ in calls] == ["bayes"]
        _, samples, cap = calls[0]
        B, L, Q = chunk.c.shape
        nn = np.where(chunk.n > 0, chunk.n, 0).reshape(B * L, Q).astype(np.float64)
        x = np.where(nn > 0, 0.5, np.nan)
        u = ci.units(x.reshape(B, L, Q), chunk.n, None, (0.0, 1.0))
        want = ci.bayes_capped(u, chunk.n).samples.reshape(-1)
        assert np.array_equal(samples, nn.sum(axis=1))
        if is_full:
            assert (chunk.n == chunk.n.max()).all()
            assert np.array_equal(cap, samples)  # (the count, exactly)
            np.testing.assert_allclose(want, samples, rtol=1e-12)
            assert np.array_equal(lo, lo_n, equal_nan=True) and np.array_equal(hi, hi_n, equal_nan=True)
        else:
            np.testing.assert_allclose(cap, want, rtol=1e-12)
            assert (cap > samples).mean() > 0.9
            moved = ~np.isclose(hi - lo, hi_n - lo_n, rtol=1e-9, atol=0)
            assert moved.mean() > 0.2
