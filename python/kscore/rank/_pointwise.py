r"""scorio.rank 0.2.3's ``inverse_difficulty``: per-question accuracy
weighted by the inverse of the question's solve rate over all models.

The per-question successes :math:`k_{lm}` come from one pass of the Rust
core (:mod:`._board`); the weights are scorio's numpy arithmetic on the same
floats (a sum of integers is exact in any order), and the scores its matrix
product but for the summation order and where N divides (after the sum:
an ulp or so from scorio's).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._board import read_board
from ._metrics import RankResult, _result
from ._ties import RankMethod


def inverse_difficulty(
    R: Any,  # noqa: N803
    method: RankMethod = "competition",
    return_scores: bool = False,
    clip_range: tuple[float, float] = (0.01, 0.99),
) -> RankResult:
    r"""Rank models by accuracy weighted towards hard questions.

    With :math:`\hat p_{lm} = k_{lm}/N` and :math:`\bar p_m` the solve rate
    of question m over all models and trials:

    .. math::

        w_m \propto \frac{1}{\operatorname{clip}(\bar p_m, a, b)}, \quad
        \sum_m w_m = 1, \qquad s_l = \sum_{m=1}^{M} w_m\, \hat p_{lm}

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        method: tie rule of the ranks (see :func:`avg`).
        return_scores: also return the scores.
        clip_range: ``(a, b)`` with ``0 < a < b <= 1``.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [0, 0], [0, 0]], [[0, 0], [1, 1], [0, 0]]])
        >>> inverse_difficulty(R).tolist()
        [1, 1]
    """
    board = read_board(R, levels=True)
    if len(clip_range) != 2:
        raise ValueError("clip_range must be a length-2 tuple (low, high).")
    low = float(clip_range[0])
    high = float(clip_range[1])
    if not np.isfinite(low) or not np.isfinite(high):
        raise ValueError("clip_range values must be finite.")
    if not (0.0 < low < high <= 1.0):
        raise ValueError("clip_range must satisfy 0 < low < high <= 1.")
    levels = board.levels
    assert levels is not None
    L, N = board.models, board.trials
    # Integer sums (exact, and 2x faster than summing into floats; 32-bit
    # ones where no column can pass 2^32, twice as fast again).
    wide = np.uint32 if L * N < 2**32 else np.uint64
    solved = levels.sum(axis=0, dtype=wide).astype(np.float64) / (L * N)
    weights = 1.0 / np.clip(solved, low, high)
    total = float(np.sum(weights))
    if not np.isfinite(total) or total <= 0.0:
        raise ValueError("inverse-difficulty weights are not finite; choose a stricter clip_range.")
    weights = weights / total
    # sum_m k_lm w_m / N: the grades enter the product as they are (numpy
    # converts them on the fly; a float copy of k / N first cost 3x more),
    # the division by N after the sum (scorio's divides each k first: the
    # same value where N is a power of two, else within a few ulps).
    scores = (levels @ weights) / N
    return _result(scores, method, return_scores)
