"""The unadjusted and Holm counts of a full grid without clusters, from
one matrix product per tile instead of every pair's statistics
(docs/leaderboard.md, *Rank ranges*): :func:`folded` and
:func:`holm_folded`, for :func:`kscore.leaderboard.stats.ranges.rank_sets`.
On a lattice board (:func:`lattice`: every estimate a count over the same
samples, as pass@1 of a board where every model has N samples) the count
runs in the core on integer dot products (rust/kscore-core/src/rank/lattice.rs)
where the CPU has AVX-512 VNNI, each pair decided by two integer comparisons
against per-difference thresholds: the same decisions."""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
import numpy.typing as npt

from ... import _kscore
from ..._arrays import FloatArray, IntArray
from ..runtime.blas import one_thread
from .pair_tests import holm_level, u_of, u_threshold, unadjusted
from .pairs import Pairs, t_stat

#: Tiles of the folded count: rows x columns (1 or 2 MB: in cache).
TILE_ROWS, TILE_COLS = 256, 1024
#: Past this many models, on at most SINGLE_QUESTIONS questions, the folded
#: count's products are float32 (their margin grows with the questions:
#: beyond, so many pairs fall in it that float64 is faster).
SINGLE = 2000
SINGLE_QUESTIONS = 32
#: Threads of the folded count (bands of rows; the sums are the same whatever the order).
THREADS = min(4, os.cpu_count() or 1)
#: From this many models on, a lattice board's count runs in the core (below, the Gram matrix is at hand).
LATTICE_MODELS = 1025
#: Whether the core's lattice count is faster here than numpy's tiles (it has AVX-512 VNNI's byte dot products).
USE_LATTICE = _kscore.lattice_tier() != "portable"

#: A lattice board: the counts (models x questions, uint8) and their denominator N.
Lattice = tuple[npt.NDArray[np.uint8], int]


def lattice(X: FloatArray) -> Lattice | None:
    """``X`` (before centring) as counts over one denominator ``N <= 127``
    (``X == C / N`` to the bit, ``0 <= C <= 127``), or None. ``N`` is the
    smallest that fits the first rows, then checked on all of ``X``; None
    too where the core's 32-bit lanes cannot hold the board's dot products
    (``2 max(C)^2 Q >= 2^31``: past 66 572 questions at ``N = 127``)."""
    if X.size == 0:
        return None
    head = X[:64].ravel()
    for N in range(1, 128):
        with np.errstate(invalid="ignore"):
            if np.array_equal(np.rint(head * N) / N, head):
                break
    else:
        return None
    with np.errstate(invalid="ignore"):
        C = np.rint(X * N)
        if not (np.array_equal(C / N, X) and C.min() >= 0 and C.max() <= 127):
            return None
    if 2 * int(C.max()) ** 2 * X.shape[1] >= 1 << 31:
        return None
    return C.astype(np.uint8), N


