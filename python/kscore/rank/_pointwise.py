r"""scorio.rank 0.2.3's ``inverse_difficulty``: per-question accuracy
weighted by the inverse of the question's solve rate over all models.

One call of the Rust core (``kscore_core::rank::pairs::inverse_difficulty``):
one pass over R on the pool gives the per-question successes
:math:`k_{lm}`, then the weights are scorio's arithmetic on the same floats
(a sum of integers is exact in any order; the weights' total summed in
order, not numpy's pairwise) and the scores its matrix product but for the
summation order and where N divides (after the sum: an ulp or so from
scorio's).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _kscore
from ._board import board_matrix, read_board
from ._metrics import RankResult, _result
from ._ties import RankMethod
from ._validate import response_tensor


def _clip_range(clip_range: Any) -> tuple[float, float]:
    """scorio's checks of ``clip_range``, in its order and words."""
    if len(clip_range) != 2:
        raise ValueError("clip_range must be a length-2 tuple (low, high).")
    low = float(clip_range[0])
    high = float(clip_range[1])
    if not np.isfinite(low) or not np.isfinite(high):
        raise ValueError("clip_range values must be finite.")
    if not (0.0 < low < high <= 1.0):
        raise ValueError("clip_range must satisfy 0 < low < high <= 1.")
    return low, high


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
    matrix, (_, _, N) = board_matrix(R)
    try:
        low, high = _clip_range(clip_range)
    except Exception:
        read_board(R)  # scorio checks R first: its exception if R is invalid too
        raise
    try:
        # One pass of the core over R on the pool (entries narrowed to
        # bytes and summed per question), the weights and scores from the
        # levels (1/8 to 1/64 of R) in the same call.
        scores = _kscore.inverse_difficulty_scores(matrix, N, low, high)
    except ValueError:
        response_tensor(R)  # scorio's message for what the core refused
        raise
    return _result(scores, method, return_scores)
