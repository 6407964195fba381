"""Candidates by descending score, ties to the lower column: the order rank-based rules use.

scorio sorts each question's valid candidates with ``sorted(key=(-score, j))``. A
lexsort per row gives the same order; rows with a NaN score among the voters are
sorted by Python itself, since a NaN key makes ``sorted``'s result depend on the
comparisons it happens to make.
"""

from __future__ import annotations

import numpy as np

from .._arrays import BoolArray, IntArray
from ._pool import Pool


def by_score(p: Pool, part: BoolArray) -> tuple[IntArray, IntArray]:
    """``(seq, place)``: per row, the columns in visiting order (voters first), and
    each column's place in it (``place[r, seq[r, t]] == t``)."""
    assert p.scores is not None
    m, n = p.shape
    cols = np.broadcast_to(np.arange(n), (m, n))
    key = np.where(part, -p.scores, 0.0)
    seq = np.lexsort((cols, key, ~part), axis=1).astype(np.int64) if m else np.zeros((0, n), np.int64)
    nan_rows = np.flatnonzero((np.isnan(p.scores) & part).any(axis=1))
    for r in nan_rows:
        row = p.scores[r]
        voters = [j for j in range(n) if part[r, j]]
        ordered = sorted(voters, key=lambda j: (-float(row[j]), j))
        rest = [j for j in range(n) if not part[r, j]]
        seq[r] = ordered + rest
    place = np.empty_like(seq)
    np.put_along_axis(place, seq, np.broadcast_to(np.arange(n), (m, n)), axis=1)
    return seq, place
