"""kscore.rank's item response theory rankers against scorio 0.2.3 itself
(python/kscore/rank/_irt/; tests/test_rank_irt.py checks the optima).

scorio stops its L-BFGS at ``gtol=1e-8`` (the joint fits), solves each EM
M-step by L-BFGS with finite differences (``rasch_mml``, ``mirt``), or at
its iteration limit; kscore solves each problem to rounding. So the scores
agree to the distance scorio stops from the optimum (``JOINT``, ``EM``
below: measured on these boards, well under what separates two models), the
ranks and exact ties agree exactly, and every refusal has scorio's
exception type and message.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scorio.rank as sr
from scorio.rank import CauchyPrior, EmpiricalPrior, GaussianPrior, LaplacePrior, UniformPrior

import kscore.rank as kr

NAMES = [
    "rasch",
    "rasch_map",
    "rasch_2pl",
    "rasch_2pl_map",
    "rasch_3pl",
    "rasch_3pl_map",
    "rasch_mml",
    "rasch_mml_credible",
    "dynamic_irt",
    "mirt",
]

#: How far scorio's joint fits (L-BFGS, gtol 1e-8) stop from the optimum,
#: in abilities; how far its EM with finite-difference M-steps drifts.
JOINT = 1e-5
EM = 1e-4


def board(seed: int, L: int, M: int, N: int, spread: float = 1.0) -> np.ndarray:  # noqa: N803
    """Models and questions drawn from a 2PL."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, spread, L)
    b = rng.normal(0, 1, M)
    a = np.exp(rng.normal(0, 0.3, M))
    p = 1 / (1 + np.exp(-a * (theta[:, None] - b[None, :])))
    return (rng.random((L, M, N)) < p[:, :, None]).astype(np.int64)


def informative(seed: int, L: int, M: int, N: int, spread: float = 1.0) -> np.ndarray:  # noqa: N803
    """Without all-correct or all-wrong questions (the joint fits refuse them)."""
    R = board(seed, L, M, N, spread)
    totals = R.sum(axis=(0, 2))
    return R[:, (totals > 0) & (totals < L * N)]


def outcome(fn: Callable[..., Any], R: Any, **kw: Any) -> Any:  # noqa: N803
    try:
        return fn(R, **kw)
    except Exception as exc:  # noqa: BLE001 (the exception is the outcome compared)
        return exc


#: Where scorio's optimiser stops short (its iteration limit, or L-BFGS
#: ending away from a stationary point) kscore returns the optimum: these
#: cases are counted here, and that optimum is checked in tests/test_rank_irt.py.
STOPPED_SHORT: list[tuple[str, str]] = []


def stopped_short(exc: Exception) -> bool:
    text = str(exc)
    return isinstance(exc, RuntimeError) and (
        "ITERATIONS REACHED LIMIT" in text or "stopped before reaching a stationary" in text
    )


def same(name: str, R: Any, atol: float, **kw: Any) -> tuple[Any, Any]:  # noqa: N803
    """kscore's and scorio's results on ``R``: the same exception (type and
    message), or the same ranks and scores within ``atol``; where scorio's
    optimiser stops short, kscore's finite result."""
    ours = outcome(getattr(kr, name), R, **kw)
    theirs = outcome(getattr(sr, name), R, **kw)
    if isinstance(theirs, Exception) and stopped_short(theirs):
        # kscore's optimum, or its refusal of an optimum at infinity or on
        # the discrimination bound (scorio's own refusal once it gets there:
        # test_scorio_given_iterations_reaches_kscores_refusal).
        STOPPED_SHORT.append((name, str(theirs)))
        if isinstance(ours, Exception):
            assert isinstance(ours, ValueError) and "stable interior joint estimate" in str(ours), (name, ours)
        else:
            scores = ours[1] if isinstance(ours, tuple) else ours
            assert np.all(np.isfinite(scores)), name
        return ours, theirs
    if isinstance(theirs, Exception):
        assert isinstance(ours, Exception), f"{name}: scorio raised {theirs!r}, kscore returned"
        assert type(ours) is type(theirs) and str(ours) == str(theirs), (name, ours, theirs)
        return ours, theirs
    assert not isinstance(ours, Exception), f"{name}: kscore raised {ours!r}, scorio returned"
    if not isinstance(theirs, tuple):
        np.testing.assert_array_equal(ours, theirs, err_msg=name)
        return ours, theirs
    assert isinstance(ours, tuple) and len(ours) == len(theirs)
    np.testing.assert_array_equal(ours[0], theirs[0], err_msg=f"{name} ranks")
    np.testing.assert_allclose(ours[1], theirs[1], rtol=0, atol=atol, err_msg=f"{name} scores")
    # Exact ties where scorio has them (equal data, equal scores).
    for i, j in zip(*np.nonzero(theirs[1][:, None] == theirs[1][None, :]), strict=True):
        assert ours[1][i] == ours[1][j], (name, i, j)
    if len(theirs) == 3:
        assert sorted(ours[2]) == sorted(theirs[2]), name
        for key, value in theirs[2].items():
            np.testing.assert_allclose(ours[2][key], value, rtol=0, atol=100 * atol, err_msg=f"{name} {key}")
    return ours, theirs


