r"""Best and worst of n draws with replacement: order-statistic weights.

Sort a prompt's N values ascending, :math:`x_{(1)} \le \dots \le x_{(N)}`.
The largest of n uniform draws with replacement has rank at most i with
probability :math:`(i/N)^n`, so it is :math:`x_{(i)}` with weight
:math:`(i/N)^n - ((i-1)/N)^n` (ties need no care: equal values share the
sum of their weights). The smallest is the same read from the top. These are
the limits of verl's ``bootstrap_metric(..., [np.max, np.min])`` as its
resamples grow: the mean, and the population standard deviation ``np.std``
takes over the resamples.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .._arrays import FloatArray


@lru_cache(maxsize=4096)
def best_weights(total: int, draws: int) -> FloatArray:
    """Weights over the ascending order statistics of ``total`` values for
    the maximum of ``draws`` draws with replacement.

    Examples:
        >>> best_weights(2, 2).tolist()  # max of 2 draws of 2 values: the larger w.p. 3/4
        [0.25, 0.75]
    """
    cdf = (np.arange(total + 1) / total) ** draws
    weights = np.diff(cdf)
    weights.flags.writeable = False
    return weights


def worst_weights(total: int, draws: int) -> FloatArray:
    """The minimum's weights: :func:`best_weights` reversed.

    Examples:
        >>> worst_weights(2, 2).tolist()
        [0.75, 0.25]
    """
    return best_weights(total, draws)[::-1]


def weighted_moments(values: FloatArray, weights: FloatArray, binary: bool = False) -> tuple[FloatArray, FloatArray]:
    """Mean and population standard deviation of each row of ``values``
    (``(M, N)``) under each row of ``weights`` (``(K, N)``, each summing
    to 1; or ``(K, M, N)``, one per value row): two ``(K, M)`` arrays.

    The variance is the weighted sum of squared deviations from the mean,
    not ``E[x^2] - E[x]^2``, so a nearly certain statistic keeps its small
    spread (and a certain one gives 0) instead of a rounding residue.
    ``binary=True`` (every value 0 or 1, such as ``acc``): the variance is
    ``p * q`` with ``p`` the weight on the ones and ``q`` the weight on the
    zeros, each summed on its own (no cancellation either, and no
    ``(K, M, N)`` temporary: one more product instead of three passes).

    Examples:
        >>> m, s = weighted_moments(np.array([[0.0, 1.0]]), np.array([[0.25, 0.75]]))
        >>> float(m[0, 0]), round(float(s[0, 0]), 6)
        (0.75, 0.433013)
        >>> m, s = weighted_moments(np.array([[0.0, 1.0]]), np.array([[0.25, 0.75]]), binary=True)
        >>> float(m[0, 0]), round(float(s[0, 0]), 6)
        (0.75, 0.433013)
    """
    if binary:
        zeros = 1.0 - values
        if weights.ndim == 2:
            mean, other = weights @ values.T, weights @ zeros.T
        else:
            mean = np.einsum("kmn,mn->km", weights, values)
            other = np.einsum("kmn,mn->km", weights, zeros)
        return mean, np.sqrt(mean * other)
    if weights.ndim == 2:
        mean = weights @ values.T  # (K, M)
        dev = values[None, :, :] - mean[:, :, None]
        np.multiply(dev, dev, out=dev)
        var = np.matmul(dev, weights[:, :, None])[:, :, 0]
    else:
        mean = np.einsum("kmn,mn->km", weights, values)
        dev = values[None, :, :] - mean[:, :, None]
        np.multiply(dev, dev, out=dev)
        var = np.einsum("kmn,kmn->km", dev, weights)
    return mean, np.sqrt(var)
