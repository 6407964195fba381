"""``dynamic_irt``: Rasch over aggregated counts (``"linear"``), or over
trials read as ordered time with per-model growth lines (``"growth"``) or
random-walk ability paths (``"state_space"``); drop-in for scorio.rank
0.2.3's.

The two longitudinal objectives are convex, with difficulties centred.
kscore solves them by Newton to the optimum: the difficulties' Hessian is
diagonal, so each step eliminates them (with the centring's multiplier)
and solves a dense system over the models' ability parameters (``2 L`` for
growth, ``L N`` for state space) by Cholesky.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ... import _kscore
from ..._arrays import FloatArray
from .._ties import RankMethod
from .._validate import response_tensor
from . import _board
from ._checks import nonnegative_float, positive_int
from ._checks import score_target as check_target
from ._checks import time_points as check_times
from ._rasch import IrtResult, fit_rasch, result

#: What an objective gives the solver at a point: value, ability-side
#: gradient ``(P,)``, difficulty gradient ``(M,)``, ability-side Hessian
#: ``(P, P)``, cross block ``(P, M)`` and the difficulties' diagonal ``(M,)``.
Pieces = tuple[float, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]


def _softplus(x: FloatArray) -> FloatArray:
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


def _sigmoid(x: FloatArray) -> FloatArray:
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def newton_centred(
    pieces: Callable[[FloatArray, FloatArray], Pieces],
    value: Callable[[FloatArray, FloatArray], float],
    p0: FloatArray,
    b0: FloatArray,
    max_iter: int,
    name: str,
) -> tuple[FloatArray, FloatArray]:
    """Minimise over ability-side ``p`` and difficulties ``b`` with
    ``sum b = 0``: Newton steps on the KKT system with ``b`` eliminated, an
    Armijo backtracking search, until a full step is below 1e-11."""
    p, b = p0.copy(), b0 - b0.mean()
    for _ in range(max_iter):
        f, gp, gb, A, B, dg = pieces(p, b)  # noqa: N806
        inv = 1.0 / dg
        kappa = inv.sum()
        # The Schur complement and its Cholesky solve in the core (a threaded
        # BLAS spends more in hand-offs than arithmetic on these sizes).
        dp = _kscore.irt_eliminated_step(
            np.ascontiguousarray(A), np.ascontiguousarray(B), np.ascontiguousarray(dg), gp, gb
        )
        if dp is None:  # not positive definite: a least-squares step
            u = B @ inv
            BD = B * inv[None, :]  # noqa: N806
            S = A - BD @ B.T + np.outer(u, u) / kappa  # noqa: N806
            rhs = -gp + BD @ gb - u * (inv @ gb) / kappa
            dp = np.linalg.lstsq(S, rhs, rcond=None)[0]
        w = -gb - B.T @ dp
        db = inv * w - inv * (inv @ w) / kappa
        slope = float(gp @ dp + gb @ db)
        t = 1.0
        while True:
            pt, bt = p + t * dp, b + t * db
            ft = value(pt, bt)
            if np.isfinite(ft) and ft <= f + 1e-4 * t * slope + 1e-13 * max(1.0, abs(f)):
                break
            t *= 0.5
            if t < 1e-12:
                return p, b - b.mean()
        step = t * max(float(np.max(np.abs(dp), initial=0.0)), float(np.max(np.abs(db), initial=0.0)))
        p, b = pt, bt - bt.mean()
        if t == 1.0 and step <= 1e-11 * (1.0 + max(float(np.max(np.abs(p))), float(np.max(np.abs(b))))):
            return p, b
    raise RuntimeError(f"{name} optimization failed: Newton iteration limit (max_iter={max_iter}) reached")


def _growth(R: FloatArray, t: FloatArray, slope_reg: float, max_iter: int) -> tuple[FloatArray, ...]:  # noqa: N803
    """scorio's ``_estimate_growth_model_abilities``, solved exactly."""
    L, M, N = R.shape

    def cells(p: FloatArray, b: FloatArray) -> FloatArray:
        return p[:L, None, None] + p[L:, None, None] * t[None, None, :] - b[None, :, None]

    def value(p: FloatArray, b: FloatArray) -> float:
        z = cells(p, b)
        return float(np.sum(_softplus(z) - R * z) + slope_reg * np.sum(p[L:] ** 2))

    def pieces(p: FloatArray, b: FloatArray) -> Pieces:
        z = cells(p, b)
        s = _sigmoid(z)
        res = s - R
        w = s * (1 - s)
        f = float(np.sum(_softplus(z) - R * z) + slope_reg * np.sum(p[L:] ** 2))
        # Sums over the trials first (L x M), then over questions or models:
        # each cell read once per statistic.
        # (elementwise products: a batched matmul would call a threaded BLAS.)
        res_m, rest_m = res.sum(axis=2), (res * t).sum(axis=2)
        w_m, wt_m, wtt_m = w.sum(axis=2), (w * t).sum(axis=2), (w * (t * t)).sum(axis=2)
        gp = np.concatenate([res_m.sum(axis=1), rest_m.sum(axis=1) + 2 * slope_reg * p[L:]])
        gb = -res_m.sum(axis=0)
        A = np.zeros((2 * L, 2 * L))  # noqa: N806
        i = np.arange(L)
        A[i, i] = w_m.sum(axis=1)
        A[i, L + i] = A[L + i, i] = wt_m.sum(axis=1)
        A[L + i, L + i] = wtt_m.sum(axis=1) + 2 * slope_reg
        B = np.concatenate([-w_m, -wt_m])  # noqa: N806
        return f, gp, gb, A, B, w_m.sum(axis=0)

    p0_rate = np.clip(R[:, :, 0].mean(axis=1), 1e-6, 1 - 1e-6)
    pm = np.clip(R.mean(axis=(0, 2)), 1e-6, 1 - 1e-6)
    p0 = np.concatenate([np.log(p0_rate / (1 - p0_rate)), np.zeros(L)])
    p, b = newton_centred(pieces, value, p0, -np.log(pm / (1 - pm)), max_iter, "dynamic_irt growth")
    return p[:L], p[L:], b


