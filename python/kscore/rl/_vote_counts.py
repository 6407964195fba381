r"""verl's vote, exact, for many partitions at once: a sum over vote counts.

:func:`._majority.win_table` builds one partition's table from generating
functions: exact for any partition, but a few dozen small numpy operations
each (about 0.2 ms for N = 16), which a validation step's first call pays
for each of its few dozen answer partitions. When the answers are few the
same probabilities are a short sum over every vector of vote counts
``(c_1, ..., c_G)`` with ``sum c = n``: the chance of the counts

* with replacement (multinomial): ``n! prod q_g^c_g / c_g!``, ``q_g = s_g / N``;
* without (multivariate hypergeometric): ``prod C(s_g, c_g) / C(N, n)``;

and a group with the most votes wins with probability ``1 / ties`` (verl's
``max`` over first-seen counts is a fair coin among tied answers, see
:mod:`._majority`). The count vectors and each one's winner shares depend
on ``(n, G)`` only, so every partition with G groups is two matrix
products: ``exp(log-probabilities)`` ``(U, V)`` times shares ``(V, G)``.
Every term is positive: the sums are exact to about 1e-14 relative (the
exponent's rounding), checked against :func:`win_table` and every draw.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .._arrays import FloatArray, IntArray

#: The most count vectors ``(n + 1)^(G - 1)`` (before keeping those summing
#: to n) for which a group of partitions is summed here; beyond it (many
#: distinct answers) :func:`._majority.win_table` is cheaper.
GRID_LIMIT = 100_000


def countable(total: int, groups: int) -> bool:
    """Whether partitions of ``total`` into ``groups`` are summed here.

    Examples:
        >>> countable(16, 4), countable(16, 8)
        (True, False)
    """
    return bool((total + 1) ** max(groups - 1, 0) <= GRID_LIMIT)


@lru_cache(maxsize=512)
def _counts(n: int, groups: int) -> tuple[IntArray, FloatArray]:
    """Every count vector ``(V, groups)`` summing to ``n``, and each
    group's share of the win ``(V, groups)``: ``1 / ties`` where it has the
    most votes, else 0."""
    # Grow the vectors one group at a time: each partial vector with sum r
    # gets every next count 0..n-r (only vectors that can still sum to n).
    counts = np.zeros((1, 0), np.int64)
    used = np.zeros(1, np.int64)
    for _ in range(groups - 1):
        room = n - used + 1
        first = np.repeat(np.cumsum(room) - room, room)
        step = np.arange(len(first)) - first  # 0..n-r within each block
        counts = np.concatenate([np.repeat(counts, room, axis=0), step[:, None]], axis=1)
        used = np.repeat(used, room) + step
    counts = np.concatenate([counts, (n - used)[:, None]], axis=1)
    top = counts == counts.max(axis=1, keepdims=True)
    share = top / top.sum(axis=1, keepdims=True)
    counts.flags.writeable = False
    share.flags.writeable = False
    return counts, share


@lru_cache(maxsize=64)
def _log_factorials(top: int) -> FloatArray:
    out = np.array([math.lgamma(i + 1.0) for i in range(top + 1)])
    out.flags.writeable = False
    return out


def win_rows(sizes: IntArray, draws: tuple[int, ...], replace: bool = True) -> FloatArray:
    """``(U, len(draws), G)``: for each partition (a row of ``sizes``, G
    group sizes summing to the same N) and each number of draws n, the
    probability that each group wins verl's vote; n draws with replacement,
    or without (a uniform n-subset in random order).

    Examples:
        >>> win_rows(np.array([[2, 1]]), (2,))[0, 0].round(6).tolist()  # A, A, B; two draws
        [0.666667, 0.333333]
    """
    units, groups = sizes.shape
    total = int(sizes[0].sum())
    lf = _log_factorials(total)
    out = np.empty((units, len(draws), groups))
    if not replace:
        log_sizes = lf[sizes].sum(axis=1)  # (U,): sum_g log s_g!
    else:
        log_q = np.log(sizes / total)  # (U, G)
    for i, n in enumerate(draws):
        counts, share = _counts(n, groups)
        if replace:
            # log(n! / prod c!) + sum_g c_g log q_g
            log_p = (lf[n] - lf[counts].sum(axis=1))[None, :] + log_q @ counts.T  # (U, V)
        else:
            # sum_g log C(s_g, c_g) - log C(N, n); C(s, c) = 0 past c > s
            rest = sizes[:, None, :] - counts[None, :, :]  # (U, V, G)
            fits = (rest >= 0).all(axis=2)
            log_p = (log_sizes[:, None] - lf[counts].sum(axis=1)[None, :]
                     - lf[np.maximum(rest, 0)].sum(axis=2)) - (lf[total] - lf[n] - lf[total - n])
            log_p = np.where(fits, log_p, -np.inf)
        out[:, i, :] = np.exp(log_p) @ share
    return out
