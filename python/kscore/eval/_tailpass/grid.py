"""TailPass count grids: compositions of k attempts over the distinct rubric
scores, their bank scores (correctly rounded, docs/kernels.md K16), and the
Dirichlet-multinomial numerics of rubrics with three or more scores.

Binary rubrics (two scores) never enumerate compositions: their kernels run
in the Rust core (``kscore._kscore.tailpass_*``) from integer cutoffs.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np

from ..._arrays import FloatArray, IntArray

MAX_COUNT_STATES = 20_000
MAX_COVARIANCE_PAIRS = 4_000_000


def grid_size(k: int, categories: int) -> int:
    return math.comb(k + categories - 1, categories - 1)


def check_grid(k: int, categories: int) -> None:
    size = grid_size(k, categories)
    if size > MAX_COUNT_STATES:
        raise ValueError(
            f"Exact profile needs {size} count states; the limit is "
            f"{MAX_COUNT_STATES}. Use a smaller k/rubric or moment(lam=1, 2, 4)."
        )


def count_grid(k: int, categories: int) -> IntArray:
    """Weak compositions of k into ``categories`` parts, in scorio's order."""
    check_grid(k, categories)
    if categories == 1:
        return np.array([[k]], dtype=np.int64)
    if categories == 2:
        successes = np.arange(k + 1)
        return np.column_stack((k - successes, successes)).astype(np.int64)
    slots = k + categories - 1
    return np.array(
        [np.diff((-1, *bars, slots)) - 1 for bars in combinations(range(slots), categories - 1)],
        dtype=np.int64,
    )


