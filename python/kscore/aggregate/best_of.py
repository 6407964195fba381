"""Selection by reward: Best-of-N, Majority-of-the-Bests and Best-of-Majority, for many
questions at once, with scorio 0.2.3's names, keywords, ties and messages
(``scorio/aggregate/best_of.py``; papers cited there and in docs/aggregate.md)."""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import numpy as np

from .._arrays import IntArray
from .._kscore import pick_group, rank_weights
from ._order import by_score
from ._plurality import EXACT_INT, plurality
from ._pool import Pool, fused, pack, pool

__all__ = ["best_of_n", "majority_of_the_bests", "mob", "best_of_majority"]


def best_of_n(
    answers: Any,
    scores: Any,
    *,
    return_index: bool = False,
    return_score: bool = False,
) -> Any:
    """The answer of the highest-scoring valid candidate, ties to the lowest index
    (Cobbe et al., 2021); a score must beat -inf to be chosen, as in scorio."""
    p = pool(answers, scores, require_scores=True)
    chosen = fused(p, "best_of_n", _best_of_n)
    return pack(p, chosen, return_index=return_index, return_score=return_score)


def _best_of_n(p: Pool) -> tuple[IntArray, IntArray]:
    """Best-of-N in numpy (the core's flagged rows: it flags none)."""
    assert p.scores is not None
    s = np.where(p.valid & ~np.isnan(p.scores), p.scores, -np.inf)
    best = np.argmax(s, axis=1) if p.shape[1] else np.zeros(p.shape[0], dtype=np.int64)
    beat = s[np.arange(p.shape[0]), best] > -np.inf
    index = np.where(beat, best, -1).astype(np.int64)
    return index, index


def majority_of_the_bests(
    answers: Any,
    scores: Any,
    *,
    m: int | None = None,
    return_index: bool = False,
    return_score: bool = False,
) -> Any:
    """The mode of the bootstrapped Best-of-N answer in closed form (Rakhsha et al.,
    2025): the candidate at score place t of n weighs ``(n - t)**m - (n - t - 1)**m``
    (exact integers, as scorio); ties to the earliest appearance."""
    p = pool(answers, scores, require_scores=True)
    assert p.scores is not None
    if m is not None:
        if isinstance(m, bool) or not isinstance(m, (int, np.integer)):
            raise ValueError(f"m must be a positive integer or None; got {m!r}.")
        if int(m) < 1:
            raise ValueError(f"m must be a positive integer or None; got {m!r}.")
    n = p.shape[1]
    # the largest power any row can take (its voters, at most n, bound m); n**that
    # below 2**53: every row's weights sum exactly in f64, in the core
    power = math.isqrt(n) if m is None else min(int(m), n)
    slow = partial(_mob, m=m)
    if n**power < EXACT_INT:
        chosen = fused(p, "mob", slow, count=0 if m is None else power)
    else:
        chosen = slow(p)
    return pack(p, chosen, return_index=return_index, return_score=return_score)


def _mob(p: Pool, m: int | None) -> tuple[IntArray, IntArray]:
    """Majority-of-the-Bests step by step (order, weights, count, NaN rows in Python)."""
    assert p.scores is not None
    valid = p.valid
    _, place = by_score(p, valid)
    n = valid.sum(axis=1)
    if m is None:  # scorio's default, floor(sqrt(n)) by math.isqrt
        mm = _isqrt(n)
    else:
        mm = np.full(n.shape, int(m), dtype=np.int64)
    mm = np.minimum(np.maximum(mm, 1), np.maximum(n, 1))
    top = int(n.max(initial=0))
    power = int(mm.max(initial=1))
    weights: Any
    if top**power < EXACT_INT:  # every row's weights sum to n**m: exact f64
        weights = rank_weights(place, valid, "mob", powers=np.ascontiguousarray(mm, dtype=np.int64))
    else:
        base = np.where(valid, n[:, None] - place, 1)
        weights = np.zeros(p.shape, dtype=object)
        for r, c in zip(*np.nonzero(valid)):
            k = int(base[r, c])
            weights[r, c] = k ** int(mm[r]) - (k - 1) ** int(mm[r])
    _, rep = plurality(p, weights, valid)
    # scorio keys each answer by its best-scored member: that is the answer returned.
    for r in np.flatnonzero((np.isnan(p.scores) & valid).any(axis=1)):
        rep[r] = _mob_row(p, int(r), int(mm[r]))
    return rep, rep


