"""kscore.rank's fitted rankers (the Bradley-Terry and Luce families):

- the exact optimum: against an independent reference written here (the
  objective from its definition in numpy with its analytic gradient,
  minimised by scipy to a gradient of 1e-12), to 1e-8;
- against scorio 0.2.3: the same exceptions (type and message), the same
  special cases bit for bit (no decisive outcomes, one question, ...), and
  scores within scorio's optimiser's tolerance (recorded: ``SCORIO_OFF``),
  ranked the same way wherever scorio's scores are separated by more than
  that tolerance; where scorio raises because its optimiser stopped, kscore
  returns the reference's optimum;
- every tie rule, duplicated models, N = 1, M = 1, L = 2.
"""

from __future__ import annotations

import doctest
from typing import Any

import numpy as np
import pytest
from scorio import rank as sr

import kscore.rank as kr
from kscore.rank import _luce, _paired

from . import rank_fit_reference as ref
from .conftest import outcome

METHODS = ["competition", "competition_max", "dense", "avg"]

#: scorio's L-BFGS-B stops at its default tolerance: its strengths are off
#: the optimum by up to about this (relative), measured over these boards.
SCORIO_OFF = 2e-3

PAIRED = ["bradley_terry", "bradley_terry_davidson", "rao_kupper"]
PAIRED_MAP = ["bradley_terry_map", "bradley_terry_davidson_map", "rao_kupper_map"]
LUCE = ["plackett_luce", "davidson_luce", "bradley_terry_luce"]
LUCE_MAP = ["plackett_luce_map", "davidson_luce_map", "bradley_terry_luce_map"]
ALL = PAIRED + PAIRED_MAP + LUCE + LUCE_MAP


def board(rng: np.random.Generator, L: int, M: int, N: int) -> np.ndarray:
    """Models of varied skill, one duplicated (exact ties)."""
    skill = rng.uniform(0.15, 0.85, size=(L, 1, 1))
    R = (rng.random((L, M, N)) < skill).astype(np.int64)
    if L >= 4:
        R[L - 1] = R[0]
    return R


