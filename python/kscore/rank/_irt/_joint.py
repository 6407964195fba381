"""The joint (fixed-effects) fits: Rasch, 2PL and 3PL, by maximum
likelihood or MAP, solved to their optimum by the Rust core's Newton-CG
(``kscore._kscore.irt_rasch`` / ``irt_logistic``), with scorio's checks and
its audit of non-convex fits.

scorio starts L-BFGS from logits of smoothed proportions and stops at its
tolerance or iteration limit; kscore starts from the same point and stops
within rounding of the optimum (a full Newton step below 1e-11). For the
2PL and 3PL, whose objectives are not convex, that is the optimum the
Newton path from scorio's start reaches; scorio's audit (fits from
perturbed starts when a fit looks suspicious, and a refusal when equally
good optima rank differently) runs as in scorio, each fit exact.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ... import _kscore
from ..._arrays import FloatArray
from .._ties import rank_scores
from . import _board
from ._checks import LOG_DISCRIMINATION_BOUND, MAX_STABLE_LOCATION
from ._custom import fixed_point
from ._priors import FLAT, PriorSpec


def _logit(p: FloatArray) -> FloatArray:
    return np.log(p / (1.0 - p))


def start_abilities(rows: npt.NDArray[np.int64], M: int, N: int) -> FloatArray:  # noqa: N803
    """scorio's start: the logit of each model's mean smoothed proportion
    ``(k + 0.5) / (N + 1)`` (clipped to [1e-6, 1 - 1e-6], which only binds
    past half a million trials)."""
    return _logit(np.clip((rows / M + 0.5) / (N + 1.0), 1e-6, 1 - 1e-6))


def start_difficulties(cols: npt.NDArray[np.int64], L: int, N: int) -> FloatArray:  # noqa: N803
    return -_logit(np.clip((cols / L + 0.5) / (N + 1.0), 1e-6, 1 - 1e-6))


def _failed(name: str, max_iter: int, iterations: int, gradient: float) -> RuntimeError:
    """scorio's error type for an unfinished fit, with kscore's reason."""
    if iterations >= max_iter:
        why = f"Newton iteration limit (max_iter={max_iter}) reached"
    else:
        why = f"no descent left at projected gradient {gradient:.3g}"
    return RuntimeError(f"{name} optimization failed: {why}")


def rasch(
    k: npt.NDArray[Any], N: int, prior: PriorSpec | Any, max_iter: int, name: str  # noqa: N803
) -> tuple[FloatArray, FloatArray]:
    """Abilities and centred difficulties of the Rasch joint fit (ML with
    ``FLAT``, else MAP). Models with equal totals share an ability unless
    the prior has per-model means, and questions with equal totals share a
    difficulty: the fit runs on those groups."""
    L, M = k.shape
    rows, cols = _board.totals(k)
    if not isinstance(prior, PriorSpec):
        # A prior kscore cannot differentiate: exact fits under its
        # quadratic stand-ins until they settle (_custom.py).
        def solve(stand_in: PriorSpec) -> tuple[FloatArray, tuple[FloatArray, FloatArray]]:
            fit = rasch(k, N, stand_in, max_iter, name)
            return fit[0], fit

        first = rasch(k, N, PriorSpec("gaussian"), max_iter, name)
        return fixed_point(prior, first[0], solve, name)
    if not prior.per_model:
        p_keys, p_inv, p_count = np.unique(rows, return_inverse=True, return_counts=True)
    else:
        p_keys, p_inv, p_count = rows, np.arange(L), np.ones(L, dtype=np.int64)
    i_keys, i_inv, i_count = np.unique(cols, return_inverse=True, return_counts=True)
    x0 = np.concatenate([start_abilities(p_keys, M, N), start_difficulties(i_keys, L, N)])
    x, _, iterations, converged, gradient = _kscore.irt_rasch(
        N,
        p_count.astype(np.float64),
        (p_keys * p_count).astype(np.float64),
        i_count.astype(np.float64),
        (i_keys * i_count).astype(np.float64),
        x0,
        max_iter,
        **prior.arguments(),
    )
    if not converged:
        raise _failed(name, max_iter, iterations, gradient)
    G = p_keys.size
    theta = np.asarray(x[:G])[p_inv.reshape(-1)]
    beta = np.asarray(x[G:])[i_inv.reshape(-1)]
    return theta, beta - beta.mean()


@dataclass(frozen=True)
class Guess:
    """The 3PL's guessing: ``fixed`` (a value), or estimated (``upper``,
    ridge ``reg``); ``None`` is the 2PL."""

    fixed: float | None = None
    upper: float = 0.5
    reg: float = 0.1

    def arguments(self) -> dict[str, Any]:
        if self.fixed is not None:
            return {"guessing": "fixed", "c": self.fixed}
        return {"guessing": "free", "c": self.upper, "reg_guessing": self.reg}


@dataclass(frozen=True)
class LogisticFit:
    """A 2PL/3PL fit: ``x = [theta, (b, log a[, guessing logit]) per
    item]`` with the difficulties centred, and its objective."""

    x: FloatArray
    value: float
    L: int
    p: int

    @property
    def theta(self) -> FloatArray:
        return self.x[: self.L]

    def item(self, j: int) -> FloatArray:
        return self.x[self.L :].reshape(-1, self.p)[:, j]

    @property
    def beta(self) -> FloatArray:
        b = self.item(0)
        return np.asarray(b - b.mean(), dtype=np.float64)


def require_stable(theta: FloatArray, beta: FloatArray, log_a: FloatArray, name: str) -> None:
    """scorio's refusal of saturated fits and fits at the discrimination bound."""
    location = np.concatenate([theta, beta])
    at_bound = np.any(np.abs(log_a) >= LOG_DISCRIMINATION_BOUND - 1e-6)
    if not np.isfinite(location).all() or np.max(np.abs(location)) > MAX_STABLE_LOCATION or at_bound:
        raise ValueError(
            f"{name} did not have a stable interior joint estimate; "
            "ability/difficulty parameters saturated or an item discrimination "
            "reached the numerical search boundary. Use Rasch MML or an "
            "estimator with proper priors on every nonidentified parameter."
        )


