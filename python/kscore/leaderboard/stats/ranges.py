"""Rank ranges from paired tests without the L x L matrices
(docs/leaderboard.md, *Rank ranges*).

A model's rank range is ``1 + (models significantly better)`` to ``L -
(models significantly worse)``: it needs, per model, two counts over the
``L (L - 1) / 2`` paired tests, not the tests themselves. The pairs are
visited a block of rows at a time (rows ``a..b`` against columns ``a..L``:
the upper triangle), each block's differences, standard errors and t
statistics computed from the same products and in the same order of
operations as the all-pairs matrices of :func:`kscore.leaderboard.stats.intervals.paired`
(so that every decision is the same: tests/test_rank_ranges.py compares
them with that code, kept in tests/rank_oracle.py), counted and dropped.
Memory: a few blocks of ``rows x L`` (8 MB each), whatever ``L``.

Decisions, for ``alpha = 1 - confidence``:

- ``none``: ``erfc(|t| / sqrt 2) < alpha``. erfc is decreasing, so this is
  ``u = |t| / sqrt 2 >= u*`` for the smallest double ``u*`` with
  ``erfc(u*) < alpha`` (found once by bisection); values within 1e-9 of
  ``u*`` are decided by ``math.erfc`` itself, as the matrices did.
- ``holm``: Holm's adjusted p-value ``< alpha``. The adjusted values are the
  running maximum of ``(m - l) p_(l)`` in increasing order of ``p``, so the
  rejected pairs are those before the first ``l`` with ``(m - l) p_(l) >=
  alpha``; tied p-values share an adjusted value, so that set is ``p <=
  p_crit``. Only pairs with ``p < alpha`` can be rejected: their ``u`` are
  kept (one float each), sorted, and scanned; ``math.erfc`` is called only
  where the bound ``erfc(x) <= 2/sqrt(pi) exp(-x^2) / (x + sqrt(x^2 + 4/pi))``
  (Abramowitz and Stegun 7.1.13) cannot already tell that a position passes.
- ``simultaneous``: the step-down max-t procedure (Romano and Wolf 2005)
  over every pairwise difference: the critical value of a step is the
  ``1 - alpha`` quantile of ``max |T*_ij|`` over the pairs not yet rejected,
  ``T*_ij = (Z*_i - Z*_j) / se_ij`` with ``Z* = scale * E g``, ``E`` the
  per-question estimates centred on each model's mean and ``g`` standard
  normal multipliers per question (per cluster with ``--cluster``; fixed
  seed). ``scale`` makes ``Var(T*_ij) = 1`` exactly (``sqrt(n/(n-1))/n``,
  or ``sqrt(G/(G-1))/n`` with ``G`` clusters): ``T*`` is the Gaussian
  max-t over the joint covariance of all the differences, so the ranges of
  all models hold together at ``confidence`` (Mogstad, Romano, Shaikh and
  Wilhelm, "Inference for Ranks", Review of Economic Studies). Each step's
  critical value is at most Bonferroni's for the pairs left (which bounds
  the max-t quantile), and Holm's rejections are added: never wider than
  Holm's ranges. Made in a few sweeps of the blocks by
  :mod:`kscore.leaderboard.stats.simultaneous`, also with missing questions
  (each pair on the questions both have); where that module refuses a
  board (:func:`kscore.leaderboard.stats.simultaneous.refusal`: its size,
  or missing questions with clusters), Holm's ranges (same guarantee,
  possibly wider), said in a note.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..._arrays import FloatArray, IntArray
from ..runtime.blas import one_thread
from .intervals import centred

#: Entries of one block (rows x columns): 8 MB per float64 temporary.
BLOCK = 1 << 20
#: Up to this many models (on a full grid) :class:`Pairs` keeps the Gram
#: matrix it makes for the sums of squares (8 MB), and the unadjusted and
#: Holm counts read every pair's test from it (:func:`_folded_gram`).
GRAM_MODELS = 1024


@dataclass
class RankSets:
    """Each model's rank range (``lo``, ``hi``: board order) and how pairs
    were decided: ``adjust`` (``none``, ``holm``, ``simultaneous``; the
    one used, which is ``holm`` where simultaneous sets could not be made,
    ``note`` says why), ``u_star`` (unadjusted: significant when ``|t| /
    sqrt 2 >= u_star``), ``p_crit`` (Holm: significant when ``p <=
    p_crit``, None: no pair), ``t_crit`` (simultaneous: ``|t| > t_crit``,
    or Holm's rule). ``could_be_best``: the models whose range starts at 1
    (none significantly better: under ``simultaneous``, a confidence set for
    the best model)."""

    models: list[str]
    lo: IntArray
    hi: IntArray
    adjust: str
    confidence: float
    u_star: float
    p_crit: float | None = None
    t_crit: float | None = None
    note: str = ""
    could_be_best: list[str] = field(default_factory=list)

    def significant(self, t: FloatArray, p: FloatArray) -> npt.NDArray[np.bool_]:
        """Where a pair (its t statistic ``t``, row minus column, and
        two-sided ``p``) is significant in the row's favour, by this board's
        rule (the pairs of any sub-matrix are decided as on the board)."""
        with np.errstate(invalid="ignore"):
            if self.adjust == "none":
                out: npt.NDArray[np.bool_] = p < 1.0 - self.confidence
            else:
                out = p <= self.p_crit if self.p_crit is not None else np.zeros(np.shape(p), bool)
                out &= p < 1.0 - self.confidence
                if self.t_crit is not None:
                    out |= np.abs(t) > self.t_crit
            return out & (t > 0)


    def cuts(self) -> tuple[float, float | None]:
        """The rule as thresholds of ``|t|``: significant where ``|t| /
        sqrt 2 >= u_cut`` or ``|t| > t_crit`` (for a script that has no
        exact erfc: the HTML page's comparison of any model)."""
        if self.adjust == "none":
            return self.u_star, None
        u_cut = math.inf if self.p_crit is None else max(
            self.u_star, u_threshold(float(np.nextafter(self.p_crit, math.inf))))  # (p <= p_crit and p < alpha)
        return u_cut, self.t_crit


def u_threshold(alpha: float) -> float:
    """The smallest double ``u`` with ``math.erfc(u) < alpha`` (bisection on
    the doubles' bit patterns: positive doubles sort as integers)."""
    lo, hi = 0, int(np.float64(40.0).view(np.int64))
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if math.erfc(float(np.int64(mid).view(np.float64))) < alpha:
            hi = mid
        else:
            lo = mid
    return float(np.int64(hi).view(np.float64))


class Pairs:
    """The per-model data of the paired tests of ``X`` (models x questions,
    ``W`` the questions each has, ``cluster`` per question or None), as
    :func:`kscore.leaderboard.stats.intervals.paired` prepares it; :meth:`blocks`
    yields the upper triangle's differences and standard errors."""

    def __init__(self, X: FloatArray, W: npt.NDArray[np.bool_], cluster: IntArray | None,
                 overwrite: bool = False, sums: bool = True) -> None:
        L, Q = X.shape
        self.L, self.Q = L, Q
        # (paired()'s centring, the same X0; ``overwrite``: X is the caller's to spare, centred in place, no
        # second array as large; ``sums``: False where only listed() is wanted, which needs neither the sums
        # nor the Gram matrix)
        X0, Wf, full = centred(X, W, overwrite)
        self.full = full
        self.X0, self.Wf, self.cluster = X0, Wf, cluster
        #: The Gram matrix ``X0 X0^T`` where one block made all of it (few models), else None.
        self.gram: FloatArray | None = None
        if full and sums:
            self.s = X0.sum(axis=1)
            self.s2 = np.empty(L)
            step = max(1, BLOCK // max(L, 1))
            with one_thread(float(step) * step * Q):
                for a in range(0, L, step):
                    b = min(a + step, L)
                    G = X0[a:b] @ X0[a:b].T
                    self.s2[a:b] = np.diagonal(G)  # (the Gram matrix's diagonal, as its products)
                    if b - a == L and L <= GRAM_MODELS:
                        self.gram = G
        else:
            self.XX = X0 * X0
        self.parts: list[IntArray] = []
        if cluster is not None:
            order = np.argsort(cluster, kind="stable")
            cs = cluster[order]
            self.parts = np.split(order, np.flatnonzero(cs[1:] != cs[:-1]) + 1)
            if full:
                self.part_sums = [X0[:, part].sum(axis=1) for part in self.parts]

    def rows_per_block(self) -> int:
        """Rows of a block: :data:`BLOCK` entries."""
        return max(1, BLOCK // max(int(self.L), 1))

    def block(self, a: int, b: int) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Rows ``a..b`` against columns ``a..L``: ``diff``, ``se`` and the
        number of common questions ``n`` (entries left of the diagonal are
        computed too; callers mask them)."""
        X0, Wf = self.X0, self.Wf
        Q = self.Q
        with np.errstate(invalid="ignore", divide="ignore"):
            if self.full:
                n: FloatArray = np.full((b - a, self.L - a), float(Q))
                sd = self.s[a:b, None] - self.s[None, a:]
            else:
                n = Wf[a:b] @ Wf[a:].T
                sd = X0[a:b] @ Wf[a:].T - Wf[a:b] @ X0[a:].T
            diff = sd / n
            if self.cluster is None:
                G = X0[a:b] @ X0[a:].T
                if self.full:
                    sd2 = self.s2[a:b, None] + self.s2[None, a:] - 2.0 * G
                else:
                    sd2 = self.XX[a:b] @ Wf[a:].T + Wf[a:b] @ self.XX[a:].T - 2.0 * G
                ss = np.maximum(sd2 - sd * diff, 0.0)
                var = np.where(n > 1, ss / (n * (n - 1.0)), np.nan)
            else:
                ss = np.zeros_like(diff)
                g = np.zeros_like(diff)
                for k, part in enumerate(self.parts):
                    if self.full:
                        c = self.part_sums[k]
                        Nc: FloatArray = np.full_like(diff, float(len(part)))
                        Sc = (c[a:b, None] - c[None, a:]) - diff * Nc
                    else:
                        Wc, Xc = Wf[:, part], X0[:, part]
                        Nc = Wc[a:b] @ Wc[a:].T
                        Sc = Xc[a:b] @ Wc[a:].T - Wc[a:b] @ Xc[a:].T - diff * Nc
                    ss += Sc * Sc
                    g += Nc > 0
                var = np.where(g > 1, g / (g - 1.0) * ss / (n * n), np.nan)
            se = np.sqrt(var)
        return diff, se, n

    def listed(self, i: IntArray, j: IntArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``diff``, ``se`` and ``n`` of the listed pairs ``i[k]`` minus
        ``j[k]`` only (the same statistics, summed per pair; a few pairs at a
        time, each pair's sums the same whatever the others)."""
        step = max(1, LISTED // max(self.Q, 1))
        if len(i) > step:
            parts = [self.listed(i[a:a + step], j[a:a + step]) for a in range(0, len(i), step)]
            d, s, n = (np.concatenate([p[k] for p in parts]) for k in range(3))
            return d, s, n
        X0 = self.X0
        w = None if self.full else self.Wf[i] * self.Wf[j]
        n = np.full(len(i), float(self.Q)) if w is None else w.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            D = X0[i] - X0[j]
            if w is not None:
                D *= w
            diff = D.sum(axis=1) / n
            E = D - diff[:, None]
            if w is not None:
                E *= w
            if self.cluster is None:
                var = np.where(n > 1, (E * E).sum(axis=1) / (n * (n - 1.0)), np.nan)
            else:
                S = np.stack([E[:, part].sum(axis=1) for part in self.parts], axis=1)
                g = (np.full(len(i), float(len(self.parts))) if w is None else
                     np.stack([w[:, part].any(axis=1) for part in self.parts], axis=1).sum(axis=1).astype(float))
                var = np.where(g > 1, g / (g - 1.0) * (S * S).sum(axis=1) / (n * n), np.nan)
        return diff, np.sqrt(var), n

    def blocks(self) -> Iterator[tuple[int, int, FloatArray, FloatArray, FloatArray]]:
        """``(a, b, diff, se, t)`` per block of rows, ``t`` NaN left of and on
        the diagonal (each pair once, ``i < j``) and where untestable."""
        step = self.rows_per_block()
        with one_thread(float(self.L) * step * max(self.Q, 1)):
            for a in range(0, self.L, step):
                b = min(a + step, self.L)
                diff, se, _ = self.block(a, b)
                yield a, b, diff, se, t_stat(diff, se, a)


def t_stat(diff: FloatArray, se: FloatArray, a: int) -> FloatArray:
    """paired()'s t statistic (``±inf`` where ``se`` is 0 and the
    difference not, NaN where ``se`` is), NaN for pairs ``j <= i``."""
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(se > 0, diff / se, np.where(diff == 0, 0.0, np.sign(diff) * np.inf))
    t[np.isnan(se)] = np.nan
    rows, cols = t.shape
    t[np.arange(cols)[None, :] <= np.arange(rows)[:, None]] = np.nan  # (column a + j vs row a + i: j <= i)
    return t


#: Entries of the differences :meth:`Pairs.listed` holds at a time (8 MB per float64 temporary).
LISTED = 1 << 20
#: Tiles of the folded count: rows x columns (1 or 2 MB: in cache).
TILE_ROWS, TILE_COLS = 256, 1024
#: Holm's ranges keep one float per pair significant at alpha: past this
#: many (0.5 GB), a clear error instead of running out of memory.
HOLM_MAX_KEPT = 60_000_000
#: Past this many models, on at most SINGLE_QUESTIONS questions, the folded
#: count's products are float32 (their margin grows with the questions:
#: beyond, so many pairs fall in it that float64 is faster).
SINGLE = 2000
SINGLE_QUESTIONS = 32
#: Threads of the folded count (bands of rows; the sums are the same whatever the order).
THREADS = min(4, os.cpu_count() or 1)


def _folded(pairs: Pairs, better: IntArray, worse: IntArray, u_star: float, alpha: float) -> None:
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
    """:func:`_folded`'s margin of ``F`` in float64: 1e-9 of its terms' size."""
    size = c * 4.0 * float(np.max(np.abs(s))) ** 2 + 4.0 * T2 * float(s2.max()) + 1e-300
    return 1e-9 * size


def _folded_gram(pairs: Pairs, G: FloatArray, perm: IntArray, a: FloatArray, c: float, T2: float,
                 better: IntArray, worse: IntArray, u_star: float, alpha: float) -> None:
    """:func:`_folded` where the Gram matrix ``G`` of all pairs is at hand
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
        sig = _unadjusted(_u(t), u_star, alpha)
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
        sig = _unadjusted(_u(t), u_star, alpha)
        dd = d[0, cols - i]
        up, dn = cols[sig & (dd > 0)], cols[sig & (dd < 0)]
        worse[i] += len(up)
        better[up] += 1
        better[i] += len(dn)
        worse[dn] += 1


def _u(t: FloatArray) -> FloatArray:
    return np.abs(t) / math.sqrt(2.0)  # (p_two_sided's argument of erfc, to the bit)


def _count(better: IntArray, worse: IntArray, a: int, b: int, sig: npt.NDArray[np.bool_],
           diff: FloatArray) -> None:
    """Adds a block's significant pairs (``sig``: rows a..b vs columns a..L)
    to the counts of models significantly better / worse than each."""
    up = sig & (diff > 0)  # row better than column
    dn = sig & (diff < 0)
    worse[a:b] += up.sum(axis=1)
    better[a:] += up.sum(axis=0)
    better[a:b] += dn.sum(axis=1)
    worse[a:] += dn.sum(axis=0)


def _unadjusted(u: FloatArray, u_star: float, alpha: float) -> npt.NDArray[np.bool_]:
    """``erfc(u) < alpha`` for every ``u`` (NaN: False), ``math.erfc`` itself
    near the threshold."""
    with np.errstate(invalid="ignore"):
        sig = u >= u_star
        near = np.flatnonzero(np.abs(u - u_star) <= 1e-9 * u_star)
    for k in near.tolist():
        sig.flat[k] = math.erfc(float(u.flat[k])) < alpha
    return sig


def erfc_upper(x: FloatArray) -> FloatArray:
    """An upper bound of ``erfc(x)`` for ``x >= 0`` (A&S 7.1.13, with a
    margin for rounding)."""
    with np.errstate(under="ignore", over="ignore"):
        return (2.0 / math.sqrt(math.pi)) * np.exp(-x * x) / (x + np.sqrt(x * x + 4.0 / math.pi)) * (1.0 + 1e-9)


def erfc_lower(x: FloatArray) -> FloatArray:
    """A lower bound of ``erfc(x)`` for ``x >= 0`` (A&S 7.1.13)."""
    with np.errstate(under="ignore", over="ignore"):
        return (2.0 / math.sqrt(math.pi)) * np.exp(-x * x) / (x + np.sqrt(x * x + 2.0)) * (1.0 - 1e-9)


def holm_crit(u_sorted: FloatArray, m: int, alpha: float) -> float | None:
    """Holm's largest rejected p-value (None: none rejected) from the ``u``
    of the pairs with ``p < alpha``, sorted decreasing, ``m`` the family's
    size: the first position ``l`` with ``(m - l) p_(l) >= alpha`` ends the
    rejections (``holm()`` in stats/intervals.py computes the same products)."""
    stop = len(u_sorted)
    for a in range(0, len(u_sorted), 1 << 20):  # (a chunk at a time: no array as long as the pairs)
        u = u_sorted[a:a + (1 << 20)]
        factor = (m - np.arange(a, a + len(u))).astype(np.float64)
        for k in np.flatnonzero(erfc_upper(u) * factor >= alpha).tolist():
            if math.erfc(float(u[k])) * factor[k] >= alpha:
                stop = a + k
                break
        if stop < len(u_sorted):
            break
    return None if stop == 0 else math.erfc(float(u_sorted[stop - 1]))


def rank_sets(X: FloatArray, W: npt.NDArray[np.bool_], cluster: IntArray | None, models: list[str],
              confidence: float, adjust: str = "none", overwrite: bool = False) -> RankSets:
    """Every model's rank range from the paired tests of the rows of ``X``
    (board order; ``W``: the questions each has; ``cluster``: per question),
    ``adjust`` ``"none"``, ``"holm"`` or ``"simultaneous"``, without
    matrices of all pairs (module docstring). ``overwrite``: ``X`` may be
    centred in place (the caller's own, not used after).

    >>> X = np.array([[1.0, 1, 1, 1, 0, 1], [0, 1, 0, 0, 1, 0], [0, 0, 1, 0, 0, 0]])
    >>> r = rank_sets(X, np.ones_like(X, bool), None, ["a", "b", "c"], 0.95)
    >>> r.lo.tolist(), r.hi.tolist(), r.could_be_best
    ([1, 1, 2], [2, 3, 3], ['a', 'b'])
    """
    L = len(models)
    alpha = 1.0 - confidence
    u_star = u_threshold(alpha)
    better = np.zeros(L, np.int64)
    worse = np.zeros(L, np.int64)
    pairs = Pairs(X, W, cluster, overwrite)
    note = ""
    used = adjust
    if adjust == "simultaneous":
        from .simultaneous import refusal

        why = refusal(pairs)
        if why:
            used = "holm"
            note = f"simultaneous rank sets need {why}: Holm's ranges shown (the same guarantee, possibly wider)"
    p_crit: float | None = None
    t_crit: float | None = None
    if used == "none" and pairs.full and cluster is None and pairs.Q > 1:
        _folded(pairs, better, worse, u_star, alpha)
    elif used == "holm" and pairs.full and cluster is None and pairs.Q > 1:
        p_crit = _holm_folded(pairs, better, worse, alpha)
    elif used == "simultaneous":
        from .simultaneous import count_ranks, simultaneous

        sets = simultaneous(pairs, alpha, u_star)
        p_crit = count_ranks(pairs, sets, u_star, alpha, better, worse)
        t_crit = sets.t_crit
    elif used == "none":
        for a, b, diff, _, t in pairs.blocks():
            _count(better, worse, a, b, _unadjusted(_u(t), u_star, alpha), diff)
    else:
        m = 0
        kept: list[FloatArray] = []
        count = 0
        for _, _, _, _, t in pairs.blocks():
            u = _u(t)
            m += int(np.count_nonzero(~np.isnan(u)))
            kept.append(u[_unadjusted(u, u_star, alpha)])
            count += len(kept[-1])
            if count > HOLM_MAX_KEPT:
                from .._issues import LeaderboardError

                raise LeaderboardError(
                    f"--adjust {adjust} on {L:,} models keeps the t statistic of every pair significant at "
                    f"{alpha:g} (over {HOLM_MAX_KEPT:,}, {8 * HOLM_MAX_KEPT / 1e9:.1f} GB): use --adjust none, "
                    "or rank fewer models (a subset, or --top after a first run)")
        u_sig = np.concatenate(kept) if kept else np.zeros(0)
        del kept
        u_sig.sort()  # (in place, then read backwards: no copy of what can be 8 bytes per pair)
        u_sig = u_sig[::-1]
        p_crit = holm_crit(u_sig, m, alpha)
        rule = RankSets(models, better, worse, used, confidence, u_star, p_crit, t_crit)
        for a, b, diff, _, t in pairs.blocks():
            with np.errstate(invalid="ignore"):
                p = _holm_p(_u(t), p_crit)
            _count(better, worse, a, b, rule.significant(np.abs(t), p) & ~np.isnan(t), diff)
    lo = better + 1
    hi = L - worse
    best = [mdl for mdl, x in zip(models, lo.tolist()) if x == 1]
    return RankSets(models, lo, hi, used, confidence, u_star, p_crit, t_crit, note, best)


def holm_level(alpha: float, k: int) -> float:
    """The smallest double ``a`` with ``k * a >= alpha`` in floating point:
    ``k * p < alpha`` (Holm's product, as ``holm()`` in stats/intervals.py rounds
    it) is ``p < a``, the product being nondecreasing in ``p``."""
    lo, hi = 0, int(np.float64(alpha).view(np.int64))  # (k >= 1: alpha itself passes)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if float(np.int64(mid).view(np.float64)) * k >= alpha:
            hi = mid
        else:
            lo = mid
    return float(np.int64(hi).view(np.float64))


def _holm_folded(pairs: Pairs, better: IntArray, worse: IntArray, alpha: float) -> float | None:
    """Holm's counts on a full grid without clusters from folded counts
    (:func:`_folded`) alone, no p-value kept. With ``R`` pairs rejected, the
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
        _folded(pairs, b, w, u_threshold(level), level)
        now = int(w.sum())  # (each rejected pair adds 1 to the worse model's count)
        if now <= R or now == m:
            better += b
            worse += w
            return float(np.nextafter(level, 0.0)) if now else None
        R = now


def _holm_p(u: FloatArray, p_crit: float | None) -> FloatArray:
    """p-values where they can be Holm-rejected (``erfc(u) <= p_crit``),
    +inf elsewhere: erfc is called only near or below the threshold."""
    out = np.full(u.shape, np.inf)
    if p_crit is None:
        return out
    x = np.nan_to_num(u, nan=0.0)
    with np.errstate(invalid="ignore"):
        cand = np.flatnonzero((erfc_lower(x) <= p_crit) & ~np.isnan(u))
        sure = (erfc_upper(x) < p_crit) & ~np.isnan(u)
    out[sure] = 0.0
    for k in np.setdiff1d(cand, np.flatnonzero(sure)).tolist():
        out.flat[k] = math.erfc(float(u.flat[k]))
    return out
