"""Independent references for tests/test_arena*.py: Bradley-Terry and its
contextual (style) form fitted to full convergence in numpy/scipy from the
battles themselves (nothing from kscore), arena-rank 0.1.1's sandwich
formula written out, and a simulator of boards from a known model."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

F = npt.NDArray[np.float64]
ELO = 400.0 / math.log(10.0)


def pair_sums(L: int, a: np.ndarray, b: np.ndarray, y: np.ndarray, w: np.ndarray | None = None
              ) -> tuple[np.ndarray, np.ndarray, F, F]:
    """Per ordered pair (i < j): battles n and the score of i."""
    w = np.ones(len(a)) if w is None else w
    i, j = np.minimum(a, b), np.maximum(a, b)
    s = np.where(a < b, y, 1.0 - y)
    key = i.astype(np.int64) * L + j
    uk, inv = np.unique(key, return_inverse=True)
    n = np.zeros(len(uk))
    sc = np.zeros(len(uk))
    np.add.at(n, inv, w)
    np.add.at(sc, inv, w * s)
    return (uk // L).astype(np.int64), (uk % L).astype(np.int64), n, sc


def information(L: int, pi: np.ndarray, pj: np.ndarray, v: F) -> F:
    H = np.zeros((L, L))
    np.add.at(H, (pi, pi), v)
    np.add.at(H, (pj, pj), v)
    np.add.at(H, (pi, pj), -v)
    np.add.at(H, (pj, pi), -v)
    return H


def newton_bt(L: int, a: np.ndarray, b: np.ndarray, y: np.ndarray, w: np.ndarray | None = None,
              precision: float = 0.0) -> F:
    """Mean-zero BT strengths (natural log scale), Newton in numpy with a
    pseudo-inverse, iterated until the step is below 1e-15."""
    pi, pj, n, s = pair_sums(L, a, b, y, w)
    th = np.zeros(L)
    for _ in range(500):
        z = th[pi] - th[pj]
        p = 1.0 / (1.0 + np.exp(-z))
        g = np.zeros(L)
        np.add.at(g, pi, s - n * p)
        np.add.at(g, pj, -(s - n * p))
        g -= precision * th
        H = information(L, pi, pj, n * p * (1 - p)) + precision * np.eye(L)
        step = np.linalg.pinv(H, rcond=1e-10, hermitian=True) @ g
        t = 1.0
        def ll(t_: F) -> float:
            zz = t_[pi] - t_[pj]
            return float(np.sum(s * zz - n * np.logaddexp(0, zz)) - 0.5 * precision * t_ @ t_)
        while ll(th + t * step) < ll(th) - 1e-12 * abs(ll(th)) and t > 1e-10:
            t /= 2
        th = th + t * step
        th -= th.mean()
        if np.max(np.abs(t * step)) < 1e-15:
            break
    return th


def scipy_bt(L: int, a: np.ndarray, b: np.ndarray, y: np.ndarray) -> F:
    """The same maximum by scipy's L-BFGS-B with the analytic gradient,
    gtol 1e-12 (FastChat's procedure, run to convergence)."""
    from scipy.optimize import minimize

    pi, pj, n, s = pair_sums(L, a, b, y)

    def f(th: F) -> tuple[float, F]:
        z = th[pi] - th[pj]
        p = 1.0 / (1.0 + np.exp(-z))
        g = np.zeros(L)
        np.add.at(g, pi, -(s - n * p))
        np.add.at(g, pj, s - n * p)
        return float(-np.sum(s * z - n * np.logaddexp(0, z))), g

    res = minimize(f, np.zeros(L), jac=True, method="L-BFGS-B",
                   options={"gtol": 1e-12, "ftol": 1e-16, "maxiter": 100000, "maxcor": 50})
    th = np.asarray(res.x, np.float64)
    return np.asarray(th - th.mean(), np.float64)


def arena_rank_sandwich(L: int, a: np.ndarray, b: np.ndarray, y: np.ndarray, theta: F,
                        hessian_reg: float = 1e-5) -> F:
    """arena-rank 0.1.1's BradleyTerry.compute_hessian_and_covariance and
    compute_ratings_and_cis (ci_method="sandwich", unweighted), written out
    on its unique (model_a, model_b, outcome) rows at ``theta``: the
    variances of the ratings on the natural-log scale."""
    rows = np.column_stack([a, b, y])
    uniq, counts = np.unique(rows, axis=0, return_counts=True)
    ia, ib, out = uniq[:, 0].astype(np.int64), uniq[:, 1].astype(np.int64), uniq[:, 2]
    counts = counts.astype(np.float64)
    opt_w = counts  # weights 1
    p = 1.0 / (1.0 + np.exp(-(theta[ia] - theta[ib])))
    grad = (out - p) * opt_w
    H = information(L, ia, ib, p * (1 - p) * opt_w) + np.eye(L) * hessian_reg * counts.sum()
    G = information(L, ia, ib, grad ** 2 / counts)
    Hi = np.linalg.inv(H)
    return np.asarray(np.diag(Hi @ G @ Hi))


def pinv_sandwich(L: int, a: np.ndarray, b: np.ndarray, y: np.ndarray, theta: F,
                  cluster: np.ndarray | None = None) -> F:
    """The covariance of the mean-zero ratings ``H^+ M H^+``: ``M`` over
    battles, or over clusters times ``G / (G - 1)``."""
    p = 1.0 / (1.0 + np.exp(-(theta[a] - theta[b])))
    H = information(L, a, b, p * (1 - p))
    r = y - p
    if cluster is None:
        M = information(L, a, b, r * r)
    else:
        uc, inv = np.unique(cluster, return_inverse=True)
        S = np.zeros((len(uc), L))
        np.add.at(S, (inv, a), r)
        np.add.at(S, (inv, b), -r)
        G = len(uc)
        M = S.T @ S * G / (G - 1)
    Hp = np.linalg.pinv(H, rcond=1e-10, hermitian=True)  # (drops the null direction 1: rounding leaves ~1e-13)
    return np.asarray(Hp @ M @ Hp)


def newton_style(L: int, a: np.ndarray, b: np.ndarray, y: np.ndarray, X: F, reg: float) -> tuple[F, F]:
    """Contextual BT (arena-rank's loss: -mean(l) + reg/2 |beta|^2) by Newton
    in numpy to a step below 1e-14."""
    N, Fn = X.shape
    th, be = np.zeros(L), np.zeros(Fn)
    D = np.zeros((N, L))
    D[np.arange(N), a] = 1.0
    D[np.arange(N), b] = -1.0
    Z = np.hstack([D, X])
    P = np.zeros(L + Fn)
    P[L:] = reg * N
    for _ in range(200):
        par = np.concatenate([th, be])
        z = Z @ par
        p = 1.0 / (1.0 + np.exp(-z))
        g = Z.T @ (y - p) - P * par
        H = (Z * (p * (1 - p))[:, None]).T @ Z + np.diag(P)
        step = np.linalg.pinv(H, rcond=1e-10, hermitian=True) @ g
        par = par + step
        th, be = par[:L] - par[:L].mean(), par[L:]
        if np.max(np.abs(step)) < 1e-14:
            break
    return th, be


def draw_pairs(rng: np.random.Generator, pm: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` battles' two models, each drawn with probabilities ``pm``, the
    second drawn again until it differs from the first."""
    L = len(pm)
    a = rng.choice(L, n, p=pm)
    b = rng.choice(L, n, p=pm)
    clash = a == b
    while clash.any():
        b[clash] = rng.choice(L, int(clash.sum()), p=pm)
        clash = a == b
    return a, b


def simulate(rng: np.random.Generator, L: int, N: int, spread: float = 1.0, tie: float = 0.15,
             skew: float = 1.5, prompts: int | None = None, prompt_sd: float = 0.0, style: float = 0.0
             ) -> dict[str, np.ndarray]:
    """Battles from a known BT model: strengths ``spread x N(0,1)``, pairs
    drawn with skewed probabilities (model k drawn in proportion to
    ``(k + 1)^-skew``), a tie with probability ``tie`` (split evenly: the
    expected score is still the BT probability), optional prompts with a
    random effect per (prompt, model) of sd ``prompt_sd`` (clustering) and a
    style feature with coefficient ``style``."""
    theta = rng.normal(0, spread, L)
    theta -= theta.mean()
    pm = (np.arange(L) + 1.0) ** -skew
    pm /= pm.sum()
    a, b = draw_pairs(rng, pm, N)
    z = theta[a] - theta[b]
    q = np.zeros(N, np.int64)
    if prompts:
        q = rng.integers(0, prompts, N)
        eff = rng.normal(0, prompt_sd, (prompts, L))
        z = z + eff[q, a] - eff[q, b]
    x = rng.normal(0, 1, N)
    z = z + style * x
    p = 1.0 / (1.0 + np.exp(-z))
    u = rng.random(N)
    # win with p (1 - tie), lose with (1 - p)(1 - tie), tie with tie: E[y] = p (1 - tie) + tie / 2
    y = np.where(u < tie, 0.5, np.where(rng.random(N) < p, 1.0, 0.0))
    return {"theta": theta, "a": a, "b": b, "y": y, "prompt": q, "x": x}
