"""Candidates by descending score, ties to the lower column: the order rank-based rules use.

scorio sorts each question's valid candidates with ``sorted(key=(-score, j))``. The
core's stable sort per row (``_kscore.order_by_score``) gives the same order; rows
with a NaN score among the voters are sorted by Python itself, since a NaN key makes
``sorted``'s result depend on the comparisons it happens to make.
"""

from __future__ import annotations

import numpy as np

from .._arrays import BoolArray, IntArray
from .._kscore import order_by_score
from ._pool import Pool


def by_score(p: Pool, part: BoolArray) -> tuple[IntArray, IntArray]:
    """``(seq, place)``: per row, the columns in visiting order (voters first), and
    each column's place in it (``place[r, seq[r, t]] == t``). Sorted in the core
    (a stable sort per row); rows with a NaN voter are sorted here by Python."""
    assert p.scores is not None
    m, n = p.shape
    seq, place, nan_rows = order_by_score(p.scores, np.ascontiguousarray(part))
    for r in np.flatnonzero(nan_rows):
        row = p.scores[r]
        voters = [j for j in range(n) if part[r, j]]
        ordered = sorted(voters, key=lambda j: (-float(row[j]), j))
        rest = [j for j in range(n) if not part[r, j]]
        seq[r] = ordered + rest
        place[r, seq[r]] = np.arange(n)
    return seq, place
