"""The distinct outcome states of a board's (model, question) rows.

Every per-question estimate is a function of the row's category counts
alone, and a board of a million rows has few distinct ones (binary outcomes
with 10 samples per question: 11). So each metric is evaluated once per
distinct state and gathered back to the rows (docs/leaderboard.md, *How it
computes*): the same numbers as evaluating every row, without a core call
over every row per metric."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from ... import _kscore
from ..._arrays import IntArray
from ..runtime import profile

#: Rows per step of the passes over the rows: their temporaries stay in cache
#: and no array as long as the rows is made but the states' own.
CHUNK = 1 << 16

#: The largest key table the core's pass takes (kscore-core's intake::cells::MAX_KEYS).
CORE_KEYS = 1 << 22

#: A state index per row, as few bytes as the states allow.
StateArray = npt.NDArray[np.integer[Any]]


@dataclass(frozen=True)
class States:
    """``cats``: the distinct category-count rows (states x categories);
    ``of_row``: each row's state (the smallest integer type that holds
    them: one byte for up to 127 states); ``n``: each row's samples (its
    row sum), made on first use."""

    cats: IntArray
    of_row: StateArray

    @cached_property
    def n(self) -> IntArray:
        """Each row's samples: its state's (the same sums as the rows')."""
        out: IntArray = row_sums(self.cats)[self.of_row]
        return out

    def subset(self, rows: npt.NDArray[np.bool_]) -> States:
        """The states of some rows (a ``--by`` group): the same distinct states."""
        return States(self.cats, self.of_row[rows])


def row_sums(cats: IntArray) -> IntArray:
    """``cats.sum(axis=1)`` column by column (a reduction over a short inner
    axis is many times slower in numpy)."""
    out: IntArray = cats[:, 0].astype(np.int64, copy=True)
    for j in range(1, cats.shape[1]):
        out += cats[:, j]
    return out


def small_int(top: int) -> np.dtype[Any]:
    """The smallest signed integer type that holds ``0..top``."""
    return np.dtype(np.int8 if top <= 127 else np.int16 if top <= 32767 else np.int32 if top < 2**31 else np.int64)


def _keys(cats: IntArray, a: int, b: int, radix: list[int], out: IntArray) -> IntArray:
    """Rows ``a..b``'s keys in mixed radix (``out``: a buffer): the last
    category least significant, then the first, second, ... (the order of
    the keys of (n, categories but the last) in one radix: with the others
    fixed, n and the last category rise together)."""
    width = cats.shape[1]
    k = out[:b - a]
    if width == 1:
        k[:] = cats[a:b, 0]
        return k
    k[:] = cats[a:b, width - 2]
    for j in range(width - 3, -1, -1):
        k *= radix[j]
        k += cats[a:b, j]
    k *= radix[width - 1]
    k += cats[a:b, width - 1]
    return k


def distinct_states(cats: IntArray) -> States:
    """The distinct rows of ``cats`` (non-negative counts), numbered in the
    order of their key in mixed radix (n, then every category but the last,
    each below n + 1): marked in a table when that key space is small, a
    pass over the rows in steps of :data:`CHUNK` (the keys are made per
    step, in another radix of the same order); else ``np.unique``."""
    N, width = cats.shape
    if N == 0:
        return States(np.zeros((0, width), np.int64), np.zeros(0, np.int64))
    radix = [int(cats[:, j].max()) + 1 for j in range(width)]
    # The table's condition on n's largest value (as the states were numbered when it was its key): at most
    # the sum of the categories' largest, so a pass for it only where that sum is past the condition.
    bound = 4 * N + (1 << 16)
    top = sum(radix) - width
    if (top + 1) ** width > bound and math.prod(radix) <= bound:
        top = max(int(row_sums(cats[a:a + CHUNK]).max()) for a in range(0, N, CHUNK))
    if (top + 1) ** width > bound:
        rows, inverse = np.unique(cats, axis=0, return_inverse=True)
        return States(rows.astype(np.int64, copy=False), inverse.ravel().astype(np.int64, copy=False))
    core = _core_states(cats, radix)
    if core is not None:
        keys, of_row = core
        return States(_decode(keys, radix, width), of_row)
    seen = np.zeros(math.prod(radix), bool)
    buf = np.empty(min(N, CHUNK), np.int64)
    for a in range(0, N, CHUNK):
        seen[_keys(cats, a, min(a + CHUNK, N), radix, buf)] = True
    keys = np.flatnonzero(seen)
    dtype = small_int(len(keys) - 1)
    slot = (np.cumsum(seen) - 1).astype(dtype)
    of_row = np.empty(N, dtype)
    for a in range(0, N, CHUNK):
        b = min(a + CHUNK, N)
        np.take(slot, _keys(cats, a, b, radix, buf), out=of_row[a:b], mode="clip")
    return States(_decode(keys, radix, width), of_row)


def _decode(keys: IntArray, radix: list[int], width: int) -> IntArray:
    """The category counts of each key (in the radix of :func:`_keys`)."""
    uniq = np.empty((len(keys), width), np.int64)
    rest = keys.copy()
    uniq[:, -1] = rest % radix[-1]
    rest //= radix[-1]
    for j in range(width - 1):
        uniq[:, j] = rest % radix[j]
        rest //= radix[j]
    return uniq


def _core_states(cats: IntArray, radix: list[int]) -> tuple[IntArray, StateArray] | None:
    """The distinct keys and each row's state by the core's pass over the
    rows on every thread (``_kscore.cell_states``: the same keys and numbers
    as the passes of :func:`distinct_states`); None where the module lacks
    it or the key table is larger than the core takes."""
    core = getattr(_kscore, "cell_states", None)
    if core is None or math.prod(radix) > CORE_KEYS or cats.dtype != np.int64:
        return None
    cols = [np.ascontiguousarray(cats[:, j]) for j in range(cats.shape[1])]  # (column-major cells: views)
    try:
        with profile.phase("cells' states", threads="all"):
            keys, of_row = core(cols, radix)
    except ValueError:  # (a count outside its radix, a negative one: the passes below as before)
        return None
    return keys, of_row


@dataclass(frozen=True)
class PerModel:
    """Each model's rows summed up: ``count`` rows (its questions), the
    fewest and most samples of a row (0 for a model without rows), all
    ``samples``, and ``cell``, each row's ``model * S + state`` (None where
    that (model, state) table would be large: then these came from the rows;
    None on a grid too, where ``grid`` holds the same)."""

    count: IntArray
    n_min: IntArray
    n_max: IntArray
    samples: int
    cell: IntArray | None
    #: Rows per (model, state) (None where the rows were used).
    table: IntArray | None = None
    #: Where every model has every question, the rows in that order (at
    #: least two models): each row's state, models x questions (C order): a
    #: model's states contiguous, for the core's sums and the dense
    #: per-question estimates of any models. None otherwise.
    grid: StateArray | None = None
    #: Off the grid, where the rows are ordered by model (as the engine keeps
    #: them) and ``table`` is there: model ``i``'s rows ``starts[i]..starts[i + 1]``.
    starts: IntArray | None = None

    @cached_property
    def grid_t(self) -> StateArray | None:
        """``grid`` transposed, questions x models (C order), made on first
        use: a sum over a model's questions is then a column sum in row order
        (numpy sums pairwise only along the contiguous axis), where the core's
        sums are not at hand."""
        return None if self.grid is None else np.ascontiguousarray(self.grid.T)


def per_model(st: States, m: IntArray, q: IntArray, n_models: int, n_questions: int) -> PerModel:
    """:class:`PerModel` of rows with model codes ``m`` and question codes
    ``q``: one count of the rows per (model, state), the rest from that
    small table. Where the rows may be the grid (models x questions, in
    order), a pass in steps of whole models counts them and checks that
    order; otherwise a cell per row is counted."""
    S = len(st.cats)
    N = len(m)
    L, Q = n_models, n_questions
    if S and n_models * S <= 4 * N + (1 << 16):
        n_s = row_sums(st.cats)
        cell: IntArray | None = None
        grid = L >= 2 and Q >= 1 and N == L * Q
        if grid:
            table, grid = _grid_table(st.of_row, m, q, L, Q, S)
        else:
            cell = m * S + st.of_row
            table = np.bincount(cell, minlength=L * S).reshape(L, S)
        has = table > 0
        count: IntArray = table.sum(axis=1)
        n_min: IntArray = np.where(has, n_s, np.iinfo(np.int64).max).min(axis=1)
        n_max: IntArray = np.where(has, n_s, 0).max(axis=1)
        n_min[count == 0] = 0
        grid = grid and bool((count == Q).all())
        by_model: StateArray | None = None
        if grid:
            small = small_int(S - 1)  # (a fraction of the memory)
            by_model = st.of_row.reshape(L, Q).astype(small, copy=False)
        elif cell is None:
            cell = m * S + st.of_row
        starts: IntArray | None = None
        if not grid and bool(np.all(m[1:] >= m[:-1])):
            starts = np.searchsorted(m, np.arange(L + 1)).astype(np.int64)
        return PerModel(count, n_min, n_max, int(table.sum(axis=0) @ n_s), cell, table, by_model, starts)
    lo, hi = min_max(m, st.n, n_models)
    return PerModel(np.bincount(m, minlength=n_models), lo, hi, int(st.n.sum()), None)


def _grid_table(of_row: StateArray, m: IntArray, q: IntArray, L: int, Q: int, S: int) -> tuple[IntArray, bool]:
    """Rows per (model, state) of ``L * Q`` rows, counted a few whole models
    at a time, and whether the rows are models x questions in order (model
    ``i``'s rows ``i Q .. (i + 1) Q``, questions ``0..Q-1``). Where they are
    not, the rest is counted from a cell per row."""
    core = getattr(_kscore, "grid_table", None)
    if core is not None and of_row.dtype.itemsize <= 2 and m.dtype == np.int64 and q.dtype == np.int64:
        # The core's pass, a model at a time on every thread; None: not the grid, counted below.
        with profile.phase("cells' states", threads="all"):
            tabled = core(np.ascontiguousarray(of_row).view(np.uint8 if of_row.dtype.itemsize == 1 else np.uint16),
                          np.ascontiguousarray(m), np.ascontiguousarray(q), L, Q, S)
        if tabled is not None:
            return tabled, True
    table = np.zeros((L, S), np.int64)
    if Q > CHUNK:  # (pieces of one model at a time)
        for i in range(L):
            for o in range(0, Q, CHUNK):
                a, b = i * Q + o, i * Q + min(o + CHUNK, Q)
                if not (bool((m[a:b] == i).all()) and bool((q[a:b] == np.arange(o, o + b - a)).all())):
                    rest = np.bincount(m[i * Q:] * S + of_row[i * Q:], minlength=L * S).reshape(L, S)
                    table[i] = 0
                    return table + rest, False
                table[i] += np.bincount(of_row[a:b], minlength=S)
        return table, True
    ramp = np.arange(Q)
    step = CHUNK // Q
    offset = np.repeat(np.arange(min(step, L)) * S, Q)  # (a step's cells: its models' rows by S)
    for i0 in range(0, L, step):
        i1 = min(i0 + step, L)
        a, b = i0 * Q, i1 * Q
        if not (bool((m[a:b].reshape(i1 - i0, Q) == np.arange(i0, i1)[:, None]).all())
                and bool((q[a:b].reshape(i1 - i0, Q) == ramp).all())):
            rest = np.bincount(m[a:] * S + of_row[a:], minlength=L * S).reshape(L, S)
            return table + rest, False
        cells = offset[:b - a] + of_row[a:b]
        table[i0:i1] = np.bincount(cells, minlength=(i1 - i0) * S).reshape(i1 - i0, S)
    return table, True


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
