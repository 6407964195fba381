r"""scorio.rank 0.2.3's ``hodge_rank``: the weighted least-squares potential
of the pairwise flows, solved exactly.

scorio takes the Moore-Penrose pseudo-inverse of the L x L graph Laplacian
(an SVD). Here:

- ``"total"`` and ``"uniform"`` weights are constant over the complete
  graph (:math:`w_{ij} = MN` or 1), whose Laplacian :math:`c(LI - J)` has the
  pseudo-inverse :math:`(I - J/L)/(cL)`: the scores are minus the centred
  row sums of the flow over L, in O(L^2) (O(L) for the binary flow, which
  is :math:`(S_j - S_i)/(MN)`: the scores are the centred accuracies);
- ``"decisive"`` weights (the decisive sample comparisons of each pair, from
  the pair counts of :mod:`._board`) connect every pair of models that
  differ somewhere, so the Laplacian's null space is the constant vector
  and the minimum-norm solution solves :math:`(\mathcal L + \bar d J/L)s =
  -\mathrm{div}` (:math:`\bar d` the mean degree), one dense solve instead of
  an SVD.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._arrays import FloatArray
from ._board import Board, read_board
from ._ties import RankMethod, rank_scores

_STATS = {"binary", "log_odds"}
_WEIGHTS = {"total", "decisive", "uniform"}


def _flow(board: Board, stat: str, epsilon: Any) -> FloatArray:
    """scorio's pairwise flow Y (Y[i, j] > 0: j is preferred to i)."""
    T = float(board.outcomes)  # noqa: N806
    if stat == "binary":
        S = board.totals  # noqa: N806
        Y = (S[None, :] - S[:, None]) / T  # noqa: N806
    else:
        epsilon = float(epsilon)
        if (not np.isfinite(epsilon)) or epsilon <= 0:
            raise ValueError("epsilon must be > 0 for log-odds smoothing")
        W = board.wins  # noqa: N806
        assert W is not None
        Y = np.log((T - W + epsilon) / (T - W.T + epsilon))  # noqa: N806
    np.fill_diagonal(Y, 0.0)
    return Y


def hodge_rank(
    R: Any,  # noqa: N803
    pairwise_stat: str = "binary",
    weight_method: str = "total",
    epsilon: float = 0.5,
    method: RankMethod = "competition",
    return_scores: bool = False,
    return_diagnostics: bool = False,
) -> Any:
    r"""Rank models by HodgeRank: the potential s whose gradient
    :math:`s_j - s_i` best fits the pairwise flows :math:`Y_{ij}` in
    weighted least squares (minimum norm).

    .. math::

        \min_s \sum_{i<j} w_{ij} \big(s_j - s_i - Y_{ij}\big)^2

    Flows: ``"binary"`` :math:`Y_{ij} = (W_{ji} - W_{ij})/(MN)`, or
    ``"log_odds"`` :math:`\log\frac{MN - W_{ij} + \epsilon}{MN - W_{ji} +
    \epsilon}`. Weights: ``"total"`` (MN), ``"decisive"``
    (:math:`W_{ij} + W_{ji}`) or ``"uniform"`` (1).

    Reference: Jiang, X., Lim, L.-H., Yao, Y., & Ye, Y. (2011). Statistical
    ranking and combinatorial Hodge theory. Mathematical Programming 127(1).

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        pairwise_stat: ``"binary"`` or ``"log_odds"``.
        weight_method: ``"total"``, ``"decisive"`` or ``"uniform"``.
        epsilon: the log-odds smoothing, > 0.
        method: tie rule of the ranks (see :func:`avg`).
        return_scores: also return the scores.
        return_diagnostics: also return ``{"residual_l2",
            "relative_residual_l2"}`` (with or without the scores, as scorio).

    Returns:
        The ranks, then the scores and/or the diagnostics when asked.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 0]], [[1, 0], [0, 0]], [[0, 0], [0, 0]]])
        >>> ranks, scores = hodge_rank(R, return_scores=True)
        >>> ranks.tolist(), scores.round(4).tolist()
        ([1, 2, 3], [0.4167, -0.0833, -0.3333])
    """
    stat = str(pairwise_stat)
    weights = str(weight_method)
    board = read_board(R, wins=(stat == "log_odds" or weights == "decisive"))
    L = board.models
    if stat not in _STATS:
        raise ValueError('pairwise_stat must be one of: "binary", "log_odds"')
    Y = _flow(board, stat, epsilon)  # noqa: N806
    if weights not in _WEIGHTS:
        raise ValueError('weight_method must be one of: "total", "decisive", "uniform"')
    if weights == "decisive":
        W = board.wins  # noqa: N806
        assert W is not None
        w = W + W.T
        np.fill_diagonal(w, 0.0)
        if not np.any(w > 0):
            return _uniform(L, method, return_scores, return_diagnostics)
        degree = w.sum(axis=1)
        laplacian = np.diag(degree) - w
        divergence = (w * Y).sum(axis=1)
        # div is orthogonal to the constant vector, so adding c J / L (any
        # c > 0) leaves the solution alone; c = the mean degree puts that
        # eigenvalue among the Laplacian's own, keeping the condition number
        # the Laplacian's (c = 1 loses three digits at 20 models).
        shift = float(degree.mean()) / L
        scores = np.linalg.solve(laplacian + shift, -divergence)
    else:
        # w = c on every pair: scores = -(rowsum(Y) - mean) / L.
        if stat == "binary":
            S = board.totals  # noqa: N806
            scores = (L * S - S.sum()) / (L * float(board.outcomes))
        else:
            flow = Y.sum(axis=1)
            scores = -(flow - flow.mean()) / L
        w = np.full((L, L), float(board.outcomes) if weights == "total" else 1.0)
        np.fill_diagonal(w, 0.0)
    ranking = rank_scores(scores, method)
    if not return_diagnostics and not return_scores:
        return ranking
    if not return_diagnostics and return_scores:
        return ranking, scores
    resid = Y - (scores[None, :] - scores[:, None])
    mask = np.triu(np.ones((L, L), dtype=bool), 1) & (w > 0)
    residual = float(np.sqrt(np.sum(w[mask] * resid[mask] ** 2)))
    denom = float(np.sqrt(np.sum(w[mask] * Y[mask] ** 2)))
    relative = residual / denom if denom > 0 else 0.0
    return ranking, scores, {"residual_l2": residual, "relative_residual_l2": relative}


def _uniform(L: int, method: str, return_scores: bool, return_diagnostics: bool) -> Any:  # noqa: N803
    """scorio's answer when no pair has a positive weight."""
    scores = np.ones(L, dtype=float) / L
    ranking = rank_scores(scores, method)
    if not return_scores:
        return ranking
    if not return_diagnostics:
        return ranking, scores
    return ranking, scores, {"residual_l2": 0.0, "relative_residual_l2": 0.0}