def _state_space(R: FloatArray, t: FloatArray, state_reg: float, max_iter: int) -> tuple[FloatArray, FloatArray]:  # noqa: N803
    """scorio's ``_estimate_state_space_abilities``, solved exactly."""
    L, M, N = R.shape
    dt = np.diff(t)

    def penalty(theta: FloatArray) -> float:
        inc = theta[:, 1:] - theta[:, :-1]
        return float(state_reg * np.sum(inc**2 / dt[None, :]) + 1e-3 * np.sum(theta[:, 0] ** 2))

    def value(p: FloatArray, b: FloatArray) -> float:
        theta = p.reshape(L, N)
        z = theta[:, None, :] - b[None, :, None]
        return float(np.sum(_softplus(z) - R * z)) + penalty(theta)

    # The penalty's Hessian per model (N x N, tridiagonal), the same for all.
    walk = np.zeros((N, N))
    for n in range(1, N):
        c = 2.0 * state_reg / dt[n - 1]
        walk[n, n] += c
        walk[n - 1, n - 1] += c
        walk[n, n - 1] -= c
        walk[n - 1, n] -= c
    walk[0, 0] += 2e-3

    def pieces(p: FloatArray, b: FloatArray) -> Pieces:
        theta = p.reshape(L, N)
        z = theta[:, None, :] - b[None, :, None]
        s = _sigmoid(z)
        res = s - R
        w = s * (1 - s)
        f = float(np.sum(_softplus(z) - R * z)) + penalty(theta)
        g = res.sum(axis=1) + theta @ walk
        A = np.zeros((L * N, L * N))  # noqa: N806
        diag = w.sum(axis=1)  # (L, N)
        for l_ in range(L):
            block = slice(l_ * N, (l_ + 1) * N)
            A[block, block] = walk + np.diag(diag[l_])
        B = -w.transpose(0, 2, 1).reshape(L * N, M)  # noqa: N806
        return f, g.reshape(-1), -res.sum(axis=(0, 2)), A, B, w.sum(axis=(0, 2))

    rate = np.clip(R.mean(axis=1), 1e-6, 1 - 1e-6)
    pm = np.clip(R.mean(axis=(0, 2)), 1e-6, 1 - 1e-6)
    p0 = np.log(rate / (1 - rate)).reshape(-1)
    p, b = newton_centred(pieces, value, p0, -np.log(pm / (1 - pm)), max_iter, "dynamic_irt state_space")
    return p.reshape(L, N), b


def _path_score(path: FloatArray, target: str) -> FloatArray:
    if target == "initial":
        return path[:, 0]
    if target == "final":
        return path[:, -1]
    if target == "mean":
        return np.asarray(path.mean(axis=1), dtype=np.float64)
    return path[:, -1] - path[:, 0]


