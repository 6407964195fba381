r"""scorio.rank 0.2.3's ``rank_centrality``, at the exact stationary point.

scorio runs a power iteration on the random walk until two iterates are
within ``tol`` in L1. kscore solves for the stationary distribution:

- ties split (``"half"``, the default): every pair is compared
  :math:`MN + 2\,\mathrm{smoothing}` times and the walk moves from i to j
  with probability :math:`(1/2 + h_j - h_i)/(L-1)`, :math:`h_l = (S_l -
  \bar S)/(2(MN + 2\,\mathrm{smoothing}))`; the balance equations then give
  :math:`\pi_j = a_j - \gamma b_j` with one scalar :math:`\gamma = h \cdot
  \pi`, solved in O(L);
- ties ignored: the walk follows the decisive sample-level wins (the
  pair counts of :mod:`._board`), and its stationary distribution comes from
  GTH elimination in the core (``kscore_core::rank::markov``), exact to
  rounding however slowly the walk mixes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _kscore
from .._arrays import FloatArray
from ._board import Board, centred, read_board
from ._metrics import RankResult, _result
from ._ties import RankMethod


def _strongly_connected(adj: np.ndarray[Any, Any]) -> bool:
    """Every model reaches every other along ``adj`` and back."""
    n = adj.shape[0]

    def reaches_all(graph: np.ndarray[Any, Any]) -> bool:
        seen = np.zeros(n, dtype=bool)
        seen[0] = True
        frontier = seen.copy()
        while frontier.any():
            frontier = graph[frontier].any(axis=0) & ~seen
            seen |= frontier
        return bool(seen.all())

    return n == 0 or (reaches_all(adj) and reaches_all(adj.T))


def _split_ties(board: Board, smoothing: float, teleport: float) -> FloatArray:
    """The stationary distribution when ties are split (see the module)."""
    L = board.models
    h = centred(board, 2.0 * (board.outcomes + 2.0 * smoothing))
    keep = 1.0 - teleport
    # pi_j (1 - keep * [(L/2 - 1) + L h_j] / (L - 1)) = keep (1/2 + h_j - gamma) / (L - 1) + teleport / L
    diag = 1.0 - keep * (0.5 * (L - 2) + L * h) / (L - 1)
    a = (keep * (0.5 + h) / (L - 1) + teleport / L) / diag
    b = keep / ((L - 1) * diag)
    gamma = float(h @ a) / (1.0 + float(h @ b))
    pi: FloatArray = a - gamma * b
    return pi / float(pi.sum())


def rank_centrality(
    R: Any,  # noqa: N803
    method: RankMethod = "competition",
    return_scores: bool = False,
    tie_handling: str = "half",
    smoothing: float = 0.0,
    teleport: float = 0.0,
    max_iter: int = 10_000,
    tol: float = 1e-12,
) -> RankResult:
    r"""Rank models by Rank Centrality: the stationary distribution of a
    random walk that moves from i to j in proportion to how often j beats i.

    With :math:`w_{ij}` the wins of i over j (ties counted half or not) plus
    ``smoothing``, :math:`d_{\max}` the most opponents any model has, the walk
    moves :math:`P_{ij} = \frac{1}{d_{\max}} \frac{w_{ji}}{w_{ij} + w_{ji}}`
    (mixed with a uniform jump of probability ``teleport``); the scores are
    its stationary distribution, solved exactly. ``max_iter`` and ``tol``
    are checked as in scorio and otherwise unused.

    Reference: Negahban, S., Oh, S., & Shah, D. (2017). Rank Centrality:
    Ranking from Pairwise Comparisons. Operations Research 65(1).

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        method: tie rule of the ranks (see :func:`avg`).
        return_scores: also return the scores.
        tie_handling: ``"half"`` or ``"ignore"``.
        smoothing: pseudo-count added to every win count, >= 0.
        teleport: uniform jump probability in [0, 1).
        max_iter: scorio's iteration cap (checked: an int >= 1).
        tol: scorio's stopping tolerance (checked: positive, finite).

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Raises:
        ValueError: with ties ignored and no smoothing or teleport, if the
            walk is not strongly connected (scorio's check).

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 0]], [[1, 0], [0, 0]], [[0, 0], [0, 0]]])
        >>> rank_centrality(R).tolist()
        [1, 2, 3]
    """
    tie_handling = str(tie_handling)
    board = read_board(R, wins=tie_handling == "ignore")
    L = board.models
    if tie_handling not in {"ignore", "half"}:
        raise ValueError('tie_handling must be "ignore" or "half"')
    smoothing = float(smoothing)
    if not np.isfinite(smoothing) or smoothing < 0:
        raise ValueError("smoothing must be >= 0")
    teleport = float(teleport)
    if not np.isfinite(teleport) or not (0.0 <= teleport < 1.0):
        raise ValueError("teleport must be in [0, 1)")
    if not isinstance(max_iter, (int, np.integer)):
        raise TypeError(f"max_iter must be an integer, got {type(max_iter).__name__}")
    if int(max_iter) < 1:
        raise ValueError(f"max_iter must be >= 1, got {int(max_iter)}")
    tol = float(tol)
    if not np.isfinite(tol) or tol <= 0.0:
        raise ValueError(f"tol must be a positive finite scalar, got {tol}")
    if tie_handling == "half":
        # Every pair compared MN + 2 smoothing > 0 times: all L - 1 opponents.
        if board.outcomes + 2.0 * smoothing > 0:
            return _result(_split_ties(board, smoothing, teleport), method, return_scores)
    wins = board.wins if tie_handling == "ignore" else None
    assert wins is not None
    smoothed = wins + smoothing
    denom = smoothed + smoothed.T
    adj = (denom > 0) & ~np.eye(L, dtype=bool)
    degree = adj.sum(axis=1)
    d_max = int(degree.max()) if degree.size else 0
    moves = np.zeros((L, L))
    moves[adj] = smoothed.T[adj] / denom[adj]
    if teleport == 0.0 and smoothing == 0.0 and not _strongly_connected(moves > 0.0):
        raise ValueError(
            "Rank Centrality requires strongly connected positive transition "
            "support when tie_handling='ignore'; use teleport>0, smoothing>0, "
            "or tie_handling='half'."
        )
    if d_max == 0:
        return _result(np.full(L, 1.0 / L), method, return_scores)
    P = moves / float(d_max)  # noqa: N806
    P[np.arange(L), np.arange(L)] = 1.0 - P.sum(axis=1)
    if teleport > 0.0:
        P = (1.0 - teleport) * P + teleport / L  # noqa: N806
    return _result(_kscore.markov_stationary(P), method, return_scores)
