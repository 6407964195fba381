"""Votes: scorio.aggregate's six counting rules, for one question or many at once.

Each rule is a choice of who votes, in which order and with what weight; the
counting is :func:`._plurality.plurality`. Names, keywords, defaults, returns,
tie rules (earliest appearance) and messages are scorio 0.2.3's
(``scorio/aggregate/vote.py``; the papers are cited there and in docs/aggregate.md).
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import numpy as np

from .._arrays import FloatArray, IntArray
from .._kscore import pick_group, rank_weights, score_weights
from ._order import by_score
from ._plurality import EXACT_INT, plurality
from ._pool import Pool, fused, pack, pool

__all__ = [
    "majority_vote",
    "weighted_majority_vote",
    "softmax_weighted_vote",
    "rank_weighted_vote",
    "logit_weighted_vote",
    "filtered_vote",
]


def majority_vote(answers: Any, *, return_index: bool = False) -> Any:
    """The most frequent valid answer per question (self-consistency; Wang et al., 2023);
    ties to the earliest appearance; ``return_index``: its first occurrence."""
    p = pool(answers)
    chosen = fused(p, "majority", _majority)
    return pack(p, chosen, return_index=return_index)


def _majority(p: Pool) -> tuple[IntArray, IntArray]:
    return plurality(p, None, p.valid, rep_by_score=False)


def weighted_majority_vote(
    answers: Any,
    scores: Any,
    *,
    aggregate: str = "sum",
    return_index: bool = False,
    return_score: bool = False,
) -> Any:
    """The answer whose group's summed (or mean) score is largest (Li et al., 2023)."""
    if aggregate not in ("sum", "mean"):
        raise ValueError(f"aggregate must be 'sum' or 'mean'; got {aggregate!r}.")
    p = pool(answers, scores, require_scores=True)
    assert p.scores is not None
    if aggregate == "sum":
        rep = fused(p, "sum", _sum_vote)
    else:
        rep = fused(p, "mean", _mean_vote)
    return pack(p, rep, return_index=return_index, return_score=return_score)


def _sum_vote(p: Pool) -> tuple[IntArray, IntArray]:
    return plurality(p, p.scores, p.valid)


def _mean_vote(p: Pool) -> tuple[IntArray, IntArray]:
    """scorio's ``aggregate="mean"``: each group's sum (in column order) over its size;
    the largest mean wins, ties to the earliest appearance (one core call; rows with a
    NaN are replayed as scorio walks them)."""
    assert p.scores is not None
    answer, rep, replay = pick_group(p.codes, p.scores, "mean", 0.0)
    for r in np.flatnonzero(replay):
        answer[r], rep[r] = _mean_row(p, int(r))
    return answer, rep


def _mean_row(p: Pool, r: int) -> tuple[int, int]:
    """One row exactly as scorio's ``_row_weighted`` visits it (NaN comparisons included)."""
    assert p.scores is not None
    groups: dict[int, list[Any]] = {}
    for j in range(p.shape[1]):
        a = int(p.codes[r, j])
        if a < 0:
            continue
        s = float(p.scores[r, j])
        if a not in groups:
            groups[a] = [s, 1, j, s, j]
        else:
            gr = groups[a]
            gr[0] += s
            gr[1] += 1
            if s > gr[3]:
                gr[3], gr[4] = s, j
    best = min(groups, key=lambda a: (-(groups[a][0] / groups[a][1]), groups[a][2]))
    return int(groups[best][2]), int(groups[best][4])


def softmax_weighted_vote(
    answers: Any,
    scores: Any,
    *,
    temperature: float = 1.0,
    return_index: bool = False,
    return_score: bool = False,
) -> Any:
    """Votes weighted ``exp((score - max) / T)`` (CISC; Taubenfeld et al., 2025)."""
    if not (temperature > 0.0):
        raise ValueError(f"temperature must be > 0; got {temperature}.")
    p = pool(answers, scores, require_scores=True)
    t = float(temperature)
    chosen = fused(p, "softmax", lambda q: _softmax_vote(q, t), param=t)
    return pack(p, chosen, return_index=return_index, return_score=return_score)


def _softmax_vote(p: Pool, temperature: float) -> tuple[IntArray, IntArray]:
    """The softmax vote step by step (the weights in the core, then the count)."""
    assert p.scores is not None
    valid = p.valid
    s = p.scores
    # math.exp's numbers (the C library's exp), scorio's to the bit.
    weights, nan_rows = score_weights(p.codes, s, "softmax", temperature)
    for r in np.flatnonzero(nan_rows):
        # Python's max over a NaN is decided by the order it compares in.
        part = [j for j in range(p.shape[1]) if valid[r, j]]
        top = max(float(s[r, j]) for j in part)
        for j in part:
            weights[r, j] = math.exp((float(s[r, j]) - top) / temperature)
    return plurality(p, weights, valid)


def rank_weighted_vote(
    answers: Any,
    scores: Any,
    *,
    p: float = 1.0,
    return_index: bool = False,
    return_score: bool = False,
) -> Any:
    """Borda votes: the candidate at place t of n casts ``(n - t) ** p`` (Kang et al., 2025)."""
    if not (p >= 0.0) or p == float("inf"):
        raise ValueError(f"p must be a finite non-negative number; got {p}.")
    pl = pool(answers, scores, require_scores=True)
    n = pl.shape[1]
    if float(p).is_integer() and p < 64 and n ** (int(p) + 1) < EXACT_INT:  # exact f64 sums
        chosen = fused(pl, "borda", lambda q: _rank_vote(q, p), count=int(p))
    elif not float(p).is_integer():
        chosen = fused(pl, "borda_real", lambda q: _rank_vote(q, p), param=float(p))
    else:
        chosen = _rank_vote(pl, p)
    return pack(pl, chosen, return_index=return_index, return_score=return_score)


