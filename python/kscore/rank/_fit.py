"""Calls of the Rust core's exact fits (Newton to the optimum) with a prior.

A prior reaches the core as its analytic kind (Gaussian per-model means
and precision, Laplace, Cauchy) or, for a custom penalty, as a hook the
core calls back with ``theta`` (value, or value, gradient and Hessian
diagonal by :meth:`PriorTerms.derivatives`). A hook's numeric derivatives
are good to about 1e-11, so those fits stop at a relative residual of
1e-9 instead of 1e-12.

Newton takes a few dozen steps on a convex objective; a Cauchy prior's
concave tails (strengths far from its location, e.g. a model that never
loses) make the safeguarded steps short for a while (237 steps on one
6-model Davidson-Luce board), hence the core's budget of ``MAX_ITER``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _kscore
from ._pairs import Paired
from ._priors import PriorTerms

Floats = npt.NDArray[np.float64]

#: Relative KKT residual at which a fit stops (analytic priors; hooks).
TOL = 1e-12
HOOK_TOL = 1e-9
#: Newton steps at most (each costs one gradient and Hessian).
MAX_ITER = 2000


def prior_arguments(terms: PriorTerms | None) -> dict[str, Any]:
    """The core's keyword arguments for a prior (``None``: no penalty)."""
    return {"max_iter": MAX_ITER, **_penalty_arguments(terms)}


def _penalty_arguments(terms: PriorTerms | None) -> dict[str, Any]:
    if terms is None or terms.kind == "none":
        return {"prior": "none", "tol": TOL}
    if terms.kind == "gaussian":
        assert terms.mean is not None
        return {
            "prior": "gaussian",
            "mean": np.ascontiguousarray(terms.mean, dtype=np.float64),
            "precision": np.full(terms.models, terms.precision),
            "tol": TOL,
        }
    if terms.kind == "laplace":
        return {"prior": "laplace", "loc": terms.loc, "weight": terms.weight, "tol": TOL}
    if terms.kind == "cauchy":
        return {"prior": "cauchy", "loc": terms.loc, "scale": terms.scale, "tol": TOL}

    def hook(theta: Floats, derivatives: bool) -> Any:
        return terms.derivatives(theta) if derivatives else terms.value(theta)

    return {"prior": "none", "hook": hook, "tol": HOOK_TOL}


def fit_pairs(
    p: Paired,
    name: str,
    model: str,
    *,
    ties: str = "ignore",
    tie_parameter: float | None = None,
    terms: PriorTerms | None = None,
    init: Floats | None = None,
) -> _kscore.PairwiseFit:
    """``model`` fitted to the paired counts (``theta`` centred); a
    RuntimeError naming ``name`` if Newton did not converge."""
    result = _kscore.pairwise_fit(
        p.models,
        p.i,
        p.j,
        p.win_i,
        p.win_j,
        p.tie,
        model=model,
        ties=ties,
        tie_parameter=tie_parameter,
        init=init,
        **prior_arguments(terms),
    )
    if not result.converged:
        raise RuntimeError(
            f"{name}: the Newton fit did not converge (relative residual {result.residual / result.scale:.3g})"
        )
    return result


def strengths(theta: Floats) -> Floats:
    """scorio's scores of centred log-strengths: ``exp(clip(theta, -30, 30))``."""
    return np.exp(np.clip(theta, -30.0, 30.0))
