"""The unadjusted and Holm counts of a full grid without clusters, from
one dot product per pair instead of every pair's statistics
(docs/leaderboard.md, *Rank ranges*): :func:`folded` and
:func:`holm_folded`, for :func:`kscore.leaderboard.stats.ranges.rank_sets`.
The products are taken and counted by a compiled kernel
(``kscore._kscore.folded_count32/64``, rust/kscore-core/src/rank/folded.rs:
bands of rows on the core's threads, no matrix of the pairs in memory)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from ... import _kscore
from ..._arrays import FloatArray, IntArray
from .pair_tests import holm_level, u_of, u_threshold, unadjusted
from .pairs import Pairs, t_stat

#: Past this many models, on at most SINGLE_QUESTIONS questions, the folded
#: count's products are float32 (their margin grows with the questions:
#: beyond, so many pairs fall in it that float64 is faster).
SINGLE = 2000
SINGLE_QUESTIONS = 32


def folded(pairs: Pairs, better: IntArray, worse: IntArray, u_star: float, alpha: float) -> None:
    """The unadjusted counts on a full grid without clusters from one dot
    product per pair. ``|t| >= T`` is ``F_ij = c sd^2 - T^2 (s2_i + s2_j -
    2 G_ij) >= 0`` (``sd = s_i - s_j``, ``c = (n - 1 + T^2) / n``; from
    ``t^2 = sd^2 (n - 1) / (n ss)``, ``ss = s2_i + s2_j - 2 G_ij - sd^2 /
    n``), and ``F = A B^T`` with ``A_i = [x0_i, s_i, a_i, 1]``, ``B_j =
    [2 T^2 x0_j, -2 c s_j, 1, a_j]``, ``a_i = c s_i^2 - T^2 s2_i``: the
    test is the sign of a product, no pass per term. The models are taken
    in decreasing order of ``s``, so that in a row the columns after it are
    the models it may beat. ``F`` is decided where it is clear of 0 by far
    more than rounding can move it or the matrices' statistics differ from
    it (1e-9 of the terms' size); a row with a pair closer than that is
    decided by the exact statistics (:meth:`Pairs.block`)."""
    T = u_star * math.sqrt(2.0)
    T2 = T * T
    n = float(pairs.Q)
    c = (n - 1.0 + T2) / n
    s, s2 = pairs.s, pairs.s2
    perm = np.argsort(-s, kind="stable")
    a = c * s * s - T2 * s2
    L = pairs.L
    if pairs.gram is not None:
        _folded_gram(pairs, pairs.gram, perm, a, c, T2, better, worse, u_star, alpha)
        return
    ones = np.ones((pairs.L, 1))
    # Past SINGLE models (few questions), the products in float32 (twice the speed; no board there is compared
    # with the matrices): the margin grows to cover float32's rounding, and the pairs within it
    # are decided in float64 (Pairs.listed) instead of by the exact block.
    single = L > SINGLE and n <= SINGLE_QUESTIONS
    dtype = np.float32 if single else np.float64
    A: npt.NDArray[Any] = np.ascontiguousarray(np.hstack([pairs.X0, s[:, None], a[:, None], ones])[perm], dtype)
    B: npt.NDArray[Any] = np.ascontiguousarray(
        np.hstack([2.0 * T2 * pairs.X0, -2.0 * c * s[:, None], ones, a[:, None]])[perm], dtype)
    size = c * 4.0 * float(np.max(np.abs(s))) ** 2 + 4.0 * T2 * float(s2.max()) + 1e-300
    # (the margin is many times the rounding of a dot product of these terms, in any order: the kernel's
    # sums need not be BLAS's)
    delta = (8.0 * (n + 4.0) * float(np.finfo(np.float32).eps) if single else 1e-9) * size
    reach = _reach(s[perm], s2[perm], n, T2, 4.0 * delta)
    # Every pair i < j (sorted) before row i's reach as the sign of A_i . B_j, in the compiled kernel
    # (rust/kscore-core/src/rank/folded.rs: bands of rows on the core's threads, no tile of F in memory);
    # the columns from the reach on, beaten by the bound, counted there too.
    count = _kscore.folded_count32 if single else _kscore.folded_count64
    w, bt, near = count(A, B, reach, float(delta))
    worse[perm] += w
    better[perm] += bt
    if len(near) and not single:  # (rare: a pair at the threshold, or identical models)
        _exact_pairs(pairs, perm[near], better, worse, u_star, alpha)
    elif len(near):
        _listed_pairs(pairs, perm[near], better, worse, u_star, alpha)


def _margin(s: FloatArray, s2: FloatArray, c: float, T2: float) -> float:
    """:func:`folded`'s margin of ``F`` in float64: 1e-9 of its terms' size."""
    size = c * 4.0 * float(np.max(np.abs(s))) ** 2 + 4.0 * T2 * float(s2.max()) + 1e-300
    return 1e-9 * size


def _folded_gram(pairs: Pairs, G: FloatArray, perm: IntArray, a: FloatArray, c: float, T2: float,
                 better: IntArray, worse: IntArray, u_star: float, alpha: float) -> None:
    """:func:`folded` where the Gram matrix ``G`` of all pairs is at hand
    (few models: :class:`Pairs` made it for the sums of squares): ``F_ij =
    2 T^2 G_ij - 2 c s_i s_j + a_i + a_j`` from it, the same quantity as the
    tiles' product (its rounding differs by far less than the margin), so
    the same pairs are decided by sign and the same rule decides the rest
    (:meth:`Pairs.block`): no pass over the questions."""
    s = pairs.s[perm]
    ap = a[perm]
    delta = _margin(pairs.s, pairs.s2, c, T2)
    F = G[np.ix_(perm, perm)]
    F *= 2.0 * T2
    F -= np.multiply.outer(2.0 * c * s, s)
    F += ap[:, None]
    F += ap[None, :]
    F[np.tril_indices(len(perm))] = -np.inf  # (each pair once: column after row, as sorted by decreasing s)
    sure = F > delta
    worse[perm] += np.count_nonzero(sure, axis=1)
    better[perm] += np.count_nonzero(sure, axis=0)
    rr, cc = np.nonzero((F >= -delta) & ~sure)
    if len(rr):  # (rare: a pair at the threshold, or identical models)
        _exact_pairs(pairs, np.stack([perm[rr], perm[cc]], axis=1), better, worse, u_star, alpha)


def _reach(s: FloatArray, s2: FloatArray, n: float, T2: float, margin: float) -> IntArray:
    """Per model (sorted by decreasing ``s``), the first column from which
    every later model is beaten without a product: ``F_ij = (n - 1) / n
    sd^2 - T^2 ss_ij`` and ``ss_ij <= (r_i + r_j)^2`` (Minkowski: ``r`` the
    norm of a model's centred estimates), so ``(n - 1) / n sd^2 - T^2 (r_i
    + r_max)^2 > margin`` (with ``r_max`` the largest ``r`` of the later
    models) puts ``F`` past the folded count's margin wherever the product
    would (its rounding is within that margin): the same decision, a
    comparison instead of a product. Few pairs where most differ little
    (100 000 models on 20 questions), a third on 10 000 x 100."""
    L = len(s)
    r = np.sqrt(np.maximum(s2 - s * s / n, 0.0)) * (1.0 + 1e-12)
    r_after = np.maximum.accumulate(r[::-1])[::-1]  # (the largest r from each position on)
    k = (n - 1.0) / n
    # For row i: columns j with s_j <= s_i - g_i are candidates, g_i = sqrt((T^2 (r_i + r_max)^2 + margin) / k),
    # r_max over the columns from the first candidate on (at most r_after of row i's next column).
    g = np.sqrt((T2 * (r + np.append(r_after[1:], 0.0)) ** 2 + margin) / k) * (1.0 + 1e-12) + 1e-300
    # s is decreasing: the first column with s_j < s_i - g_i (strictly, and beyond the row).
    first: IntArray = np.maximum(np.searchsorted(-s, -(s - g), side="right"), np.arange(1, L + 1)).astype(np.int64)
    return first


def _listed_pairs(pairs: Pairs, ij: IntArray, better: IntArray, worse: IntArray, u_star: float,
                  alpha: float) -> None:
    """:func:`_exact_pairs` with each pair's statistics summed on its own
    (:meth:`Pairs.listed`), vectorised: for many pairs of a large board."""
    for k in range(0, len(ij), 1 << 16):
        i, j = ij[k:k + (1 << 16), 0], ij[k:k + (1 << 16), 1]
        d, se, _ = pairs.listed(i, j)
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.where(se > 0, d / se, np.where(d == 0, 0.0, np.sign(d) * np.inf))
        t[np.isnan(se)] = np.nan
        sig = unadjusted(u_of(t), u_star, alpha)
        up, dn = sig & (d > 0), sig & (d < 0)
        np.add.at(worse, i[up], 1)
        np.add.at(better, j[up], 1)
        np.add.at(better, i[dn], 1)
        np.add.at(worse, j[dn], 1)


def _exact_pairs(pairs: Pairs, ij: IntArray, better: IntArray, worse: IntArray, u_star: float,
                 alpha: float) -> None:
    """Adds the listed pairs (board indices), decided by the exact
    statistics: the row of the earlier model of each, as the blocks make it."""
    lo, hi = np.minimum(ij[:, 0], ij[:, 1]), np.maximum(ij[:, 0], ij[:, 1])
    for i in np.unique(lo).tolist():
        cols = hi[lo == i]
        d, se, _ = pairs.block(i, i + 1)  # row i against columns i..L
        t = t_stat(d, se, 0)[0, cols - i]
        sig = unadjusted(u_of(t), u_star, alpha)
        dd = d[0, cols - i]
        up, dn = cols[sig & (dd > 0)], cols[sig & (dd < 0)]
        worse[i] += len(up)
        better[up] += 1
        better[i] += len(dn)
        worse[dn] += 1


def holm_folded(pairs: Pairs, better: IntArray, worse: IntArray, alpha: float) -> float | None:
    """Holm's counts on a full grid without clusters from folded counts
    (:func:`folded`) alone, no p-value kept. With ``R`` pairs rejected, the
    step-down rejects at least every pair with ``(m - R) p < alpha``: the
    pairs between position ``R`` and that count have ``(m - l) p <= (m - R)
    p < alpha``. So ``R <- #{(m - R) p < alpha}`` from ``R = 0`` climbs to
    Holm's rejections, where the next ordered p-value fails its test: a few
    passes (3 or 4 on a board of 10 000 models where most pairs differ).
    Returns a ``p_crit`` (significant where ``p <= p_crit``), None: no pair."""
    L = pairs.L
    m = L * (L - 1) // 2  # (every pair is tested on a full grid of two questions or more)
    R = 0
    while True:
        level = holm_level(alpha, m - R)
        b = np.zeros(L, np.int64)
        w = np.zeros(L, np.int64)
        folded(pairs, b, w, u_threshold(level), level)
        now = int(w.sum())  # (each rejected pair adds 1 to the worse model's count)
        if now <= R or now == m:
            better += b
            worse += w
            return float(np.nextafter(level, 0.0)) if now else None
        R = now
