r"""The counts every pairwise, voting and graph ranker starts from, from one
pass of the Rust core over the response tensor (``kscore_core::rank::pairs``).

For a binary tensor :math:`R` (models x questions x trials):

- ``totals``: :math:`S_l = \sum_{m,n} R_{lmn}`;
- ``levels``: :math:`k_{lm} = \sum_n R_{lmn}`, the per-question grades of the
  voting rules;
- ``greater``: :math:`G_{ij} = \#\{m : k_{im} > k_{jm}\}`, the question-level
  preferences (scorio's ``_pairwise_preference_counts`` before ties);
- ``wins``: :math:`W_{ij} = \#\{(m, n) : R_{imn} = 1, R_{jmn} = 0\}`, scorio's
  ``build_pairwise_counts`` (its ties are :math:`MN - W_{ij} - W_{ji}`).

scorio builds ``greater`` and ``wins`` with a Python loop over pairs, three
numpy passes a pair; here they come from one kernel call (byte and bit rows
compared 32 and 64 entries at a time), only when a ranker asks for them.

Why ``totals`` alone so often suffice: for binary outcomes the decisive
comparisons of models i and j satisfy :math:`W_{ij} - W_{ji} = S_i - S_j`, so
every tied-split win probability :math:`(W_{ij} + T_{ij}/2)/(MN) = 1/2 +
(S_i - S_j)/(2MN)` depends on the two totals alone (PageRank, spectral,
alpha-rank, Nash, Rank Centrality with split ties, SerialRank, HodgeRank's
binary flow).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _kscore
from .._arrays import FloatArray
from ._validate import _IN_PLACE, response_tensor


@dataclass(frozen=True)
class Board:
    """The counts of one response tensor (see the module's docstring)."""

    models: int
    questions: int
    trials: int
    #: S_l, successes per model (float64, exact integers).
    totals: FloatArray
    #: k_lm, models x questions (uint8, or uint16 past 255 trials), if asked for.
    levels: npt.NDArray[Any] | None
    #: G_ij = #{m : k_im > k_jm} (float64), if asked for.
    greater: FloatArray | None
    #: W_ij = #{(m, n) : R_imn = 1 > R_jmn} (float64), if asked for.
    wins: FloatArray | None

    @property
    def outcomes(self) -> int:
        """M * N, the comparisons of every pair of models."""
        return self.questions * self.trials


def board_matrix(R: Any) -> tuple[npt.NDArray[Any], tuple[int, int, int]]:  # noqa: N803
    """``R`` as the core reads it: the models x (questions * trials) matrix
    (a view where numpy allows) and the shape ``(L, M, N)``. Dtypes the core
    does not read in place, and shapes scorio refuses, go through
    ``response_tensor`` (scorio's exceptions); the entries' values are
    checked by the core's pass (see :func:`read_board`)."""
    array = np.asarray(R)
    if array.ndim == 2:
        array = array[:, :, np.newaxis]
    if array.ndim != 3 or array.dtype not in _IN_PLACE or 0 in array.shape[:2] or array.shape[0] < 2:
        array = response_tensor(R)
    L, M, N = array.shape
    return array.reshape(L, M * N), (L, M, N)


def read_board(
    R: Any,  # noqa: N803
    *,
    levels: bool = False,
    greater: bool = False,
    wins: bool = False,
) -> Board:
    """Validate ``R`` as scorio does (its exceptions and messages) and count it.

    For the dtypes the core reads in place (bool, integers, float32/64) the
    core's pass is also the check that every entry is 0 or 1 (a second numpy
    pass over R cost as much as the counting): where it finds one that is
    not, or the shape is one scorio refuses, ``response_tensor`` runs to raise
    scorio's exception in scorio's order (values before shape).
    """
    matrix, (L, M, N) = board_matrix(R)
    try:
        totals, level_array, greater_array, wins_array = _kscore.rank_board(matrix, N, levels, greater, wins)
    except ValueError:
        response_tensor(R)  # scorio's message for what the core refused
        raise
    return Board(L, M, N, totals, level_array, greater_array, wins_array)


def preference_counts(board: Board, tie_policy: Any) -> FloatArray:
    """scorio's ``_pairwise_preference_counts``: P[i, j] questions preferring
    i to j, ties counted half to each side (``"half"``) or not (``"ignore"``);
    zero diagonal."""
    if tie_policy not in {"ignore", "half"}:
        raise ValueError("tie_policy must be one of {'ignore','half'}")
    greater = board.greater
    assert greater is not None
    if tie_policy == "ignore":
        return greater.copy()
    ties = board.questions - greater - greater.T
    P = greater + 0.5 * ties  # noqa: N806
    np.fill_diagonal(P, 0.0)
    return P


def win_probabilities(board: Board) -> FloatArray:
    r"""scorio's ``_pairwise_win_probabilities`` from the totals alone:
    :math:`\hat P_{ij} = (MN + S_i - S_j) / 2 / (MN)`, 1/2 on the diagonal,
    the same floats (the numerator is exact, one rounding in the division)."""
    T = float(board.outcomes)  # noqa: N806
    S = board.totals  # noqa: N806
    P = (0.5 * (T + (S[:, None] - S[None, :]))) / T  # noqa: N806
    np.fill_diagonal(P, 0.5)
    return P


def centred(board: Board, scale: float) -> FloatArray:
    r""":math:`(S_l - \bar S) / \mathrm{scale}` with one rounding: the exact
    integers :math:`L S_l - \sum S` over :math:`L \cdot \mathrm{scale}`."""
    S = board.totals  # noqa: N806
    L = board.models
    result: FloatArray = (L * S - S.sum()) / (L * scale)
    return result
