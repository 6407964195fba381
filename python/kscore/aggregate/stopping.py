"""Online stopping rules: scorio.aggregate's Adaptive-Consistency and ESC, one question
or many at once.

The one-question functions are scorio 0.2.3's (``scorio/aggregate/online.py``; the
papers are cited there and in docs/aggregate.md): same names, keywords, defaults,
returns and messages. The ``*_batch`` functions take many questions' answers so far
(``(M, N)``: a row per question, unparsable entries, e.g. ``None`` or ``""`` padding,
ignored) and return one decision (and probability) per row, equal to the
one-question function on each row.

- ``adaptive_consistency_stop``: ``1 - I_{1/2}(v1 + 1, v2 + 1)``, a binomial tail for
  integer counts: summed exactly in integers (scorio: scipy's ``betainc``; equal to an ulp).
- ``adaptive_consistency_dirichlet_stop``: the leader's Dirichlet probability by a fixed
  Gauss-Legendre rule for all questions at once (:mod:`._leader`); scorio integrates
  each question with ``scipy.integrate.quad`` to 1e-10.
- ``adaptive_consistency_crp_stop``: scorio's Monte Carlo, draw for draw from the same
  ``numpy.random.default_rng(seed)`` stream, so the same estimate for the same seed.
- ``esc_stop``: a unanimous window.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._arrays import BoolArray, FloatArray, IntArray
from .._kscore import top_two_counts, top_two_replay
from ._leader import leader_probabilities, top_two_probabilities, top_two_probability
from ._pool import Pool, is_valid, pool

__all__ = [
    "adaptive_consistency_stop",
    "adaptive_consistency_dirichlet_stop",
    "adaptive_consistency_crp_stop",
    "esc_stop",
    "adaptive_consistency_stop_batch",
    "adaptive_consistency_dirichlet_stop_batch",
    "esc_stop_batch",
    "adaptive_consistency_stop_points",
]

_CRP_MAX_CHUNK_SIZE = 8192
_CRP_TARGET_CELLS = 500_000


def _check_threshold(threshold: float) -> None:
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"threshold must be in (0, 1); got {threshold}.")


def _ordered_counts(answers: Any) -> list[int]:
    """Valid answers' counts in order of first appearance (scorio's dict tally)."""
    tally: dict[Any, int] = {}
    for a in answers:
        if is_valid(a):
            tally[a] = tally.get(a, 0) + 1
    return list(tally.values())


def _top_two(counts: list[int]) -> tuple[int, int]:
    ordered = sorted(counts, reverse=True)
    return (ordered[0] if ordered else 0), (ordered[1] if len(ordered) > 1 else 0)


def adaptive_consistency_stop(answers: Any, *, threshold: float = 0.95, return_prob: bool = False) -> Any:
    """Adaptive-Consistency (Aggarwal et al., 2023): stop once
    ``P(p_leader > 1/2 | top two counts) = 1 - I_{1/2}(v1 + 1, v2 + 1) >= threshold``."""
    _check_threshold(threshold)
    v1, v2 = _top_two(_ordered_counts(answers))
    prob = top_two_probability(v1, v2)
    stop = prob >= threshold
    return (stop, prob) if return_prob else stop


def adaptive_consistency_dirichlet_stop(answers: Any, *, threshold: float = 0.95, return_prob: bool = False) -> Any:
    """Adaptive-Consistency's full Dirichlet criterion (Eq. 1): stop once the first-seen
    count leader has the largest share under ``Dirichlet(counts + 1)`` with probability
    ``>= threshold``; fewer than three answers: the top-two Beta criterion (as scorio)."""
    _check_threshold(threshold)
    counts = _ordered_counts(answers)
    probability = _dirichlet_probabilities([counts])[0] if counts else 0.0
    stop = bool(counts) and probability >= threshold
    return (stop, probability) if return_prob else stop


def _dirichlet_probabilities(rows: list[list[int]]) -> list[float]:
    """scorio's ``adaptive_consistency_dirichlet_stop`` probability of each count list
    (non-empty, in order of first appearance)."""
    width = max(len(c) for c in rows)
    counts = np.zeros((len(rows), width), dtype=np.int64)
    for r, c in enumerate(rows):
        counts[r, : len(c)] = c
    return [float(x) for x in _dirichlet_of_counts(counts)]


def _dirichlet_of_counts(counts: IntArray) -> FloatArray:
    """Per row of a counts matrix (a column per answer, in any order; 0: no answer;
    at least one answer a row), scorio's probability: top-two Beta below three
    answers, ``1/m`` where every answer ties, else the leader's Dirichlet integral
    (which depends only on the counts' multiset, so the order of the columns does not
    matter)."""
    rows = counts.shape[0]
    m = (counts > 0).sum(axis=1)
    leader = np.argmax(counts, axis=1)  # the first maximum: scorio's max(range, key=...)
    top = counts[np.arange(rows), leader]
    out = np.empty(rows)
    few = m < 3
    if few.any():
        ordered = -np.sort(-counts[few], axis=1)
        second = ordered[:, 1] if ordered.shape[1] > 1 else np.zeros(len(ordered), dtype=np.int64)
        out[few] = top_two_probabilities(ordered[:, 0], second)
    tied = ~few & ((counts == top[:, None]).sum(axis=1) == m)  # exchangeable: exactly 1/m
    out[tied] = 1.0 / m[tied]
    rest = ~few & ~tied
    if rest.any():
        # The probability depends on the leader's count and the others' multiset only:
        # each distinct sorted count vector is integrated once (leader first).
        ordered = -np.sort(-counts[rest], axis=1)
        unique, inverse = np.unique(ordered, axis=0, return_inverse=True)
        values = leader_probabilities(unique, np.zeros(len(unique), dtype=np.int64))
        out[rest] = values[inverse.ravel()]
    return out


def adaptive_consistency_crp_stop(
    answers: Any,
    *,
    threshold: float = 0.95,
    horizon: int = 40,
    n_alpha: int = 100,
    n_simulations: int = 1000,
    seed: int | None = 0,
    return_prob: bool = False,
) -> Any:
    """Adaptive-Consistency's CRP comparator (Appendix C.3): the Monte Carlo share of
    continuations to ``horizon`` in which the current leader stays the leader. The same
    draws as scorio from ``numpy.random.default_rng(seed)``: the same estimate."""
    _check_threshold(threshold)
    for value, name in ((horizon, "horizon"), (n_alpha, "n_alpha"), (n_simulations, "n_simulations")):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{name} must be an integer >= 1; got {value!r}.")
        if int(value) < 1:
            raise ValueError(f"{name} must be >= 1; got {value}.")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise ValueError(f"seed must be a non-negative integer or None; got {seed!r}.")
    try:
        np.random.default_rng(seed)
    except ValueError as exc:
        raise ValueError(f"seed must be a non-negative integer or None; got {seed!r}.") from exc

    counts = _ordered_counts(answers)
    if not counts:
        return (False, 0.0) if return_prob else False
    if sum(counts) >= int(horizon):
        return (True, 1.0) if return_prob else True
    probability = _crp_probability(
        counts, int(horizon), int(n_alpha), int(n_simulations), None if seed is None else int(seed)
    )
    stop = probability >= threshold
    return (stop, probability) if return_prob else stop


def _crp_probability(counts: list[int], horizon: int, n_alpha: int, n_simulations: int, seed: int | None) -> float:
    """The CRP estimate; every draw is made in scorio's order, with its shapes, so a
    seed gives scorio's numbers (the tests check equality)."""
    have = np.asarray(counts, dtype=np.int64)
    n, k = int(have.sum()), len(counts)
    remaining = horizon - n
    leader = int(np.argmax(have))
    rng = np.random.default_rng(seed)
    rate = 1.0 + float(np.euler_gamma) + math.log(n)  # West's approximation, unit hyperparameters
    alpha_draws = rng.gamma(shape=float(k), scale=1.0 / rate, size=n_alpha)
    runs = n_alpha * n_simulations
    chunk = min(_CRP_MAX_CHUNK_SIZE, max(1, _CRP_TARGET_CELLS // max(1, 3 * (k + 1) + 2 * remaining)))
    wins = 0
    for start in range(0, runs, chunk):
        stop = min(start + chunk, runs)
        alpha = alpha_draws[np.arange(start, stop) // n_simulations]
        size = stop - start
        # Masses of the seen answers and of all unseen ones: Dirichlet(counts, alpha).
        mass = np.empty((size, k + 1))
        mass[:, :k] = rng.gamma(shape=have, size=(size, k))
        mass[:, k] = rng.gamma(shape=alpha)
        mass /= np.sum(mass, axis=1, keepdims=True)
        drawn = rng.multinomial(remaining, mass)
        final = drawn[:, :k] + have
        unseen = drawn[:, k]
        # The unseen draws seat as a CRP: an existing table through a uniform earlier customer.
        labels = np.empty((size, remaining), dtype=np.int32)
        new_counts = np.zeros((size, remaining), dtype=np.int32)
        tables = np.zeros(size, dtype=np.int32)
        rows = np.arange(size)
        for customer in range(remaining):
            active = rows[unseen > customer]
            if active.size == 0:
                break
            draw = rng.random(active.size) * (customer + alpha[active])
            create = draw >= customer
            choice = np.empty(active.size, dtype=np.int32)
            old = ~create
            if np.any(old):
                choice[old] = labels[active[old], draw[old].astype(np.intp)]
            choice[create] = tables[active[create]]
            tables[active[create]] += 1
            labels[active, customer] = choice
            new_counts[active, choice] += 1
        kept = np.argmax(final, axis=1) == leader
        kept &= final[:, leader] >= np.max(new_counts, axis=1)
        wins += int(np.count_nonzero(kept))
    return wins / runs


def esc_stop(window_answers: Any) -> bool:
    """Early-Stopping Self-Consistency (Li et al., 2024): stop when every answer of the
    window is valid and equal (an empty window: ``False``)."""
    seq = list(window_answers)
    if not seq:
        return False
    first = seq[0]
    if not is_valid(first):
        return False
    return all(is_valid(a) and a == first for a in seq[1:])


# ---- many questions at once ------------------------------------------------------------


def _row_counts(p: Pool) -> IntArray:
    """``counts[r, g]``: row r's answer g (order of first appearance), 0 past the last."""
    m, _ = p.shape
    g = int(p.codes.max(initial=-1)) + 1  # the most answers of a row; column g: the unparsable
    key = np.arange(m, dtype=np.int64)[:, None] * (g + 1) + np.where(p.codes >= 0, p.codes, g)
    return np.bincount(key.ravel(), minlength=m * (g + 1)).reshape(m, g + 1)[:, : max(g, 1)].astype(np.int64)


def _answer_counts(answers: Any) -> IntArray:
    """Each row's answer counts in some order (the top-two and Dirichlet rules read only
    their multiset): a 2D integer array of ids spanning a small range is counted by one
    ``bincount`` of ``row * range + id``; anything else through the answer pools."""
    if isinstance(answers, np.ndarray) and answers.ndim == 2 and answers.dtype.kind in "iu" and answers.size:
        m, n = answers.shape
        lo, hi = int(answers.min()), int(answers.max())
        span = hi - lo + 1
        if n and span <= 4 * n:
            key = np.arange(m, dtype=np.int64)[:, None] * span + (answers.astype(np.int64) - lo)
            return np.bincount(key.ravel(), minlength=m * span).reshape(m, span).astype(np.int64)
    return _row_counts(_batch_pool(answers))


def _batch_pool(answers: Any) -> Pool:
    p = pool(answers)
    if p.single:
        raise ValueError("answers must be a 2D (M, N) array: one row per question.")
    return p


def _result(stop: BoolArray, prob: FloatArray, return_prob: bool) -> Any:
    return (stop, prob) if return_prob else stop


def adaptive_consistency_stop_batch(answers: Any, *, threshold: float = 0.95, return_prob: bool = False) -> Any:
    """:func:`adaptive_consistency_stop` of every row of ``answers`` (``(M, N)``): an
    ``(M,)`` bool array (and the ``(M,)`` probabilities with ``return_prob``)."""
    _check_threshold(threshold)
    # the top two counts of each row in one core pass (grouped there from a typed
    # array's bytes, or from the pool's codes)
    p = _batch_pool(answers)
    n = p.shape[1]
    if p.raw is not None:
        v1, v2 = top_two_counts(n, answers=p.raw, kind=p.kind)
    else:
        v1, v2 = top_two_counts(n, codes=p.codes)
    prob = top_two_probabilities(v1, v2)
    return _result(prob >= threshold, prob, return_prob)


def adaptive_consistency_dirichlet_stop_batch(
    answers: Any, *, threshold: float = 0.95, return_prob: bool = False
) -> Any:
    """:func:`adaptive_consistency_dirichlet_stop` of every row of ``answers``
    (``(M, N)``), the integrals of all rows at once."""
    _check_threshold(threshold)
    counts = _answer_counts(answers)
    some = counts.max(axis=1, initial=0) > 0
    prob = np.zeros(len(counts))
    if some.any():
        prob[some] = _dirichlet_of_counts(counts[some])
    return _result(some & (prob >= threshold), prob, return_prob)


def esc_stop_batch(window_answers: Any) -> BoolArray:
    """:func:`esc_stop` of every row (``(M, N)`` windows): an ``(M,)`` bool array."""
    w = window_answers
    if isinstance(w, np.ndarray) and w.ndim == 2 and w.shape[1] and w.dtype.kind in "biufU":
        # A typed array needs no groups: a row stops when its first answer is valid and
        # every answer equals it (numpy's == is Python's here: -0.0 == 0.0, NaN never
        # equal, so a NaN anywhere keeps the row going; "" is the unparsable string).
        stop: BoolArray = (w == w[:, :1]).all(axis=1)
        if w.dtype.kind == "U":
            stop &= w[:, 0] != ""
        return stop
    p = _batch_pool(w)
    return np.asarray((p.codes == 0).all(axis=1))


def adaptive_consistency_stop_points(
    answers: Any, *, threshold: float = 0.95, dirichlet: bool = False
) -> tuple[IntArray, BoolArray]:
    """The online rule replayed on every question's samples in order: ``(used,
    stopped)``, per row of ``answers`` (``(M, N)``, in sampling order) the number of
    samples drawn when :func:`adaptive_consistency_stop` (``dirichlet=True``:
    :func:`adaptive_consistency_dirichlet_stop`) first says stop, called after each
    sample, or ``N`` and ``False`` where it never does. Each distinct prefix count
    vector (sorted) is evaluated once."""
    _check_threshold(threshold)
    p = _batch_pool(answers)
    m, n = p.shape
    if not dirichlet:
        # the whole replay in one core pass (counts, top two, the exact probability of
        # each prefix, the first stop); None past its exact range (N > 124): below
        if p.raw is not None:
            done = top_two_replay(n, float(threshold), answers=p.raw, kind=p.kind)
        else:
            done = top_two_replay(n, float(threshold), codes=p.codes)
        if done is not None:
            return done
    rows = np.arange(m)
    counts = np.zeros((m, n + 1), dtype=np.int32)  # column n: the invalid samples' sink
    g = int(p.codes.max(initial=-1)) + 1  # the most answers of a row
    prefix = np.empty((n, m, max(g, 1)), dtype=np.int32) if dirichlet else None
    v1 = np.zeros((n, m), dtype=np.int64)
    v2 = np.zeros((n, m), dtype=np.int64)
    a = np.zeros(m, dtype=np.int64)
    b = np.zeros(m, dtype=np.int64)
    for t in range(n):
        code = p.codes[:, t]
        col = np.where(code >= 0, code, n)
        counts[rows, col] += 1
        c = counts[rows, col].astype(np.int64)
        ok = code >= 0
        # the top two counts after one more vote for col: c joins if it beats the runner-up
        # (its own old count c - 1 was either the leader's a or at most b)
        was_top = ok & (c - 1 == a)
        new_a = np.where(ok & (c > a), c, a)
        new_b = np.where(was_top, b, np.where(ok & (c > a), a, np.where(ok & (c > b), c, b)))
        a, b = new_a, new_b
        v1[t], v2[t] = a, b
        if prefix is not None:
            prefix[t] = counts[:, : max(g, 1)]
    beta = top_two_probabilities(v1.ravel(), v2.ravel())
    if dirichlet:
        assert prefix is not None
        # The leader beating every answer implies beating the runner-up, whose probability
        # is the top-two Beta one: only prefixes whose Beta probability reaches the
        # threshold (less a margin far above both errors) can stop; only those integrate.
        # Rows walk their candidate prefixes in order, all rows one step per round, and
        # leave at their first stop: each round integrates the distinct sorted counts once.
        cand = ((beta >= threshold - 1e-9) & (v1.ravel() > 0)).reshape(n, m)
        nxt = np.full((n + 1, m), n, dtype=np.int64)  # nxt[t, r]: first candidate >= t
        for t in range(n - 1, -1, -1):
            nxt[t] = np.where(cand[t], t, nxt[t + 1])
        stop = np.zeros((n, m), dtype=bool)
        pos = nxt[0].copy()
        live = np.flatnonzero(pos < n)
        while live.size:
            at = pos[live]
            ordered = -np.sort(-prefix[at, live], axis=1)
            width = int((ordered > 0).sum(axis=1).max(initial=1))
            unique, inverse = np.unique(ordered[:, :width], axis=0, return_inverse=True)
            hit = _dirichlet_of_counts(unique.astype(np.int64))[inverse.ravel()] >= threshold
            stop[at[hit], live[hit]] = True
            live = live[~hit]
            pos[live] = nxt[pos[live] + 1, live]
            live = live[pos[live] < n]
    else:
        stop = np.asarray(beta.reshape(n, m) >= threshold)
    stopped: BoolArray = np.asarray(stop.any(axis=0))
    used: IntArray = np.where(stopped, np.argmax(stop, axis=0) + 1, n).astype(np.int64)
    return used, stopped