def bank_scores(counts: IntArray, scores: FloatArray, k: int) -> FloatArray:
    """``sum_c n_c s_c / k``, the exact rational rounded once to float64.

    Every float64 score is an integer over a power of two, so the numerator
    is an exact integer; Python's integer true division rounds the quotient
    correctly. For the binary grid with scores (0, 1) that is ``j / k``.
    """
    if len(scores) == 2 and scores[0] == 0.0 and scores[1] == 1.0:
        return np.asarray(counts[:, 1], dtype=float) / k
    ratios = [float(s).as_integer_ratio() for s in scores]
    denominator = max(d for _, d in ratios)  # powers of two: the largest is common
    numerators = [n * (denominator // d) for n, d in ratios]
    scale = k * denominator
    rows = counts.tolist()
    return np.array([sum(n * a for n, a in zip(row, numerators, strict=True)) / scale for row in rows], dtype=float)


def binary_scores(k: int, scores: FloatArray) -> FloatArray:
    """Bank scores of ``j = 0..k`` successes for a two-score rubric."""
    j = np.arange(k + 1, dtype=np.int64)
    return bank_scores(np.column_stack((k - j, j)), scores, k)


def log_factorials(n: int) -> FloatArray:
    return np.array([math.lgamma(i + 1.0) for i in range(n + 1)])


def log_coefficients(counts: IntArray) -> FloatArray:
    """Log multinomial coefficients of a count grid."""
    k = int(counts[0].sum())
    table = log_factorials(k)
    return np.asarray(table[k] - table[counts].sum(axis=1), dtype=float)


def logsumexp(values: FloatArray, axis: int | None = None, keepdims: bool = False) -> FloatArray:
    top = np.max(values, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(values - top), axis=axis, keepdims=True)) + top
    return np.asarray(out if keepdims else np.squeeze(out, axis=axis), dtype=float)


def predictive_probabilities(counts: IntArray, alpha: FloatArray, log_coeff: FloatArray) -> FloatArray:
    """Dirichlet-multinomial pmf over the grid (three or more scores)."""
    k = int(counts[0].sum())
    logs = log_coeff.copy()
    for category, concentration in enumerate(alpha):
        rising = np.r_[0.0, np.cumsum(np.log(concentration + np.arange(k)))]
        logs += rising[counts[:, category]]
    return np.asarray(np.exp(logs - logsumexp(logs)), dtype=float)


def xlogy(x: IntArray, y: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        out = x * np.log(y)
    return np.asarray(np.where(x == 0, 0.0, out), dtype=float)


def conditional_probabilities(counts: IntArray, probabilities: FloatArray, log_coeff: FloatArray) -> FloatArray:
    """Multinomial pmfs over the grid for a batch of probability vectors."""
    logs = np.broadcast_to(log_coeff, (len(probabilities), len(counts))).copy()
    for category in range(counts.shape[1]):
        logs += xlogy(counts[:, category], probabilities[:, category, None])
    return np.asarray(np.exp(logs - logsumexp(logs, axis=1, keepdims=True)), dtype=float)


def count_covariance(counts: IntArray, alpha: FloatArray, values: FloatArray, log_coeff: FloatArray) -> FloatArray:
    """Posterior covariance of count payoffs (three or more scores), by the
    two-draw identity ``sum_i pi_i (v_i - vbar) (E[v | alpha + n_i] - vbar)``."""
    size = len(counts)
    if size**2 > MAX_COVARIANCE_PAIRS:
        raise ValueError(
            f"Exact covariance needs {size**2} count pairs; the limit is "
            f"{MAX_COVARIANCE_PAIRS}. Use shared posterior draws for covariance."
        )
    pmf = predictive_probabilities(counts, alpha, log_coeff)
    centered = values - pmf @ values
    covariance = np.zeros((values.shape[1], values.shape[1]))
    for index, count in enumerate(counts):
        conditional = predictive_probabilities(counts, alpha + count, log_coeff)
        covariance += pmf[index] * np.outer(centered[index], conditional @ centered)
    return np.asarray((covariance + covariance.T) / 2, dtype=float)


def integer_moment_terms(k: int, power: int) -> list[tuple[float, tuple[int, ...]]]:
    """Raw-moment expansion of the mean of k i.i.d. rubric scores."""
    if power == 1:
        return [(1.0, (1,))]
    if power == 2:
        return [(1.0 / k, (2,)), ((k - 1) / k, (1, 1))]
    terms: list[tuple[float, tuple[int, ...]]] = [(1.0 / k**3, (4,))]
    if k >= 2:
        terms += [(4 * (k - 1) / k**3, (3, 1)), (3 * (k - 1) / k**3, (2, 2))]
    if k >= 3:
        terms.append((6 * ((k - 1) / k) * ((k - 2) / k) / k, (2, 1, 1)))
    if k >= 4:
        terms.append((((k - 1) / k) * ((k - 2) / k) * ((k - 3) / k), (1, 1, 1, 1)))
    return terms


def conditional_integer_moment(probabilities: FloatArray, scores: FloatArray, k: int, power: int) -> FloatArray:
    """First, second or fourth moment of the bank score given probabilities
    (any leading shape; the last axis is the score)."""
    output = np.zeros(probabilities.shape[:-1])
    raw = {p: probabilities @ scores**p for p in range(1, power + 1)}
    for coefficient, factors in integer_moment_terms(k, power):
        term = np.full(output.shape, coefficient)
        for factor in factors:
            term = term * raw[factor]
        output += term
    return output


def moment_polynomial(scores: FloatArray, k: int, power: int) -> tuple[IntArray, FloatArray]:
    """Monomial expansion of the low-degree moment polynomial."""
    if math.comb(len(scores) + power, power) > MAX_COUNT_STATES:
        raise ValueError("Too many rubric categories for the exact moment expansion")
    coefficients: dict[tuple[int, ...], float] = {}
    zero = (0,) * len(scores)
    for coefficient, factors in integer_moment_terms(k, power):
        terms = {zero: coefficient}
        for factor in factors:
            next_terms: dict[tuple[int, ...], float] = {}
            for powers, value in terms.items():
                for category, score in enumerate(scores):
                    if score == 0.0:
                        continue
                    updated = list(powers)
                    updated[category] += 1
                    key = tuple(updated)
                    next_terms[key] = next_terms.get(key, 0.0) + value * float(score) ** factor
            terms = next_terms
        for powers, value in terms.items():
            coefficients[powers] = coefficients.get(powers, 0.0) + value
    if not coefficients:
        return np.zeros((1, len(scores)), dtype=np.int64), np.zeros(1)
    return np.array(list(coefficients), dtype=np.int64), np.array(list(coefficients.values()))


def monomial_moments(powers: IntArray, alpha: FloatArray) -> FloatArray:
    """Dirichlet monomial expectations by rising-factorial ratios."""
    output = np.ones(powers.shape[:-1])
    used = np.zeros(powers.shape[:-1])
    total = float(alpha.sum())
    for category, concentration in enumerate(alpha):
        for step in range(int(powers[..., category].max())):
            mask = powers[..., category] > step
            output[mask] *= (concentration + step) / (total + used[mask])
            used[mask] += 1
    return output


def polynomial_moments(powers: IntArray, coefficients: FloatArray, alpha: FloatArray) -> tuple[float, float]:
    """Exact mean and variance of a low-degree Dirichlet polynomial."""
    if len(powers) ** 2 > MAX_COVARIANCE_PAIRS:
        raise ValueError("Too many moment terms for exact variance; use posterior draws")
    first = monomial_moments(powers, alpha)
    second = monomial_moments(powers[:, None, :] + powers[None, :, :], alpha)
    mean = float(coefficients @ first)
    variance = float(coefficients @ (second - np.outer(first, first)) @ coefficients)
    return mean, nonnegative_variance(variance)


def nonnegative_variance(value: float) -> float:
    """Clip variance roundoff; reject materially negative or non-finite values."""
    if not math.isfinite(value) or value < -1e-12:
        raise FloatingPointError(f"Invalid TailPass posterior variance: {value}")
    return max(0.0, value)
