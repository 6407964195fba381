"""MAP fits under a prior kscore cannot differentiate (``CustomPrior`` or
any other ``Prior`` subclass), without scipy.

scorio gives such priors a central-difference gradient (``_prior_gradient``)
inside L-BFGS. kscore replaces the prior, around the current abilities
``t``, by the Gaussian with the same gradient and (central-difference)
diagonal curvature, and solves that MAP problem exactly with the Rust
Newton fit; then again around the new abilities, until they stop moving. At
the fixed point the likelihood's gradient cancels the prior's gradient as
differenced at the optimum: the optimum to the accuracy of that difference
(about 1e-8 relative), which is scorio's own accuracy for these priors.
Where the differenced curvature is not positive, a small positive one is
used: then each round is a proximal step, and the fixed point is the same.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from ..._arrays import FloatArray
from ._priors import PriorSpec

Fit = TypeVar("Fit")

#: Rounds of the fixed-point iteration, and the change in abilities that ends it.
MAX_ROUNDS = 200
TOLERANCE = 1e-10


def _penalty(prior: Any, theta: FloatArray) -> float:
    return float(prior.penalty(theta))


def gradient(prior: Any, theta: FloatArray) -> FloatArray:
    """scorio's central-difference gradient of a prior's penalty."""
    out = np.empty_like(theta, dtype=float)
    steps = np.sqrt(np.finfo(float).eps) * np.maximum(1.0, np.abs(theta))
    for i, step in enumerate(steps):
        up, down = theta.copy(), theta.copy()
        up[i] += step
        down[i] -= step
        out[i] = (_penalty(prior, up) - _penalty(prior, down)) / (2.0 * step)
    return out


def curvature(prior: Any, theta: FloatArray) -> FloatArray:
    """Central-difference second derivatives along each ability."""
    out = np.empty_like(theta, dtype=float)
    centre = _penalty(prior, theta)
    steps = np.finfo(float).eps ** 0.25 * np.maximum(1.0, np.abs(theta))
    for i, step in enumerate(steps):
        up, down = theta.copy(), theta.copy()
        up[i] += step
        down[i] -= step
        out[i] = (_penalty(prior, up) - 2.0 * centre + _penalty(prior, down)) / (step * step)
    return out


def surrogate(prior: Any, theta: FloatArray) -> PriorSpec:
    """The Gaussian with the prior's gradient and curvature at ``theta``."""
    g = gradient(prior, theta)
    h = curvature(prior, theta)
    floor = 1e-3 * max(1.0, float(np.max(np.abs(h), initial=0.0)))
    h = np.where(np.isfinite(h) & (h > floor), h, floor)
    return PriorSpec(
        "gaussian",
        means=np.ascontiguousarray(theta - g / h),
        variances=np.ascontiguousarray(1.0 / h),
    )


def fixed_point(
    prior: Any, theta: FloatArray, solve: Callable[[PriorSpec], tuple[FloatArray, Fit]], name: str
) -> Fit:
    """Solve under the prior's quadratic stand-in around ``theta`` until the
    abilities stop moving; ``solve`` returns the abilities and the fit."""
    for _ in range(MAX_ROUNDS):
        new, fit = solve(surrogate(prior, theta))
        if np.max(np.abs(new - theta)) <= TOLERANCE * (1.0 + float(np.max(np.abs(new)))):
            return fit
        theta = new
    raise RuntimeError(f"{name} optimization failed: the custom prior's fixed point did not settle")
