"""Candidate pools: answers (and scores) of M questions x N candidates, grouped by answer once.

scorio.aggregate reads one question at a time and groups its answers in a Python
dict. Here the whole batch is grouped at once: an array of ids, numbers or strings
by one stable sort per row (numpy), anything else (lists, objects) by a dict per
row, which keeps Python's equality exactly (``1 == 1.0 == True`` is one answer, an
unhashable answer raises scorio's ``TypeError``). Either way every group gets a
global id, ordered by row and then by the answer's first appearance in the row:
ties broken "by earliest appearance" are then ties broken by the smallest id.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._arrays import BoolArray, FloatArray, IntArray

#: dtypes grouped by sorting (their equality is numpy's, which is Python's for these).
_SORTABLE = "biufU"


def is_valid(a: Any) -> bool:
    """scorio's rule: ``None``, ``""`` and ``NaN`` are unparsable answers."""
    if a is None:
        return False
    if isinstance(a, str):
        return a != ""
    return not (isinstance(a, (float, np.floating)) and math.isnan(float(a)))


@dataclass(frozen=True)
class Pool:
    """A batch of candidate pools with its answer groups.

    ``group[r, j]`` is candidate j's group id (``-1``: unparsable answer); the
    groups of row r are ``row_start[r]:row_start[r + 1]``, in order of first
    appearance; ``first[g]`` is the column where group g first appears."""

    answers: Any  # (M, N) ndarray: typed (sortable dtype) or object
    scores: FloatArray | None
    single: bool
    group: IntArray
    row_start: IntArray
    first: IntArray

    @property
    def shape(self) -> tuple[int, int]:
        m, n = self.group.shape
        return int(m), int(n)

    @property
    def valid(self) -> BoolArray:
        return self.group >= 0

    @property
    def groups(self) -> int:
        return int(self.row_start[-1])

    @property
    def row_of(self) -> IntArray:
        """The row of each group."""
        counts = np.diff(self.row_start)
        return np.repeat(np.arange(len(counts), dtype=np.int64), counts)

    def answer(self, r: int, j: int) -> Any:
        """The answer at (r, j) as scorio returns it (an element of an object array)."""
        if j < 0:
            return None
        a = self.answers[r, j]
        return a.item() if isinstance(a, np.generic) else a


def pool(answers: Any, scores: Any = None, *, require_scores: bool = False) -> Pool:
    """scorio's ``_normalize`` (shapes, messages) and the answer groups."""
    typed = isinstance(answers, np.ndarray) and answers.dtype.kind in _SORTABLE
    z = answers if typed else np.asarray(answers, dtype=object)
    if z.ndim == 1:
        z = z.reshape(1, -1)
        single = True
    elif z.ndim == 2:
        single = False
    else:
        raise ValueError("answers must be a 1D (N,) or 2D (M, N) array.")
    if z.shape[1] == 0:
        raise ValueError("need at least one candidate per question (N >= 1).")
    s: FloatArray | None = None
    if scores is None:
        if require_scores:
            raise ValueError("scores are required for this selection rule.")
    else:
        s = np.asarray(scores, dtype=float)
        if s.ndim == 1:
            s = s.reshape(1, -1)
        if s.shape != z.shape:
            raise ValueError(
                f"answers and scores must have the same shape; got {z.shape} and {s.shape}."
            )
    group, row_start, first = _group_sorted(z) if typed else _group_dict(z)
    return Pool(z, s, single, group, row_start, first)


def _group_sorted(z: Any) -> tuple[IntArray, IntArray, IntArray]:
    """Groups of a typed array: equal runs of a stable sort per row."""
    m, n = z.shape
    if z.dtype.kind == "f":
        valid = ~np.isnan(z)
    elif z.dtype.kind == "U":
        valid = z != ""
    else:
        valid = np.ones(z.shape, dtype=bool)
    order = np.argsort(z, axis=1, kind="stable")  # NaN last; equal values keep column order
    ordered = np.take_along_axis(z, order, axis=1)
    ok = np.take_along_axis(valid, order, axis=1)
    starts = np.ones((m, n), dtype=bool)
    if n > 1:
        starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    starts &= ok
    run = np.cumsum(starts.ravel()) - 1  # the run of each sorted position
    first_col = order.ravel()[starts.ravel()]  # stable sort: a run's first member is its first column
    run_row = np.nonzero(starts)[0]
    # Renumber the runs by (row, first appearance): that is the group id.
    by_appearance = np.argsort(run_row * n + first_col, kind="stable")
    rank = np.empty_like(by_appearance)
    rank[by_appearance] = np.arange(len(by_appearance))
    group = np.full(m * n, -1, dtype=np.int64)
    flat = (np.arange(m)[:, None] * n + order).ravel()
    ok_flat = ok.ravel()
    group[flat[ok_flat]] = rank[run[ok_flat]]
    row_start = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(np.bincount(run_row, minlength=m), out=row_start[1:])
    return group.reshape(m, n), row_start, first_col[by_appearance].astype(np.int64)


def _group_dict(z: Any) -> tuple[IntArray, IntArray, IntArray]:
    """Groups of an object array: a dict per row, Python's equality and hashing."""
    m, n = z.shape
    group = np.full((m, n), -1, dtype=np.int64)
    row_start = np.zeros(m + 1, dtype=np.int64)
    first: list[int] = []
    for r in range(m):
        seen: dict[Any, int] = {}
        base = len(first)
        out = group[r]
        for j, a in enumerate(z[r]):
            if not is_valid(a):
                continue
            g = seen.get(a)
            if g is None:
                g = seen[a] = base + len(seen)
                first.append(j)
            out[j] = g
        row_start[r + 1] = len(first)
    return group, row_start, np.asarray(first, dtype=np.int64)


def finalize(selected: list[Any], single: bool) -> Any:
    """A scalar for one question, else an (M,) object array (tuples stay one answer)."""
    if single:
        return selected[0]
    out = np.empty(len(selected), dtype=object)
    out[:] = selected
    return out


def pack(
    p: Pool,
    chosen: tuple[IntArray, IntArray] | IntArray,
    *,
    return_index: bool = False,
    return_score: bool = False,
) -> Any:
    """The caller-facing result: selection, then index and score where asked (scorio's
    order). ``chosen``: the columns of the answer returned and of the representative
    (one array when they are the same candidate)."""
    answer, index = chosen if isinstance(chosen, tuple) else (chosen, chosen)
    selected = [p.answer(r, int(j)) for r, j in enumerate(answer)]
    out: list[Any] = [finalize(selected, p.single)]
    if return_index:
        out.append(int(index[0]) if p.single else np.asarray(index, dtype=int))
    if return_score:
        assert p.scores is not None
        rows = np.arange(len(index))
        score = np.where(index >= 0, p.scores[rows, np.maximum(index, 0)], np.nan)
        out.append(float(score[0]) if p.single else score.astype(float))
    return out[0] if len(out) == 1 else tuple(out)