def folded(pairs: Pairs, better: IntArray, worse: IntArray, u_star: float, alpha: float,
           lat: Lattice | None = None) -> None:
    """The unadjusted counts on a full grid without clusters from one matrix
    product per tile. ``|t| >= T`` is ``F_ij = c sd^2 - T^2 (s2_i + s2_j -
    2 G_ij) >= 0`` (``sd = s_i - s_j``, ``c = (n - 1 + T^2) / n``; from
    ``t^2 = sd^2 (n - 1) / (n ss)``, ``ss = s2_i + s2_j - 2 G_ij - sd^2 /
    n``), and ``F = A B^T`` with ``A_i = [x0_i, s_i, a_i, 1]``, ``B_j =
    [2 T^2 x0_j, -2 c s_j, 1, a_j]``, ``a_i = c s_i^2 - T^2 s2_i``: the
    test is the sign of a product, no pass per term. The models are taken
    in decreasing order of ``s``, so that in a row the columns after it are
    the models it may beat. ``F`` is decided where it is clear of 0 by far
    more than rounding can move it or the matrices' statistics differ from
    it (1e-9 of the terms' size); a row with a pair closer than that is
    decided by the exact statistics (:meth:`Pairs.block`). ``lat``: the
    board's counts (:func:`lattice`), counted in the core past
    :data:`LATTICE_MODELS` models (:func:`_folded_lattice`)."""
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
    if lat is not None and L >= LATTICE_MODELS:
        _folded_lattice(pairs, lat, perm, c, T2, better, worse, u_star, alpha)
        return
    ones = np.ones((pairs.L, 1))
    # Past SINGLE models (few questions), the products in float32 (twice the speed; no board there is compared
    # with the matrices): the margin grows to cover float32's rounding, and the pairs within it
    # are decided in float64 (Pairs.listed) instead of by the exact block.
    single = L > SINGLE and n <= SINGLE_QUESTIONS
    dtype = np.float32 if single else np.float64
    A: npt.NDArray[Any] = np.hstack([pairs.X0, s[:, None], a[:, None], ones])[perm].astype(dtype)
    B: npt.NDArray[Any] = np.hstack([2.0 * T2 * pairs.X0, -2.0 * c * s[:, None], ones, a[:, None]])[perm].astype(dtype)
    size = c * 4.0 * float(np.max(np.abs(s))) ** 2 + 4.0 * T2 * float(s2.max()) + 1e-300
    delta = (8.0 * (n + 4.0) * float(np.finfo(np.float32).eps) if single else 1e-9) * size
    reach = _reach(s[perm], s2[perm], n, T2, 4.0 * delta)
    def rows(r0: int) -> tuple[IntArray, IntArray, list[IntArray]]:
        """One band of rows against the columns after it: the band's
        ``worse`` counts, the columns' ``better`` counts (from r0 on), and
        the pairs within the margin."""
        r1 = min(r0 + TILE_ROWS, L)
        # Columns from ``end`` on are beaten by every row of the band by the bound (_reach): counted, not computed.
        end = max(r1, int(reach[r0:r1].max()))
        w = np.full(r1 - r0, L - end, np.int64)
        bt = np.zeros(L - r0, np.int64)
        bt[end - r0:] = r1 - r0
        near: list[IntArray] = []
        for c0 in range(r0, end, TILE_COLS):
            c1 = min(c0 + TILE_COLS, end)
            F = A[r0:r1] @ B[c0:c1].T
            if c0 == r0:  # (each pair once: column after row)
                F[np.arange(c1 - c0)[None, :] <= np.arange(r1 - r0)[:, None]] = -np.inf
            sure = F > delta
            s8 = sure.view(np.int8)
            w += np.add.reduce(s8, axis=1, dtype=np.int32)
            bt[c0 - r0:c1 - r0] += np.add.reduce(s8, axis=0, dtype=np.int32)
            maybe = F >= -delta
            if np.count_nonzero(maybe) != np.count_nonzero(sure):
                rr, cc = np.nonzero(maybe & ~sure)
                near.append(np.stack([perm[r0 + rr], perm[c0 + cc]], axis=1))
        return w, bt, near

    unsure: list[IntArray] = []  # (board index, board index) of the pairs left to the exact statistics

    def add(r0: int, done: tuple[IntArray, IntArray, list[IntArray]]) -> None:
        w, bt, near = done
        worse[perm[r0:r0 + len(w)]] += w
        better[perm[r0:]] += bt
        unsure.extend(near)

    bands = range(0, L, TILE_ROWS)
    with one_thread(float(TILE_ROWS) * TILE_COLS * (n + 3.0)):
        # Bands on a few threads (numpy and BLAS release the GIL), handed out one at a time so
        # that a thread slowed by another process's work delays no other; added up in order.
        workers = min(THREADS, len(bands))
        if workers > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(workers) as pool:
                for r0, done in zip(bands, pool.map(rows, bands)):
                    add(r0, done)
        else:
            for r0 in bands:
                add(r0, rows(r0))
    if unsure and not single:  # (rare: a pair at the threshold, or identical models)
        _exact_pairs(pairs, np.concatenate(unsure), better, worse, u_star, alpha)
    elif unsure:
        _listed_pairs(pairs, np.concatenate(unsure), better, worse, u_star, alpha)


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


def _folded_lattice(pairs: Pairs, lat: Lattice, perm: IntArray, c: float, T2: float, better: IntArray,
                    worse: IntArray, u_star: float, alpha: float) -> None:
    """:func:`folded` on a lattice board, in the core: with ``D``, ``P``,
    ``G`` a pair's difference of count sums, the models' sums of squared
    counts and their counts' dot product, ``N^2 F = c D^2 - T^2 (P_i + P_j -
    2 G_ij)``: integers but for ``c`` and ``T^2``. The core decides each pair
    by its sign where it is clear of 0 by the float64 tiles' margin
    (:func:`_margin`, times ``N^2``) and lists the rest, decided here by the
    exact statistics as the tiles' near pairs are (:func:`_listed_pairs`
    where the tiles are float32, else :func:`_exact_pairs`): the same
    decisions. Pairs past each row's reach (:func:`_reach`, at that margin)
    are beaten without a product."""
    C, N = lat
    n = float(pairs.Q)
    delta = _margin(pairs.s, pairs.s2, c, T2)
    reach = _reach(pairs.s[perm], pairs.s2[perm], n, T2, 4.0 * delta)
    w, b, near = _kscore.lattice_count(np.ascontiguousarray(C[perm]), reach, c, T2, delta * N * N)
    worse[perm] += w
    better[perm] += b
    if len(near):
        ij = perm[near]
        single = pairs.L > SINGLE and n <= SINGLE_QUESTIONS
        (_listed_pairs if single else _exact_pairs)(pairs, ij, better, worse, u_star, alpha)


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


def holm_folded(pairs: Pairs, better: IntArray, worse: IntArray, alpha: float,
                lat: Lattice | None = None) -> float | None:
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
        folded(pairs, b, w, u_threshold(level), level, lat)
        now = int(w.sum())  # (each rejected pair adds 1 to the worse model's count)
        if now <= R or now == m:
            better += b
            worse += w
            return float(np.nextafter(level, 0.0)) if now else None
        R = now
