"""The one kernel of every vote: sum each answer group's weights, pick the heaviest group.

scorio's ``_plurality`` walks one question's candidates in a given order, adds each
weight to its answer's total (in that order: the float sums here are the same
numbers, ``np.bincount`` adds in input order too), keeps the first column met for
each answer and its highest-scoring member, then takes ``min(key=(-total, first))``.
Here that is done for all questions at once. Rows where a NaN reaches a comparison
(a NaN weight, score or total) make Python's ``min`` and ``>`` depend on the visiting
order: those rows are replayed one by one exactly as scorio visits them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._arrays import BoolArray, FloatArray, IntArray
from ._pool import Pool

#: Integer weights below this sum exactly in int64 (scorio sums Python ints).
INT_SAFE = 2**62


def plurality(
    p: Pool,
    weights: FloatArray | IntArray | None,
    part: BoolArray,
    *,
    seq: IntArray | None = None,
    rep_by_score: bool = True,
) -> tuple[IntArray, IntArray]:
    """``(answer, representative)`` columns of each row's winning group (``-1``:
    nobody voted). The answer is its first visited member (scorio returns that dict
    key: ``1``, ``1.0`` and ``True`` are one answer, returned as first met).

    ``weights`` (M, N): each candidate's vote (``None``: one each); ``part``: who
    votes; ``seq`` (M, N): the order candidates are visited per row (columns;
    ``None``: column order). The representative is the winner's highest-scoring
    voter, ties to the lowest column (``rep_by_score=False``: its first voter)."""
    m, n = p.shape
    given = weights
    cols = np.broadcast_to(np.arange(n), (m, n)) if seq is None else seq
    visit_part = np.take_along_axis(part, cols, axis=1) if seq is not None else part
    flat = (np.arange(m)[:, None] * n + cols)[visit_part]  # visiting order, row by row
    g = p.group.ravel()[flat]
    col = flat % n
    pos = np.broadcast_to(np.arange(n), (m, n))[visit_part]
    big = p.groups
    replay = np.zeros(m, dtype=bool)
    if weights is not None and weights.dtype.kind == "O":
        # Python ints past int64 (large Borda or MoB powers): every row replayed, exactly.
        replay[:] = True
        weights = None
    if weights is None:
        total: FloatArray | IntArray = np.bincount(g, minlength=big).astype(np.int64)
    elif weights.dtype.kind in "iu":
        total = np.zeros(big, dtype=np.int64)
        np.add.at(total, g, weights.ravel()[flat].astype(np.int64))
    else:
        total = np.bincount(g, weights=weights.ravel()[flat], minlength=big)
    voters = np.bincount(g, minlength=big)
    # The first visited member of each group: its column breaks ties.
    first_pos = np.full(big, n, dtype=np.int64)
    np.minimum.at(first_pos, g, pos)
    first_col = np.full(big, n, dtype=np.int64)
    first_col[g[::-1]] = col[::-1]  # the last write per group is its first visit
    scores = p.scores
    if total.dtype.kind == "f":
        bad_group = np.isnan(total)
        replay[np.unique(p.row_of[bad_group])] = True
    if scores is not None and rep_by_score:
        bad = np.isnan(scores) & part
        replay |= bad.any(axis=1)
    row_of = p.row_of
    # Winner: present groups by (row, -total, first column); the first of each row.
    present = voters > 0
    cand = np.flatnonzero(present)
    neg = -total[cand]
    order = cand[np.lexsort((first_col[cand], neg, row_of[cand]))]
    rows_o = row_of[order]
    lead = np.ones(len(order), dtype=bool)
    lead[1:] = rows_o[1:] != rows_o[:-1]
    winner = np.full(m, -1, dtype=np.int64)
    winner[rows_o[lead]] = order[lead]
    rep = np.full(m, -1, dtype=np.int64)
    has = winner >= 0
    if rep_by_score and scores is not None:
        # Highest score among the winner's voters, ties to the lowest column.
        win_of_row = np.full(m, -2, dtype=np.int64)
        win_of_row[has] = winner[has]
        rows = flat // n
        mine = g == win_of_row[rows]
        s = scores.ravel()[flat[mine]]
        r_m, c_m = rows[mine], col[mine]
        o = np.lexsort((c_m, -s, r_m))
        r_o = r_m[o]
        head = np.ones(len(o), dtype=bool)
        head[1:] = r_o[1:] != r_o[:-1]
        rep[r_o[head]] = c_m[o][head]
    else:
        rep[has] = first_col[winner[has]]
    answer = np.full(m, -1, dtype=np.int64)
    answer[has] = first_col[winner[has]]
    for r in np.flatnonzero(replay):
        answer[r], rep[r] = _replay(p, int(r), given, part, cols, rep_by_score)
    return answer, rep


def _replay(
    p: Pool,
    r: int,
    weights: FloatArray | IntArray | None,
    part: BoolArray,
    cols: Any,
    rep_by_score: bool,
) -> tuple[int, int]:
    """scorio's ``_plurality`` on one row, visit by visit (NaN comparisons included)."""
    scores = p.scores
    score_of: Callable[[int], float] = (
        (lambda j: float(scores[r, j])) if scores is not None else (lambda j: 0.0)
    )
    total: dict[int, Any] = {}
    first: dict[int, int] = {}
    rep: dict[int, int] = {}
    for j in cols[r]:
        j = int(j)
        if not part[r, j]:
            continue
        a = int(p.group[r, j])
        if a not in total:
            total[a] = 0
            first[a] = j
            rep[a] = j
        w = 1 if weights is None else weights[r, j]
        total[a] += w.item() if isinstance(w, np.generic) else w
        if rep_by_score and score_of(j) > score_of(rep[a]):
            rep[a] = j
    if not total:
        return -1, -1
    best = min(total, key=lambda a: (-total[a], first[a]))
    return first[best], rep[best]