def logistic(
    k: npt.NDArray[Any],
    N: int,  # noqa: N803
    *,
    name: str,
    prior: PriorSpec | Any = FLAT,
    guess: Guess | None,
    reg_discrimination: float,
    max_iter: int,
    exchangeable: bool,
    orbit: npt.NDArray[np.int64],
) -> LogisticFit:
    """The 2PL (``guess=None``) or 3PL joint fit from scorio's start, with
    scorio's audit when the fit is suspicious (``_optimize_nonconvex_irt``)."""
    L, M = k.shape
    p = 3 if guess is not None and guess.fixed is None else 2
    x_init = _rasch_start(k, N, prior, max_iter, name, p)
    guessing = guess.arguments() if guess is not None else {"guessing": "zero"}

    def exact(start: FloatArray, spec: PriorSpec) -> LogisticFit:
        x, value, iterations, converged, gradient = _kscore.irt_logistic(
            k, N, start, max_iter, reg_discrimination, LOG_DISCRIMINATION_BOUND, **guessing, **spec.arguments()
        )
        fit = LogisticFit(np.asarray(x), float(value), L, p)
        if not converged:
            # Where the fit stopped outside scorio's stable region (the
            # infimum lies at infinity or on the discrimination bound), the
            # answer is scorio's refusal of unstable fits, not a failure.
            require_stable(fit.theta, fit.beta, fit.item(1), name)
            raise _failed(name, max_iter, iterations, gradient)
        return fit

    if isinstance(prior, PriorSpec):
        spec = prior

        def run(start: FloatArray) -> LogisticFit:
            return exact(start, spec)

    else:
        custom = prior

        def run(start: FloatArray) -> LogisticFit:
            # Exact fits under the custom prior's quadratic stand-ins, each
            # from the last one's optimum, until they settle (_custom.py);
            # the objective reported is the one with the prior itself.
            state = {"x": exact(start, PriorSpec("gaussian")).x}

            def solve(stand_in: PriorSpec) -> tuple[FloatArray, LogisticFit]:
                fit = exact(state["x"], stand_in)
                state["x"] = fit.x
                return fit.theta, fit

            fit = fixed_point(custom, state["x"][:L].copy(), solve, name)
            value = _without_surrogate(fit, custom, k, N, guess, reg_discrimination)
            return LogisticFit(fit.x, value, L, p)

    second = _scorio_start(k, N, p) if k.size <= _TWO_STARTS else None
    return _audited(run, x_init, k, name, exchangeable, orbit, second)


