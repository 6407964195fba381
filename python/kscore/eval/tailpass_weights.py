r"""Convex threshold weights for binary TailPass utilities (scorio 0.2.3's
``scorio.eval.tailpass_weights``).

Entry ``t - 1`` values reaching at least ``t`` successes among ``k``
attempts; every helper returns float64 weights of length k that sum to one,
for :meth:`TailPassProfile.linear <kscore.eval._tailpass.profile.TailPassProfile.linear>`.
A weight vector :math:`w` is the marginal form of a nondecreasing payoff
:math:`u(j) = \sum_{t \le j} w_t` with :math:`u(0) = 0`, :math:`u(k) = 1`.

Reference: Hariri, Hinczewski, Ayday, and Chaudhary (2026), *Success Has a
Shape: TailPass@k for Repeated Sampling Evaluation*, Appendix C.

Examples:
    >>> from kscore.eval import tailpass_weights as tw
    >>> tw.moment_weights(4, 2.0).round(4).tolist()
    [0.0625, 0.1875, 0.3125, 0.4375]
    >>> tw.payoff_weights([0.0, 0.5, 1.0]).tolist()
    [0.5, 0.5]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._arrays import FloatArray
from .._inputs import finite_positive, integral_scalar, real_vector, validate_latent_k
from .._special import betainc, betaincc


def _validate_weights(weights: Any, size: int) -> FloatArray:
    values = real_vector(weights, name="weights")
    if values.shape != (size,):
        raise ValueError(f"weights must be a length-{size} 1D array")
    if np.any(values < 0.0) or not math.isclose(float(np.sum(values)), 1.0, rel_tol=0.0, abs_tol=1e-12):
        raise ValueError("weights must be non-negative and sum to one")
    return values


def uniform_weights(k: int) -> FloatArray:
    """Return ``1/k`` at every threshold (the binary accuracy utility)."""
    return np.full(validate_latent_k(k), 1.0 / k)


def threshold_weights(k: int, threshold: int) -> FloatArray:
    """Assign all value to reaching ``threshold`` successes, from 1 to k."""
    k = validate_latent_k(k)
    threshold = integral_scalar(threshold, name="threshold")
    if not 1 <= threshold <= k:
        raise ValueError("threshold must satisfy 1 <= threshold <= k")
    weights = np.zeros(k)
    weights[threshold - 1] = 1.0
    return weights


def discovery_weights(k: int) -> FloatArray:
    """Assign all value to finding at least one success."""
    return threshold_weights(k, 1)


def stability_weights(k: int) -> FloatArray:
    """Assign all value to all k attempts succeeding."""
    return threshold_weights(k, k)


def moment_weights(k: int, lam: float) -> FloatArray:
    r"""Return ``(t/k)**lam - ((t-1)/k)**lam`` for finite ``lam > 0``.

    Evaluated as :math:`e^{\lambda \log(t/k)}\,(-\mathrm{expm1}(\lambda
    \log1p(-1/t)))`, then normalised. ``lam=1`` gives uniform weights.
    """
    k = validate_latent_k(k)
    lam = finite_positive(lam, name="lam")
    t = np.arange(1, k + 1, dtype=float)
    with np.errstate(divide="ignore", over="ignore", under="ignore"):
        weights = np.exp(lam * np.log(t / k)) * -np.expm1(lam * np.log1p(-1.0 / t))
    return np.asarray(weights / weights.sum(), dtype=np.float64)


def beta_weights(k: int, theta: float, kappa: float) -> FloatArray:
    r"""Bin Beta threshold mass by mean ``theta`` and concentration ``kappa``.

    :math:`w_t \propto F(t/k) - F((t-1)/k)` for the Beta(:math:`\theta\kappa`,
    :math:`(1-\theta)\kappa`) CDF F, with differences of the survival
    function where the CDF exceeds 1/2.

    Args:
        k: Positive reporting budget.
        theta: Mean fractional threshold, strictly between zero and one.
        kappa: Finite positive concentration around that threshold.
    """
    k = validate_latent_k(k)
    theta = finite_positive(theta, name="theta")
    kappa = finite_positive(kappa, name="kappa")
    if theta >= 1.0:
        raise ValueError("theta must be in (0, 1)")
    a, b = theta * kappa, (1.0 - theta) * kappa
    if a == 0.0 or b == 0.0:
        raise ValueError("Beta weight parameters must remain positive in float64")
    grid = np.arange(k + 1, dtype=float) / k
    cdf = np.array([betainc(a, b, float(x)) for x in grid])
    sf = np.array([betaincc(a, b, float(x)) for x in grid])
    weights = np.where(cdf[1:] <= 0.5, np.diff(cdf), -np.diff(sf))
    if not np.all(np.isfinite(weights)) or np.any(weights < 0.0):
        raise FloatingPointError("could not compute finite Beta threshold weights")
    return np.asarray(weights / weights.sum(), dtype=np.float64)


def maxent_weights(k: int, mean_threshold: float) -> FloatArray:
    r"""Maximum-entropy threshold weights with a specified mean in (0, 1).

    Integrates the density proportional to :math:`e^{\tau\rho}` on [0, 1]
    over each bin, with :math:`\tau` solved (by bisection, to full
    precision) so that the mean is ``mean_threshold``; 0.5 gives uniform.
    """
    k = validate_latent_k(k)
    target = finite_positive(mean_threshold, name="mean_threshold")
    if target >= 1.0:
        raise ValueError("mean_threshold must be in (0, 1)")
    if target == 0.5:
        return uniform_weights(k)
    distance = min(target, 1.0 - target)

    def lower_mean(tau: float) -> float:
        if tau < 1e-3:
            return 0.5 - tau / 12.0 + tau**3 / 720.0
        return 1.0 / tau - math.exp(-tau) / -math.expm1(-tau)

    upper = 1.0 / distance
    if not math.isfinite(upper):
        return discovery_weights(k) if target < 0.5 else stability_weights(k)
    lo, hi = 0.0, upper  # lower_mean decreases from 1/2 at 0 to below `distance`
    for _ in range(2000):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if lower_mean(mid) > distance:
            lo = mid
        else:
            hi = mid
    tau = lo if abs(lower_mean(lo) - distance) <= abs(lower_mean(hi) - distance) else hi
    if tau == 0.0:
        return uniform_weights(k)
    positions = np.arange(k, dtype=float) / k
    weights = np.exp(-tau * positions) * (-math.expm1(-tau / k)) / (-math.expm1(-tau))
    weights /= weights.sum()
    return weights if target < 0.5 else weights[::-1].copy()


def payoff_weights(payoff: Any) -> FloatArray:
    r"""Convert monotone ``u(0), ..., u(k)`` to marginal threshold weights
    :math:`w_t = u(t) - u(t-1)`. The payoff must start at zero and end at
    one; its length determines k."""
    values = real_vector(payoff, name="payoff")
    if values.ndim != 1 or values.size < 2:
        raise ValueError("payoff must be a 1D array with at least two entries")
    if values[0] != 0.0 or values[-1] != 1.0 or np.any(np.diff(values) < 0.0):
        raise ValueError("payoff must be nondecreasing, start at zero, and end at one")
    return np.diff(values)


__all__ = [
    "uniform_weights",
    "threshold_weights",
    "discovery_weights",
    "stability_weights",
    "moment_weights",
    "beta_weights",
    "maxent_weights",
    "payoff_weights",
]
