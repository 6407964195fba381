"""kscore.rank's voting, graph and pairwise rankers against scorio.rank 0.2.3.

Every name, every tie rule, every option value, on random boards with exact
ties (duplicated models, a model with two questions swapped), all-equal
models, all-zero and all-one boards, one question, one trial and two
models: the same ranks (values and dtype) and the same scores (bit for bit
for the counts and voting rules, 1e-12 for the closed forms). Where scorio
iterates to a tolerance (pagerank, alpharank, rank_centrality) kscore
returns the exact fixed point: it equals scorio run to convergence to
1e-12, and scorio's defaults to their documented distance; mpmath at 50
digits checks the fixed points themselves. Bad input raises scorio's
exception type and message.
"""

from __future__ import annotations

import doctest
from typing import Any

import mpmath
import numpy as np
import pytest
from scorio import rank as sr
from scorio.rank import _base as scorio_base
from scorio.rank import voting as scorio_voting
from scorio.utils import rank_scores as scorio_rank_scores

import kscore.rank as kr
from kscore import _kscore
from kscore.rank import _board, _graph, _hodge_rank, _kemeny, _pointwise, _rank_centrality, _serial_rank, _voting

from .conftest import outcome, same_error

METHODS = ["competition", "competition_max", "dense", "avg"]


def tensor(rng: np.random.Generator, L: int, M: int, N: int) -> np.ndarray:
    """Models of varied skill on questions of varied ease; the last model a
    copy of the first, the second-to-last the second with its questions
    reversed (the same total, other rows)."""
    skill = rng.uniform(0.1, 0.9, size=(L, 1, 1))
    ease = rng.uniform(-0.3, 0.3, size=(1, M, 1))
    R = (rng.random((L, M, N)) < np.clip(skill + ease, 0, 1)).astype(np.int64)
    if L >= 3:
        R[L - 1] = R[0]
    if L >= 4 and M >= 2:
        R[L - 2] = R[1][::-1]
    return R


SHAPES = [(2, 1, 1), (2, 6, 3), (3, 1, 5), (3, 5, 1), (5, 12, 4), (8, 30, 6), (12, 40, 2), (7, 9, 16)]


def boards() -> list[tuple[str, np.ndarray]]:
    out = []
    for shape in SHAPES:
        for seed in range(3):
            rng = np.random.default_rng([seed, *shape])
            out.append((f"{shape}-{seed}", tensor(rng, *shape)))
    rng = np.random.default_rng(7)
    row = (rng.random((6, 3)) < 0.5).astype(np.int64)
    out.append(("all-equal", np.broadcast_to(row, (5, 6, 3)).copy()))
    out.append(("all-zero", np.zeros((4, 5, 2), dtype=np.int64)))
    out.append(("all-one", np.ones((3, 4, 2), dtype=np.int64)))
    out.append(("2-D", (rng.random((6, 20)) < 0.5).astype(np.int64)))
    out.append(("bool", rng.random((5, 8, 3)) < 0.6))
    out.append(("float", (rng.random((4, 8, 2)) < 0.4).astype(np.float32)))
    out.append(("uint8 fortran", np.asfortranarray((rng.random((6, 9, 3)) < 0.5).astype(np.uint8))))
    return out


BOARDS = boards()


def run(fn: Any, R: Any, method: str, **kw: Any) -> Any:
    return fn(R, method=method, return_scores=True, **kw)


def check(name: str, R: Any, atol: float | None, **kw: Any) -> None:
    """Ranks equal under every tie rule; scores bit for bit (atol None) or
    within atol; return_scores=False gives the ranks alone. scorio is called
    once (its ranks under each rule are its rank_scores of its scores: some
    of its rankers take a second a call)."""
    s_ranks0, s_scores = getattr(sr, name)(R, return_scores=True, **kw)
    for method in METHODS:
        ranks, scores = run(getattr(kr, name), R, method, **kw)
        s_ranks = s_ranks0 if method == "competition" else scorio_rank_scores(s_scores)[method]
        assert ranks.dtype == s_ranks.dtype, (name, kw, method)
        np.testing.assert_array_equal(ranks, s_ranks, err_msg=f"{name} {kw} {method}")
        assert scores.dtype == np.float64 and scores.shape == s_scores.shape
        if atol is None:
            np.testing.assert_array_equal(scores, s_scores, err_msg=f"{name} {kw}")
        else:
            np.testing.assert_allclose(scores, s_scores, rtol=0, atol=atol, err_msg=f"{name} {kw}")
    np.testing.assert_array_equal(getattr(kr, name)(R, **kw), s_ranks0)