def boards(seed: int, count: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        L = int(rng.integers(2, 7))
        out.append(board(rng, L, int(rng.integers(1, 12)), int(rng.integers(1, 4))))
    return out


def test_names_are_exported() -> None:
    for name in ALL + ["elo", "glicko", "trueskill", "bayesian_mcmc"]:
        assert name in kr.__all__ and callable(getattr(kr, name))


# ---------------------------------------------------------------------------
# The exact optimum.

REFERENCE_MODEL = {"bradley_terry": "bt", "bradley_terry_davidson": "davidson", "rao_kupper": "rk"}


def priors() -> list[tuple[Any, Any]]:
    """(kscore prior, scorio prior) of the analytic kinds the reference knows."""
    return [
        (1.0, 1.0),
        (2.5, 2.5),
        (kr.GaussianPrior(0.3, 0.7), sr.GaussianPrior(0.3, 0.7)),
        (kr.CauchyPrior(0.0, 2.0), sr.CauchyPrior(0.0, 2.0)),
    ]


@pytest.mark.parametrize("name", PAIRED + PAIRED_MAP)
def test_paired_rankers_reach_the_reference_optimum(name: str) -> None:
    model = REFERENCE_MODEL[name.removesuffix("_map")]
    checked = 0
    for R in boards(11, 14):
        for ours_prior, theirs_prior in priors() if name.endswith("_map") else [(None, None)]:
            args: dict[str, Any] = {} if ours_prior is None else {"prior": ours_prior}
            got = outcome(getattr(kr, name), R, return_scores=True, **args)
            if got[0] != "ok":
                # Only scorio's refusals (checked against scorio below).
                assert got[0] == "ValueError"
                continue
            _, scores = got[1]
            W, _ = ref.counts(R)
            if W.sum() == 0:
                continue
            prior_obj = None
            if theirs_prior is not None:
                prior_obj = sr.GaussianPrior(0.0, theirs_prior) if isinstance(theirs_prior, float) else theirs_prior
            want = ref.reference_scores(model, R, prior_obj)
            if model == "davidson" and not np.all(np.isfinite(np.log(want))):
                continue
            # Davidson's nu at scorio's bound (a model never losing) has no
            # interior optimum for the reference: compare where it has one.
            if model == "davidson" and np.max(np.abs(np.log(scores))) > 9:
                continue
            np.testing.assert_allclose(scores, want, rtol=1e-7, atol=1e-12)
            checked += 1
    assert checked >= 8


@pytest.mark.parametrize("name", ["bradley_terry_luce", "bradley_terry_luce_map", "plackett_luce_map", "davidson_luce"])
def test_luce_rankers_are_stationary(name: str) -> None:
    """The composite and profiled likelihoods' gradients (by differences of
    the definitions) vanish at kscore's strengths."""
    for R in boards(5, 10):
        got = outcome(getattr(kr, name), R, return_scores=True)
        if got[0] != "ok":
            continue
        _, scores = got[1]
        theta = np.log(scores)
        if name == "plackett_luce_map":
            W, T = ref.counts(R)
            f = ref.paired_objective("bt", W, T, prior=sr.GaussianPrior(0.0, 1.0))
            grad = f(theta)[1]
        else:
            objective = btl_objective if name.startswith("bradley") else davidson_luce_objective
            prior = sr.GaussianPrior(0.0, 1.0) if name.endswith("_map") else None
            grad = centred_gradient(
                lambda t, R=R, objective=objective, prior=prior: objective(R, t) + ref.penalty(prior, t)[0], theta
            )
        scale = max(1.0, float(np.prod(R.shape[1:])))
        assert np.max(np.abs(grad)) < 1e-6 * scale, (name, grad)


def events(R: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    R = R if R.ndim == 3 else R[:, :, None]
    out = []
    for n in range(R.shape[2]):
        for m in range(R.shape[1]):
            col = R[:, m, n]
            w = np.flatnonzero(col == 1)
            if 0 < w.size < col.size:
                out.append((w, np.flatnonzero(col == 0)))
    return out


def btl_objective(R: np.ndarray, theta: np.ndarray) -> float:
    total = 0.0
    for w, losers in events(R):
        s = np.sum(np.exp(theta[losers]))
        total += float(np.sum(np.log(np.exp(theta[w]) + s) - theta[w]))
    return total


def davidson_luce_objective(R: np.ndarray, theta: np.ndarray) -> float:
    """Davidson-Luce's negative log-likelihood (Firth et al.'s definition:
    every subset of each observed size in the normaliser) at its best tie
    prevalences for this theta, found by scipy: the smallest observed size's
    delta fixed at 1 (delta_1 = 1 when observed, else the deltas' common
    scale is free), unobserved sizes at their optimum delta = 0."""
    from itertools import combinations

    from scipy.optimize import minimize

    ev = events(R)
    L = theta.size
    sizes = sorted({w.size for w, _ in ev})
    c = {t: float(sum(np.exp(np.sum(theta[list(s)]) / t) for s in combinations(range(L), t))) for t in sizes}
    free = sizes[1:]

    def full(log_delta: np.ndarray) -> float:
        delta = {sizes[0]: 1.0, **{t: float(np.exp(log_delta[k])) for k, t in enumerate(free)}}
        z = sum(delta[t] * c[t] for t in sizes)
        return float(-sum(np.log(delta[w.size]) + np.mean(theta[w]) - np.log(z) for w, _ in ev))

    if not free:
        return full(np.zeros(0))
    return float(minimize(full, np.zeros(len(free)), method="BFGS", options={"gtol": 1e-12}).fun)


def centred_gradient(f: Any, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    L = x.size
    g = np.empty(L)
    for k in range(L):
        d = -np.full(L, 1.0 / L)
        d[k] += 1.0
        g[k] = (f(x + h * d) - f(x - h * d)) / (2 * h)
    return g


# ---------------------------------------------------------------------------
# Against scorio.


def compare(
    name: str, R: np.ndarray, theirs_kwargs: dict[str, Any] | None = None, tolerance: float = 0.0, **kwargs: Any
) -> str:
    """How kscore agrees with scorio on ``R`` (see the module docstring):
    "identical", "within-tolerance", "same-error", "scorio-stopped",
    "scorio-short" or "no-finite-optimum"; an assertion error where it does
    not."""
    tolerance = tolerance or SCORIO_OFF
    ours = outcome(getattr(kr, name), R, return_scores=True, **kwargs)
    theirs = outcome(getattr(sr, name), R, return_scores=True, **(kwargs if theirs_kwargs is None else theirs_kwargs))
    if ours[0] == "ValueError" and "keeps increasing" in ours[1]:
        # Davidson-Luce with no finite optimum, which scorio's graph test
        # misses: its optimiser stops far out (strength ratios past e^20).
        assert theirs[0] == "ok", (name, theirs)
        spread = np.log(theirs[1][1])
        assert spread.max() - spread.min() > 20, (name, spread)
        return "no-finite-optimum"
    if theirs[0] == "RuntimeError":
        # scorio's optimiser stopped short: kscore returns the optimum.
        assert ours[0] == "ok", (name, ours)
        return "scorio-stopped"
    assert ours[0] == theirs[0], (name, ours, theirs)
    if ours[0] != "ok":
        assert ours[1] == theirs[1]
        return "same-error"
    (ranks, scores), (s_ranks, s_scores) = ours[1], theirs[1]
    assert ranks.dtype == s_ranks.dtype and scores.dtype == np.float64 and scores.shape == s_scores.shape
    if np.array_equal(scores, s_scores):
        np.testing.assert_array_equal(ranks, s_ranks)
        return "identical"
    off = np.max(np.abs(scores - s_scores) / np.abs(s_scores))
    if name.startswith("davidson_luce") and off > tolerance:
        # scorio's optimiser stopped short (its tie prevalences overflow far
        # out): kscore's strengths have the lower objective, by the
        # definition written in this file.
        given = (theirs_kwargs or kwargs).get("prior", 1.0) if name.endswith("_map") else None
        prior = sr.GaussianPrior(0.0, given) if isinstance(given, float) else given

        def objective(x: np.ndarray) -> float:
            theta = np.log(x) - np.mean(np.log(x))
            return davidson_luce_objective(R, theta) + ref.penalty(prior, theta)[0]

        assert objective(scores) < objective(s_scores) - 1e-6, (name, off)
        return "scorio-short"
    if name.startswith("bradley_terry_davidson") and off > tolerance:
        # nu at scorio's bound log nu = 10 (a model that never loses but ties):
        # the ordering still agrees.
        assert np.max(np.abs(np.log(scores))) > 5
    else:
        assert off <= tolerance, (name, off)
    assert ref.order_agrees(scores, s_scores, rel=2 * tolerance), (name, scores, s_scores)
    for method in METHODS:
        assert getattr(kr, name)(R, method=method, **kwargs).dtype == s_ranks.dtype or method == "avg"
    return "within-tolerance"


@pytest.mark.parametrize("name", ALL)
def test_against_scorio_on_random_boards(name: str) -> None:
    kinds: dict[str, int] = {}
    for R in boards(23, 10):
        kind = compare(name, R)
        kinds[kind] = kinds.get(kind, 0) + 1
    assert kinds.get("within-tolerance", 0) + kinds.get("identical", 0) >= 3, kinds


@pytest.mark.parametrize("name", PAIRED_MAP + LUCE_MAP)
def test_priors_against_scorio(name: str) -> None:
    rng = np.random.default_rng(8)
    R = board(rng, 5, 8, 2)
    R0 = rng.integers(0, 2, size=(5, 6))
    pairs = [
        (kr.GaussianPrior(0.5, 2.0), sr.GaussianPrior(0.5, 2.0)),
        (kr.CauchyPrior(0.1, 1.0), sr.CauchyPrior(0.1, 1.0)),
        (kr.LaplacePrior(0.0, 1.0), sr.LaplacePrior(0.0, 1.0)),
        (kr.UniformPrior(), sr.UniformPrior()),
        (kr.EmpiricalPrior(R0, var=1.5), sr.EmpiricalPrior(R0, var=1.5)),
    ]
    fn = lambda t: float(np.sum(np.log1p(t**2)))  # noqa: E731
    pairs.append((kr.CustomPrior(fn), sr.CustomPrior(fn)))
    for ours, theirs in pairs:
        # Laplace: scorio's finite differences straddle the kink.
        tolerance = 2e-2 if isinstance(ours, kr.LaplacePrior) else SCORIO_OFF
        compare(name, R, {"prior": theirs}, tolerance, prior=ours)


def test_laplace_optimum_beats_scorios() -> None:
    """With a Laplace prior the objective at kscore's strengths is at most
    scorio's (kscore's is the exact minimiser; scorio's finite differences
    straddle the kink)."""
    rng = np.random.default_rng(4)
    for _ in range(5):
        R = board(rng, 5, 6, 2)
        prior = sr.LaplacePrior(0.0, 0.5)
        ours = kr.bradley_terry_map(R, prior=kr.LaplacePrior(0.0, 0.5), return_scores=True)[1]
        theirs = sr.bradley_terry_map(R, prior=prior, return_scores=True)[1]
        W, T = ref.counts(R)
        f = ref.paired_objective("bt", W, T)

        def objective(scores: np.ndarray, f: Any = f, prior: Any = prior) -> float:
            theta = np.log(scores)
            return float(f(theta)[0] + prior.penalty(theta - theta.mean()))

        assert objective(ours) <= objective(theirs) + 1e-9


SPECIAL = {
    "all equal": np.ones((4, 3, 2), dtype=int),
    "all wrong": np.zeros((3, 5), dtype=int),
    "one question": np.array([[[1]], [[0]], [[1]]]),
    "one sample": np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0]]),
    "two models, complementary": np.array([[1, 0, 1, 0], [0, 1, 0, 1]]),
    "one model always right": np.array([[1, 1, 1], [0, 1, 0], [1, 0, 0]]),
    "bool": np.array([[True, False], [False, True], [True, True]]),
    "float": np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 1.0, 0.0]]),
}


