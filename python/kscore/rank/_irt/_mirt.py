"""``mirt``: compensatory multidimensional IRT by marginal maximum likelihood
(Bock-Aitkin EM on a product Gauss-Hermite grid) with EAP abilities, ranked
by the reference composite; drop-in for scorio.rank 0.2.3's.

scorio solves each EM iteration's M-step (all items' slopes, intercepts and
guessing logits at once) by L-BFGS with at most ``max_iter`` (50)
iterations, and raises when that limit is reached: on a 20 x 500 x 8 board
it fails in the first M-step. The M-step separates into one small problem
per item; kscore solves each exactly (batched Newton: convex for the 2PL,
with the Hessian's negative eigenvalues lifted for the 3PL), and runs scorio's
EM loop around it: the same start, E-step (scorio's clipped probabilities),
stopping rule (largest parameter change below ``tol``, at most ``em_iter``
iterations), axis orientation and composite.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..._arrays import FloatArray
from .._ties import RankMethod
from . import _board
from ._checks import fix_guessing as check_fix_guessing
from ._checks import guessing_upper as check_guessing_upper
from ._checks import nonnegative_float, positive_int
from ._rasch import IrtResult, result


def _sigmoid(x: FloatArray) -> FloatArray:
    """scorio's logistic (argument clipped to [-30, 30])."""
    return 1.0 / (1.0 + np.exp(-np.clip(x, -30.0, 30.0)))


def _stable_sigmoid(x: FloatArray) -> FloatArray:
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _softplus(x: FloatArray) -> FloatArray:
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


def product_grid(n_factors: int, n_quadrature: int) -> tuple[FloatArray, FloatArray]:
    """scorio's product Gauss-Hermite grid for N(0, I): nodes ``(G, D)`` and log weights."""
    x, w = np.polynomial.hermite.hermgauss(n_quadrature)
    nodes = np.sqrt(2.0) * x
    logw = np.log(w) - 0.5 * np.log(np.pi)
    mesh = np.meshgrid(*([nodes] * n_factors), indexing="ij")
    grid = np.stack([m.ravel() for m in mesh], axis=1)
    log_w = np.zeros(grid.shape[0])
    for m in np.meshgrid(*([logw] * n_factors), indexing="ij"):
        log_w += m.ravel()
    return grid, log_w