# --- the shared counts -------------------------------------------------------


@pytest.mark.parametrize(("label", "R"), BOARDS, ids=[b[0] for b in BOARDS])
def test_counts_are_scorios(label: str, R: np.ndarray) -> None:
    board = _board.read_board(R, levels=True, greater=True, wins=True)
    valid = scorio_base.validate_input(R)
    wins, ties = scorio_base.build_pairwise_counts(valid)
    assert board.wins is not None
    np.testing.assert_array_equal(board.wins, wins)
    ours_ties = board.outcomes - board.wins - board.wins.T
    np.fill_diagonal(ours_ties, 0.0)  # scorio leaves the diagonal at zero
    np.testing.assert_array_equal(ours_ties, ties)
    k = valid.sum(axis=2)
    np.testing.assert_array_equal(board.levels, k)
    np.testing.assert_array_equal(board.totals, valid.sum(axis=(1, 2)))
    for policy in ("half", "ignore"):
        np.testing.assert_array_equal(
            _board.preference_counts(board, policy), scorio_voting._pairwise_preference_counts(k, policy)
        )


# --- voting rules: bit for bit ------------------------------------------------

VOTING: list[tuple[str, dict[str, Any]]] = [
    ("borda", {}),
    ("copeland", {}),
    ("win_rate", {}),
    *[("minimax", {"variant": v, "tie_policy": t}) for v in ("margin", "winning_votes") for t in ("half", "ignore")],
    *[("schulze", {"tie_policy": t}) for t in ("half", "ignore")],
    *[
        ("ranked_pairs", {"strength": s, "tie_policy": t})
        for s in ("margin", "winning_votes")
        for t in ("half", "ignore")
    ],
    *[
        (rule, {"rank_ties": r})
        for rule in ("nanson", "baldwin")
        for r in ("average", "min", "max", "dense", "ordinal")
    ],
    ("majority_judgment", {}),
]


@pytest.mark.parametrize(("label", "R"), BOARDS, ids=[b[0] for b in BOARDS])
@pytest.mark.parametrize(("name", "kw"), VOTING, ids=[f"{n}-{k}" for n, k in VOTING])
def test_voting_rules_match_scorio_bit_for_bit(name: str, kw: dict[str, Any], label: str, R: np.ndarray) -> None:
    check(name, R, None, **kw)


