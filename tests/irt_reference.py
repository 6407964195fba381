"""Independent optima of scorio's IRT objectives, for the exactness tests of
kscore.rank's IRT rankers (tests/test_rank_irt.py). Written from the
formulas in scorio/rank/irt.py, sharing no code with kscore: the objectives
and gradients in numpy, minimised by scipy's trust-exact (Hessians by central
differences of the analytic gradient) to gtol 1e-12, with the difficulties
parametrised on the centred subspace (``b = Q u``, ``Q`` an orthonormal
basis of ``sum b = 0``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.optimize import minimize

FloatArray = npt.NDArray[np.float64]


def centred_basis(M: int) -> FloatArray:  # noqa: N803
    """An orthonormal ``M x (M - 1)`` basis of ``{b : sum b = 0}``."""
    q, _ = np.linalg.qr(np.eye(M) - 1.0 / M)
    return q[:, : M - 1]


def sigmoid(z: FloatArray) -> FloatArray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def joint(
    k: FloatArray,
    N: int,  # noqa: N803
    theta: FloatArray,
    b: FloatArray,
    log_a: FloatArray | None = None,
    gamma: FloatArray | None = None,
    c_fixed: float | None = None,
    upper: float = 0.5,
    reg_d: float = 0.01,
    reg_g: float = 0.1,
    prior: Callable[[FloatArray], tuple[float, FloatArray]] | None = None,
) -> tuple[float, FloatArray, FloatArray, FloatArray, FloatArray]:
    """scorio's joint objective (Rasch, 2PL, 3PL, with an ability prior's
    penalty and gradient) and its gradient in theta, b, log a and gamma."""
    L, M = k.shape
    a = np.ones(M) if log_a is None else np.exp(log_a)
    z = a[None, :] * (theta[:, None] - b[None, :])
    s = sigmoid(z)
    if gamma is None and not c_fixed:
        value = float(np.sum(N * np.logaddexp(0.0, z) - k * z))
        dz = N * s - k
        dc = np.zeros(M)
    else:
        if gamma is not None:
            u = sigmoid(gamma)
            c = upper * u
        else:
            c = np.full(M, float(c_fixed or 0.0))
        P = c + (1 - c) * s  # noqa: N806
        value = float(-np.sum(k * np.log(P) + (N - k) * np.log1p(-P)))
        dP = -k / P + (N - k) / (1 - P)  # noqa: N806
        dz = dP * (1 - c) * s * (1 - s)
        dc = (dP * (1 - s)).sum(axis=0)
    g_theta = (dz * a[None, :]).sum(axis=1)
    g_b = -(dz * a[None, :]).sum(axis=0)
    g_la = (dz * z).sum(axis=0)
    g_g = np.zeros(M)
    if log_a is not None:
        value += reg_d * float(np.sum(log_a**2))
        g_la = g_la + 2 * reg_d * log_a
    if gamma is not None:
        value += reg_g * float(np.sum(gamma**2))
        g_g = dc * upper * u * (1 - u) + 2 * reg_g * gamma
    if prior is not None:
        pv, pg = prior(theta)
        value += pv
        g_theta = g_theta + pg
    return value, g_theta, g_b, g_la, g_g


def minimise(fun: Callable[[FloatArray], tuple[float, FloatArray]], x0: FloatArray) -> FloatArray:
    """trust-exact to gtol 1e-12 with a central-difference Hessian of the
    analytic gradient."""

    def hess(x: FloatArray) -> FloatArray:
        n = x.size
        H = np.empty((n, n))  # noqa: N806
        for i in range(n):
            h = 1e-5 * max(1.0, abs(x[i]))
            up, down = x.copy(), x.copy()
            up[i] += h
            down[i] -= h
            H[:, i] = (fun(up)[1] - fun(down)[1]) / (2 * h)
        return 0.5 * (H + H.T)

    result = minimize(fun, x0, jac=True, hess=hess, method="trust-exact", options={"gtol": 1e-12, "maxiter": 2000})
    # trust-exact stops where its model stops predicting the (rounded)
    # objective; plain Newton steps on the gradient finish the job.
    x = np.asarray(result.x)
    grad = fun(x)[1]
    for _ in range(20):
        if np.max(np.abs(grad)) < 1e-12:
            break
        step = np.linalg.solve(hess(x), grad)
        trial = x - step
        g_trial = fun(trial)[1]
        if np.max(np.abs(g_trial)) >= np.max(np.abs(grad)):
            break
        x, grad = trial, g_trial
    assert np.max(np.abs(grad)) < 1e-10, (result.message, np.max(np.abs(grad)))
    return x


def fit_joint(
    k: FloatArray,
    N: int,  # noqa: N803
    x0: dict[str, FloatArray],
    **options: Any,
) -> dict[str, FloatArray]:
    """The optimum nearest ``x0`` (``theta``, ``b`` and, where present,
    ``log_a`` and ``gamma``) of ``joint`` with centred difficulties."""
    L, M = k.shape
    Q = centred_basis(M)  # noqa: N806
    names = [n for n in ("log_a", "gamma") if n in x0]
    sizes = [L, M - 1] + [M] * len(names)
    cuts = np.cumsum(sizes)[:-1]

    def unpack(x: FloatArray) -> dict[str, FloatArray]:
        parts = np.split(x, cuts)
        out = {"theta": parts[0], "b": Q @ parts[1]}
        out.update(zip(names, parts[2:]))
        return out

    def fun(x: FloatArray) -> tuple[float, FloatArray]:
        p = unpack(x)
        value, gt, gb, gla, gg = joint(k, N, p["theta"], p["b"], p.get("log_a"), p.get("gamma"), **options)
        grads = [gt, Q.T @ gb] + [{"log_a": gla, "gamma": gg}[n] for n in names]
        return value, np.concatenate(grads)

    start = np.concatenate([x0["theta"], Q.T @ (x0["b"] - x0["b"].mean())] + [x0[n] for n in names])
    return unpack(minimise(fun, start))


def gaussian(mean: float | FloatArray, var: float) -> Callable[[FloatArray], tuple[float, FloatArray]]:
    return lambda t: (float(np.sum((t - mean) ** 2) / (2 * var)), (t - mean) / var)


def cauchy(loc: float, scale: float) -> Callable[[FloatArray], tuple[float, FloatArray]]:
    def prior(t: FloatArray) -> tuple[float, FloatArray]:
        z = (t - loc) / scale
        return float(np.sum(np.log1p(z**2))), 2 * z / (scale * (1 + z**2))

    return prior
