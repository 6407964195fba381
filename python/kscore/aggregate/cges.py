"""Confidence-Guided Early Stopping (CGES; Aghazadeh et al., 2026): scorio.aggregate's
``CGES_OTHER``, ``cges_vote`` and ``cges_stop``, for one question or many at once.

Each observed answer and an ``OTHER`` bucket (a correct answer not seen yet) gets the
log score ``sum_t [R_t = a] log C_t + [R_t != a] log((1 - C_t) / (K - 1))`` (K: the
observed answers plus OTHER). For all questions at once: one pass over the columns adds
each candidate's terms in scorio's order (the same f64 additions, so the same log
scores up to numpy's ``log``/``log1p`` against ``math``'s, within an ulp); the winner is
the first largest, in scorio's order (answers by first appearance, then OTHER).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._arrays import BoolArray, FloatArray, IntArray
from ._pool import Pool, pack, pool

__all__ = ["CGES_OTHER", "cges_vote", "cges_stop", "cges_stop_batch"]


class _CGESOther:
    """Identity sentinel for the unseen-answer hypothesis."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "CGES_OTHER"

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return _restore_cges_other, ()


def _restore_cges_other() -> _CGESOther:
    return CGES_OTHER


CGES_OTHER = _CGESOther()
"""Bucket for a correct answer that has not been observed."""


def _validate_bool(value: Any, name: str) -> None:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a bool; got {value!r}.")


def _check(p: Pool) -> None:
    """scorio's errors, in its order: row by row, the reserved sentinel first, then the
    first valid candidate whose score is not finite in (0, 1)."""
    assert p.scores is not None
    valid = p.valid
    bad_score = valid & ~((p.scores > 0.0) & (p.scores < 1.0))  # NaN fails both
    other = np.zeros_like(valid)
    if p.answers.dtype == object:
        other = valid & np.vectorize(lambda a: a is CGES_OTHER, otypes=[bool])(p.answers)
    rows = np.flatnonzero((bad_score | other).any(axis=1))
    if rows.size == 0:
        return
    r = int(rows[0])
    if other[r].any():
        raise ValueError("CGES_OTHER is reserved and cannot be an observed answer.")
    j = int(np.flatnonzero(bad_score[r])[0])
    raise ValueError(
        f"CGES requires every valid candidate score to be finite and strictly in (0, 1); got {float(p.scores[r, j])}."
    )


def _log_scores(p: Pool) -> tuple[FloatArray, IntArray]:
    """``(log_scores, groups)``: per row, the log score of each answer (columns in
    order of first appearance) and of OTHER (column ``groups[r]``); columns past
    ``groups[r]`` are -inf. Sums are made in scorio's order: the mismatch terms of all
    valid candidates in column order, then each candidate's own term."""
    assert p.scores is not None
    m, n = p.shape
    valid = p.valid
    groups = (p.codes.max(axis=1, initial=-1) + 1).astype(np.int64)
    c = np.where(valid, p.scores, 0.5)
    with np.errstate(divide="ignore"):
        mismatch = np.log1p(-c) - np.log(np.maximum(groups, 1))[:, None]  # log(K - 1), K = groups + 1
        own = np.log(c) - mismatch
    # cumsum adds left to right, as scorio's loop (an invalid candidate adds an exact 0.0)
    base = np.cumsum(np.where(valid, mismatch, 0.0), axis=1)[:, -1]
    width = n + 2  # answers, OTHER, and a spare column for the invalid candidates
    scores = np.where(np.arange(width)[None, :] <= groups[:, None], base[:, None], -np.inf)
    # np.add.at adds in the order of its indices: row by row, columns left to right, so each
    # answer's own terms are added in scorio's order.
    col = np.where(valid, p.codes, n + 1).astype(np.int64)
    index = np.arange(m, dtype=np.int64)[:, None] * width + col
    flat = scores.ravel()
    np.add.at(flat, index.ravel(), np.where(valid, own, 0.0).ravel())
    scores = flat.reshape(m, width)
    return scores[:, : n + 1], groups


def _posterior_of(scores: FloatArray, picked: IntArray) -> FloatArray:
    """``exp(score[picked] - logsumexp(scores))`` per row, with scipy's logsumexp (the
    maxima taken out of the sum, ``log1p``)."""
    top = scores.max(axis=1)
    at_top = scores == top[:, None]
    count = at_top.sum(axis=1)
    rest = np.where(at_top, 0.0, np.exp(scores - top[:, None])).sum(axis=1)
    normalizer = np.log1p(rest / count) + np.log(count) + top
    rows = np.arange(len(scores))
    out: FloatArray = np.exp(scores[rows, picked] - normalizer)
    return out