def test_signatures_are_scorios() -> None:
    for name in NAMES:
        ours = inspect.signature(getattr(kr, name)).parameters
        theirs = inspect.signature(getattr(sr, name)).parameters
        assert list(ours) == list(theirs), name
        for p in theirs:
            assert ours[p].default == theirs[p].default, (name, p)
            assert ours[p].kind == theirs[p].kind, (name, p)


BOARDS = [(21, 6, 15, 3), (22, 10, 20, 2), (23, 8, 25, 1), (24, 12, 18, 4)]


@pytest.mark.parametrize("seed,L,M,N", BOARDS)
def test_rasch(seed: int, L: int, M: int, N: int) -> None:  # noqa: N803
    R = informative(seed, L, M, N)
    R[L - 1] = R[0]  # equal rows: a tie
    same("rasch", R, JOINT, return_item_params=True)
    for method in ("competition", "competition_max", "dense", "avg"):
        same("rasch", R, JOINT, method=method, return_scores=True)


PRIORS: list[Any] = [
    1.0,
    0.3,
    GaussianPrior(0.2, 0.5),
    LaplacePrior(0.0, 1.0),
    CauchyPrior(0.1, 0.8),
    UniformPrior(),
]


def prior_id(prior: Any) -> str:
    """A float as itself, a prior object by its class: ids that do not carry
    an address, so that every pytest-xdist worker collects the same tests."""
    return repr(prior) if isinstance(prior, float) else type(prior).__name__


@pytest.mark.parametrize("prior", PRIORS, ids=prior_id)
@pytest.mark.parametrize("seed,L,M,N", BOARDS[:2])
def test_rasch_map(prior: Any, seed: int, L: int, M: int, N: int) -> None:  # noqa: N803
    R = informative(seed, L, M, N)
    R[1] = R[0]
    same("rasch_map", R, JOINT, prior=prior, return_item_params=True)


def test_rasch_map_empirical_prior_and_extreme_rows() -> None:
    R = informative(25, 7, 16, 2)
    R[0] = 1  # an all-correct model: finite under a prior
    R[6] = 0
    same("rasch_map", R, JOINT, return_item_params=True)
    prior = EmpiricalPrior(np.random.default_rng(1).integers(0, 2, size=(7, 10)), var=0.8)
    same("rasch_map", R, JOINT, prior=prior, return_scores=True)


@pytest.mark.parametrize("seed,L,M,N", BOARDS[:3])
def test_rasch_2pl(seed: int, L: int, M: int, N: int) -> None:  # noqa: N803
    R = informative(seed, L, M, N)
    same("rasch_2pl", R, 10 * JOINT, return_item_params=True)
    same("rasch_2pl_map", R, 10 * JOINT, return_item_params=True)
    same("rasch_2pl_map", R, 10 * JOINT, prior=GaussianPrior(0.0, 2.0), return_scores=True)


@pytest.mark.parametrize("seed,L,M,N", BOARDS[:3])
def test_rasch_mml(seed: int, L: int, M: int, N: int) -> None:  # noqa: N803
    R = board(seed, L, M, N)
    R[:, 0] = 1  # a boundary item: left out, difficulty -inf
    same("rasch_mml", R, EM, return_item_params=True)
    for q in (0.05, 0.5):
        same("rasch_mml_credible", R, 0.0, quantile=q, return_scores=True)


@pytest.mark.parametrize("variant", ["linear", "growth", "state_space"])
def test_dynamic_irt(variant: str) -> None:
    R = informative(26, 6, 12, 4)
    for target in ("final", "initial", "mean", "gain"):
        same("dynamic_irt", R, 10 * JOINT, variant=variant, score_target=target, return_scores=True)


def test_mirt() -> None:
    R = informative(27, 8, 10, 3)
    same("mirt", R, EM, n_factors=1, n_quadrature=7, em_iter=5, return_scores=True)


# Degenerate boards: scorio's refusals, or the same ranks.