def _rank_vote(pl: Pool, p: float) -> tuple[IntArray, IntArray]:
    """The Borda vote step by step (order, weights, count)."""
    valid = pl.valid
    _, place = by_score(pl, valid)
    weights: Any
    if float(p).is_integer():
        pe = int(p)
        top = int(valid.sum(axis=1).max(initial=0))
        if top ** (pe + 1) < EXACT_INT:  # every row's sum is an exact f64
            weights = rank_weights(place, valid, "borda", float(pe))
        else:  # exact Python ints, as scorio sums them
            n = valid.sum(axis=1, keepdims=True)
            weights = np.where(valid, n - place, 0).astype(object) ** pe
    else:  # ((n - t) / n) ** p with the C library's pow, as Python's **
        weights = rank_weights(place, valid, "borda_real", float(p))
    return plurality(pl, weights, valid)


def logit_weighted_vote(
    answers: Any,
    scores: Any,
    *,
    threshold: float = 0.5,
    transform: str = "logit",
    return_index: bool = False,
    return_score: bool = False,
) -> Any:
    """Votes weighted ``logit(score) - logit(b)`` (or ``score - b``): low scores vote
    against their answer (Kuang et al., 2025)."""
    if transform not in ("logit", "linear"):
        raise ValueError(f"transform must be 'logit' or 'linear'; got {transform!r}.")
    p = pool(answers, scores, require_scores=True)
    assert p.scores is not None
    s = p.scores
    if transform == "logit":
        if not (0.0 < threshold < 1.0):
            raise ValueError(
                f"threshold must be in (0, 1) for transform='logit'; got {threshold}."
            )
        out = ~((s > 0.0) & (s < 1.0))
        bad = out & p.valid if out.any() else out  # the codes only when a score is outside
        if bad.any():
            first = float(s.ravel()[np.flatnonzero(bad)[0]])
            raise ValueError(
                "transform='logit' requires every valid score in (0, 1); "
                f"got {first}. Use transform='linear' for unbounded scores."
            )
        tb = math.log(threshold / (1.0 - threshold))
        chosen = fused(p, "logit", lambda q: _logit_vote(q, tb), param=tb)
    else:
        th = float(threshold)
        chosen = fused(p, "linear", lambda q: plurality(q, _scores(q) - th, q.valid), param=th)
    return pack(p, chosen, return_index=return_index, return_score=return_score)


def _scores(p: Pool) -> FloatArray:
    assert p.scores is not None
    return p.scores


def _logit_vote(p: Pool, tb: float) -> tuple[IntArray, IntArray]:
    weights, _ = score_weights(p.codes, _scores(p), "logit", tb)  # math.log's numbers, as scorio
    return plurality(p, weights, p.valid)


def keep_count(keep: Any, n: int) -> int:
    """scorio's ``keep``: a fraction in (0, 1] (at least one) or a count >= 1."""
    if isinstance(keep, bool):
        raise ValueError("keep must be a float in (0, 1] or an int >= 1; got a bool.")
    if isinstance(keep, (int, np.integer)) and keep >= 1:
        return min(int(keep), n)
    if isinstance(keep, (float, np.floating)) and 0.0 < float(keep) <= 1.0:
        # scorio nudges down so 0.07 * 100 == 7.000000000000001 keeps 7.
        return max(1, math.ceil(float(keep) * n - 1e-9))
    raise ValueError(
        f"keep must be a float fraction in (0, 1] or an int count >= 1; got {keep!r}."
    )


def filtered_vote(
    answers: Any,
    scores: Any,
    *,
    keep: float = 0.5,
    weighted: bool = True,
    return_index: bool = False,
    return_score: bool = False,
) -> Any:
    """The top-``keep`` candidates by score vote, weighted by score or by one each
    (DeepConf, Fu et al., 2025; top-K voting, Cobbe et al., 2021)."""
    p = pool(answers, scores, require_scores=True)
    assert p.scores is not None
    keep_count(keep, p.shape[1])
    slow = partial(_filtered_vote, keep=keep, weighted=weighted)
    if isinstance(keep, (int, np.integer)):
        chosen = fused(p, "filtered", slow, count=min(int(keep), p.shape[1]), weighted=weighted)
    else:
        chosen = fused(p, "filtered", slow, param=float(keep), weighted=weighted)
    return pack(p, chosen, return_index=return_index, return_score=return_score)


def _filtered_vote(p: Pool, *, keep: Any, weighted: bool) -> tuple[IntArray, IntArray]:
    """The filtered vote step by step (order, the kept, the count)."""
    assert p.scores is not None
    valid = p.valid
    seq, place = by_score(p, valid)
    n = valid.sum(axis=1)
    if isinstance(keep, (int, np.integer)):
        k = np.minimum(int(keep), n)
    else:  # the same float steps as keep_count, row by row
        k = np.maximum(1, np.ceil(float(keep) * n - 1e-9)).astype(np.int64)
    kept = valid & (place < k[:, None])
    weights = p.scores if weighted else np.ones(p.shape)
    # scorio visits the kept voters best first: sums and "first seen" follow that order.
    return plurality(p, weights, kept, seq=seq)
