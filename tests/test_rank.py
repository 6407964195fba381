"""kscore.rank against scorio.rank 0.2.3: the same ranks (values and dtype)
under every tie rule, scores within 1e-12 (thompson's bit for bit: the same
draws for the same seed), and the same exception type and message for bad
input. Random tensors include duplicated models (exact ties) and models
whose scores differ by less than scorio's tie tolerance."""

from __future__ import annotations

import doctest
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from scorio import rank as sr
from scorio.utils import rank_scores as scorio_rank_scores

import kscore.rank as kr
from kscore.rank import _metrics, _thompson, _ties

from .conftest import outcome, same_error

METHODS = ["competition", "competition_max", "dense", "avg"]
SCORE_TOL = 1e-12


def binary_tensor(rng: np.random.Generator, L: int, M: int, N: int) -> np.ndarray:
    """Models of varied skill on questions of varied difficulty, some models
    repeated (exact ties) and one model a copy with two questions swapped
    (the same score, different rows)."""
    skill = rng.uniform(0.1, 0.9, size=(L, 1, 1))
    ease = rng.uniform(-0.3, 0.3, size=(1, M, 1))
    R = (rng.random((L, M, N)) < np.clip(skill + ease, 0, 1)).astype(np.int64)
    if L >= 3:
        R[L - 1] = R[0]
    if L >= 4 and M >= 2:
        R[L - 2] = R[1][::-1]
    return R


def check(ours: Any, theirs: Any, exact: bool = False) -> None:
    ranks, scores = ours
    s_ranks, s_scores = theirs
    assert ranks.dtype == s_ranks.dtype and ranks.shape == s_ranks.shape
    np.testing.assert_array_equal(ranks, s_ranks)
    assert scores.dtype == np.float64 and scores.shape == s_scores.shape
    if exact:
        np.testing.assert_array_equal(scores, s_scores)
    else:
        np.testing.assert_allclose(scores, s_scores, rtol=0, atol=SCORE_TOL)


def both(name: str, *args: Any, exact: bool = False, **kwargs: Any) -> None:
    """Every tie rule, with and without return_scores."""
    for method in METHODS:
        ours = getattr(kr, name)(*args, method=method, return_scores=True, **kwargs)
        theirs = getattr(sr, name)(*args, method=method, return_scores=True, **kwargs)
        check(ours, theirs, exact)
        plain = getattr(kr, name)(*args, method=method, **kwargs)
        np.testing.assert_array_equal(plain, theirs[0])
        assert plain.dtype == theirs[0].dtype


