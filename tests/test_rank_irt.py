"""kscore.rank's item response theory rankers are exact (python/kscore/rank/_irt/):

- the Rasch, 2PL and 3PL joint fits (ML and MAP) against independent optima
  (tests/irt_reference.py: scipy's trust-exact with analytic gradients to
  gtol 1e-12), and the Rasch fit against mpmath's root of its likelihood
  equations at 40 digits;
- the Laplace prior's fit against its optimality conditions, a custom prior
  against its analytic twin;
- rasch_mml's EM against an EM with scipy's scalar M-steps, mirt's against
  one with scipy's per-item M-steps, dynamic_irt's longitudinal fits against
  trust-exact optima;
- edge boards: ties, all-equal models, one question, one trial, two models.

tests/test_rank_irt_scorio.py compares with scorio 0.2.3 itself.
"""

from __future__ import annotations

import doctest
import importlib
from typing import Any

import mpmath
import numpy as np
import pytest
from scipy.optimize import minimize, minimize_scalar
from scorio.rank import CauchyPrior, CustomPrior, EmpiricalPrior, GaussianPrior, LaplacePrior, UniformPrior

import kscore.rank

from . import irt_reference as ref

FloatArray = Any
#: The rankers return ranks, (ranks, scores) or (ranks, scores, params): unpacked freely here.
kr: Any = kscore.rank


