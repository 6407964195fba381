r"""scorio.rank 0.2.3's ``kemeny_young``, solved exactly without a MILP.

scorio builds the linear-ordering MILP (a variable per ordered pair, a
triangle constraint per triple) and solves it with HiGHS, then, for the
tie-aware preorder, one more MILP per pair of models: about 7.6 s for 20
models and over a minute for 100 on a 2-core machine.

kscore (``kscore_core::rank::kemeny``) reduces the problem to minimum
feedback arc sets of the majority digraph (arcs weighted by the margins
:math:`P_{ij} - P_{ji}`, which is all the objective depends on, so
``tie_policy`` changes nothing but its validation), splits it into the
digraph's strongly connected components (an optimal order never reverses an
arc between two of them), solves each component by a dynamic programme over
its subsets in integers, and derives the pairs forced in every optimal
order from the components' optimal prefixes. Boards without majority cycles
take microseconds; a cycle through more than 22 models is refused with
``RuntimeError`` (scorio would run its MILP for as long as it takes).

With ``tie_aware=False`` scorio returns the one optimal order HiGHS happens
to find; kscore returns an optimal order too (the same objective), the
smallest model index first wherever optimal orders differ, so the two
agree whenever the optimum is unique.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _kscore
from ._board import preference_counts, read_board
from ._metrics import RankResult, _result
from ._ties import RankMethod


def kemeny_young(
    R: Any,  # noqa: N803
    tie_policy: str = "half",
    method: RankMethod = "competition",
    return_scores: bool = False,
    time_limit: float | None = None,
    tie_aware: bool = True,
) -> RankResult:
    r"""Rank models by Kemeny-Young rank aggregation, exactly.

    Each question is a voter; the Kemeny orders maximise the agreement with
    the question-level preference counts :math:`P`:

    .. math::

        \max_{\text{orders}} \sum_{i \text{ above } j} P_{ij}

    With ``tie_aware=True`` (the default) the scores are the topological
    levels of the pairs ordered the same way in every optimal order (models
    that some optimal orders swap can tie); with ``tie_aware=False``, the
    number of models below each one in one optimal order.

    References: Kemeny, J. G. (1959). Mathematics without Numbers. Daedalus
    88(4). Young, H. P., & Levenglick, A. (1978). A consistent extension of
    Condorcet's election principle. SIAM Journal on Applied Mathematics 35(2).

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        tie_policy: ``"half"`` or ``"ignore"`` (the optimum does not depend on it).
        method: tie rule of the ranks (see :func:`avg`).
        return_scores: also return the scores.
        time_limit: seconds the exact search may take (positive, finite),
            else ``RuntimeError``; None: no limit.
        tie_aware: derive the preorder forced by every optimal order.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Raises:
        RuntimeError: the time limit passed, or a majority cycle joins more
            models than the exact search takes.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 0]], [[1, 0], [0, 0]], [[0, 0], [0, 0]]])
        >>> kemeny_young(R, return_scores=True)[1].tolist()
        [3.0, 2.0, 1.0]
    """
    board = read_board(R, greater=True)
    if time_limit is not None:
        time_limit = float(time_limit)
        if not np.isfinite(time_limit) or time_limit <= 0.0:
            raise ValueError("time_limit must be a positive finite scalar.")
    preference_counts(board, tie_policy)  # scorio's check of tie_policy, in its order
    G = board.greater  # noqa: N806
    assert G is not None
    margin = (G - G.T).astype(np.int64)
    outcome = _kscore.kemeny_search(margin, time_limit)
    if outcome[0] == "time_limit":
        raise RuntimeError("Kemeny-Young search did not prove an optimal solution: time limit reached")
    if outcome[0] == "too_large":
        raise RuntimeError(
            f"Kemeny-Young: {outcome[1]} models form one cycle of majority preferences, more than the "
            f"exact search takes ({outcome[2]}); rank them with another rule"
        )
    _, forced, order = outcome
    if not tie_aware:
        scores = np.empty(board.models, dtype=np.float64)
        scores[order] = np.arange(board.models - 1, -1, -1, dtype=np.float64)
        return _result(scores, method, return_scores)
    scores = _kscore.dominance_levels(forced)
    return _result(scores, method, return_scores)