DEGENERATE = {
    "all-correct model": lambda R: R.__setitem__((0,), 1),
    "all-wrong model": lambda R: R.__setitem__((0,), 0),
    "all-correct question": lambda R: R.__setitem__((slice(None), 0), 1),
    "all-wrong question": lambda R: R.__setitem__((slice(None), 0), 0),
    "all models equal": lambda R: R.__setitem__(slice(None), R[0]),
}


@pytest.mark.parametrize("case", list(DEGENERATE))
@pytest.mark.parametrize("name", ["rasch", "rasch_map", "rasch_2pl", "rasch_2pl_map", "rasch_mml", "dynamic_irt"])
def test_degenerate_boards(case: str, name: str) -> None:
    R = informative(28, 5, 10, 2)
    DEGENERATE[case](R)
    same(name, R, 10 * JOINT, return_scores=True)


def test_scorio_given_iterations_reaches_kscores_refusal() -> None:
    # scorio stops at its iteration limit at the default max_iter=500 (and
    # at 5000); at 20,000 it reaches the saturated fit and refuses it as
    # kscore does at once.
    R = informative(23, 8, 25, 1)
    with pytest.raises(RuntimeError, match="ITERATIONS REACHED LIMIT"):
        sr.rasch_2pl_map(R)
    ours, theirs = outcome(kr.rasch_2pl_map, R), outcome(sr.rasch_2pl_map, R, max_iter=20_000)
    assert isinstance(ours, ValueError) and type(theirs) is ValueError and str(ours) == str(theirs)


def test_separated_board_is_refused_as_scorio() -> None:
    # Models 0-1 answer every question of 2-3 right and models 2-3 every
    # question of 0-1 wrong: moving models 0-1 and questions 0-1 up together
    # raises the likelihood without end (quasi-separation), though no row or
    # column is all-correct or all-wrong.
    R = np.array([[1, 0, 1, 1], [0, 1, 1, 1], [0, 0, 1, 0], [0, 0, 0, 1]])[:, :, None]
    for name in ("rasch", "rasch_2pl"):
        ours, _ = same(name, R, JOINT)
        assert isinstance(ours, ValueError) and "quasi-separated" in str(ours)


@pytest.mark.parametrize(
    "name,kw",
    [
        ("rasch", {"max_iter": 0}),
        ("rasch", {"max_iter": 2.5}),
        ("rasch", {"max_iter": True}),
        ("rasch_map", {"prior": -1.0}),
        ("rasch_map", {"prior": "wide"}),
        ("rasch_2pl", {"reg_discrimination": 0.0}),
        ("rasch_2pl", {"reg_discrimination": -1.0}),
        ("rasch_3pl", {"reg_discrimination": 0.0}),
        ("rasch_3pl", {"reg_guessing": 0.0}),
        ("rasch_2pl_map", {"prior": UniformPrior(), "reg_discrimination": 0.0}),
        ("rasch_3pl_map", {"prior": UniformPrior(), "reg_discrimination": 0.0}),
        ("rasch_3pl", {"guessing_upper": 1.0}),
        ("rasch_3pl", {"fix_guessing": 0.7}),
        ("rasch_mml", {"n_quadrature": 1}),
        ("rasch_mml", {"em_iter": 0}),
        ("rasch_mml_credible", {"quantile": 1.0}),
        ("dynamic_irt", {"score_target": "peak"}),
        ("dynamic_irt", {"variant": "cubic"}),
        ("dynamic_irt", {"variant": "growth", "assume_time_axis": True, "time_points": np.array([1.0, 0.0])}),
        ("dynamic_irt", {"variant": "growth"}),
        ("mirt", {"n_factors": 40}),
        ("mirt", {"model": "4pl"}),
        ("mirt", {"tol": -1.0}),
    ],
)
def test_bad_arguments_raise_as_scorio(name: str, kw: dict[str, Any]) -> None:
    R = informative(29, 5, 12, 2)
    ours, theirs = same(name, R, JOINT, **kw)
    assert isinstance(theirs, Exception)


@pytest.mark.parametrize("R", [np.zeros((3,)), np.full((2, 3, 2), 2), np.zeros((0, 3, 2)), [[0.5, 1], [1, 0]]])
def test_bad_tensors_raise_as_scorio(R: Any) -> None:  # noqa: N803
    for name in ("rasch", "rasch_mml", "mirt"):
        ours, theirs = same(name, R, JOINT)
        assert isinstance(theirs, Exception)


def test_messages_name_the_estimator() -> None:
    # The refusals carry scorio's estimator labels ("Rasch", "2PL", ...).
    R = informative(30, 5, 10, 2)
    R[0] = 1
    with pytest.raises(ValueError, match=re.escape("Rasch has no finite ability MLE")):
        kr.rasch(R)