#: Boards up to this many cells are also fitted from scorio's start.
_TWO_STARTS = 50_000


def _scorio_start(k: npt.NDArray[Any], N: int, p: int) -> FloatArray:  # noqa: N803
    """scorio's start: logits of smoothed proportions, discrimination 1,
    guessing logit 0."""
    L, M = k.shape
    rows, cols = _board.totals(k)
    items = np.zeros((M, p))
    items[:, 0] = start_difficulties(cols, L, N)
    return np.concatenate([start_abilities(rows, M, N), items.reshape(-1)])


def _rasch_start(
    k: npt.NDArray[Any], N: int, prior: PriorSpec | Any, max_iter: int, name: str, p: int  # noqa: N803
) -> FloatArray:
    """The 2PL/3PL start: the Rasch fit under the same prior (a Gaussian one
    for a custom prior), every discrimination 1 and guessing logit 0.

    scorio starts from logits of smoothed proportions; from there the Newton
    path takes about twice the iterations to reach the same optimum (checked
    on random boards to 1e-14, tests/test_rank_irt.py). Falls back to
    scorio's start where the Rasch fit fails."""
    L, M = k.shape
    items = np.zeros((M, p))
    try:
        theta, beta = rasch(k, N, prior if isinstance(prior, PriorSpec) else PriorSpec("gaussian"), max_iter, name)
    except RuntimeError:
        return _scorio_start(k, N, p)
    items[:, 0] = beta
    return np.concatenate([theta, items.reshape(-1)])


def _audited(
    run: Callable[[FloatArray], LogisticFit],
    x_init: FloatArray,
    k: npt.NDArray[Any],
    name: str,
    exchangeable: bool,
    orbit: npt.NDArray[np.int64],
    scorio_start: FloatArray | None = None,
) -> LogisticFit:
    """scorio's audit of a non-convex fit: when the fit has large
    parameters, or models that a relabelling exchanges, refit from starts
    moved along the leading direction of the centred counts, and refuse if
    equally good fits rank differently; else the smallest such fit."""
    L = k.shape[0]

    def stable(fit: LogisticFit) -> LogisticFit:
        require_stable(fit.theta, fit.beta, fit.item(1), name)
        return fit

    # The fit from scorio's own start too, where a second fit is cheap: the
    # lower of the two (both local minima of the same objective); an
    # unstable or unfinished fit counts only if both are.
    fits: list[tuple[LogisticFit, FloatArray]] = []
    failure: Exception | None = None
    for start in [x_init] if scorio_start is None else [x_init, scorio_start]:
        try:
            fits.append((stable(run(start)), start))
        except (RuntimeError, ValueError) as exc:
            failure = failure or exc
    if not fits:
        assert failure is not None
        raise failure
    base, x_init = min(fits, key=lambda f: f[0].value)
    adjusted = _board.average_over_orbits(base.theta, orbit) if exchangeable else base.theta
    symmetric = exchangeable and bool(np.any(orbit != np.arange(L)))
    suspicious = (
        np.max(np.abs(base.item(1))) > 4.0
        or np.max(np.abs(np.concatenate([base.theta, base.beta]))) > 10.0
        or np.max(np.abs(adjusted - base.theta)) > 1e-4
        or symmetric
    )
    if not suspicious:
        return base
    candidates = [base]
    for direction in _leading_directions(k):
        for sign in (-1.0, 1.0):
            start = x_init.copy()
            start[:L] += sign * direction
            try:
                candidates.append(stable(run(start)))
            except (RuntimeError, ValueError):
                continue
    best = min(c.value for c in candidates)
    near = [c for c in candidates if c.value <= best + 1e-7 * max(1.0, abs(best))]
    rankings = set()
    for c in near:
        theta = _board.average_over_orbits(c.theta, orbit) if exchangeable else c.theta
        rankings.add(tuple(rank_scores(theta, "competition").tolist()))
    if len(rankings) > 1:
        raise ValueError(
            f"{name} has multiple equally good nonconvex solutions that "
            "imply different rankings; the ranking is not identified. Use a "
            "Rasch or MML estimator, or report a sensitivity analysis."
        )

    def tie_break(c: LogisticFit) -> tuple[float, tuple[float, ...]]:
        signature = np.round(
            np.concatenate([np.sort(c.theta), np.sort(c.beta), np.sort(c.item(1))]), decimals=10
        )
        return float(np.linalg.norm(c.x)), tuple(signature.tolist())

    return min(near, key=tie_break)