def dynamic_irt(
    R: Any,  # noqa: N803
    variant: str = "linear",
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 500,
    return_item_params: bool = False,
    time_points: Any = None,
    score_target: str = "final",
    slope_reg: float = 0.01,
    state_reg: float = 1.0,
    assume_time_axis: bool = False,
) -> IrtResult:
    r"""Rank models with dynamic (longitudinal) IRT.

    ``"linear"``: Rasch over the aggregated counts (:func:`rasch`).
    ``"growth"``: :math:`P(R_{lmn}=1) = \sigma(\theta_{0,l} + \theta_{1,l} t_n - b_m)`
    with ridge ``slope_reg`` on the slopes. ``"state_space"``: a path
    :math:`\theta_{ln}` per model with the random-walk penalty

    .. math::

        \lambda \sum_{l,\, n>0} \frac{(\theta_{ln} - \theta_{l,n-1})^2}{t_n - t_{n-1}}
        + 10^{-3} \sum_l \theta_{l0}^2 .

    The longitudinal variants read axis 2 as ordered time
    (``assume_time_axis=True``) and score a path by ``score_target``
    (initial, final, mean or gain). Every fit is the exact optimum.

    References:
        Verhelst, N. D., & Glas, C. A. (1993). A dynamic generalization of
        the Rasch model. Psychometrika. Wang, C., & Nydick, S. W. (2020).
        On Longitudinal Item Response Theory Models: A Didactic.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        variant: ``"linear"``, ``"growth"`` or ``"state_space"``.
        method: tie rule.
        return_scores: also return the scores.
        max_iter: most Newton iterations.
        return_item_params: also return the difficulties (and paths).
        time_points: increasing times of the ``N`` trials (default 0..1).
        score_target: ``"initial"``, ``"final"``, ``"mean"`` or ``"gain"`` (or aliases).
        slope_reg: positive ridge on growth slopes.
        state_reg: positive random-walk penalty.
        assume_time_axis: acknowledge that axis 2 is time.

    Returns:
        ranks, ``(ranks, scores)`` or ``(ranks, scores, params)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0]])
        >>> dynamic_irt(R, variant="linear").tolist()
        [1, 2, 2]
    """
    max_iter = positive_int("max_iter", max_iter)
    variant_name = str(variant).strip().lower()
    tensor = response_tensor(R)
    L, M, N = tensor.shape
    k, _ = _board.counts(tensor)
    if variant_name != "linear":
        _, cols = _board.totals(k)
        _board.require_finite_items(cols, L, N, "Dynamic IRT")
    target = check_target(score_target)
    slope = nonnegative_float("slope_reg", slope_reg)
    state = nonnegative_float("state_reg", state_reg)
    params: dict[str, FloatArray] | None
    if variant_name == "linear":
        if target != "final":
            raise ValueError("score_target is only used for longitudinal variants ('growth' and 'state_space').")
        theta, beta = fit_rasch(k, N, max_iter)
        rows, _ = _board.totals(k)
        scores = _board.average_by(theta, rows)
        params = {"difficulty": beta}
    elif variant_name == "growth":
        if not assume_time_axis:
            raise ValueError(
                "variant='growth' interprets axis-2 as ordered longitudinal time. "
                "Set assume_time_axis=True to proceed."
            )
        if N < 2:
            raise ValueError("Longitudinal dynamic IRT requires at least two time points.")
        if slope == 0.0:
            raise ValueError(
                "slope_reg must be positive for variant='growth' so temporal "
                "separation cannot produce an infinite slope estimate."
            )
        rows, _ = _board.totals(k)
        _board.require_finite_person(rows, M, N, "Dynamic growth IRT")
        _board.require_no_separation(k, N, "Dynamic growth IRT")
        raw, unit = check_times(time_points, N)
        Rf = tensor.astype(float)  # noqa: N806
        theta0, theta1, beta = _growth(Rf, unit, slope, max_iter)
        by_time = Rf.sum(axis=1)
        statistic = np.column_stack([by_time.sum(axis=1), by_time @ unit])
        theta0 = _board.average_by(theta0, statistic)
        theta1 = _board.average_by(theta1, statistic)
        path = theta0[:, None] + theta1[:, None] * unit[None, :]
        scores = _path_score(path, target)
        params = {"difficulty": beta, "baseline": theta0, "slope": theta1, "ability_path": path, "time_points": raw}
    elif variant_name == "state_space":
        if not assume_time_axis:
            raise ValueError(
                "variant='state_space' interprets axis-2 as ordered longitudinal "
                "time. Set assume_time_axis=True to proceed."
            )
        if N < 2:
            raise ValueError("Longitudinal dynamic IRT requires at least two time points.")
        if state == 0.0:
            raise ValueError(
                "state_reg must be positive for variant='state_space' so each "
                "latent trajectory has a proper random-walk penalty."
            )
        raw, unit = check_times(time_points, N)
        Rf = tensor.astype(float)  # noqa: N806
        path, beta = _state_space(Rf, unit, state, max_iter)
        statistic = tensor.sum(axis=1)
        for n in range(path.shape[1]):
            path[:, n] = _board.average_by(path[:, n], statistic)
        scores = _path_score(path, target)
        params = {"difficulty": beta, "ability_path": path, "time_points": raw, "gain": path[:, -1] - path[:, 0]}
    else:
        raise ValueError(f"Unknown variant: {variant_name}. Use 'linear', 'growth', or 'state_space'.")
    return result(scores, method, return_scores, params if return_item_params else None)
