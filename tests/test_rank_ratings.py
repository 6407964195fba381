"""kscore.rank's rating systems (elo, glicko, trueskill) and bayesian_mcmc
against scorio.rank 0.2.3: the same ratings to 1e-12 (relative) in scorio's
event order, the same ranks under every tie rule, the same chain for the
same seed, the same exceptions and messages for bad input."""

from __future__ import annotations

import doctest
from typing import Any

import numpy as np
import pytest
from scorio import rank as sr

import kscore.rank as kr
from kscore.rank import _mcmc, _ratings

from .conftest import outcome

METHODS = ["competition", "competition_max", "dense", "avg"]
REL = 1e-12


def board(rng: np.random.Generator, L: int, M: int, N: int) -> np.ndarray:
    skill = rng.uniform(0.1, 0.9, size=(L, 1, 1))
    R = (rng.random((L, M, N)) < skill).astype(np.int64)
    if L >= 4:
        R[L - 1] = R[0]  # twins
    return R


def boards(seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = [board(rng, int(rng.integers(2, 9)), int(rng.integers(1, 15)), int(rng.integers(1, 4))) for _ in range(6)]
    out += [np.ones((3, 4, 2), dtype=int), np.array([[1, 0, 1], [0, 1, 1]]), np.array([[[1]], [[0]]])]
    return out


def same(name: str, R: np.ndarray, **kwargs: Any) -> None:
    ours = getattr(kr, name)(R, return_scores=True, **kwargs)
    theirs = getattr(sr, name)(R, return_scores=True, **kwargs)
    assert len(ours) == len(theirs)
    np.testing.assert_array_equal(ours[0], theirs[0])
    assert ours[0].dtype == theirs[0].dtype
    for a, b in zip(ours[1:], theirs[1:]):
        assert a.dtype == np.float64 and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=REL, atol=0)
    for method in METHODS:
        a, b = getattr(kr, name)(R, method=method, **kwargs), getattr(sr, name)(R, method=method, **kwargs)
        a, b = (a[0], b[0]) if isinstance(b, tuple) else (a, b)
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype


POLICIES = ["skip", "draw", "correct_draw_only"]


@pytest.mark.parametrize("policy", POLICIES)
def test_elo(policy: str) -> None:
    for R in boards(1):
        same("elo", R, tie_handling=policy)
    R = boards(2)[0]
    same("elo", R, K=10.0, initial_rating=1000.0, tie_handling=policy)
    same("elo", R, K=np.float32(64), initial_rating=-3, tie_handling=policy)


@pytest.mark.parametrize("policy", POLICIES)
def test_glicko(policy: str) -> None:
    for R in boards(3):
        same("glicko", R, tie_handling=policy)
        same("glicko", R, tie_handling=policy, c=25.0, rd_max=300.0, return_deviation=True)
    same("glicko", boards(4)[0], initial_rating=0.0, initial_rd=500.0, rd_max=200.0, return_deviation=True)


@pytest.mark.parametrize("policy", POLICIES)
def test_trueskill(policy: str) -> None:
    for R in boards(5):
        same("trueskill", R, tie_handling=policy)
        same("trueskill", R, tie_handling=policy, draw_margin=0.8, tau=0.3, beta=3.0)
    same("trueskill", boards(6)[0], mu_initial=0.0, sigma_initial=2.0, draw_margin=0.05, tie_handling=policy)


def test_a_longer_stream_stays_within_1e12() -> None:
    """800 events of 30 models: rounding does not grow along the stream."""
    rng = np.random.default_rng(9)
    R = board(rng, 30, 200, 4)
    for name in ["elo", "glicko", "trueskill"]:
        ours = getattr(kr, name)(R, return_scores=True)[1]
        theirs = getattr(sr, name)(R, return_scores=True)[1]
        np.testing.assert_allclose(ours, theirs, rtol=REL, atol=0)



def test_a_wide_field_splits_glickos_rows_over_threads() -> None:
    """330 models: each event's rows are summed in parallel pieces (Glicko
    splits an event from about 317 models), within 1e-12 of scorio."""
    rng = np.random.default_rng(10)
    R = board(rng, 330, 6, 1)
    cases: list[dict[str, Any]] = [{"c": 10.0}, {"tie_handling": "draw"}]
    for kwargs in cases:
        ours = kr.glicko(R, return_scores=True, **kwargs)[1]
        theirs = sr.glicko(R, return_scores=True, **kwargs)[1]
        np.testing.assert_allclose(ours, theirs, rtol=REL, atol=0)