mob = majority_of_the_bests


def _isqrt(n: Any) -> Any:
    """``math.isqrt`` of each count: the float root, corrected by one where it rounded."""
    r = np.floor(np.sqrt(n.astype(np.float64))).astype(np.int64)
    r -= r * r > n
    r += (r + 1) * (r + 1) <= n
    return r


def _mob_row(p: Pool, r: int, mm: int) -> int:
    """One row as scorio's ``_row_mob`` (NaN scores sort by Python's comparisons)."""
    assert p.scores is not None
    row = p.scores[r]
    idx = [j for j in range(p.shape[1]) if p.codes[r, j] >= 0]
    n = len(idx)
    if n == 1:
        return idx[0]
    order = sorted(idx, key=lambda j: (-float(row[j]), j))
    weight: dict[int, int] = {}
    rep: dict[int, int] = {}
    for t, j in enumerate(order):
        a = int(p.codes[r, j])
        if a not in weight:
            weight[a] = 0
            rep[a] = j
        weight[a] += (n - t) ** mm - (n - t - 1) ** mm
    first: dict[int, int] = {}
    for j in idx:
        first.setdefault(int(p.codes[r, j]), j)
    best = min(weight, key=lambda a: (-weight[a], first[a]))
    return rep[best]


def best_of_majority(
    answers: Any,
    scores: Any,
    *,
    alpha: float = 0.0,
    aggregate: str = "mean",
    return_index: bool = False,
    return_score: bool = False,
) -> Any:
    """The highest-reward answer (group mean, sum or max) among those given by at
    least a fraction ``alpha`` of the valid candidates (Di et al., 2025); if none
    is that frequent, among all; ties to the earliest appearance."""
    if not (0.0 <= alpha <= 1.0):
        raise ValueError(f"alpha must be in [0, 1]; got {alpha}.")
    if aggregate not in ("mean", "sum", "max"):
        raise ValueError(
            f"aggregate must be 'mean', 'sum', or 'max'; got {aggregate!r}."
        )
    p = pool(answers, scores, require_scores=True)
    # One core pass: groups, their sizes, rewards and representatives, the gate, the pick.
    rule = {"mean": "mean", "sum": "sum_reward", "max": "max_reward"}[aggregate]
    chosen = fused(p, rule, partial(_bom, alpha=alpha, aggregate=aggregate), param=float(alpha))
    return pack(p, chosen, return_index=return_index, return_score=return_score)


def _bom(p: Pool, alpha: float, aggregate: str) -> tuple[IntArray, IntArray]:
    """Best-of-Majority on the codes (rows with a NaN score replayed in Python)."""
    assert p.scores is not None
    answer, rep, replay = pick_group(p.codes, p.scores, aggregate, float(alpha))
    for r in np.flatnonzero(replay):
        answer[r], rep[r] = _bom_row(p, int(r), alpha, aggregate)
    return answer, rep


def _bom_row(p: Pool, r: int, alpha: float, aggregate: str) -> tuple[int, int]:
    """One row as scorio's ``_row_best_of_majority`` (NaN comparisons included)."""
    assert p.scores is not None
    row = p.scores[r]
    part = [j for j in range(p.shape[1]) if p.codes[r, j] >= 0]
    n = len(part)
    groups: dict[int, list[Any]] = {}
    for j in part:
        a = int(p.codes[r, j])
        g = groups.get(a)
        if g is None:
            groups[a] = [[j], j, j]
        else:
            g[0].append(j)
            if float(row[j]) > float(row[g[2]]):
                g[2] = j
    gated = [a for a in groups if len(groups[a][0]) / n >= alpha] or list(groups)

    def reward(a: int) -> float:
        ss = [float(row[j]) for j in groups[a][0]]
        if aggregate == "mean":
            return sum(ss) / len(ss)
        if aggregate == "sum":
            return sum(ss)
        return max(ss)

    best = min(gated, key=lambda a: (-reward(a), groups[a][1]))
    return int(groups[best][1]), int(groups[best][2])