class _Items:
    """The expected complete-data objective of one M-step, per item:
    ``-sum_g [r_gm log P_gm + (f_g - r_gm) log(1 - P_gm)]`` with
    ``P = c + (1 - c) sigmoid(a_m' theta_g + d_m)``, plus ``reg_d |a_m|^2``
    (and ``reg_g gamma_m^2``). Parameters per item: ``a`` (D), ``d``, and
    ``gamma`` when guessing is estimated."""

    def __init__(
        self,
        grid: FloatArray,
        r: FloatArray,
        f: FloatArray,
        c_fixed: FloatArray | None,
        free_c: bool,
        upper: float,
        reg_d: float,
        reg_g: float,
    ) -> None:
        self.x = np.column_stack([grid, np.ones(grid.shape[0])])  # (G, D + 1)
        self.r, self.f = r, f
        self.c_fixed, self.free_c, self.upper = c_fixed, free_c, upper
        self.reg_d, self.reg_g = reg_d, reg_g
        self.D = grid.shape[1]

    def _c(self, params: FloatArray) -> tuple[FloatArray | None, FloatArray, FloatArray]:
        """c per item, dc/dgamma and d2c/dgamma2."""
        M = params.shape[0]
        if self.free_c:
            u = _stable_sigmoid(params[:, -1])
            cg = self.upper * u * (1 - u)
            return self.upper * u, cg, cg * (1 - 2 * u)
        zero = np.zeros(M)
        return self.c_fixed, zero, zero

    def value(self, params: FloatArray) -> FloatArray:
        D = self.D
        lin = self.x @ params[:, : D + 1].T  # (G, M)
        c, _, _ = self._c(params)
        r, fr = self.r, self.f[:, None] - self.r
        if c is None:
            out = (self.f[:, None] * _softplus(lin) - r * lin).sum(axis=0)
        else:
            s = _stable_sigmoid(lin)
            log_p = np.log(c + (1 - c) * s)
            log_q = np.log1p(-c) - _softplus(lin)
            out = -(np.where(r > 0, r * log_p, 0.0) + np.where(fr > 0, fr * log_q, 0.0)).sum(axis=0)
        out = out + self.reg_d * (params[:, :D] ** 2).sum(axis=1)
        if self.free_c:
            out = out + self.reg_g * params[:, -1] ** 2
        return np.asarray(out, dtype=np.float64)

    def derivatives(self, params: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Gradient ``(M, P)`` and Hessian ``(M, P, P)``."""
        D = self.D
        X = self.x  # noqa: N806
        lin = X @ params[:, : D + 1].T
        s = _stable_sigmoid(lin)
        c, cg, cgg = self._c(params)
        r, fr = self.r, self.f[:, None] - self.r
        if c is None:
            rz = self.f[:, None] * s - r
            zz = self.f[:, None] * s * (1 - s)
        else:
            pr = c + (1 - c) * s
            rho = (1 - c) * s / pr
            rz = fr * s - r * rho * (1 - s)
            zz = fr * s * (1 - s) + r * rho * (1 - s) * (rho * (1 - s) - (1 - 2 * s))
        P = params.shape[1]
        M = params.shape[0]
        grad = np.zeros((M, P))
        hess = np.zeros((M, P, P))
        grad[:, : D + 1] = rz.T @ X
        hess[:, : D + 1, : D + 1] = np.einsum("gm,ga,gb->mab", zz, X, X)
        idx = np.arange(D)
        grad[:, :D] += 2 * self.reg_d * params[:, :D]
        hess[:, idx, idx] += 2 * self.reg_d
        if self.free_c:
            assert c is not None
            nll_c = -r * (1 - s) / pr + fr / (1 - c)
            cc = r * (1 - s) ** 2 / pr**2 + fr / (1 - c) ** 2
            zc = r * (1 - s) * (rho * (1 - s) + s) / pr
            grad[:, -1] = nll_c.sum(axis=0) * cg + 2 * self.reg_g * params[:, -1]
            cross = (zc.T @ X) * cg[:, None]
            hess[:, : D + 1, -1] = cross
            hess[:, -1, : D + 1] = cross
            hess[:, -1, -1] = (cc.sum(axis=0) * cg**2 + nll_c.sum(axis=0) * cgg) + 2 * self.reg_g
        return grad, hess


def newton_per_item(
    value: Callable[[FloatArray], FloatArray],
    derivatives: Callable[[FloatArray], tuple[FloatArray, FloatArray]],
    params: FloatArray,
    max_rounds: int = 200,
) -> FloatArray:
    """Minimise a sum of independent per-item objectives: a Newton step per
    item (the Hessian's eigenvalues lifted to a positive floor where it is
    not positive definite), halved per item until its objective falls."""
    x = params.copy()
    f = value(x)
    for _ in range(max_rounds):
        grad, hess = derivatives(x)
        w, v = np.linalg.eigh(hess)
        floor = 1e-10 * np.maximum(1.0, np.abs(w).max(axis=1, keepdims=True))
        w = np.maximum(w, floor)
        step = -np.einsum("mab,mb->ma", v, np.einsum("mba,mb->ma", v, grad) / w)
        t = np.ones(x.shape[0])
        moved = np.zeros(x.shape[0], dtype=bool)
        todo = np.ones(x.shape[0], dtype=bool)
        for _ in range(60):
            trial = x + t[:, None] * step
            ft = value(trial)
            slack = 1e-13 * np.maximum(1.0, np.abs(f))
            ok = todo & np.isfinite(ft) & (ft <= f + 1e-4 * t * (grad * step).sum(axis=1) + slack)
            x[ok] = trial[ok]
            f[ok] = ft[ok]
            moved |= ok
            todo &= ~ok
            if not todo.any():
                break
            t[todo] *= 0.5
        size = np.abs(t[:, None] * step).max(axis=1)
        scale = 1.0 + np.abs(x).max(axis=1)
        if np.all((size <= 1e-12 * scale) | ~moved):
            break
    return x


def _estimate(
    k: FloatArray,
    N: int,  # noqa: N803
    n_factors: int,
    model: str,
    em_iter: int,
    n_quadrature: int,
    fixed: float | None,
    reg_d: float,
    reg_g: float,
    upper: float,
    tol: float,
) -> tuple[FloatArray, ...]:
    """scorio's ``_estimate_mirt`` with exact M-steps."""
    L, M = k.shape
    D = n_factors
    free_c = model == "3pl" and fixed is None
    c_fixed = np.full(M, float(fixed)) if (model == "3pl" and fixed is not None) else None
    grid, log_w = product_grid(D, n_quadrature)
    wrong = N - k
    p_lm = np.clip((k + 0.5) / (N + 1.0), 1e-6, 1 - 1e-6)
    z = np.log(p_lm / (1 - p_lm))
    d = z.mean(axis=0)
    _, s_sv, vt = np.linalg.svd(z - d[None, :], full_matrices=False)
    a = np.zeros((M, D))
    for dd in range(min(D, vt.shape[0])):
        a[:, dd] = vt[dd, :] * np.sqrt(max(float(s_sv[dd]), 0.0))
    a = np.clip(a, -3.0, 3.0)
    gamma = np.zeros(M)

    def current_c(g: FloatArray) -> FloatArray | None:
        return upper * _sigmoid(g) if free_c else c_fixed

    def posterior(a_: FloatArray, d_: FloatArray, c_: FloatArray | None) -> FloatArray:
        s = _sigmoid(grid @ a_.T + d_[None, :])
        p = s if c_ is None else c_[None, :] + (1.0 - c_[None, :]) * s
        p = np.clip(p, 1e-10, 1 - 1e-10)
        logpost = k @ np.log(p).T + wrong @ np.log1p(-p).T + log_w[None, :]
        logpost -= logpost.max(axis=1, keepdims=True)
        post = np.exp(logpost)
        return np.asarray(post / post.sum(axis=1, keepdims=True), dtype=np.float64)

    for _ in range(em_iter):
        post = posterior(a, d, current_c(gamma))
        f = N * post.sum(axis=0)
        r = post.T @ k
        items = _Items(grid, r, f, c_fixed, free_c, upper, reg_d, reg_g)
        start = np.column_stack([a, d] + ([gamma] if free_c else []))
        new = newton_per_item(items.value, items.derivatives, start)
        a_new, d_new = new[:, :D], new[:, D]
        gamma_new = new[:, D + 1] if free_c else gamma
        delta = max(
            float(np.max(np.abs(a_new - a))),
            float(np.max(np.abs(d_new - d))),
            float(np.max(np.abs(gamma_new - gamma))) if free_c else 0.0,
        )
        a, d, gamma = a_new, d_new, gamma_new
        if delta < tol:
            break
    c_final = current_c(gamma)
    post = posterior(a, d, c_final)
    theta = post @ grid
    theta_sd = np.sqrt(np.maximum(post @ (grid**2) - theta**2, 0.0))
    for dd in range(D):
        if a[:, dd].sum() < 0.0:
            a[:, dd] *= -1.0
            theta[:, dd] *= -1.0
    c_out = c_final if c_final is not None else np.zeros(M)
    mdisc = np.sqrt(np.sum(a**2, axis=1))
    mdiff = -d / np.maximum(mdisc, 1e-12)
    scores = theta @ a.mean(axis=0)
    return theta, a, d, c_out, mdisc, mdiff, theta_sd, scores


def mirt(
    R: Any,  # noqa: N803
    n_factors: int = 2,
    model: str = "2pl",
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 50,
    em_iter: int = 100,
    n_quadrature: int = 15,
    fix_guessing: float | None = None,
    reg_discrimination: float = 0.01,
    reg_guessing: float = 0.1,
    guessing_upper: float = 0.5,
    tol: float = 1e-4,
    return_item_params: bool = False,
) -> IrtResult:
    r"""Rank models by compensatory multidimensional IRT (MML-EM, EAP abilities).

    .. math::

        P(R_{lmn} = 1 \mid \theta_l) = c_m + (1 - c_m)\,\sigma(a_m^\top \theta_l + d_m),
        \qquad s_l = \bar a^\top \hat\theta_l^{\mathrm{EAP}}

    with ``c = 0`` for ``model="2pl"``; abilities N(0, I) on the product
    grid of ``n_quadrature ** n_factors`` nodes. Every M-step is solved
    exactly (scorio's L-BFGS stops after ``max_iter`` iterations and raises).

    References:
        Chalmers, R. P. (2012). mirt: A Multidimensional Item Response
        Theory Package for the R Environment. Journal of Statistical
        Software, 48(6), 1-29. Reckase, M. D. (2009). Multidimensional Item
        Response Theory. Bock, R. D., & Aitkin, M. (1981).

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        n_factors: latent dimensions ``D``.
        model: ``"2pl"`` or ``"3pl"``.
        method: tie rule.
        return_scores: also return the composite scores.
        max_iter: validated as scorio's M-step limit (kscore's are exact).
        em_iter: most EM iterations.
        n_quadrature: nodes per dimension.
        fix_guessing: ``model="3pl"`` only: a fixed ``c``.
        reg_discrimination: ridge on the slopes.
        reg_guessing: ridge on the guessing logits.
        guessing_upper: the upper bound of ``c``.
        tol: stop when no item parameter moves by ``tol`` or more.
        return_item_params: also return difficulty (MDIFF), discrimination
            (MDISC), slopes, intercept, abilities, ability_sd (and guessing).

    Returns:
        ranks, ``(ranks, scores)`` or ``(ranks, scores, params)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 1]], [[0, 0], [0, 0]]])
        >>> mirt(R, n_factors=1, n_quadrature=7).tolist()
        [1, 2]
    """
    n_factors = positive_int("n_factors", n_factors, min_value=1)
    positive_int("max_iter", max_iter)
    em_iter = positive_int("em_iter", em_iter)
    n_quadrature = positive_int("n_quadrature", n_quadrature, min_value=2)
    reg_d = nonnegative_float("reg_discrimination", reg_discrimination)
    reg_g = nonnegative_float("reg_guessing", reg_guessing)
    tol = nonnegative_float("tol", tol)
    upper = check_guessing_upper(guessing_upper)
    model_name = str(model).strip().lower()
    if model_name not in {"2pl", "3pl"}:
        raise ValueError("model must be '2pl' or '3pl'.")
    if model_name == "2pl" and fix_guessing is not None:
        raise ValueError("fix_guessing is only valid for model='3pl'.")
    fixed = check_fix_guessing(fix_guessing, upper)
    grid_size = int(n_quadrature) ** int(n_factors)
    if grid_size > 200_000:
        raise ValueError(
            f"Product quadrature grid would have {grid_size} nodes "
            f"(n_quadrature={n_quadrature} ** n_factors={n_factors}). "
            "Reduce n_factors or n_quadrature; compensatory MML-EM is intended "
            "for a small number of factors."
        )
    counts, N = _board.counts(R)
    L, M = counts.shape
    _, cols = _board.totals(counts)
    _board.require_finite_items(cols, L, N, "MIRT")
    if n_factors > M:
        raise ValueError(f"n_factors={n_factors} cannot exceed number of questions M={M}.")
    theta, a, d, c, mdisc, mdiff, theta_sd, scores = _estimate(
        counts.astype(float), N, n_factors, model_name, em_iter, n_quadrature, fixed, reg_d, reg_g, upper, tol
    )
    orbit = _board.orbits(counts)
    scores = _board.average_over_orbits(scores, orbit)
    for factor in range(theta.shape[1]):
        theta[:, factor] = _board.average_over_orbits(theta[:, factor], orbit)
        theta_sd[:, factor] = _board.average_over_orbits(theta_sd[:, factor], orbit)
    params = None
    if return_item_params:
        params = {
            "difficulty": mdiff,
            "discrimination": mdisc,
            "slopes": a,
            "intercept": d,
            "abilities": theta,
            "ability_sd": theta_sd,
        }
        if model_name == "3pl":
            params["guessing"] = c
    return result(scores, method, return_scores, params)