#: Up to this many models the Gram matrix's eigenvectors come from a dense
#: eigendecomposition, as in scorio; past it, from Lanczos iterations on
#: products with the counts (a dense Gram would cost L^2 M).
_DENSE_GRAM = 2000


def _leading_directions(k: npt.NDArray[Any]) -> list[FloatArray]:
    """scorio's perturbation directions: the normalised columns (up to sign)
    of the projector onto the top eigenspace of the centred counts' Gram
    matrix."""
    L, M = k.shape
    mean = k.mean(axis=0)
    if L <= _DENSE_GRAM:
        centred = k - mean
        eigenvalues, eigenvectors = np.linalg.eigh(centred @ centred.T)
    else:
        eigenvalues, eigenvectors = _top_eigenpairs(k, mean, 4)
    largest = float(eigenvalues[-1])
    directions: list[FloatArray] = []
    if largest <= np.finfo(float).eps:
        return directions
    space = eigenvectors[:, eigenvalues >= largest - 1e-10 * max(1.0, largest)]
    projector = space @ space.T
    for column in projector.T:
        norm = float(np.linalg.norm(column))
        if norm <= 1e-10:
            continue
        direction = column / norm
        if any(
            np.allclose(direction, d, atol=1e-10, rtol=1e-10) or np.allclose(direction, -d, atol=1e-10, rtol=1e-10)
            for d in directions
        ):
            continue
        directions.append(direction)
    return directions


def _top_eigenpairs(k: npt.NDArray[Any], mean: FloatArray, size: int) -> tuple[FloatArray, FloatArray]:
    """The top ``size`` eigenpairs of ``C C'`` (``C = k - mean``), ascending:
    subspace iteration with Rayleigh-Ritz, products with ``k`` a block of
    rows at a time (no ``L x M`` float copy), until the eigenvalues settle
    to 1e-14 relative."""
    L, M = k.shape
    block = max(1, (1 << 22) // max(M, 1))

    def times(V: FloatArray) -> FloatArray:  # noqa: N803
        W = -np.outer(mean, V.sum(axis=0))  # noqa: N806
        for start in range(0, L, block):
            W += k[start : start + block].T.astype(float) @ V[start : start + block]
        out = np.empty_like(V)
        shift = mean @ W
        for start in range(0, L, block):
            out[start : start + block] = k[start : start + block].astype(float) @ W - shift
        return out

    rng = np.random.default_rng(0)
    V, _ = np.linalg.qr(rng.standard_normal((L, size + 4)))  # noqa: N806
    previous = np.zeros(size)
    for _ in range(500):
        V, _ = np.linalg.qr(times(V))  # noqa: N806
        values, rotation = np.linalg.eigh(V.T @ times(V))
        top = values[-size:]
        if np.max(np.abs(top - previous)) <= 1e-14 * max(1.0, abs(float(top[-1]))):
            break
        previous = top
    return values[-size:], (V @ rotation)[:, -size:]


def _without_surrogate(
    fit: LogisticFit, prior: Any, k: npt.NDArray[Any], N: int, guess: Guess | None, reg: float  # noqa: N803
) -> float:
    """scorio's objective of a 2PL/3PL fit under the prior itself (for the
    audit's comparison of fits)."""
    L = fit.L
    a = np.exp(fit.item(1))
    z = a * (fit.theta[:, None] - fit.beta[None, :])
    kf = k.astype(float)
    if guess is None or guess.fixed == 0.0:
        nll = float(np.sum(N * np.logaddexp(0.0, z) - kf * z))
        c = None
    else:
        c = np.full(z.shape[1], guess.fixed) if guess.fixed is not None else guess.upper / (1.0 + np.exp(-fit.item(2)))
        prob = c + (1.0 - c) / (1.0 + np.exp(-z))
        nll = float(-np.sum(kf * np.log(prob) + (N - kf) * np.log1p(-prob)))
    nll += reg * float(np.sum(fit.item(1) ** 2))
    if guess is not None and guess.fixed is None:
        nll += guess.reg * float(np.sum(fit.item(2) ** 2))
    del L, c
    return nll + float(prior.penalty(fit.theta))