@pytest.mark.parametrize("name", ["glicko", "trueskill"])
def test_lanes_and_split_rows_on_a_random_wider_board(name: str) -> None:
    """41 models (on AVX-512: blocks of eight lanes with tails, Glicko's rows
    four together, TrueSkill's decisive matches a winner against eight
    losers), every policy, then the same with the parallel grain at 1 ns
    (every event's rows split over the pool): within 1e-12 of scorio."""
    from kscore import _kscore

    rng = np.random.default_rng(41)
    R = board(rng, 41, 10, 3)
    for policy in POLICIES:
        theirs = getattr(sr, name)(R, return_scores=True, tie_handling=policy)[1]
        ours = getattr(kr, name)(R, return_scores=True, tie_handling=policy)[1]
        np.testing.assert_allclose(ours, theirs, rtol=REL, atol=0)
        old = _kscore._set_parallel_grain(1)
        try:
            split = getattr(kr, name)(R, return_scores=True, tie_handling=policy)[1]
        finally:
            _kscore._set_parallel_grain(old)
        np.testing.assert_allclose(split, theirs, rtol=REL, atol=0)


def test_twins_get_identical_ratings() -> None:
    R = board(np.random.default_rng(4), 6, 30, 3)
    for name in ["elo", "glicko", "trueskill"]:
        scores = getattr(kr, name)(R, return_scores=True)[1]
        assert scores[0] == scores[-1]


BAD: list[tuple[str, dict[str, Any]]] = [
    ("elo", {"K": 0.0}),
    ("elo", {"K": float("nan")}),
    ("elo", {"K": "x"}),
    ("elo", {"initial_rating": float("inf")}),
    ("elo", {"tie_handling": "both"}),
    ("glicko", {"initial_rating": float("nan")}),
    ("glicko", {"initial_rd": 0.0}),
    ("glicko", {"rd_max": -1.0}),
    ("glicko", {"c": -0.5}),
    ("glicko", {"tie_handling": None}),
    ("trueskill", {"mu_initial": float("inf")}),
    ("trueskill", {"sigma_initial": 0.0}),
    ("trueskill", {"beta": -1.0}),
    ("trueskill", {"tau": -0.1}),
    ("trueskill", {"draw_margin": -1.0}),
    ("trueskill", {"tie_handling": 3}),
    ("bayesian_mcmc", {"n_samples": 0}),
    ("bayesian_mcmc", {"n_samples": 2.0}),
    ("bayesian_mcmc", {"n_samples": True}),
    ("bayesian_mcmc", {"burnin": -1}),
    ("bayesian_mcmc", {"burnin": 1.5}),
    ("bayesian_mcmc", {"prior_var": 0.0}),
    ("bayesian_mcmc", {"prior_var": float("inf")}),
]


def test_bad_input_raises_scorios_error() -> None:
    R = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0]])
    for name, kwargs in BAD:
        ours, theirs = outcome(getattr(kr, name), R, **kwargs), outcome(getattr(sr, name), R, **kwargs)
        assert ours == theirs and ours[0] != "ok", (name, kwargs, ours, theirs)
    for name in ["elo", "glicko", "trueskill", "bayesian_mcmc"]:
        for bad in [np.ones((1, 3)), np.array([[0, 2], [1, 0]]), np.array([[0.5, 1], [1, 0]]), np.ones(4)]:
            assert outcome(getattr(kr, name), bad) == outcome(getattr(sr, name), bad), name


@pytest.mark.parametrize("seed", [0, 42, 7])
def test_bayesian_mcmc_makes_scorios_chain(seed: int) -> None:
    rng = np.random.default_rng(seed + 100)
    for R in [board(rng, 5, 6, 2), board(rng, 3, 4, 1), np.array([[1, 1, 0], [0, 1, 0]])]:
        kwargs: dict[str, Any] = {"n_samples": 700, "burnin": 600, "seed": seed, "prior_var": 1.5}
        ours = kr.bayesian_mcmc(R, return_scores=True, **kwargs)
        theirs = sr.bayesian_mcmc(R, return_scores=True, **kwargs)
        np.testing.assert_array_equal(ours[0], theirs[0])
        np.testing.assert_allclose(ours[1], theirs[1], rtol=0, atol=1e-12)
    # No decisive outcomes: zeros, as scorio.
    same("bayesian_mcmc", np.ones((3, 2, 2), dtype=int))


def test_bayesian_mcmc_makes_scorios_chain_on_a_larger_board() -> None:
    """30 models, 200 events: the log-likelihood regrouped by pairs (one
    ``ln`` each) takes the same accept/reject steps as scorio's terms."""
    R = board(np.random.default_rng(5), 30, 50, 4)
    kwargs: dict[str, Any] = {"n_samples": 400, "burnin": 600, "seed": 3}
    ours = kr.bayesian_mcmc(R, return_scores=True, **kwargs)
    theirs = sr.bayesian_mcmc(R, return_scores=True, **kwargs)
    np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_allclose(ours[1], theirs[1], rtol=0, atol=1e-12)