def logistic_board(seed: int, L: int, M: int, N: int, spread: float = 1.0) -> np.ndarray:  # noqa: N803
    """Models and questions drawn from a 2PL."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, spread, L)
    b = rng.normal(0, 1, M)
    a = np.exp(rng.normal(0, 0.3, M))
    p = 1 / (1 + np.exp(-a * (theta[:, None] - b[None, :])))
    return (rng.random((L, M, N)) < p[:, :, None]).astype(np.int64)


def informative_board(seed: int, L: int, M: int, N: int, spread: float = 1.0) -> np.ndarray:  # noqa: N803
    """A 2PL board without all-correct or all-wrong questions (the joint fits
    refuse those, as scorio does)."""
    R = logistic_board(seed, L, M, N, spread)
    totals = R.sum(axis=(0, 2))
    return R[:, (totals > 0) & (totals < L * N)]


def counts(R: np.ndarray) -> np.ndarray:  # noqa: N803
    return np.asarray(R.sum(axis=2), dtype=float)


BOARDS = [(1, 6, 12, 3), (2, 10, 25, 2), (3, 8, 30, 1), (4, 12, 30, 4)]


@pytest.mark.parametrize("seed,L,M,N", BOARDS)
def test_rasch_is_the_optimum(seed: int, L: int, M: int, N: int) -> None:  # noqa: N803
    R = informative_board(seed, L, M, N)
    _, theta, params = kr.rasch(R, return_item_params=True)
    best = ref.fit_joint(counts(R), N, {"theta": np.zeros(L), "b": np.zeros(R.shape[1])})
    np.testing.assert_allclose(theta, best["theta"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(params["difficulty"], best["b"], rtol=0, atol=1e-9)
    assert abs(params["difficulty"].mean()) < 1e-13


def test_rasch_matches_mpmath_at_40_digits() -> None:
    R = np.array([[[1, 1], [1, 0], [0, 0], [1, 0]], [[1, 0], [0, 0], [1, 1], [0, 1]], [[1, 1], [1, 1], [0, 1], [0, 0]]])
    k = counts(R)
    L, M, N = R.shape
    mpmath.mp.dps = 40
    rows, cols = k.sum(axis=1), k.sum(axis=0)

    def equations(*v: Any) -> list[Any]:
        theta = v[:L]
        b = list(v[L:]) + [-mpmath.fsum(v[L:])]
        p = [[N / (1 + mpmath.exp(b[m] - theta[l])) for m in range(M)] for l in range(L)]  # noqa: E741
        person = [mpmath.fsum(p[l]) - rows[l] for l in range(L)]  # noqa: E741
        item = [mpmath.fsum(p[l][m] for l in range(L)) - cols[m] for m in range(M - 1)]  # noqa: E741
        return person + item

    root = mpmath.findroot(equations, [0] * (L + M - 1))
    theta_mp = np.array([float(root[i]) for i in range(L)])
    b_mp = [float(root[i]) for i in range(L, L + M - 1)]
    b_mp.append(-float(mpmath.fsum(root[L:])))
    _, theta, params = kr.rasch(R, return_item_params=True)
    np.testing.assert_allclose(theta, theta_mp, rtol=0, atol=2e-14)
    np.testing.assert_allclose(params["difficulty"], b_mp, rtol=0, atol=2e-14)


PRIORS = {
    "float": (2.0, ref.gaussian(0.0, 2.0)),
    "gaussian": (GaussianPrior(0.3, 0.5), ref.gaussian(0.3, 0.5)),
    "cauchy": (CauchyPrior(0.1, 0.8), ref.cauchy(0.1, 0.8)),
}


@pytest.mark.parametrize("prior", list(PRIORS))
@pytest.mark.parametrize("seed,L,M,N", BOARDS[:3])
def test_rasch_map_is_the_optimum(prior: str, seed: int, L: int, M: int, N: int) -> None:  # noqa: N803
    R = informative_board(seed, L, M, N)
    ours, penalty = PRIORS[prior]
    _, theta, params = kr.rasch_map(R, prior=ours, return_item_params=True)
    best = ref.fit_joint(counts(R), N, {"theta": theta + 0.01, "b": params["difficulty"]}, prior=penalty)
    np.testing.assert_allclose(theta, best["theta"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(params["difficulty"], best["b"], rtol=0, atol=1e-9)


def test_empirical_prior_tells_equal_rows_apart() -> None:
    R = informative_board(5, 6, 20, 2)
    R[5] = R[0]
    R0 = np.random.default_rng(0).integers(0, 2, size=(6, 10))
    prior = EmpiricalPrior(R0, var=0.7)
    _, theta, params = kr.rasch_map(R, prior=prior, return_item_params=True)
    start = {"theta": theta, "b": params["difficulty"]}
    best = ref.fit_joint(counts(R), 2, start, prior=ref.gaussian(prior.prior_mean, 0.7))
    np.testing.assert_allclose(theta, best["theta"], rtol=0, atol=1e-9)
    assert theta[0] != theta[5]  # no averaging under a non-exchangeable prior, as scorio


def test_laplace_prior_meets_its_optimality_conditions() -> None:
    R = informative_board(6, 8, 15, 2, spread=0.4)
    scale = 0.3
    _, theta, params = kr.rasch_map(R, prior=LaplacePrior(0.0, scale), return_item_params=True)
    _, g_theta, g_b, _, _ = ref.joint(counts(R), 2, theta, params["difficulty"])
    at_kink = theta == 0.0
    assert at_kink.any() and not at_kink.all()
    # Away from the kink the gradient vanishes; at it, |gradient| <= 1/scale.
    np.testing.assert_allclose(g_theta[~at_kink] + np.sign(theta[~at_kink]) / scale, 0.0, atol=1e-9)
    assert np.all(np.abs(g_theta[at_kink]) <= 1 / scale + 1e-12)
    np.testing.assert_allclose(g_b - g_b.mean(), 0.0, atol=1e-9)


def test_custom_prior_matches_its_analytic_twin() -> None:
    R = informative_board(7, 7, 18, 3)
    custom = CustomPrior(lambda t: float(np.sum((t - 0.2) ** 2)) / 1.4)
    twin = GaussianPrior(0.2, 0.7)
    for fn in (kr.rasch_map, kr.rasch_2pl_map):
        _, ours, _ = fn(R, prior=custom, return_item_params=True)
        _, exact, _ = fn(R, prior=twin, return_item_params=True)
        np.testing.assert_allclose(ours, exact, rtol=0, atol=1e-7)


def test_uniform_prior_is_the_ml_fit() -> None:
    R = informative_board(8, 6, 20, 3)
    for ml, mapped in ((kr.rasch, kr.rasch_map), (kr.rasch_2pl, kr.rasch_2pl_map)):
        flat = mapped(R, prior=UniformPrior(), return_scores=True)[1]
        np.testing.assert_array_equal(flat, ml(R, return_scores=True)[1])


def _local_minimum(k: np.ndarray, N: int, fit: dict[str, np.ndarray], **options: Any) -> None:  # noqa: N803
    """``fit`` is a stationary point of the objective and the reference
    started next to it comes back to it."""
    rng = np.random.default_rng(0)
    nudged = {name: v + 0.01 * rng.standard_normal(v.shape) for name, v in fit.items()}
    best = ref.fit_joint(k, N, nudged, **options)
    for name in fit:
        np.testing.assert_allclose(fit[name], best[name], rtol=0, atol=1e-8, err_msg=name)


@pytest.mark.parametrize("seed,L,M,N", [(11, 15, 30, 3), (12, 20, 25, 2), (14, 12, 30, 4)])
def test_2pl_is_a_local_optimum(seed: int, L: int, M: int, N: int) -> None:  # noqa: N803
    R = informative_board(seed, L, M, N)
    for fn, options in ((kr.rasch_2pl, {}), (kr.rasch_2pl_map, {"prior": ref.gaussian(0.0, 1.0)})):
        _, theta, params = fn(R, return_item_params=True)
        fit = {"theta": theta, "b": params["difficulty"], "log_a": np.log(params["discrimination"])}
        _local_minimum(counts(R), N, fit, **options)


def guessing_board(seed: int, L: int, M: int, N: int, c: float = 0.2) -> np.ndarray:  # noqa: N803
    """Models and questions drawn from a 3PL, informative questions only."""
    rng = np.random.default_rng(seed)
    theta, b, a = rng.normal(0, 1, L), rng.normal(0, 1, M), np.exp(rng.normal(0, 0.2, M))
    p = c + (1 - c) / (1 + np.exp(-a * (theta[:, None] - b)))
    R = (rng.random((L, M, N)) < p[:, :, None]).astype(np.int64)
    totals = R.sum(axis=(0, 2))
    return R[:, (totals > 0) & (totals < L * N)]


@pytest.mark.parametrize("fixed,L,M,N", [(None, 60, 30, 4), (0.2, 40, 40, 8)])
def test_3pl_is_a_local_optimum(fixed: float | None, L: int, M: int, N: int) -> None:  # noqa: N803
    # (On smaller boards the 3PL's joint estimate saturates: a model below
    # the guessing floor has no finite ability; kscore and scorio refuse.)
    R = guessing_board(1, L, M, N)
    for fn, options in ((kr.rasch_3pl, {}), (kr.rasch_3pl_map, {"prior": ref.gaussian(0.0, 1.0)})):
        _, theta, params = fn(R, fix_guessing=fixed, return_item_params=True)
        fit = {"theta": theta, "b": params["difficulty"], "log_a": np.log(params["discrimination"])}
        if fixed is None:
            c = params["guessing"] / 0.5
            fit["gamma"] = np.log(c / (1 - c))
        _local_minimum(counts(R), N, fit, c_fixed=fixed, **options)


# Marginal maximum likelihood: scorio's EM with scipy's scalar M-steps.


def _mml_reference(k: np.ndarray, N: int, em_iter: int, n_quadrature: int) -> tuple[np.ndarray, np.ndarray]:  # noqa: N803
    x, w = np.polynomial.hermite.hermgauss(n_quadrature)
    nodes, weights = np.sqrt(2) * x, w / np.sqrt(np.pi)

    def prob(d: np.ndarray) -> np.ndarray:
        return np.asarray(np.clip(1 / (1 + np.exp(-np.clip(d, -30, 30))), 1e-10, 1 - 1e-10), dtype=float)

    def post(beta: np.ndarray) -> np.ndarray:
        p = prob(nodes[None, :] - beta[:, None])
        ll = k @ np.log(p) + (N - k) @ np.log(1 - p)
        lik = np.exp(ll - ll.max(axis=1, keepdims=True)) * weights
        return np.asarray(lik / lik.sum(axis=1, keepdims=True), dtype=float)

    q = np.clip((k + 0.5) / (N + 1), 1e-6, 1 - 1e-6).mean(axis=0)
    beta = -np.log((q + 0.01) / (1 - q + 0.01))
    for _ in range(em_iter):
        pst = post(beta)
        r, f = pst.T @ k, N * pst.sum(axis=0)
        for m in range(k.shape[1]):

            def nll(b: float, m: int = m, r: np.ndarray = r, f: np.ndarray = f) -> float:
                p = prob(nodes - b)
                return float(-np.sum(r[:, m] * np.log(p) + (f - r[:, m]) * np.log(1 - p)))

            beta[m] = minimize_scalar(nll, bracket=(beta[m] - 1, beta[m] + 1), tol=1e-14).x
    pst = post(beta)
    return pst @ nodes, beta


@pytest.mark.parametrize("seed,L,M,N", BOARDS[:3])
def test_rasch_mml_em_is_exact(seed: int, L: int, M: int, N: int) -> None:  # noqa: N803
    R = informative_board(seed, L, M, N)
    eap, beta = _mml_reference(counts(R), N, 20, 21)
    _, scores, params = kr.rasch_mml(R, return_item_params=True)
    np.testing.assert_allclose(params["difficulty"], beta, rtol=0, atol=1e-7)
    np.testing.assert_allclose(scores, eap, rtol=0, atol=1e-8)


def test_rasch_mml_keeps_boundary_items_out() -> None:
    R = logistic_board(15, 6, 12, 2)
    R[:, 0] = 1
    R[:, 1] = 0
    _, scores, params = kr.rasch_mml(R, return_item_params=True)
    assert params["difficulty"][0] == -np.inf and params["difficulty"][1] == np.inf
    _, inner, _ = kr.rasch_mml(R[:, 2:], return_item_params=True)
    np.testing.assert_array_equal(scores, inner)


# MIRT: scorio's EM with scipy's per-item M-steps (BFGS to gtol 1e-11).


def _mirt_reference(k: np.ndarray, N: int, em_iter: int, n_q: int) -> tuple[np.ndarray, np.ndarray]:  # noqa: N803
    L, M = k.shape
    x, w = np.polynomial.hermite.hermgauss(n_q)
    grid = (np.sqrt(2) * x)[:, None]
    log_w = np.log(w) - 0.5 * np.log(np.pi)
    z = np.log(np.clip((k + 0.5) / (N + 1), 1e-6, 1 - 1e-6) / (1 - np.clip((k + 0.5) / (N + 1), 1e-6, 1 - 1e-6)))
    d = z.mean(axis=0)
    _, s, vt = np.linalg.svd(z - d, full_matrices=False)
    a = np.clip(vt[0][:, None] * np.sqrt(s[0]), -3, 3)
    for _ in range(em_iter):
        p = np.clip(1 / (1 + np.exp(-np.clip(grid @ a.T + d, -30, 30))), 1e-10, 1 - 1e-10)
        lp = k @ np.log(p).T + (N - k) @ np.log1p(-p).T + log_w
        pst = np.exp(lp - lp.max(axis=1, keepdims=True))
        pst /= pst.sum(axis=1, keepdims=True)
        f, r = N * pst.sum(axis=0), pst.T @ k
        for m in range(M):

            def nll(v: np.ndarray, m: int = m, r: np.ndarray = r, f: np.ndarray = f) -> tuple[float, np.ndarray]:
                lin = grid[:, 0] * v[0] + v[1]
                sp = np.logaddexp(0, lin)
                sig = 1 / (1 + np.exp(-lin))
                res = f * sig - r[:, m]
                value = float(np.sum(f * sp - r[:, m] * lin) + 0.01 * v[0] ** 2)
                return value, np.array([res @ grid[:, 0] + 0.02 * v[0], res.sum()])

            v = minimize(nll, np.array([a[m, 0], d[m]]), jac=True, method="BFGS", options={"gtol": 1e-11}).x
            a[m, 0], d[m] = v
    if a[:, 0].sum() < 0:
        a = -a
    return a[:, 0], d


def test_mirt_m_steps_are_exact() -> None:
    R = informative_board(16, 10, 15, 3)
    a, d = _mirt_reference(counts(R), 3, 3, 7)
    _, _, params = kr.mirt(R, n_factors=1, n_quadrature=7, em_iter=3, tol=0.0, return_item_params=True)
    np.testing.assert_allclose(params["slopes"][:, 0], a, rtol=0, atol=1e-7)
    np.testing.assert_allclose(params["intercept"], d, rtol=0, atol=1e-7)


# Dynamic IRT: the longitudinal objectives at their trust-exact optima.


def _dynamic_reference(R: np.ndarray, variant: str, reg: float) -> np.ndarray:  # noqa: N803
    L, M, N = R.shape
    t = np.linspace(0, 1, N)
    Q = ref.centred_basis(M)  # noqa: N806
    P = 2 * L if variant == "growth" else L * N  # noqa: N806

    def fun(x: np.ndarray) -> tuple[float, np.ndarray]:
        b = Q @ x[P:]
        if variant == "growth":
            z = x[:L, None, None] + x[L:P, None, None] * t - b[None, :, None]
        else:
            z = x[:P].reshape(L, 1, N) - b[None, :, None]
        res = ref.sigmoid(z) - R
        value = float(np.sum(np.logaddexp(0, z) - R * z))
        gb = -res.sum(axis=(0, 2))
        if variant == "growth":
            value += reg * float(np.sum(x[L:P] ** 2))
            gp = np.concatenate([res.sum(axis=(1, 2)), (res * t).sum(axis=(1, 2)) + 2 * reg * x[L:P]])
        else:
            th = x[:P].reshape(L, N)
            inc = np.diff(th, axis=1) / np.diff(t)
            value += reg * float(np.sum(np.diff(th, axis=1) * inc)) + 1e-3 * float(np.sum(th[:, 0] ** 2))
            g = res.sum(axis=1)
            g[:, 1:] += 2 * reg * inc
            g[:, :-1] -= 2 * reg * inc
            g[:, 0] += 2e-3 * th[:, 0]
            gp = g.reshape(-1)
        return value, np.concatenate([gp, Q.T @ gb])

    x = ref.minimise(fun, np.zeros(P + M - 1))
    return x[:P]


@pytest.mark.parametrize("variant,reg", [("growth", 0.01), ("state_space", 1.0), ("state_space", 0.3)])
def test_dynamic_irt_is_the_optimum(variant: str, reg: float) -> None:
    R = informative_board(17, 6, 15, 4)
    key = "slope_reg" if variant == "growth" else "state_reg"
    _, _, params = kr.dynamic_irt(R, variant=variant, assume_time_axis=True, return_item_params=True, **{key: reg})
    best = _dynamic_reference(R.astype(float), variant, reg)
    if variant == "growth":
        np.testing.assert_allclose(params["baseline"], best[:6], rtol=0, atol=1e-9)
        np.testing.assert_allclose(params["slope"], best[6:], rtol=0, atol=1e-9)
    else:
        np.testing.assert_allclose(params["ability_path"], best.reshape(6, 4), rtol=0, atol=1e-9)


# Edge boards.


def test_equal_models_tie() -> None:
    R = np.tile(np.array([[[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1]]]), (4, 1, 1))
    for fn in (kr.rasch, kr.rasch_map, kr.rasch_mml, kr.rasch_2pl_map):
        for method, expected in (("competition", [1, 1, 1, 1]), ("avg", [2.5] * 4), ("dense", [1] * 4)):
            assert fn(R, method=method).tolist() == expected


def test_duplicated_models_share_scores() -> None:
    R = informative_board(18, 8, 25, 3)
    R[7] = R[2]
    for fn in (kr.rasch, kr.rasch_map, kr.rasch_2pl, kr.rasch_2pl_map, kr.rasch_mml):
        _, scores = fn(R, return_scores=True)
        assert scores[7] == scores[2]


def test_one_question_and_two_models() -> None:
    R = np.array([[[1, 1, 0]], [[1, 0, 0]]])
    assert kr.rasch(R).tolist() == [1, 2]
    assert kr.rasch_map(R).tolist() == [1, 2]
    assert kr.rasch_mml(R).tolist() == [1, 2]
    _, theta, params = kr.rasch(R, return_item_params=True)
    assert params["difficulty"].tolist() == [0.0]
    # One question: abilities are the logits of the proportions.
    np.testing.assert_allclose(theta, [np.log(2), -np.log(2)], rtol=0, atol=1e-14)


def test_list_and_matrix_inputs() -> None:
    R = logistic_board(19, 5, 12, 1)[:, :, 0]
    ranks = kr.rasch(R)
    assert kr.rasch(R.tolist()).tolist() == ranks.tolist()
    assert kr.rasch(R.astype(bool)).tolist() == ranks.tolist()
    assert kr.rasch(R[:, :, None].astype(np.float32)).tolist() == ranks.tolist()


@pytest.mark.parametrize("module", ["_rasch", "_logistic", "_mml", "_dynamic", "_mirt"])
def test_examples(module: str) -> None:
    mod = importlib.import_module(f"kscore.rank._irt.{module}")
    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
