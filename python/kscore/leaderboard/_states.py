"""The distinct outcome states of a board's (model, question) rows.

Every per-question estimate is a function of the row's category counts
alone, and a board of a million rows has few distinct ones (binary outcomes
with 10 samples per question: 11). So each metric is evaluated once per
distinct state and gathered back to the rows (docs/leaderboard.md, *How it
computes*): the same numbers as evaluating every row, without a core call
over every row per metric."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class States:
    """``cats``: the distinct category-count rows (states x categories);
    ``of_row``: each row's state; ``n``: each row's samples (its row sum)."""

    cats: IntArray
    of_row: IntArray
    n: IntArray

    def subset(self, rows: npt.NDArray[np.bool_]) -> States:
        """The states of some rows (a ``--by`` group): the same distinct states."""
        return States(self.cats, self.of_row[rows], self.n[rows])


def row_sums(cats: IntArray) -> IntArray:
    """``cats.sum(axis=1)`` column by column (a reduction over a short inner
    axis is many times slower in numpy)."""
    out: IntArray = cats[:, 0].astype(np.int64, copy=True)
    for j in range(1, cats.shape[1]):
        out += cats[:, j]
    return out


def distinct_states(cats: IntArray) -> States:
    """The distinct rows of ``cats`` (non-negative counts): a key per row in
    mixed radix (n, then every category but the last, each below n + 1)
    marked in a table when the key space is small, else ``np.unique``."""
    n = row_sums(cats)
    width = cats.shape[1]
    if len(n) == 0:
        return States(np.zeros((0, width), np.int64), np.zeros(0, np.int64), n)
    radix = int(n.max()) + 1
    size = radix**width
    if size <= 4 * len(n) + (1 << 16):
        key = n.copy()
        scale = radix
        for j in range(width - 1):
            key += cats[:, j] * scale
            scale *= radix
        seen = np.zeros(size, bool)
        seen[key] = True
        slot = np.cumsum(seen) - 1
        keys = np.flatnonzero(seen)
        of_row: IntArray = slot[key]
        uniq = np.empty((len(keys), width), np.int64)
        n_s = keys % radix
        rest = keys // radix
        for j in range(width - 1):
            uniq[:, j] = rest % radix
            rest //= radix
        uniq[:, -1] = n_s - uniq[:, :-1].sum(axis=1)
        return States(uniq, of_row, n)
    rows, inverse = np.unique(cats, axis=0, return_inverse=True)
    return States(rows.astype(np.int64, copy=False), inverse.ravel().astype(np.int64, copy=False), n)
