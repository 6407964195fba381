"""Independent references for the fitted rankers: the objectives written
from their definitions in numpy (with analytic gradients), minimised by
scipy to a gradient of 1e-12; and a comparison with scorio that separates
its optimiser's error from a real difference."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.optimize import minimize
from scipy.special import log_expit

Floats = np.ndarray


def counts(R: np.ndarray) -> tuple[Floats, Floats]:
    """scorio's W (decisive wins) and T (agreements), straight from R."""
    R = np.asarray(R)
    if R.ndim == 2:
        R = R[:, :, None]
    R = R.astype(int)
    L = R.shape[0]
    W = np.zeros((L, L))
    T = np.zeros((L, L))
    for i in range(L):
        for j in range(L):
            if i != j:
                W[i, j] = np.sum((R[i] == 1) & (R[j] == 0))
                T[i, j] = np.sum(R[i] == R[j])
    return W, T


def penalty(prior: Any, theta: Floats) -> tuple[float, Floats]:
    """A scorio prior's value and gradient (by kind, from its attributes)."""
    kind = type(prior).__name__
    if kind == "GaussianPrior":
        return float(np.sum((theta - prior.mean) ** 2) / (2 * prior.var)), (theta - prior.mean) / prior.var
    if kind == "EmpiricalPrior":
        d = theta - prior.prior_mean
        return float(np.sum(d**2) / (2 * prior.var)), d / prior.var
    if kind == "CauchyPrior":
        z = (theta - prior.loc) / prior.scale
        return float(np.sum(np.log1p(z**2))), 2 * z / (prior.scale * (1 + z**2))
    if kind == "UniformPrior" or prior is None:
        return 0.0, np.zeros_like(theta)
    raise AssertionError(kind)


def paired_objective(model: str, W: Floats, T: Floats, kappa: float = 1.1, prior: Any = None) -> Callable[..., Any]:
    """f(x) and its gradient: x = (theta, [log nu]) with theta centred
    inside, as scorio's parametrisation."""
    L = W.shape[0]
    iu = np.triu_indices(L, 1)

    def f(x: Floats) -> tuple[float, Floats]:
        theta = x[:L] - x[:L].mean()
        a, b = theta[iu[0]], theta[iu[1]]
        wi, wj, t = W[iu], W.T[iu], T[iu]
        g_theta = np.zeros(L)
        g_extra = 0.0
        if model == "bt":
            d = a - b
            value = -np.sum(wi * log_expit(d) + wj * log_expit(-d))
            p = np.exp(log_expit(d))
            ga = -(wi * (1 - p) - wj * p)
        elif model == "davidson":
            s = x[L]
            u = np.stack([a, b, s + (a + b) / 2])
            m = u.max(axis=0)
            z = np.exp(u - m).sum(axis=0)
            logd = m + np.log(z)
            q = np.exp(u - logd)
            n = wi + wj + t
            value = np.sum(n * logd - wi * a - wj * b - t * u[2])
            ga = n * (q[0] + q[2] / 2) - wi - t / 2
            g_extra = float(np.sum(n * q[2] - t))
        else:  # rao-kupper, kappa fixed
            lk = np.log(kappa)
            lp_i = log_expit(a - b - lk)  # log pi_i / (pi_i + kappa pi_j)
            lp_j = log_expit(b - a - lk)
            lp_t = np.log(kappa**2 - 1) + a + b - np.logaddexp(a, lk + b) - np.logaddexp(lk + a, b)
            value = -np.sum(wi * lp_i + wj * lp_j + t * lp_t)
            p1 = np.exp(log_expit(a - b - lk))
            p2 = np.exp(log_expit(a + lk - b))
            ga = -(wi + t) * (1 - p1) + (wj + t) * p2
        np.add.at(g_theta, iu[0], ga)
        np.add.at(g_theta, iu[1], -ga)
        pv, pg = penalty(prior, theta)
        g_theta = g_theta + pg
        g_theta = g_theta - g_theta.mean()  # through the centring
        grad = np.concatenate([g_theta, [g_extra]]) if model == "davidson" else g_theta
        return float(value + pv), grad

    return f


def minimise(f: Callable[..., Any], x0: Floats) -> Floats:
    """scipy's L-BFGS-B driven to a gradient of 1e-12, then Newton-free
    polishing by BFGS from there."""
    result = minimize(f, x0, jac=True, method="L-BFGS-B", options={"maxiter": 100000, "ftol": 0.0, "gtol": 1e-13})
    result = minimize(f, result.x, jac=True, method="BFGS", options={"gtol": 1e-12, "maxiter": 10000})
    return np.asarray(result.x)


def reference_scores(model: str, R: np.ndarray, prior: Any = None, kappa: float = 1.1) -> Floats:
    """exp of the reference's centred optimum (None where not finite)."""
    W, T = counts(R)
    L = W.shape[0]
    f = paired_objective(model, W, T, kappa, prior)
    x0 = np.zeros(L + (1 if model == "davidson" else 0))
    x = minimise(f, x0)
    theta = x[:L] - x[:L].mean()
    scores: Floats = np.exp(np.clip(theta, -30, 30))
    return scores


def order_agrees(ours: Floats, theirs: Floats, rel: float) -> bool:
    """Every pair that ``theirs`` separates by more than ``rel`` (relative)
    is ordered the same way by ``ours``."""
    for i in range(ours.size):
        for j in range(ours.size):
            gap = theirs[i] - theirs[j]
            if gap > rel * max(abs(theirs[i]), abs(theirs[j]), 1e-300) and not ours[i] > ours[j]:
                return False
    return True
