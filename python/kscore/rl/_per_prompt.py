"""verl's per-prompt statistics of one field, exact, for every prompt at once.

For each group of prompts with the same number N of responses the values
form an M x N matrix: ``mean@N`` and ``std@N`` are row means and population
standard deviations (verl's ``np.mean``/``np.std``), and ``best@n``,
``worst@n``, ``maj@n`` are weighted moments of the rows under exact
weights (:mod:`._order_stats`, :mod:`._majority`) instead of 1000 resamples.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from ._batch import Batch, Field
from ._majority import win_table
from ._order_stats import best_weights, weighted_moments, worst_weights

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Per-prompt values of one metric key: (prompt indices, values).
Column = tuple[IntArray, FloatArray]


def draw_sizes(total: int) -> list[int]:
    """verl's ``gen_ns``: 2, 4, 8, ... below ``total``, then ``total``.

    Examples:
        >>> draw_sizes(16), draw_sizes(6), draw_sizes(1)
        ([2, 4, 8, 16], [2, 4, 6], [])
    """
    if total <= 1:
        return []
    out = []
    n = 2
    while n < total:
        out.append(n)
        n *= 2
    return [*out, total]


def metric_names(total: int, voted: bool) -> list[str]:
    """The keys verl gives one prompt with ``total`` responses, in its order.

    Examples:
        >>> metric_names(2, False)
        ['mean@2', 'std@2', 'best@2/mean', 'best@2/std', 'worst@2/mean', 'worst@2/std']
    """
    names = [f"mean@{total}"]
    if total > 1:
        names.append(f"std@{total}")
    for n in draw_sizes(total):
        names += [f"best@{n}/mean", f"best@{n}/std", f"worst@{n}/mean", f"worst@{n}/std"]
        if voted:
            names += [f"maj@{n}/mean", f"maj@{n}/std"]
    return names


def _rows(field: Field, prompts: IntArray, total: int) -> FloatArray:
    index = field.start[prompts][:, None] + np.arange(total)[None, :]
    return field.values[index]


def vote_weights(batch: Batch, prompts: IntArray, total: int) -> dict[int, FloatArray]:
    """Per number of draws n (1..total), the probability that each response
    is the value of verl's majority vote: an ``(M, total)`` matrix per n."""
    assert batch.vote is not None
    codes = batch.vote[batch.vote_start[prompts][:, None] + np.arange(total)[None, :]]
    size = (codes[:, :, None] == codes[:, None, :]).sum(axis=2)  # group size of each response
    # The sorted sizes name the partition (a group of size s appears s times).
    shapes, which = np.unique(np.sort(size, axis=1), axis=0, return_inverse=True)
    which = which.ravel()
    tables = np.stack([win_table(_partition(row)) for row in shapes])  # (U, total, total + 1)
    out = {}
    for n in draw_sizes(total):
        out[n] = tables[which[:, None], n - 1, size] / size
    return out


def _partition(sorted_sizes: npt.NDArray[np.int64]) -> tuple[int, ...]:
    """Group sizes from the sorted per-response sizes (s repeated s times)."""
    out: list[int] = []
    i = 0
    values = sorted_sizes.tolist()
    while i < len(values):
        out.append(values[i])
        i += values[i]
    return tuple(out)


def field_columns(batch: Batch, field: Field) -> Iterator[tuple[str, Column]]:
    """Every (key, per-prompt column) of verl's metrics for ``field``."""
    prompts = np.flatnonzero(field.count > 0).astype(np.int64)
    totals = field.count[prompts]
    voted = batch.vote_ok[prompts] & (batch.vote_count[prompts] == totals) if batch.vote is not None else None
    for total in np.unique(totals).tolist():
        rows = prompts[totals == total]
        values = _rows(field, rows, total)
        yield f"mean@{total}", (rows, values.mean(axis=1))
        if total == 1:
            continue
        yield f"std@{total}", (rows, values.std(axis=1))
        ordered = np.sort(values, axis=1)
        vote_rows = None
        if voted is not None:
            pick = voted[totals == total]
            if pick.any():
                vote_rows = (rows[pick], values[pick], vote_weights(batch, rows[pick], total))
        for n in draw_sizes(total):
            best = weighted_moments(ordered, best_weights(total, n))
            worst = weighted_moments(ordered, worst_weights(total, n))
            yield f"best@{n}/mean", (rows, best[0])
            yield f"best@{n}/std", (rows, best[1])
            yield f"worst@{n}/mean", (rows, worst[0])
            yield f"worst@{n}/std", (rows, worst[1])
            if vote_rows is not None:
                maj = weighted_moments(vote_rows[1], vote_rows[2][n])
                yield f"maj@{n}/mean", (vote_rows[0], maj[0])
                yield f"maj@{n}/std", (vote_rows[0], maj[1])
