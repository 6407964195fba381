"""The distinct outcome states of a board's (model, question) rows.

Every per-question estimate is a function of the row's category counts
alone, and a board of a million rows has few distinct ones (binary outcomes
with 10 samples per question: 11). So each metric is evaluated once per
distinct state and gathered back to the rows (docs/leaderboard.md, *How it
computes*): the same numbers as evaluating every row, without a core call
over every row per metric."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._types import IntArray


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
        key = cats[:, 0] * radix
        key += n
        scale = radix
        for j in range(1, width - 1):
            scale *= radix
            key += cats[:, j] * scale
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


@dataclass(frozen=True)
class PerModel:
    """Each model's rows summed up: ``count`` rows (its questions), the
    fewest and most samples of a row (0 for a model without rows), all
    ``samples``, and ``cell``, each row's ``model * S + state`` (None where
    that (model, state) table would be large: then these came from the rows)."""

    count: IntArray
    n_min: IntArray
    n_max: IntArray
    samples: int
    cell: IntArray | None
    #: Where every model has every question, the rows in that order (at
    #: least two models): each row's state laid out questions x models, so
    #: that a sum over a model's questions is a column sum in row order
    #: (numpy sums pairwise only along the contiguous axis). None otherwise.
    grid_t: npt.NDArray[np.integer[Any]] | None = None
    #: Rows per (model, state) (None where ``cell`` is).
    table: IntArray | None = None
    #: ``grid_t`` transposed (models x questions, C order): a model's states
    #: contiguous, for the dense per-question estimates of any models.
    grid: npt.NDArray[np.integer[Any]] | None = None


def per_model(st: States, m: IntArray, q: IntArray, n_models: int, n_questions: int) -> PerModel:
    """:class:`PerModel` of rows with model codes ``m`` and question codes
    ``q``: one count of the rows per (model, state), the rest from that
    small table."""
    S = len(st.cats)
    if S and n_models * S <= 4 * len(m) + (1 << 16):
        cell: IntArray = m * S + st.of_row
        table = np.bincount(cell, minlength=n_models * S).reshape(n_models, S)
        n_s = row_sums(st.cats)
        has = table > 0
        count: IntArray = table.sum(axis=1)
        n_min: IntArray = np.where(has, n_s, np.iinfo(np.int64).max).min(axis=1)
        n_max: IntArray = np.where(has, n_s, 0).max(axis=1)
        n_min[count == 0] = 0
        L, Q = n_models, n_questions
        grid = (L >= 2 and Q >= 1 and len(m) == L * Q and bool((count == Q).all())
                and bool((m.reshape(L, Q) == np.arange(L)[:, None]).all())
                and bool((q.reshape(L, Q) == np.arange(Q)).all()))
        small = np.dtype(np.int8 if S <= 127 else np.int16 if S <= 32767 else np.int32)  # (a fraction of the memory)
        grid_t: npt.NDArray[np.integer[Any]] | None = None
        by_model: npt.NDArray[np.integer[Any]] | None = None
        if grid:
            by_model = st.of_row.reshape(L, Q).astype(small)
            grid_t = np.ascontiguousarray(by_model.T)
        return PerModel(count, n_min, n_max, int(table.sum(axis=0) @ n_s), cell, grid_t, table, by_model)
    lo, hi = min_max(m, st.n, n_models)
    return PerModel(np.bincount(m, minlength=n_models), lo, hi, int(st.n.sum()), None)


def min_max(m: IntArray, n: IntArray, L: int) -> tuple[IntArray, IntArray]:
    """Per model, the fewest and most samples of its rows, from the rows."""
    if bool(np.all(m[1:] >= m[:-1])):  # ordered by model, as the engine keeps them
        ms, ns = m, n
    else:
        order = np.argsort(m, kind="stable")
        ms, ns = m[order], n[order]
    starts = np.flatnonzero(np.r_[True, ms[1:] != ms[:-1]]) if len(ms) else np.zeros(0, np.int64)
    lo = np.zeros(L, np.int64)
    hi = np.zeros(L, np.int64)
    if len(ms):
        lo[ms[starts]] = np.minimum.reduceat(ns, starts)
        hi[ms[starts]] = np.maximum.reduceat(ns, starts)
    return lo, hi