@pytest.mark.parametrize("case", list(SPECIAL))
@pytest.mark.parametrize("name", ALL)
def test_special_boards_against_scorio(name: str, case: str) -> None:
    compare(name, SPECIAL[case])


BAD_INPUTS: list[tuple[Any, dict[str, Any]]] = [
    (np.ones((1, 3)), {}),
    (np.ones((2, 0)), {}),
    (np.array([[0, 2], [1, 0]]), {}),
    (np.array([[0.5, 1.0], [1.0, 0.0]]), {}),
    (np.array([[np.nan, 1.0], [1.0, 0.0]]), {}),
    (np.array([["a", "b"], ["c", "d"]]), {}),
    (np.ones(3), {}),
    (np.eye(3, dtype=int), {"max_iter": 0}),
    (np.eye(3, dtype=int), {"max_iter": 2.5}),
    (np.eye(3, dtype=int), {"max_iter": True}),
]


@pytest.mark.parametrize("name", ALL)
def test_bad_input_raises_scorios_error(name: str) -> None:
    for R, kwargs in BAD_INPUTS:
        ours, theirs = outcome(getattr(kr, name), R, **kwargs), outcome(getattr(sr, name), R, **kwargs)
        assert ours == theirs, (name, kwargs, ours, theirs)
        assert ours[0] != "ok"
    R = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0]])
    extra: list[dict[str, Any]] = []
    if name.endswith("_map"):
        extra += [{"prior": 0.0}, {"prior": -1.0}, {"prior": float("nan")}, {"prior": True}, {"prior": "x"}]
        extra += [{"prior": kr.EmpiricalPrior(np.ones((2, 3)))}]
    if name.startswith("rao_kupper"):
        extra += [{"tie_strength": 0.5}, {"tie_strength": float("inf")}, {"tie_strength": True}, {"tie_strength": 1.0}]
    if name.startswith("davidson_luce"):
        extra += [{"max_tie_order": 0}, {"max_tie_order": 4}, {"max_tie_order": 1}, {"max_tie_order": 1.5}]
    if name == "plackett_luce":
        extra += [{"tol": 0.0}, {"tol": float("nan")}, {"tol": -1}]
    for kwargs in extra:
        theirs_kwargs = dict(kwargs)
        if isinstance(kwargs.get("prior"), kr.EmpiricalPrior):
            theirs_kwargs["prior"] = sr.EmpiricalPrior(np.ones((2, 3)))
        ours, theirs = outcome(getattr(kr, name), R, **kwargs), outcome(getattr(sr, name), R, **theirs_kwargs)
        assert ours == theirs, (name, kwargs, ours, theirs)