def _winners(scores: FloatArray, groups: IntArray, with_other: bool) -> IntArray:
    """The first largest hypothesis per row (OTHER: column ``groups[r]``)."""
    considered = scores.copy()
    if not with_other:
        considered[np.arange(len(scores)), groups] = -np.inf
    best: IntArray = np.argmax(considered, axis=1)
    return best


def cges_vote(
    answers: Any,
    scores: Any,
    *,
    allow_other: bool = False,
    return_index: bool = False,
    return_score: bool = False,
) -> Any:
    """The answer with the largest CGES score (``allow_other``: :data:`CGES_OTHER` may
    win); ties to the earliest appearance. ``return_index``/``return_score``: the
    winner's best-scored candidate (``-1``/NaN for OTHER and empty rows)."""
    _validate_bool(allow_other, "allow_other")
    p = pool(answers, scores, require_scores=True)
    _check(p)
    m, n = p.shape
    log_scores, groups = _log_scores(p)
    win = _winners(log_scores, groups, bool(allow_other))
    empty = groups == 0
    is_other = (win == groups) & ~empty
    # The winner's first column (the answer returned) and its best-scored member.
    member = (p.codes == win[:, None]) & ~(is_other | empty)[:, None]
    cols = np.broadcast_to(np.arange(n), (m, n))
    first = np.where(member.any(axis=1), np.where(member, cols, n).min(axis=1), -1)
    assert p.scores is not None
    key = np.where(member, p.scores, -np.inf)
    rep = np.where(member.any(axis=1), np.argmax(key, axis=1), -1)  # first max: the lowest index
    out = pack(p, (first, rep), return_index=return_index, return_score=return_score)
    if not is_other.any():
        return out
    selected = out[0] if isinstance(out, tuple) else out
    if p.single:
        selected = CGES_OTHER
    else:
        selected[is_other] = CGES_OTHER
    return (selected, *out[1:]) if isinstance(out, tuple) else selected


def _check_stop(threshold: float, include_other: Any, min_samples: Any) -> None:
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"threshold must be in (0, 1); got {threshold}.")
    _validate_bool(include_other, "include_other")
    if isinstance(min_samples, bool) or not isinstance(min_samples, (int, np.integer)):
        raise ValueError(f"min_samples must be an integer >= 1; got {min_samples!r}.")
    if int(min_samples) < 1:
        raise ValueError(f"min_samples must be >= 1; got {min_samples}.")


def _stop_rows(p: Pool, threshold: float, include_other: bool, min_samples: int) -> tuple[BoolArray, FloatArray]:
    _check(p)
    log_scores, groups = _log_scores(p)
    win = _winners(log_scores, groups, include_other)
    empty = groups == 0
    prob = np.where(empty, 0.0, _posterior_of(log_scores, win))
    stop = ~empty & (p.valid.sum(axis=1) >= min_samples) & (prob >= threshold)
    return stop, prob


def cges_stop(
    answers: Any,
    scores: Any,
    *,
    threshold: float = 0.95,
    include_other: bool = False,
    min_samples: int = 1,
    return_prob: bool = False,
) -> Any:
    """Whether one CGES sampling stream has reached ``threshold``: its largest CGES
    score (observed answers; with ``include_other`` also OTHER) after at least
    ``min_samples`` valid samples."""
    _check_stop(threshold, include_other, min_samples)
    p = pool(answers, scores, require_scores=True)
    if not p.single:
        raise ValueError("cges_stop expects one 1D sampling stream, not a batch.")
    stop, prob = _stop_rows(p, threshold, bool(include_other), int(min_samples))
    result = (bool(stop[0]), float(prob[0]))
    return result if return_prob else result[0]


def cges_stop_batch(
    answers: Any,
    scores: Any,
    *,
    threshold: float = 0.95,
    include_other: bool = False,
    min_samples: int = 1,
    return_prob: bool = False,
) -> Any:
    """:func:`cges_stop` of every row of ``(M, N)`` answers and scores (one stream
    per question): an ``(M,)`` bool array (and the probabilities)."""
    _check_stop(threshold, include_other, min_samples)
    p = pool(answers, scores, require_scores=True)
    if p.single:
        raise ValueError("answers must be a 2D (M, N) array: one row per question.")
    stop, prob = _stop_rows(p, threshold, bool(include_other), int(min_samples))
    return (stop, prob) if return_prob else stop