def test_bayesian_mcmc_blocks_do_not_change_the_chain(monkeypatch: pytest.MonkeyPatch) -> None:
    """Draws made in blocks of 37 iterations give the same chain."""
    R = board(np.random.default_rng(1), 4, 5, 2)
    whole = kr.bayesian_mcmc(R, n_samples=300, burnin=200, return_scores=True)[1]
    monkeypatch.setattr(_mcmc, "_BLOCK", 37)
    blocks = kr.bayesian_mcmc(R, n_samples=300, burnin=200, return_scores=True)[1]
    np.testing.assert_array_equal(whole, blocks)


def test_random_boards_and_parameters_stay_within_1e12() -> None:
    """Random sizes (2-40 models: lane blocks with tails, Glicko's rows four
    together and alone), parameters and tie policies: Glicko's lanes (the
    table ``exp``, its per-model columns and updates in lanes, the fields
    filled branch-free), TrueSkill's and Elo's within 1e-12 of scorio."""
    rng = np.random.default_rng(88)
    for _ in range(6):
        L, M, N = int(rng.integers(2, 41)), int(rng.integers(1, 12)), int(rng.integers(1, 4))
        R = board(rng, L, M, N)
        policy = POLICIES[int(rng.integers(0, 3))]
        glicko_kwargs: dict[str, Any] = {
            "initial_rating": float(rng.uniform(-500, 2500)),
            "initial_rd": float(rng.uniform(30, 500)),
            "c": float(rng.choice([0.0, rng.uniform(0, 80)])),
            "rd_max": float(rng.uniform(200, 600)),
            "tie_handling": policy,
            "return_deviation": True,
        }
        trueskill_kwargs: dict[str, Any] = {
            "mu_initial": float(rng.uniform(0, 40)),
            "sigma_initial": float(rng.uniform(1, 12)),
            "beta": float(rng.uniform(0.5, 8)),
            "tau": float(rng.uniform(0, 0.5)),
            "tie_handling": policy,
        }
        for name, kwargs in [
            ("glicko", glicko_kwargs),
            ("trueskill", trueskill_kwargs),
            ("elo", {"K": float(rng.uniform(4, 64)), "tie_handling": policy}),
        ]:
            ours = getattr(kr, name)(R, return_scores=True, **kwargs)
            theirs = getattr(sr, name)(R, return_scores=True, **kwargs)
            np.testing.assert_array_equal(ours[0], theirs[0])
            for a, b in zip(ours[1:], theirs[1:]):
                np.testing.assert_allclose(a, b, rtol=REL, atol=0, err_msg=f"{name} {L}x{M}x{N} {kwargs}")


def test_bayesian_mcmc_native_draws_are_numpys(monkeypatch: pytest.MonkeyPatch) -> None:
    """numpy's C draws in one core call a block (``_draw_native``) equal the
    Generator methods' one iteration at a time, on random widths and seeds
    (the ziggurat's slow paths included: about one normal in 140), leave the
    generator in the same state, and give the same chain."""
    fill = _mcmc._normal_fill()
    assert fill is not None  # numpy here exports random_standard_normal_fill
    rng = np.random.default_rng(37)
    for _ in range(25):
        width, iterations, seed = int(rng.integers(1, 300)), int(rng.integers(1, 60)), int(rng.integers(0, 2**32))
        want = (np.empty((iterations, width)), np.empty(iterations))
        got = (np.empty((iterations, width)), np.empty(iterations))
        methods, native = np.random.default_rng(seed), np.random.default_rng(seed)
        _mcmc._draw_methods(methods, *want)
        _mcmc._draw_native(fill, native, *got)
        np.testing.assert_array_equal(want[0], got[0])
        np.testing.assert_array_equal(want[1], got[1])
        assert methods.bit_generator.state == native.bit_generator.state
    R = board(np.random.default_rng(2), 12, 8, 2)
    chain = kr.bayesian_mcmc(R, n_samples=300, burnin=200, seed=5, return_scores=True)[1]
    monkeypatch.setattr(_mcmc, "_normal_fill", lambda: None)
    np.testing.assert_array_equal(chain, kr.bayesian_mcmc(R, n_samples=300, burnin=200, seed=5, return_scores=True)[1])


@pytest.mark.parametrize("mod", [_ratings, _mcmc], ids=lambda m: m.__name__)
def test_examples(mod: Any) -> None:
    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