def _cyclic_board(rng: np.random.Generator, L: int, M: int, N: int) -> np.ndarray:
    """Questions that each rank the models by a random rotation of one order:
    majority preferences with cycles (Condorcet paradoxes)."""
    base = rng.permutation(L)
    R = np.zeros((L, M, N), dtype=np.int64)
    for m in range(M):
        order = np.roll(base, rng.integers(L))
        grades = np.empty(L, dtype=int)
        grades[order] = np.minimum(np.arange(L)[::-1] * N // max(L - 1, 1), N)
        for model in range(L):
            R[model, m, : grades[model]] = 1
    return R


CYCLIC = [
    (f"cyclic-{L}-{M}-{s}", _cyclic_board(np.random.default_rng([L, M, s]), L, M, 4))
    for L, M in [(3, 3), (4, 5), (5, 7), (6, 9), (7, 4)]
    for s in range(3)
]


@pytest.mark.parametrize(("label", "R"), CYCLIC, ids=[c[0] for c in CYCLIC])
def test_condorcet_rules_on_majority_cycles(label: str, R: np.ndarray) -> None:
    for name, kw in VOTING:
        check(name, R, None, **kw)


KEMENY_BOARDS = [b for b in BOARDS if b[1].shape[0] <= 8] + CYCLIC


@pytest.mark.parametrize(("label", "R"), KEMENY_BOARDS, ids=[b[0] for b in KEMENY_BOARDS])
def test_kemeny_young_tie_aware_matches_scorios_milp(label: str, R: np.ndarray) -> None:
    check("kemeny_young", R, None)
    check("kemeny_young", R, None, tie_policy="ignore")


def _kemeny_value(R: np.ndarray, scores: np.ndarray) -> float:
    """sum of P[i, j] over the pairs the order (scores: models below) puts i above j."""
    board = _board.read_board(R, greater=True)
    P = _board.preference_counts(board, "half")
    above = scores[:, None] > scores[None, :]
    return float(P[above].sum())


@pytest.mark.parametrize(("label", "R"), KEMENY_BOARDS, ids=[b[0] for b in KEMENY_BOARDS])
def test_kemeny_young_single_order_is_optimal(label: str, R: np.ndarray) -> None:
    _, ours = kr.kemeny_young(R, tie_aware=False, return_scores=True)
    _, theirs = sr.kemeny_young(R, tie_aware=False, return_scores=True)
    assert sorted(ours.tolist()) == list(range(R.shape[0]))
    assert _kemeny_value(R, ours) == _kemeny_value(R, theirs)
    forced = kr.kemeny_young(R, return_scores=True)[1]
    if len(set(forced.tolist())) == R.shape[0]:  # a unique optimum: the same order
        np.testing.assert_array_equal(ours, theirs)


def test_kemeny_young_refuses_long_cycles_and_honours_time_limits() -> None:
    # 23 models in one majority cycle: question m ranks them by rotation m.
    L = 23
    R = np.zeros((L, L, L - 1), dtype=np.int64)
    for m in range(L):
        for model in range(L):
            R[model, m, : (model - m) % L] = 1
    with pytest.raises(RuntimeError, match="23 models form one cycle of majority preferences"):
        kr.kemeny_young(R)
    small = tensor(np.random.default_rng(3), 6, 10, 2)
    with pytest.raises(RuntimeError, match="time limit"):
        kr.kemeny_young(small, time_limit=1e-12)
    assert np.shape(kr.kemeny_young(small, time_limit=60.0)) == (6,)


def test_kemeny_young_on_a_large_board() -> None:
    """100 models (beyond scorio's MILP in a minute), two majority cycles (of
    3 and 5 models) among them: every majority arc between two models not on
    one cycle is ordered in every optimal order; and 12 models around the
    5-cycle, where scorio's MILP finishes, give scorio's preorder."""
    R = tensor(np.random.default_rng(11), 100, 400, 4)
    G = _board.read_board(R, greater=True).greater
    assert G is not None
    beats = G > G.T
    reach = beats.copy()
    for k in range(len(beats)):
        reach |= reach[:, k : k + 1] & reach[k : k + 1, :]
    cyclic = reach & reach.T
    assert sorted({int(cyclic[i].sum()) for i in range(100)} - {0}) == [3, 5]
    scores = kr.kemeny_young(R, return_scores=True)[1]
    for a, b in zip(*np.nonzero(beats & ~cyclic)):
        assert scores[a] > scores[b]
    five = np.flatnonzero(cyclic.sum(axis=1) == 5)
    totals = R.sum(axis=(1, 2))
    near = np.argsort(np.abs(totals - totals[five].mean()), kind="stable")[:12]
    check("kemeny_young", R[np.sort(near)], None)


def test_majority_judgment_median_order_is_the_iterative_one() -> None:
    for M in range(1, 60):
        remaining = list(range(M))
        expected = []
        while remaining:
            expected.append(remaining.pop((len(remaining) - 1) // 2))
        assert _voting._median_order(M).tolist() == expected



def test_majority_judgment_core_classes_are_numpys_sorted_keys() -> None:
    """The core's classes (sorted rows from histograms, keys compared as
    bytes) against numpy's sort, gather and unique of the same keys."""
    rng = np.random.default_rng(37)
    cases = [(2, 1, 1), (5, 7, 3), (40, 300, 4), (3, 5, 40), (6, 30, 20), (4, 2, 64), (30, 64, 2), (9, 100, 8)]
    for L, M, N in cases:
        for spread in (2, N + 1):  # few distinct grades: many ties
            levels = (rng.integers(0, spread, size=(L, M)) * (N // max(spread - 1, 1))).astype(np.uint8)
            levels[0] = N  # a model with every grade the top one
            levels[-1] = levels[L // 2]  # two models with equal grades
            got = _kscore.majority_classes(levels, N)
            assert np.array_equal(got, _voting._classes_by_keys(levels)), (L, M, N, spread)
    with pytest.raises(ValueError, match="a grade above trials"):
        _kscore.majority_classes(np.full((2, 3), 5, dtype=np.uint8), 4)


def test_majority_judgment_over_255_trials_is_scorios() -> None:
    # Grades of two bytes: the numpy path.
    rng = np.random.default_rng(8)
    R = (rng.random((5, 6, 300)) < rng.uniform(0.2, 0.8, size=(5, 1, 1))).astype(np.int64)
    R[3] = R[1]
    check("majority_judgment", R, None)


# --- graph and spectral rankers ----------------------------------------------

GRAPH_EXACT: list[tuple[str, dict[str, Any]]] = [
    # scorio's own arithmetic, but the final matrix-vector product sums in
    # the order BLAS picks for the memory layout (an ulp on Fortran arrays)
    ("inverse_difficulty", {}),
    ("inverse_difficulty", {"clip_range": (0.2, 0.7)}),
    ("spectral", {}),
    *[("nash", {"score_type": s}) for s in ("vs_equilibrium", "equilibrium", "advantage_vs_equilibrium")],
    *[("serial_rank", {"comparison": c}) for c in ("prob_diff", "fractional", "sign", "majority")],
    *[
        ("hodge_rank", {"pairwise_stat": p, "weight_method": w})
        for p in ("binary", "log_odds")
        for w in ("total", "decisive", "uniform")
    ],
    ("hodge_rank", {"pairwise_stat": "log_odds", "epsilon": 2.0}),
]


@pytest.mark.parametrize(("label", "R"), BOARDS, ids=[b[0] for b in BOARDS])
@pytest.mark.parametrize(("name", "kw"), GRAPH_EXACT, ids=[f"{n}-{k}" for n, k in GRAPH_EXACT])
def test_closed_forms_match_scorio(name: str, kw: dict[str, Any], label: str, R: np.ndarray) -> None:
    check(name, R, 1e-12, **kw)


# scorio run to its fixed point: these tolerances stop its loops at the
# limit of double precision (or max_iter), where its result is the exact one
# to rounding.
CONVERGED: list[tuple[str, dict[str, Any]]] = [
    ("pagerank", {"tol": 1e-15, "max_iter": 10_000}),
    ("pagerank", {"tol": 1e-15, "max_iter": 10_000, "damping": 0.5}),
    ("pagerank", {"tol": 1e-15, "max_iter": 10_000, "damping": 0.99}),
    ("alpharank", {"tol": 1e-16, "max_iter": 20_000}),
    ("alpharank", {"tol": 1e-16, "max_iter": 20_000, "alpha": 5.0, "population_size": 7}),
    ("alpharank", {"tol": 1e-16, "max_iter": 20_000, "alpha": 0.0}),
    ("rank_centrality", {"tol": 1e-16, "max_iter": 20_000}),
    ("rank_centrality", {"tol": 1e-16, "max_iter": 20_000, "smoothing": 1.5, "teleport": 0.2}),
    ("rank_centrality", {"tol": 1e-16, "max_iter": 20_000, "tie_handling": "ignore", "smoothing": 0.5}),
    ("rank_centrality", {"tol": 1e-16, "max_iter": 20_000, "tie_handling": "ignore", "teleport": 0.1}),
]


@pytest.mark.parametrize(("label", "R"), BOARDS, ids=[b[0] for b in BOARDS])
@pytest.mark.parametrize(("name", "kw"), CONVERGED, ids=[f"{n}-{k}" for n, k in CONVERGED])
def test_fixed_points_match_scorio_run_to_convergence(name: str, kw: dict[str, Any], label: str, R: np.ndarray) -> None:
    check(name, R, 1e-12, **kw)


#: scorio's distance from the fixed point at its default tolerances (below).
STOPS_EARLY = {"pagerank": 2e-6, "alpharank": 1e-9, "rank_centrality": 1e-11}

# scorio's defaults stop early: the distance of its scores from the fixed
# point (measured on these boards, docs/rank.md), and the same ranks.
DEFAULTS: list[tuple[str, dict[str, Any], float]] = [
    ("pagerank", {}, 2e-6),
    ("pagerank", {"teleport": np.arange(1.0, 100.0)}, 2e-6),
    ("alpharank", {}, 1e-9),
    ("rank_centrality", {}, 1e-11),
    ("rank_centrality", {"tie_handling": "ignore", "teleport": 0.05}, 1e-9),
]


@pytest.mark.parametrize(("label", "R"), BOARDS, ids=[b[0] for b in BOARDS])
@pytest.mark.parametrize(("name", "kw", "atol"), DEFAULTS, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(DEFAULTS)])
def test_scorio_defaults_are_within_their_tolerance(
    name: str, kw: dict[str, Any], atol: float, label: str, R: np.ndarray
) -> None:
    kw = dict(kw)
    if "teleport" in kw and isinstance(kw["teleport"], np.ndarray):
        kw["teleport"] = kw["teleport"][: R.shape[0]]
    check(name, R, atol, **kw)


def test_rank_centrality_ignore_without_help_needs_a_strongly_connected_walk() -> None:
    R = tensor(np.random.default_rng(5), 6, 30, 4)
    same_error(kr.rank_centrality, sr.rank_centrality, np.array([[1, 1], [0, 0], [1, 0]]), tie_handling="ignore")
    check("rank_centrality", R, 1e-11, tie_handling="ignore")


@pytest.mark.parametrize("variant", ["scores", "equilibrium", "both", "neither"])
def test_nash_return_shapes(variant: str) -> None:
    R = tensor(np.random.default_rng(9), 6, 10, 3)
    kw: dict[str, Any] = {
        "scores": {"return_scores": True},
        "equilibrium": {"return_equilibrium": True},
        "both": {"return_scores": True, "return_equilibrium": True},
        "neither": {},
    }[variant]
    ours, theirs = kr.nash(R, **kw), sr.nash(R, **kw)
    ours, theirs = (ours, theirs) if isinstance(ours, tuple) else ((ours,), (theirs,))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("scores", [False, True])
@pytest.mark.parametrize("weights", ["total", "decisive"])
def test_hodge_rank_diagnostics(scores: bool, weights: str) -> None:
    R = tensor(np.random.default_rng(4), 7, 15, 3)
    ours = kr.hodge_rank(R, weight_method=weights, return_scores=scores, return_diagnostics=True)
    theirs = sr.hodge_rank(R, weight_method=weights, return_scores=scores, return_diagnostics=True)
    assert type(ours) is type(theirs) and len(ours) == len(theirs)
    np.testing.assert_array_equal(ours[0], theirs[0])
    if isinstance(theirs[-1], dict):
        assert ours[-1].keys() == theirs[-1].keys()
        for key in theirs[-1]:
            assert abs(ours[-1][key] - theirs[-1][key]) < 1e-12
    # all-equal models: no decisive comparison at all
    same = np.ones((3, 4, 2), dtype=int)
    options: list[dict[str, Any]] = [{"return_scores": True, "return_diagnostics": True}, {"return_diagnostics": True}]
    for kw in options:
        a = kr.hodge_rank(same, weight_method="decisive", **kw)
        b = sr.hodge_rank(same, weight_method="decisive", **kw)
        assert type(a) is type(b)


# --- the fixed points themselves, in 50-digit arithmetic ----------------------

mpmath.mp.dps = 50


def _mp_solve(A: list[list[Any]], b: list[Any]) -> list[Any]:
    return list(mpmath.lu_solve(mpmath.matrix(A), mpmath.matrix(b)))


def _mp_stationary(P: list[list[Any]]) -> list[Any]:
    """pi P = pi, sum pi = 1."""
    n = len(P)
    A = [[P[j][i] - (1 if i == j else 0) for j in range(n)] for i in range(n)]
    A[-1] = [mpmath.mpf(1)] * n
    return _mp_solve(A, [0] * (n - 1) + [1])


def _mp_phat(S: list[int], T: int) -> list[list[Any]]:
    return [
        [mpmath.mpf(1) / 2 if i == j else (mpmath.mpf(T) + S[i] - S[j]) / 2 / T for j in range(len(S))]
        for i in range(len(S))
    ]


@pytest.mark.parametrize("seed", range(6))
def test_fixed_points_in_exact_arithmetic(seed: int) -> None:
    rng = np.random.default_rng(seed)
    L = int(rng.integers(2, 7))
    R = tensor(rng, L, int(rng.integers(1, 20)), int(rng.integers(1, 5)))
    board = _board.read_board(R, wins=True)
    S = [int(s) for s in board.totals]
    T = board.outcomes
    Ph = _mp_phat(S, T)
    # PageRank: r = d Q r + (1 - d) / L
    d = mpmath.mpf("0.85")
    A = [[Ph[i][j] if i != j else sum(Ph[i][k] for k in range(L) if k != i) for j in range(L)] for i in range(L)]
    M = [[(1 if i == j else 0) - d * A[i][j] / (L - 1) for j in range(L)] for i in range(L)]
    exact = _mp_solve(M, [(1 - d) / L] * L)
    np.testing.assert_allclose(kr.pagerank(R, return_scores=True)[1], [float(x) for x in exact], rtol=0, atol=2e-16)
    # alpha-rank: scorio's chain, built in 50 digits
    alpha, m = mpmath.mpf(2), 9
    C = [[mpmath.mpf(0)] * L for _ in range(L)]
    for res in range(L):
        for r in range(L):
            if r != res:
                u = alpha * m / (m - 1) * (Ph[r][res] - mpmath.mpf(1) / 2)
                rho = mpmath.mpf(1) / m if u == 0 else -mpmath.expm1(-u) / -mpmath.expm1(-m * u)
                C[res][r] = rho / (L - 1)
        C[res][res] = 1 - sum(C[res])
    exact = _mp_stationary(C)
    np.testing.assert_allclose(
        kr.alpharank(R, alpha=2.0, population_size=9, return_scores=True)[1],
        [float(x) for x in exact],
        rtol=0,
        atol=2e-16,
    )
    # spectral: the Perron vector of A (sum 1), by power iteration in 50 digits
    Ak = [
        [(0 if i == j else (mpmath.mpf(T) + S[i] - S[j]) / 2 + 1) / (T + 2) + (1 if i == j else 0) for j in range(L)]
        for i in range(L)
    ]
    v = [mpmath.mpf(1) / L] * L
    for _ in range(200):
        v = [sum(Ak[i][j] * v[j] for j in range(L)) for i in range(L)]
        s = sum(v)
        v = [x / s for x in v]
    np.testing.assert_allclose(kr.spectral(R, return_scores=True)[1], [float(x) for x in v], rtol=0, atol=2e-16)
    # Rank Centrality, ties ignored, smoothing 0.5: the walk of the sample wins
    W = board.wins
    sm = mpmath.mpf("0.5")
    assert W is not None
    P = [[mpmath.mpf(0)] * L for _ in range(L)]
    for i in range(L):
        for j in range(L):
            if i != j:
                P[i][j] = (W[j, i] + sm) / (W[i, j] + W[j, i] + 2 * sm) / (L - 1)
        P[i][i] = 1 - sum(P[i])
    exact = _mp_stationary(P)
    ours = kr.rank_centrality(R, tie_handling="ignore", smoothing=0.5, return_scores=True)[1]
    np.testing.assert_allclose(ours, [float(x) for x in exact], rtol=0, atol=2e-16)
    # ... and with ties split, teleport 0.3 (the closed form)
    P = [[mpmath.mpf(0)] * L for _ in range(L)]
    for i in range(L):
        for j in range(L):
            if i != j:
                P[i][j] = (mpmath.mpf(T) + S[j] - S[i]) / 2 / T / (L - 1)
        P[i][i] = 1 - sum(P[i])
    tp = mpmath.mpf("0.3")
    P = [[(1 - tp) * P[i][j] + tp / L for j in range(L)] for i in range(L)]
    exact = _mp_stationary(P)
    ours = kr.rank_centrality(R, teleport=0.3, return_scores=True)[1]
    np.testing.assert_allclose(ours, [float(x) for x in exact], rtol=0, atol=2e-16)
    # HodgeRank, log-odds flow on decisive weights: the minimum-norm least squares
    eps = mpmath.mpf("0.5")
    w = [[0 if i == j else int(W[i, j] + W[j, i]) for j in range(L)] for i in range(L)]
    if any(any(row) for row in w):
        Y = [[mpmath.log((T - int(W[i, j]) + eps) / (T - int(W[j, i]) + eps)) for j in range(L)] for i in range(L)]
        lap = [[(sum(w[i]) if i == j else -w[i][j]) + mpmath.mpf(1) / L for j in range(L)] for i in range(L)]
        exact = _mp_solve(lap, [-sum(w[i][j] * Y[i][j] for j in range(L)) for i in range(L)])
        ours = kr.hodge_rank(R, pairwise_stat="log_odds", weight_method="decisive", return_scores=True)[1]
        np.testing.assert_allclose(ours, [float(x) for x in exact], rtol=0, atol=4e-16)


# --- bad input: scorio's exception and message --------------------------------

GOOD = np.array([[[1, 0], [1, 1]], [[0, 0], [1, 0]], [[1, 1], [0, 1]]])

BAD_R = [
    np.array([1, 0, 1]),
    np.zeros((1, 3, 2), dtype=int),
    np.zeros((3, 0, 2), dtype=int),
    np.zeros((3, 2, 0), dtype=int),
    np.array([[[2, 0]], [[1, 0]]]),
    np.array([[[0.5, 0]], [[1, 0]]]),
    np.array([[[np.nan, 0]], [[1, 0]]]),
    np.array([[["a", "b"]], [["c", "d"]]]),
    np.array([[[1j, 0]], [[1, 0]]]),
]

ALL_NAMES = [
    "inverse_difficulty", "borda", "copeland", "win_rate", "minimax", "schulze", "ranked_pairs", "kemeny_young",
    "nanson", "baldwin", "majority_judgment", "pagerank", "spectral", "alpharank", "nash", "rank_centrality",
    "serial_rank", "hodge_rank",
]  # fmt: skip


@pytest.mark.parametrize("name", ALL_NAMES)
def test_bad_tensors_raise_scorios_errors(name: str) -> None:
    for R in BAD_R:
        same_error(getattr(kr, name), getattr(sr, name), R)
    same_error(getattr(kr, name), getattr(sr, name), GOOD, method="best")


BAD_OPTIONS: list[tuple[str, dict[str, Any]]] = [
    ("inverse_difficulty", {"clip_range": (0.1,)}),
    ("inverse_difficulty", {"clip_range": (0.1, np.inf)}),
    ("inverse_difficulty", {"clip_range": (0.5, 0.2)}),
    ("inverse_difficulty", {"clip_range": (0.0, 0.5)}),
    ("inverse_difficulty", {"clip_range": 3}),
    ("minimax", {"variant": "worst"}),
    ("minimax", {"tie_policy": "third"}),
    ("minimax", {"tie_policy": "third", "variant": "worst"}),
    ("schulze", {"tie_policy": "x"}),
    ("ranked_pairs", {"strength": "x"}),
    ("ranked_pairs", {"tie_policy": "x"}),
    ("kemeny_young", {"tie_policy": "x"}),
    ("kemeny_young", {"time_limit": -1.0}),
    ("kemeny_young", {"time_limit": np.inf}),
    ("kemeny_young", {"time_limit": "soon"}),
    ("nanson", {"rank_ties": "first"}),
    ("baldwin", {"rank_ties": None}),
    ("pagerank", {"damping": 1.0}),
    ("pagerank", {"damping": np.nan}),
    ("pagerank", {"max_iter": 0}),
    ("pagerank", {"max_iter": 2.0}),
    ("pagerank", {"max_iter": True}),
    ("pagerank", {"tol": 0.0}),
    ("pagerank", {"tol": "x"}),
    ("pagerank", {"teleport": [1.0, 1.0]}),
    ("pagerank", {"teleport": [1.0, np.nan, 1.0]}),
    ("pagerank", {"teleport": [1.0, -1.0, 1.0]}),
    ("pagerank", {"teleport": [0.0, 0.0, 0.0]}),
    ("spectral", {"max_iter": -3}),
    ("spectral", {"tol": -1.0}),
    ("alpharank", {"alpha": -1.0}),
    ("alpharank", {"alpha": np.inf}),
    ("alpharank", {"population_size": 1}),
    ("alpharank", {"population_size": 2.5}),
    ("nash", {"n_iter": 0}),
    ("nash", {"temperature": 0.0}),
    ("nash", {"solver": "simplex"}),
    ("nash", {"score_type": "x"}),
    ("rank_centrality", {"tie_handling": "x"}),
    ("rank_centrality", {"smoothing": -1.0}),
    ("rank_centrality", {"teleport": 1.0}),
    ("rank_centrality", {"max_iter": 1.5}),
    ("rank_centrality", {"max_iter": 0}),
    ("rank_centrality", {"tol": np.nan}),
    ("serial_rank", {"comparison": "x"}),
    ("hodge_rank", {"pairwise_stat": "x"}),
    ("hodge_rank", {"weight_method": "x"}),
    ("hodge_rank", {"pairwise_stat": "log_odds", "epsilon": 0.0}),
    ("hodge_rank", {"pairwise_stat": "x", "weight_method": "y"}),
]


@pytest.mark.parametrize(("name", "kw"), BAD_OPTIONS, ids=[f"{n}-{k}" for n, k in BAD_OPTIONS])
def test_bad_options_raise_scorios_errors(name: str, kw: dict[str, Any]) -> None:
    same_error(getattr(kr, name), getattr(sr, name), GOOD, **kw)
    # An option error and a tensor error together: scorio's order.
    same_error(getattr(kr, name), getattr(sr, name), np.array([[[2, 0]], [[1, 0]]]), **kw)


@pytest.mark.parametrize("name", ALL_NAMES)
def test_exotic_dtypes_as_scorio(name: str) -> None:
    """Whatever scorio does with them, kscore does: the same ranks or the same error."""
    base = np.array([[[1, 0], [0, 1]], [[0, 0], [1, 1]], [[1, 1], [1, 0]]])
    for R in (
        base.astype("m8[s]"), base.astype("M8[s]"), base.astype(object), base.astype(np.float16),
        base.astype(np.longdouble), base.astype(">f8"), base.astype("U1"), base.astype(np.uint64),
        np.zeros((3, 2, 2), dtype=[("a", "i4")]), base.tolist(),
    ):  # fmt: skip
        ours = outcome(getattr(kr, name), R, return_scores=True)
        theirs = outcome(getattr(sr, name), R, return_scores=True)
        assert ours[0] == theirs[0], (name, R, ours, theirs)
        if ours[0] == "ok":
            np.testing.assert_array_equal(ours[1][0], theirs[1][0])
            atol = STOPS_EARLY.get(name, 1e-12)
            np.testing.assert_allclose(ours[1][1], theirs[1][1], rtol=0, atol=atol)
        else:
            assert ours == theirs


def test_accepted_edge_options_agree() -> None:
    accepted: list[tuple[str, dict[str, Any]]] = [
        ("pagerank", {"max_iter": np.int64(5), "tol": 1e-3}),
        ("rank_centrality", {"max_iter": True}),
        ("alpharank", {"population_size": np.int32(2)}),
        ("inverse_difficulty", {"clip_range": [0.5, 1.0]}),
    ]
    for name, kw in accepted:
        ours, theirs = outcome(getattr(kr, name), GOOD, **kw), outcome(getattr(sr, name), GOOD, **kw)
        assert ours[0] == theirs[0] == "ok"
        np.testing.assert_array_equal(ours[1], theirs[1])


@pytest.mark.parametrize(
    "module", [_board, _graph, _hodge_rank, _kemeny, _pointwise, _rank_centrality, _serial_rank, _voting]
)
def test_docstring_examples(module: Any) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
