"""Rank ranges of a rated board: LMArena's rule, and kscore's simultaneous
rank sets (the leaderboard's, :func:`kscore.leaderboard.api.rank_sets`)
from the ratings' covariance."""

from __future__ import annotations

import numpy as np

from .._arrays import FloatArray, IntArray
from ..leaderboard.api import RankSets, rank_sets


def lmarena_rank(lo: FloatArray, hi: FloatArray) -> IntArray:
    """LMArena's rank (FastChat's elo_analysis.py): 1 plus the models whose
    lower bound is above this one's upper bound.

    >>> lmarena_rank(np.array([10.0, 8, 1]), np.array([12.0, 11, 7])).tolist()
    [1, 1, 3]
    """
    return np.asarray(1 + (lo[None, :] > hi[:, None]).sum(axis=1), np.int64)


def simultaneous_sets(rating: FloatArray, cov: FloatArray, models: list[str], confidence: float) -> RankSets:
    """Every model's rank range, all holding together at ``confidence``
    (the step-down max-t over every pairwise difference; Holm's ranges
    where it cannot run), for ratings with covariance ``cov``.

    The leaderboard's procedure works on per-question estimates ``X``
    (models x questions); here ``X`` is built so that its paired tests are
    exactly the ratings' z-tests: ``X = rating 1^T + sqrt(Q (Q - 1)) C U^T``
    with ``C C^T = cov`` and ``U`` (``Q = L + 1`` rows) orthonormal columns
    orthogonal to ``1``. Each row's mean is the rating, and the paired
    variance ``sum_q (d_q - mean d)^2 / (Q (Q - 1))`` of models ``i, j`` is
    ``|C_i - C_j|^2 = cov_ii + cov_jj - 2 cov_ij``; its multiplier draws
    have that covariance too.

    >>> sets = simultaneous_sets(np.array([3.0, 2.0, 0.0]), np.eye(3) * 0.01, ["a", "b", "c"], 0.95)
    >>> sets.lo.tolist(), sets.hi.tolist()
    ([1, 2, 3], [1, 2, 3])
    """
    L = len(rating)
    if L < 2:
        return rank_sets(np.zeros((L, 2)), np.ones((L, 2), bool), None, models, confidence, "none")
    w, v = np.linalg.eigh((cov + cov.T) / 2)
    C = v * np.sqrt(np.clip(w, 0.0, None))
    Q = L + 1
    basis = np.eye(Q)[:, :L] - 1.0 / Q
    U, _ = np.linalg.qr(basis)
    X = rating[:, None] + np.sqrt(Q * (Q - 1.0)) * (C @ U.T)
    return rank_sets(X, np.ones(X.shape, bool), None, models, confidence, "simultaneous", overwrite=True)
