"""Scores to ranks under scorio 0.2.3's four tie rules
(``scorio.utils.rank_scores``, without its confidence-aware extension).

Higher scores rank first. Scores within ``tol`` (1e-12) of the first, i.e.
highest, score of a run are tied with it: walking down the sorted scores,
each one joins the group of the one before when it lies within ``tol`` of
that group's head.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

#: The tie rules: competition (1, 2, 2, 4), competition_max (1, 3, 3, 4),
#: dense (1, 2, 2, 3) and avg (1, 2.5, 2.5, 4).
RankMethod = Literal["competition", "competition_max", "dense", "avg"]

TOL = 1e-12
_METHODS = frozenset({"competition", "competition_max", "dense", "avg"})
#: Up to this many scores, plain Python (a dozen numpy calls cost more).
_SMALL = 64


Ranks = npt.NDArray[np.int64] | npt.NDArray[np.float64]


def rank_scores(scores: npt.ArrayLike, method: str, tol: float = TOL) -> Ranks:
    """Ranks (1 = best) of ``scores`` under one tie rule: int64, float64 for "avg".

    Examples:
        >>> rank_scores([95.0, 87.5, 87.5, 80.0], "competition").tolist()
        [1, 2, 2, 4]
        >>> rank_scores([95.0, 87.5, 87.5, 80.0], "avg").tolist()
        [1.0, 2.5, 2.5, 4.0]
    """
    if method not in _METHODS:
        raise KeyError(method)  # as scorio's dict of the four rules
    values = np.asarray(scores, dtype=float)
    if values.size <= _SMALL and not np.isnan(values).any():
        return _rank_small(values.tolist(), method, tol)
    order = np.argsort(-values, kind="stable")
    ordered = values[order]
    # Group heads: a run starts wherever a score is farther than tol from the
    # head of the run before. Only scores within tol of their predecessor can
    # join (the head lies above the predecessor), so only those are walked.
    starts = np.ones(ordered.size, dtype=bool)
    close = np.flatnonzero(np.abs(np.diff(ordered)) <= tol) + 1
    head, previous = 0.0, -2
    for i in close.tolist():
        if i - 1 != previous:  # the score before starts its run
            head = float(ordered[i - 1])
        if abs(float(ordered[i]) - head) <= tol:
            starts[i] = False
        else:
            head = float(ordered[i])
        previous = i
    run = np.cumsum(starts) - 1  # run index of each sorted score
    first = np.flatnonzero(starts)  # sorted position where each run starts
    sizes = np.diff(np.append(first, ordered.size))
    if method == "avg":  # scipy's float ranks
        averaged = (first + 1 + (sizes - 1) / 2.0)[run]
        ranks_f = np.empty(ordered.size, dtype=np.float64)
        ranks_f[order] = averaged
        return ranks_f
    if method == "competition":
        sorted_ranks = (first + 1)[run]
    elif method == "competition_max":
        sorted_ranks = (first + sizes)[run]
    else:  # "dense"
        sorted_ranks = run + 1
    ranks = np.empty(ordered.size, dtype=np.int64)
    ranks[order] = sorted_ranks
    return ranks


def _rank_small(values: list[float], method: str, tol: float) -> Ranks:
    """``rank_scores`` of a few scores (no NaN) in plain Python: the same
    runs, walked in descending order, each joined while within tol of its head."""
    order = sorted(range(len(values)), key=values.__getitem__, reverse=True)
    ranks: list[float] = [0.0] * len(values)
    start, run, head = 0, 0, values[order[0]] if order else 0.0
    for place in range(1, len(order) + 1):
        if place < len(order) and abs(values[order[place]] - head) <= tol:
            continue
        # The run of places start .. place - 1 ends here.
        if method == "competition":
            rank: float = start + 1
        elif method == "competition_max":
            rank = place
        elif method == "dense":
            rank = run + 1
        else:
            rank = (start + 1 + place) / 2.0
        for i in order[start:place]:
            ranks[i] = rank
        if place < len(order):
            start, run, head = place, run + 1, values[order[place]]
    if method == "avg":
        return np.array(ranks, dtype=np.float64)
    return np.array(ranks, dtype=np.int64)
