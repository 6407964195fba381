"""The paired tests of a board's models, a block of pairs at a time
(docs/leaderboard.md, *Rank ranges*): :class:`Pairs` prepares the models'
per-question estimates as :func:`kscore.leaderboard.stats.intervals.paired`
does and yields the upper triangle's differences and standard errors in
blocks of rows (:meth:`Pairs.blocks`), or those of listed pairs
(:meth:`Pairs.listed`), never the L x L matrices."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from ..._arrays import FloatArray, IntArray
from ..runtime.blas import one_thread
from .intervals import centred

#: Entries of one block (rows x columns): 8 MB per float64 temporary.
BLOCK = 1 << 20
#: Up to this many models (on a full grid) :class:`Pairs` keeps the Gram
#: matrix it makes for the sums of squares (8 MB), and the unadjusted and
#: Holm counts read every pair's test from it (stats/folded.py).
GRAM_MODELS = 1024


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
            k = L // step  # (whole blocks)
            with one_thread(float(step) * step * Q):
                if k > 1:
                    # (the whole blocks as one stacked product: numpy's matmul makes each block's product by the
                    # same BLAS call as a block alone, the same bits, without a Python step per block; 100 000
                    # models spent 0.1-0.2 s in 10 000 steps of 10 rows)
                    X3 = X0[:k * step].reshape(k, step, Q)
                    self.s2[:k * step] = np.diagonal(X3 @ X3.transpose(0, 2, 1), axis1=1, axis2=2).ravel()
                    k *= step
                else:
                    k = 0
                for a in range(k, L, step):
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