def test_disconnected_boards_raise_scorios_error() -> None:
    R = np.array([[1, 1, 1, 1], [0, 1, 0, 1], [0, 0, 0, 1]])  # 0 never loses, 2 never wins
    for name in ["bradley_terry", "plackett_luce", "bradley_terry_luce"]:
        ours, theirs = outcome(getattr(kr, name), R), outcome(getattr(sr, name), R)
        assert ours == theirs and ours[0] == "ValueError", name
    # with a prior: finite
    for name in ["bradley_terry_map", "plackett_luce_map", "bradley_terry_luce_map"]:
        assert outcome(getattr(kr, name), R)[0] == "ok"


@pytest.mark.parametrize("mod", [_paired, _luce], ids=lambda m: m.__name__)
def test_examples(mod: Any) -> None:
    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def hard_boards(seed: int, count: int) -> list[np.ndarray]:
    """Boards where the special cases live: a model that never loses or never
    wins (the win graph not strongly connected), an isolated model (every
    answer equal to another's: only ties), models near 0 or 1, twins, one
    question or one trial."""
    rng = np.random.default_rng(seed)
    out = []
    for b in range(count):
        L, M, N = int(rng.integers(2, 7)), int(rng.integers(1, 9)), int(rng.integers(1, 4))
        skill = rng.choice([0.02, 0.1, 0.5, 0.9, 0.98], size=(L, 1, 1))
        R = (rng.random((L, M, N)) < skill).astype(np.int64)
        kind = b % 4
        if kind == 0:
            R[0] = 1  # never loses
        elif kind == 1 and L >= 3:
            R[-1] = 0  # never wins
        elif kind == 2 and L >= 3:
            R[1] = R[0]  # twins: they only tie each other
        out.append(R)
    return out


@pytest.mark.parametrize("name", ALL)
def test_against_scorio_on_hard_boards(name: str) -> None:
    """24 boards of disconnected, isolated, near-ceiling and twin models
    (ML names: scorio's refusals; MAP names with the default prior and a
    Cauchy prior: finite fits)."""
    kinds: dict[str, int] = {}
    for R in hard_boards(37, 24):
        kind = compare(name, R)
        kinds[kind] = kinds.get(kind, 0) + 1
        if name.endswith("_map"):
            kind = compare(name, R, {"prior": sr.CauchyPrior(0.0, 1.5)}, prior=kr.CauchyPrior(0.0, 1.5))
            kinds[kind] = kinds.get(kind, 0) + 1
    assert sum(kinds.values()) >= 24, kinds
    if not name.endswith("_map") and name != "bradley_terry_davidson":
        # Boards with a never-losing model: scorio refuses them and so do we.
        assert kinds.get("same-error", 0) >= 3, kinds
