"""Confidence-Guided Early Stopping (CGES; Aghazadeh et al., 2026): scorio.aggregate's
``CGES_OTHER``, ``cges_vote`` and ``cges_stop``, for one question or many at once.

Each observed answer and an ``OTHER`` bucket (a correct answer not seen yet) gets the
log score ``sum_t [R_t = a] log C_t + [R_t != a] log((1 - C_t) / (K - 1))`` (K: the
observed answers plus OTHER). For all questions at once, in one core call
(rust/kscore-core/src/aggregate/cges.rs): each row's terms are added in scorio's order
with the C library's ``log``/``log1p`` (Python's ``math``), so the same log scores; the
winner is the first largest, in scorio's order (answers by first appearance, then OTHER).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._arrays import BoolArray, FloatArray
from .._kscore import cges_rows
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
    assert p.scores is not None
    first, rep, is_other, _, _ = cges_rows(p.codes, p.scores, bool(allow_other))
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
    assert p.scores is not None
    _, _, _, prob, count = cges_rows(p.codes, p.scores, include_other)
    stop = (count > 0) & (count >= min_samples) & (prob >= threshold)
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
