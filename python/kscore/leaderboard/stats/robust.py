"""Robustness of a ranking to dropping questions (docs/rankings.md,
*Robustness*): for each adjacent pair of the board, the fewest questions
whose removal puts the lower model strictly ahead, and the questions that
weigh most.

For a pair A (ranked above) and B on the ``n`` questions both answered,
``d_i = x_Ai - x_Bi`` and the order is the sign of ``sum_i d_i``. Dropping
a set S of ``k`` questions leaves ``sum_i d_i - sum_{i in S} d_i`` over
``n - k`` questions; for a given ``k`` that is smallest when S holds the
``k`` largest ``d_i``. So if any ``k`` questions flip the order, the ``k``
largest do, and the fewest questions that flip it is the first ``k`` at
which the sum of all but the ``k`` largest falls below zero: a sort and a
cumulative sum per pair, exact (tests/test_robust.py checks it against
every subset on small boards). The paired mean difference is the
difference of the two estimates where both models have every question; on
ragged boards it is the difference on the common questions (as the paired
comparisons). The question of the robustness of an ordering to dropping a
few questions: arXiv 2508.11847."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..._arrays import FloatArray, IntArray


@dataclass(frozen=True)
class Flips:
    """Per adjacent pair: ``k[p]`` the fewest questions whose removal puts
    the lower model strictly ahead (-1: no removal does, the upper model is
    at least as good on every common question; 0: it is already behind on
    the common questions), ``top[p]`` the indices (columns) of the pair's
    most influential questions (largest ``d_i`` first; -1 past the pair's
    questions) and ``top_d[p]`` their differences."""

    k: IntArray
    top: IntArray
    top_d: FloatArray


def fewest_flips(D: FloatArray, M: npt.NDArray[np.bool_], n_top: int = 3) -> Flips:
    """:class:`Flips` of pairs given as rows: ``D[p, i]`` the difference
    upper minus lower on question ``i``, ``M[p, i]`` whether both have it.

    Examples:
        >>> f = fewest_flips(np.array([[1.0, 0.5, -0.6, -0.2]]), np.ones((1, 4), bool))
        >>> int(f.k[0]), f.top[0].tolist()
        (1, [0, 1, 3])
    """
    P, Q = D.shape
    step = max(1, (1 << 20) // max(Q, 1))  # blocks of about a million cells: memory stays small at 10,000 models
    if P > step:
        parts = [fewest_flips(D[a:a + step], M[a:a + step], n_top) for a in range(0, P, step)]
        return Flips(np.concatenate([f.k for f in parts]), np.concatenate([f.top for f in parts]),
                     np.concatenate([f.top_d for f in parts]))
    keyed = np.where(M, D, -np.inf)  # absent questions sort last and are never removed
    order = np.argsort(-keyed, axis=1, kind="stable")
    srt = np.take_along_axis(keyed, order, axis=1)
    n = M.sum(axis=1)
    vals = np.where(np.isfinite(srt), srt, 0.0)
    total = vals.sum(axis=1)
    scale = np.abs(vals).sum(axis=1)
    # Left after removing the k largest (k = 0..Q-1); a sum within rounding
    # of zero is a tie, not a flip.
    removed = np.concatenate([np.zeros((P, 1)), np.cumsum(vals, axis=1)[:, :-1]], axis=1)
    left = total[:, None] - removed
    tol = 1e-12 * np.maximum(scale, 1e-300)[:, None]
    flips = (left < -tol) & (np.arange(Q)[None, :] < n[:, None])
    k = np.where(flips.any(axis=1), flips.argmax(axis=1), -1).astype(np.int64)
    t = min(n_top, Q)
    top = np.where(np.arange(t)[None, :] < n[:, None], order[:, :t], -1).astype(np.int64)
    top_d = np.where(top >= 0, srt[:, :t], np.nan)
    return Flips(k, top, top_d)
