r"""scorio.rank 0.2.3's ``serial_rank``.

For binary outcomes scorio's comparison matrix is
:math:`C_{ij} = (W_{ij} - W_{ji})/(MN) = a_i - a_j` with :math:`a = S/(MN)`
(``"prob_diff"``), or its sign (``"sign"``). For ``"prob_diff"`` the
similarity :math:`\tfrac12(LJ + CC^\top)` is :math:`\tfrac{L}{2}cc^\top +
\alpha J` (:math:`c` the centred :math:`a`), so its Laplacian has the
eigenvalues 0 (on 1), :math:`L^2/2` (on c) and :math:`L(L + \|c\|^2)/2`
(the rest): the Fiedler vector is exactly :math:`c/\|c\|`, oriented to agree
with C, and scorio's eigengap test becomes :math:`L\|c\|^2/2 > 10^{-10}
\max(1, L(L + \|c\|^2)/2)`. kscore uses that closed form (O(L)); scorio's
``eigh`` of the L x L Laplacian agrees with it to rounding times the
Laplacian's condition (about 1e-15 when the accuracies spread over a few
points). ``"sign"`` and two models (where scorio's LAPACK picks the sign of
a tie) take scorio's eigen-decomposition as is.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._arrays import FloatArray
from ._board import Board, centred, read_board
from ._metrics import RankResult, _result
from ._ties import RankMethod

_PROB_DIFF = {"prob_diff", "fractional"}
_SIGN = {"sign", "majority"}


def _comparisons(board: Board, comparison: str) -> FloatArray:
    """scorio's comparison matrix C from the totals."""
    S = board.totals  # noqa: N806
    diff = S[:, None] - S[None, :]
    if comparison in _PROB_DIFF:
        C = diff / float(board.outcomes)  # noqa: N806
    else:
        C = np.sign(diff)  # noqa: N806
    np.fill_diagonal(C, 0.0)
    return C


def _orientation_key(scores: FloatArray, C: FloatArray) -> tuple[int, float, float]:  # noqa: N803
    """scorio's orientation key: upsets, weighted upsets, minus agreement."""
    n = scores.size
    diff = scores[:, None] - scores[None, :]
    mask = np.triu(np.ones((n, n), dtype=bool), 1)
    c = C[mask]
    pred = np.sign(diff[mask])
    nz = c != 0
    if not np.any(nz):
        return (0, 0.0, 0.0)
    c = c[nz]
    pred = pred[nz]
    disagree = (pred == 0) | ((pred * c) < 0)
    return (int(np.sum(disagree)), float(np.sum(np.abs(c[disagree]))), -float(np.sum(pred * c)))


def _eigen(board: Board, C: FloatArray) -> FloatArray | None:  # noqa: N803
    """scorio's Fiedler step as it computes it: the oriented Fiedler vector,
    or None where scorio falls back to mean accuracy."""
    n = C.shape[0]
    similarity = 0.5 * (n * np.ones((n, n)) + C @ C.T)
    laplacian = np.diag(similarity.sum(axis=1)) - similarity
    w, V = np.linalg.eigh(laplacian)  # noqa: N806
    v = V[:, 1]
    unique = True
    if V.shape[1] > 2:
        scale = max(1.0, float(np.max(np.abs(w))))
        gap = float(w[2] - w[1])
        unique = bool(np.isfinite(gap) and gap > 1e-10 * scale)
    if not unique or not np.all(np.isfinite(v)) or np.allclose(v, v[0]):
        return None
    scores = v if _orientation_key(v, C) <= _orientation_key(-v, C) else -v
    return None if np.std(scores) < 1e-12 else scores


def serial_rank(
    R: Any,  # noqa: N803
    comparison: str = "prob_diff",
    method: RankMethod = "competition",
    return_scores: bool = False,
) -> RankResult:
    r"""Rank models by SerialRank: the Fiedler vector of the similarity
    Laplacian of the pairwise comparison matrix.

    .. math::

        S = \tfrac12 (L\,J + C C^\top), \quad
        \mathcal L = \operatorname{diag}(S 1) - S

    The Fiedler vector (second-smallest eigenvalue), oriented to agree with
    C, gives the scores; where it is not unique, the mean accuracy does.

    Reference: Fogel, F., d'Aspremont, A., & Vojnovic, M. (2016).
    Spectral Ranking using Seriation. Journal of Machine Learning Research 17.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        comparison: ``"prob_diff"`` (alias ``"fractional"``) or ``"sign"``
            (alias ``"majority"``).
        method: tie rule of the ranks (see :func:`avg`).
        return_scores: also return the scores.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 0]], [[1, 0], [0, 0]], [[0, 0], [0, 0]]])
        >>> serial_rank(R).tolist()
        [1, 2, 3]
    """
    board = read_board(R)
    comparison = str(comparison)
    if comparison not in _PROB_DIFF and comparison not in _SIGN:
        raise ValueError('comparison must be "prob_diff" or "sign"')
    L = board.models
    means = board.totals / float(board.outcomes)
    if comparison in _SIGN or L == 2:
        scores = _eigen(board, _comparisons(board, comparison))
        return _result(means if scores is None else scores, method, return_scores)
    c = centred(board, float(board.outcomes))
    norm2 = float(c @ c)
    top = 0.5 * L * (L + norm2)
    if not (0.5 * L * norm2 > 1e-10 * max(1.0, top)):
        return _result(means, method, return_scores)
    return _result(c / np.sqrt(norm2), method, return_scores)
