r"""scorio.rank 0.2.3's ``thompson``: posterior expected ranks from Beta
draws, the same draws for the same seed.

scorio draws ``rng.beta(alphas, betas)`` (one value per model) ``n_samples``
times in a Python loop and ranks each draw with a double argsort. numpy's
Generator fills a ``(T, L)`` request with the same sequence of draws, row
after row, so the draws here come in blocks of rows from the same generator
(the same numbers, bit for bit), and each model's rank in a draw is its
place in the draw's sort order plus one, which is what the double argsort
computes; the ranks are summed per model with ``bincount``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ._metrics import RankResult, _result
from ._ties import RankMethod
from ._validate import response_tensor

#: Draws per block (rows x models), bounding the memory of a block to ~16 MB.
_BLOCK_DRAWS = 1 << 21


Floats = npt.NDArray[np.float64]


def _rank_sums(rng: np.random.Generator, alphas: Floats, betas: Floats, draws: int) -> Floats:
    """Sum over ``draws`` posterior draws of each model's rank (1 = highest)."""
    L = alphas.size
    sums = np.zeros(L, dtype=np.float64)
    rows_per_block = max(1, _BLOCK_DRAWS // L)
    positions = np.arange(1, L + 1, dtype=np.float64)
    done = 0
    while done < draws:
        rows = min(rows_per_block, draws - done)
        samples = rng.beta(alphas, betas, size=(rows, L))
        # order[t, p] is the model at place p of draw t: its rank is p + 1.
        # Sums of integers below 2**53, so exact in any order.
        order = np.argsort(-samples, axis=1)
        sums += np.bincount(order.ravel(), weights=np.broadcast_to(positions, order.shape).ravel(), minlength=L)
        done += rows
    return sums


def _average_equal_posteriors(scores: Floats, alphas: Floats, betas: Floats) -> Floats:
    """Models with the same posterior get the mean of their scores (scorio's
    ``average_equivalent_scores``: the same means, in the same order)."""
    _, groups = np.unique(np.column_stack((alphas, betas)), axis=0, return_inverse=True)
    groups = groups.reshape(-1)
    result = scores.copy()
    sizes = np.bincount(groups)
    if sizes.max() <= 1:
        return result
    by_group = np.argsort(groups, kind="stable")  # members in index order
    ends = np.cumsum(sizes)
    for group in np.flatnonzero(sizes > 1).tolist():
        members = by_group[ends[group] - sizes[group] : ends[group]]
        result[members] = float(np.mean(scores[members]))
    return result


def thompson(
    R: Any,  # noqa: N803
    n_samples: int = 10000,
    prior_alpha: float = 1.0,
    prior_beta: float = 1.0,
    seed: int = 42,
    method: RankMethod = "competition",
    return_scores: bool = False,
) -> RankResult:
    r"""Rank models by posterior expected rank under independent Beta posteriors.

    Model :math:`l` with :math:`S_l` successes in :math:`MN` outcomes has
    :math:`p_l \mid R \sim \mathrm{Beta}(\alpha + S_l, \beta + MN - S_l)`;
    its score is minus its mean rank over ``n_samples`` joint draws,

    .. math::

        s_l = -\frac{1}{T} \sum_{t=1}^{T} r_l^{(t)},

    with equal scores for models of equal posteriors (exactly
    :math:`-(L+1)/2` when all are equal). Same seed, same ranks and scores
    as scorio.

    Reference: Thompson, W. R. (1933). On the Likelihood that One Unknown
    Probability Exceeds Another in View of the Evidence of Two Samples.
    Biometrika 25(3-4).

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        n_samples: number of posterior draws ``T`` (a positive integer).
        prior_alpha: Beta prior alpha (positive, finite).
        prior_beta: Beta prior beta (positive, finite).
        seed: seed of ``numpy.random.default_rng``.
        method: tie rule (see :func:`kscore.rank.avg`).
        return_scores: also return the scores.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 1]], [[0, 0], [0, 0]]])
        >>> ranks, scores = thompson(R, n_samples=2000, return_scores=True)
        >>> ranks.tolist()
        [1, 2]
    """
    tensor = response_tensor(R)
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)):
        raise TypeError(f"n_samples must be an integer, got {type(n_samples).__name__}")
    draws = int(n_samples)
    if draws < 1:
        raise ValueError(f"n_samples must be >= 1, got {draws}")
    alpha = float(prior_alpha)
    if not np.isfinite(alpha) or alpha <= 0.0:
        raise ValueError("prior_alpha must be > 0 and finite.")
    beta = float(prior_beta)
    if not np.isfinite(beta) or beta <= 0.0:
        raise ValueError("prior_beta must be > 0 and finite.")

    L, M, N = tensor.shape
    rng = np.random.default_rng(seed)
    successes = np.count_nonzero(tensor.reshape(L, -1), axis=1).astype(float)  # binary: exact counts
    total = float(M * N)
    alphas = alpha + successes
    betas = beta + (total - successes)
    if np.allclose(alphas, alphas[0]) and np.allclose(betas, betas[0]):
        # Equal posteriors: equal expected ranks, exactly (no draws), as scorio.
        return _result(np.full(L, -(L + 1) / 2.0, dtype=float), method, return_scores)
    scores = -(_rank_sums(rng, alphas, betas, draws) / draws)
    return _result(_average_equal_posteriors(scores, alphas, betas), method, return_scores)
