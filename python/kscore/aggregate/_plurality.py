"""The one kernel of every vote: sum each answer group's weights, pick the heaviest group.

scorio's ``_plurality`` walks one question's candidates in a given order, adds each
weight to its answer's total (in that order: the core adds the same f64s in the same
order), keeps the first column met for each answer and its highest-scoring member
(replaced only by a strictly higher score), then takes ``min(key=(-total, first))``.
The core (``_kscore.vote``) does that for all questions at once. Where a NaN reaches a
comparison (a NaN weight, score or total), Python's ``min`` and ``>`` depend on the
order they compare in: the core flags those questions and they are replayed here one
by one exactly as scorio visits them. Weights that are Python ints past 2**53 (large
Borda or MoB powers, which scorio sums exactly) are replayed too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._arrays import BoolArray, FloatArray, IntArray
from .._kscore import vote
from ._pool import Pool

#: Integer weights whose row sums stay below this are exact as f64 (scorio sums Python ints).
EXACT_INT = 2**53


def plurality(
    p: Pool,
    weights: FloatArray | IntArray | None,
    part: BoolArray,
    *,
    seq: IntArray | None = None,
    rep_by_score: bool = True,
) -> tuple[IntArray, IntArray]:
    """``(answer, representative)`` columns of each row's winning group (``-1``:
    nobody voted). ``weights`` (M, N): each candidate's vote (``None``: one each;
    an object array of Python ints: replayed exactly); ``part``: who votes;
    ``seq`` (M, N): the columns in visiting order per row (``None``: column
    order). The answer is the winner's first visited member (scorio returns that
    dict key: ``1``, ``1.0`` and ``True`` are one answer, returned as first met);
    the representative its highest-scoring voter (``rep_by_score=False``: the
    first)."""
    scores = p.scores if rep_by_score else None
    exact = weights is not None and weights.dtype.kind == "O"
    w = None if weights is None or exact else np.ascontiguousarray(weights, dtype=np.float64)
    order = None if seq is None else np.ascontiguousarray(seq, dtype=np.int64)
    answer, rep, replay = vote(p.codes, np.ascontiguousarray(part), w, order, scores)
    if exact:
        replay[:] = True
    for r in np.flatnonzero(replay):
        answer[r], rep[r] = _replay(p, int(r), weights, part, seq, scores is not None)
    return answer, rep


def _replay(
    p: Pool,
    r: int,
    weights: Any,
    part: BoolArray,
    seq: IntArray | None,
    by_score: bool,
) -> tuple[int, int]:
    """scorio's ``_plurality`` on one row, visit by visit (NaN comparisons included)."""
    scores = p.scores
    cols = range(p.shape[1]) if seq is None else (int(j) for j in seq[r])
    total: dict[int, Any] = {}
    first: dict[int, int] = {}
    rep: dict[int, int] = {}
    for j in cols:
        if not part[r, j]:
            continue
        a = int(p.codes[r, j])
        if a not in total:
            total[a] = 0
            first[a] = j
            rep[a] = j
        w = 1 if weights is None else weights[r, j]
        total[a] += w.item() if isinstance(w, np.generic) else w
        if by_score and scores is not None and float(scores[r, j]) > float(scores[r, rep[a]]):
            rep[a] = j
    if not total:
        return -1, -1
    best = min(total, key=lambda a: (-total[a], first[a]))
    return first[best], rep[best]