SHAPES = [(2, 1, 1), (3, 5, 1), (5, 12, 4), (8, 30, 6), (12, 40, 10), (4, 7, 16), (90, 6, 3)]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_metric_rankers_match_scorio(shape: tuple[int, int, int], seed: int) -> None:
    rng = np.random.default_rng([seed, *shape])
    L, M, N = shape
    R = binary_tensor(rng, L, M, N)
    both("avg", R)
    both("bayes", R)
    for k in sorted({1, max(1, N // 2), N}):
        both("pass_at_k", R, k)
        both("pass_hat_k", R, k)
        both("mg_pass_at_k", R, k)
        for tau in (0.0, 0.3, 0.5, 0.75, 1.0):
            both("g_pass_at_k_tau", R, k, tau)


DTYPES: list[Any] = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.uint64, ">i8", np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes_and_matrices(dtype: Any) -> None:
    rng = np.random.default_rng(3)
    R = binary_tensor(rng, 6, 9, 5).astype(dtype)
    for name, args in (("avg", ()), ("pass_at_k", (2,)), ("mg_pass_at_k", (3,)), ("bayes", ())):
        both(name, R, *args)
        both(name, np.asfortranarray(R), *args)
    both("thompson", R, n_samples=200, exact=True)
    # (L, M) is N = 1.
    both("avg", R[:, :, 0])
    both("pass_hat_k", R[:, :, 0], 1)
    both("thompson", R[:, :, 0], n_samples=300, exact=True)
    # Lists of lists.
    both("pass_at_k", R.astype(int).tolist(), 2)


@pytest.mark.parametrize("seed", range(6))
def test_bayes_categorical_priors_and_quantiles(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    L, M, N = int(rng.integers(2, 9)), int(rng.integers(1, 25)), int(rng.integers(1, 12))
    C = int(rng.integers(1, 5))
    R = rng.integers(0, C + 1, size=(L, M, N))
    R[-1] = R[0]
    w = rng.normal(size=C + 1)
    D = int(rng.integers(1, 4))
    shared = rng.integers(0, C + 1, size=(M, D))
    own = rng.integers(0, C + 1, size=(L, M, D))
    for R0 in (None, shared, own, shared.astype(bool) if C >= 1 else shared, shared.astype(float)):
        for q in (None, 0.05, 0.5, 0.975):
            both("bayes", R, w, R0, q)
    both("bayes", R, w.tolist(), shared.tolist())
    both("bayes", R.astype(np.int8), w, own.astype(np.uint16), 0.3)
    both("bayes", R.astype(np.uint64), w, shared)
    binary = (R > 0).astype(int)
    both("bayes", binary, None, shared > 0, 0.1)
    both("bayes", binary, None, (own > 0).astype(np.int8))
    both("bayes", R, w, quantile=np.float32(0.25))


@pytest.mark.parametrize("seed", range(5))
def test_thompson_same_draws(seed: int) -> None:
    rng = np.random.default_rng(200 + seed)
    L, M, N = int(rng.integers(2, 10)), int(rng.integers(1, 20)), int(rng.integers(1, 6))
    R = binary_tensor(rng, L, M, N)
    both("thompson", R, n_samples=int(rng.integers(1, 400)), seed=seed, exact=True)
    both("thompson", R, n_samples=50, prior_alpha=0.5, prior_beta=2.5, seed=np.int64(seed), exact=True)


def test_thompson_defaults_and_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(9)
    R = binary_tensor(rng, 6, 15, 3)
    both("thompson", R, exact=True)  # n_samples=10000, seed=42
    # Draws taken in blocks of a few rows: the same stream.
    monkeypatch.setattr(_thompson, "_BLOCK_DRAWS", 7 * 6)
    both("thompson", R, n_samples=333, seed=5, exact=True)
    # All posteriors equal: -(L + 1) / 2 exactly, no draws.
    same = np.repeat(R[:1], 4, axis=0)
    both("thompson", same, exact=True)


def test_budget_and_threshold_types() -> None:
    R = binary_tensor(np.random.default_rng(8), 5, 6, 5)
    for k in (np.int8(2), np.uint64(3), np.int64(5)):
        both("pass_at_k", R, k)
        both("mg_pass_at_k", R, k)
        both("g_pass_at_k_tau", R, k, np.float32(0.6))
    both("g_pass_at_k_tau", R, 3, np.array(0.5))
    both("g_pass_at_k_tau", R, 3, 1)
    # A float32 tau: scorio's threshold in float32 (0.6f * 5 is 3.0, and 0.6f
    # equals 3/5 in float32), not in double (3.0000001, so 4).
    three_of_five = np.zeros((3, 4, 5), dtype=int)
    three_of_five[:, :, :3] = 1
    three_of_five[1, 0] = 1
    for tau in (np.float32(0.6), np.float32(0.2), np.float16(0.4), np.float32(1.0), np.float32(0.0)):
        both("g_pass_at_k_tau", three_of_five, 5, tau)
        both("g_pass_at_k_tau", three_of_five, np.int64(5), tau)
        both("g_pass_at_k_tau", R, 5, tau)


def test_scores_within_the_tie_tolerance() -> None:
    """Models tied by scorio's 1e-12 rule (not by equal scores) rank alike:
    pass@1 of M = 3 and of M = 6 gives the same thirds by different roundings."""
    R = np.zeros((4, 6, 1), dtype=int)
    R[0, :2] = 1  # 2/6
    R[1, :2] = 1
    R[1, 2] = 0
    R[2, :3] = 1
    R[3, :1] = 1
    both("pass_at_k", R, 1)
    both("avg", R)


@pytest.mark.parametrize("small", [0, 64, 10_000], ids=["numpy", "default", "python"])
@pytest.mark.parametrize("size", [1, 2, 12, 65, 300])
@pytest.mark.parametrize("seed", range(8))
def test_tie_rules_on_near_ties(seed: int, size: int, small: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chains of scores 0.4e-12..1.6e-12 apart: grouped by their run's head,
    in both implementations (plain Python up to _SMALL scores, numpy above)."""
    monkeypatch.setattr(_ties, "_SMALL", small)
    rng = np.random.default_rng([seed, size])
    base = rng.choice([0.25, 0.5, 1.0 / 3.0, -0.0, 0.0, 7.0], size=size)
    jitter = rng.choice([0.0, 0.4e-12, 0.7e-12, 1.0e-12, 1.6e-12, 3e-12], size=size)
    scores = base + jitter
    expected = scorio_rank_scores(scores)
    for method in METHODS:
        ours = _ties.rank_scores(scores, method)
        assert ours.dtype == expected[method].dtype
        np.testing.assert_array_equal(ours, expected[method])


def test_unknown_method_is_a_key_error() -> None:
    R = binary_tensor(np.random.default_rng(1), 3, 4, 2)
    for name, args in (("avg", ()), ("bayes", ()), ("pass_at_k", (1,)), ("thompson", ())):
        same_error(getattr(kr, name), getattr(sr, name), R, *args, method="best")


def bad_tensors() -> list[Any]:
    good = np.ones((3, 4, 2), dtype=int)
    nan = good.astype(float)
    nan[1, 2, 0] = np.nan
    half = good.astype(float)
    half[0, 0, 0] = 0.5
    two = good.copy()
    two[2, 3, 1] = 2
    return [
        np.ones(5), np.ones((2, 2, 2, 2)), np.array([["a", "b"], ["c", "d"]]),
        good.astype(complex), nan, half, np.ones((1, 4, 2)), np.ones((3, 0, 2)), np.ones((3, 4, 0)),
        np.array([[1, 0], [1]], dtype=object), np.full((3, 4, 2), np.inf), two,
    ]


RANKERS: list[tuple[str, tuple[Any, ...]]] = [
    ("avg", ()), ("pass_at_k", (1,)), ("pass_hat_k", (1,)), ("g_pass_at_k_tau", (1, 0.5)),
    ("mg_pass_at_k", (1,)), ("thompson", ()), ("bayes", ()),
]


@pytest.mark.parametrize("name,args", RANKERS, ids=[r[0] for r in RANKERS])
def test_bad_tensors(name: str, args: tuple[Any, ...]) -> None:
    for R in bad_tensors():
        if name == "bayes" and R.dtype.kind == "i":
            continue  # a 2 is a category for bayes (valid with w)
        same_error(getattr(kr, name), getattr(sr, name), R, *args)


@pytest.mark.parametrize("name", ["pass_at_k", "pass_hat_k", "mg_pass_at_k", "g_pass_at_k_tau"])
def test_bad_budgets_and_thresholds(name: str) -> None:
    R = binary_tensor(np.random.default_rng(4), 3, 5, 4)
    extra: tuple[Any, ...] = (0.5,) if name == "g_pass_at_k_tau" else ()
    for k in (0, -1, 5, 1.5, "2", None, np.inf, np.nan, True):
        same_error(getattr(kr, name), getattr(sr, name), R, k, *extra)
    if name == "g_pass_at_k_tau":
        for tau in (-0.1, 1.5, np.nan, "x", None):
            same_error(kr.g_pass_at_k_tau, sr.g_pass_at_k_tau, R, 2, tau)


def test_bad_bayes_arguments() -> None:
    rng = np.random.default_rng(5)
    R = rng.integers(0, 3, size=(3, 4, 2))
    w = np.array([0.0, 0.5, 1.0])
    binary_then_not = np.ones((3, 4, 2), dtype=int)
    binary_then_not[1, 0, 0] = 2
    binary_then_not[1, 1, 1] = 5
    cases: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
        ((R,), {}),  # non-binary without w
        ((binary_then_not,), {}),  # the first non-binary model's values
        ((R, np.array([0.0, 1.0])), {}),  # out of range
        ((R, np.array([[0.0, 1.0, 2.0]])), {}),
        ((R, np.array([0.0, np.nan, 1.0])), {}),
        ((R, np.array(["a", "b", "c"])), {}),
        ((R, np.array([], dtype=float)), {}),
        ((R, w), {"quantile": 0.0}), ((R, w), {"quantile": 1.0}), ((R, w), {"quantile": np.nan}),
        ((R, w), {"quantile": "x"}), ((R, w), {"quantile": [0.5]}), ((R, w), {"quantile": -2}),
        ((R, w, np.ones((5, 2), dtype=int)), {}),
        ((R, w, np.ones((2, 4, 2), dtype=int)), {}),
        ((R, w, np.ones((3, 3, 2), dtype=int)), {}),
        ((R, w, np.ones(4, dtype=int)), {}),
        ((R, w, np.ones((1, 3, 4, 2), dtype=int)), {}),
        ((R, w, np.full((4, 2), 0.5)), {}),
        ((R, w, np.full((4, 2), np.nan)), {}),
        ((R, w, np.full((4, 2), 1 + 1j)), {}),
        ((R, w, np.array([["a"] * 2] * 4)), {}),
        ((R, w, np.full((4, 2), 7)), {}),  # R0 out of range
        ((R, w, np.full((4, 2), -1)), {}),
        ((R, np.array([0.0, 1.0]), np.full((4, 2), 7)), {}),  # R's error first
        ((binary_then_not[:1].repeat(3, axis=0) * 0 + 1, None, np.full((4, 2), 2)), {}),  # R0 not binary
        ((R, w, np.stack([np.zeros((4, 2), int), np.zeros((4, 2), int), np.full((4, 2), 3)])), {}),  # model 2's R0
        ((R, [0.0, 0.5]), {}),
    ]
    for args, kwargs in cases:
        same_error(kr.bayes, sr.bayes, *args, **kwargs)


def test_bad_thompson_arguments() -> None:
    R = binary_tensor(np.random.default_rng(6), 3, 4, 2)
    for kwargs in (
        {"n_samples": 1.5}, {"n_samples": True}, {"n_samples": "10"}, {"n_samples": 0}, {"n_samples": -3},
        {"prior_alpha": 0}, {"prior_alpha": np.nan}, {"prior_alpha": -1.0}, {"prior_alpha": "x"},
        {"prior_alpha": None}, {"prior_beta": 0.0}, {"prior_beta": np.inf}, {"prior_beta": "1e"},
        {"seed": "abc"}, {"seed": -1},
    ):
        same_error(kr.thompson, sr.thompson, R, **kwargs)


@pytest.mark.parametrize("mod", [kr, _metrics, _thompson, _ties], ids=lambda m: m.__name__)
def test_examples(mod: Any) -> None:
    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_examples_hold_in_scorio() -> None:
    """The documented ranks and scores are scorio's."""
    R = np.array([[[1, 0], [1, 1], [0, 0]], [[0, 0], [1, 0], [1, 1]]])
    R0 = np.array([[1, 1], [0, 1], [0, 0]])
    ranks, scores = sr.bayes(R, w=np.array([0.0, 1.0]), R0=R0, return_scores=True)
    assert ranks.tolist() == [1, 1] and scores.round(4).tolist() == [0.5, 0.5]
    R3 = np.array([[[1, 1], [0, 1]], [[1, 0], [0, 0]], [[1, 0], [0, 0]]])
    assert sr.avg(R3).tolist() == [1, 2, 2] and sr.avg(R3, method="dense").tolist() == [1, 2, 2]


def test_public_names() -> None:
    # scorio's names only (more land room by room), the metric rankers among them.
    assert set(kr.__all__) <= set(sr.__all__)
    assert {"avg", "bayes", "pass_at_k", "pass_hat_k", "g_pass_at_k_tau", "mg_pass_at_k", "thompson"} <= set(kr.__all__)
    for name in kr.__all__:
        fn: Callable[..., Any] = getattr(kr, name)
        assert fn.__doc__ and ">>>" in fn.__doc__


def test_exotic_dtypes_as_scorio() -> None:
    """Whatever scorio does with them, kscore does: the same ranks or the same error."""
    base = np.array([[[1, 0], [0, 1]], [[0, 0], [1, 1]], [[1, 1], [1, 0]]])
    for R in (
        base.astype("m8[s]"), base.astype("M8[s]"), base.astype(object), base.astype(np.float16),
        base.astype(np.longdouble), base.astype(">f8"), base.astype("U1"),
        np.zeros((3, 2, 2), dtype=[("a", "i4")]),
    ):
        for name, args in (("avg", ()), ("pass_at_k", (1,)), ("bayes", ()), ("thompson", (50,))):
            ours = outcome(getattr(kr, name), R, *args, return_scores=True)
            theirs = outcome(getattr(sr, name), R, *args, return_scores=True)
            assert ours[0] == theirs[0], (R.dtype, name, ours, theirs)
            if ours[0] == "ok":
                check(ours[1], theirs[1], exact=name == "thompson")
            else:
                assert ours == theirs
