r"""scorio.rank 0.2.3's voting rules: ``borda``, ``copeland``, ``win_rate``,
``minimax``, ``schulze``, ``ranked_pairs``, ``nanson``, ``baldwin`` and
``majority_judgment`` (``kemeny_young``: :mod:`._kemeny`).

Each question is a voter grading model :math:`l` by :math:`k_{lm} = \sum_n
R_{lmn}`. Every rule but majority judgment depends on the grades only
through the question-level preferences :math:`G_{ij} = \#\{m : k_{im} >
k_{jm}\}` (with :math:`E_{ij} = M - G_{ij} - G_{ji}` ties), which the Rust
core counts for all pairs at once (:mod:`._board`); scorio computes them, or
per-question ranks, in Python loops. The scores are the same floats: sums of
integers and halves, exact in any order.

- Borda: model l's points on question m are :math:`L - r_{lm}` with
  average ranks, i.e. the models it beats plus half those it ties, so
  :math:`s_l = \sum_{j \ne l} (G_{lj} + E_{lj}/2)`.
- Nanson and Baldwin recompute Borda among the models still in; with
  scipy's other tie rules the points are :math:`G + E` (``"min"``),
  :math:`G` (``"max"``), :math:`G + E` over later models only
  (``"ordinal"``: ties broken by position); ``"dense"`` counts distinct
  grades above, from the grades themselves. Each round subtracts the
  eliminated models' columns instead of re-ranking every question.
- Majority judgment: the iterative lower-median comparison removes, from
  both models, the same position of their sorted grades at every step (the
  positions depend only on M), so comparing two models is comparing their
  sorted grades read in that fixed order lexicographically; one sort per
  model replaces scorio's comparison sort with a histogram walk per pair.
- Schulze's strongest paths and ranked pairs' locking run in the core
  (``kscore_core::rank::voting``), the lock's cycle test on a bitset closure
  instead of a depth-first search per victory.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _kscore
from .._arrays import FloatArray
from ._board import Board, preference_counts, read_board
from ._metrics import RankResult, _result
from ._ties import RankMethod

#: scipy.stats.rankdata's tie rules (nanson and baldwin's ``rank_ties``).
_RANK_TIES = ("average", "min", "max", "dense", "ordinal")


def borda(R: Any, method: RankMethod = "competition", return_scores: bool = False) -> RankResult:  # noqa: N803
    r"""Rank models by their Borda count over questions.

    Each question ranks the models by :math:`k_{lm}` (average ranks for
    ties) and gives model l :math:`L - r_{lm}` points:

    .. math::

        s_l = \sum_{m=1}^{M} (L - r_{lm})
            = \sum_{j \ne l} \Big(G_{lj} + \tfrac12 E_{lj}\Big)

    Reference: de Borda, J.-C. (1781). Mémoire sur les élections au scrutin.
    Histoire de l'Académie Royale des Sciences.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        method: tie rule of the ranks (see :func:`avg`).
        return_scores: also return the scores.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1, 1], [1, 0, 0]], [[1, 1, 0], [0, 1, 0]], [[0, 0, 0], [1, 1, 1]]])
        >>> ranks, scores = borda(R, return_scores=True)
        >>> ranks.tolist(), scores.tolist()
        ([1, 3, 2], [2.5, 1.5, 2.0])
    """
    board = read_board(R, greater=True)
    G = board.greater  # noqa: N806
    assert G is not None
    L, M = board.models, board.questions
    # sum_j (G_lj + (M - G_lj - G_jl) / 2) over j != l, exact in halves.
    scores = 0.5 * (G.sum(axis=1) - G.sum(axis=0)) + 0.5 * M * (L - 1)
    return _result(scores, method, return_scores)


def copeland(R: Any, method: RankMethod = "competition", return_scores: bool = False) -> RankResult:  # noqa: N803
    r"""Rank models by Copeland's rule: +1 for every model beaten on more
    questions than it loses, -1 for the reverse.

    .. math::

        s_i = \sum_{j \ne i} \operatorname{sign}(G_{ij} - G_{ji})

    Reference: Copeland, A. H. (1951). A Reasonable Social Welfare Function.
    Seminar on Applications of Mathematics to the Social Sciences,
    University of Michigan.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        method: tie rule of the ranks (see :func:`avg`).
        return_scores: also return the scores.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [0, 0], [1, 0]], [[1, 0], [1, 1], [0, 0]], [[0, 0], [1, 0], [1, 1]]])
        >>> copeland(R, return_scores=True)[1].tolist()
        [0.0, 0.0, 0.0]
    """
    board = read_board(R, greater=True)
    G = board.greater  # noqa: N806
    assert G is not None
    scores = np.sign(G - G.T).sum(axis=1)
    return _result(scores, method, return_scores)


def win_rate(R: Any, method: RankMethod = "competition", return_scores: bool = False) -> RankResult:  # noqa: N803
    r"""Rank models by the share of their decisive question-level
    comparisons that they win (0.5 for a model with none).

    .. math::

        s_i = \frac{\sum_{j \ne i} G_{ij}}{\sum_{j \ne i} (G_{ij} + G_{ji})}

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        method: tie rule of the ranks (see :func:`avg`).
        return_scores: also return the scores.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 1]], [[0, 0], [0, 0]]])
        >>> win_rate(R, return_scores=True)[1].tolist()
        [1.0, 0.0]
    """
    board = read_board(R, greater=True)
    G = board.greater  # noqa: N806
    assert G is not None
    won = G.sum(axis=1)
    played = G.sum(axis=1) + G.sum(axis=0)
    scores = np.full(board.models, 0.5)
    some = played > 0
    scores[some] = won[some] / played[some]
    return _result(scores, method, return_scores)


def minimax(
    R: Any,  # noqa: N803
    variant: str = "margin",
    tie_policy: str = "half",
    method: RankMethod = "competition",
    return_scores: bool = False,
) -> RankResult:
    r"""Rank models by their worst pairwise defeat (Simpson-Kramer minimax).

    With :math:`P` the question-level preference counts (ties split half
    and half, or ignored) and :math:`\Delta = P - P^\top`:

    .. math::

        s_i = -\max_{j \ne i} \max(0, \Delta_{ji})
        \quad\text{or, for ``"winning_votes"``,}\quad
        s_i = -\max_{j : \Delta_{ji} > 0} P_{ji}

    (``-0.0`` for an undefeated model, as in scorio.)

    Reference: Brandt, F., Conitzer, V., Endriss, U., Lang, J., & Procaccia,
    A. D. (2016). Handbook of Computational Social Choice. Cambridge
    University Press.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        variant: ``"margin"`` or ``"winning_votes"``.
        tie_policy: ``"half"`` or ``"ignore"``.
        method: tie rule of the ranks (see :func:`avg`).
        return_scores: also return the scores.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 1], [1, 1]], [[1, 0], [1, 0], [1, 0]], [[0, 0], [0, 0], [0, 0]]])
        >>> ranks, scores = minimax(R, return_scores=True)
        >>> ranks.tolist(), scores.tolist()
        ([1, 2, 2], [-0.0, -3.0, -3.0])
    """
    board = read_board(R, greater=True)
    P = preference_counts(board, tie_policy)  # noqa: N806
    margin = P - P.T
    variant = str(variant)
    if variant not in {"margin", "winning_votes"}:
        raise ValueError("variant must be one of {'margin','winning_votes'}")
    strength = margin if variant == "margin" else P
    # Column i holds the defeats of model i (margin[j, i] > 0).
    defeats = np.where(margin > 0, strength, -np.inf)
    worst = defeats.max(axis=0)
    scores = -np.where(np.isneginf(worst), 0.0, worst)
    return _result(scores, method, return_scores)


def schulze(
    R: Any,  # noqa: N803
    tie_policy: str = "half",
    method: RankMethod = "competition",
    return_scores: bool = False,
) -> RankResult:
    r"""Rank models by the Schulze beatpath method.

    Strongest paths :math:`p_{ij}` (the best bottleneck strength of a path of
    pairwise victories from i to j, a victory weighing :math:`P_{ij}`); model
    i is above j when :math:`p_{ij} > p_{ji}`, and the scores are the
    topological levels of that relation (L for the top level, L - 1 next).

    Reference: Schulze, M. (2011). A new monotonic, clone-independent,
    reversal symmetric, and Condorcet-consistent single-winner election
    method. Social Choice and Welfare 36(2).

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        tie_policy: ``"half"`` or ``"ignore"``.
        method: tie rule of the ranks (see :func:`avg`).
        return_scores: also return the scores.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 0]], [[1, 0], [0, 0]], [[0, 0], [0, 0]]])
        >>> schulze(R).tolist()
        [1, 2, 3]
    """
    board = read_board(R, greater=True)
    P = preference_counts(board, tie_policy)  # noqa: N806
    paths = _kscore.schulze_paths(P)
    scores = _kscore.dominance_levels(paths > paths.T)
    return _result(scores, method, return_scores)


def ranked_pairs(
    R: Any,  # noqa: N803
    strength: str = "margin",
    tie_policy: str = "half",
    method: RankMethod = "competition",
    return_scores: bool = False,
) -> RankResult:
    r"""Rank models by Tideman's ranked pairs.

    Pairwise victories are locked strongest first (by margin, or winning
    votes; then winning votes, then the winner's and the loser's index, as in
    scorio), skipping any that would close a cycle; the scores are the
    topological levels of the locked graph.

    Reference: Tideman, T. N. (1987). Independence of clones as a criterion
    for voting rules. Social Choice and Welfare 4(3).

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        strength: ``"margin"`` or ``"winning_votes"``.
        tie_policy: ``"half"`` or ``"ignore"``.
        method: tie rule of the ranks (see :func:`avg`).
        return_scores: also return the scores.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 0]], [[1, 0], [0, 0]], [[0, 0], [0, 0]]])
        >>> ranked_pairs(R).tolist()
        [1, 2, 3]
    """
    board = read_board(R, greater=True)
    P = preference_counts(board, tie_policy)  # noqa: N806
    strength = str(strength)
    if strength not in {"margin", "winning_votes"}:
        raise ValueError("strength must be one of {'margin','winning_votes'}")
    locked = _kscore.ranked_pairs_lock(P, strength == "winning_votes")
    scores = _kscore.dominance_levels(locked)
    return _result(scores, method, return_scores)


def _points(board: Board, rank_ties: str) -> FloatArray | None:
    """Borda points of model l against model j (the matrix C with
    s_l = sum over active j != l of C[l, j]) under scipy's tie rule; None
    for ``"dense"``, which is not a sum over pairs."""
    G = board.greater  # noqa: N806
    assert G is not None
    ties = board.questions - G - G.T
    if rank_ties == "average":
        C = G + 0.5 * ties  # noqa: N806
    elif rank_ties == "min":
        C = G + ties  # noqa: N806
    elif rank_ties == "max":
        C = G.copy()  # noqa: N806
    elif rank_ties == "ordinal":
        C = G + np.triu(ties, 1)  # noqa: N806
    else:
        return None
    np.fill_diagonal(C, 0.0)
    return C


def _dense_points(levels: npt.NDArray[Any], active: npt.NDArray[np.intp], top: int) -> FloatArray:
    """Borda points among the active models with dense ranks: on each
    question, |A| - (1 + the number of distinct grades above one's own)."""
    k = levels[active].astype(np.intp)
    questions = np.arange(k.shape[1])
    present = np.zeros((top + 1, k.shape[1]), dtype=np.int64)
    present[k, questions[None, :]] = 1
    # above[v, m]: distinct grades > v among the active models of question m.
    above = np.cumsum(present[::-1], axis=0)[::-1] - present
    ranks = 1 + np.take_along_axis(above, k, axis=0)
    points: FloatArray = (active.size - ranks).sum(axis=1).astype(np.float64)
    return points


def _eliminate(R: Any, rank_ties: str, method: str, return_scores: bool, rule: str) -> RankResult:  # noqa: N803
    """Nanson's (eliminate at or below the mean) and Baldwin's (eliminate
    the minimum) Borda eliminations: survival rounds as scores."""
    board = read_board(R, levels=rank_ties == "dense", greater=True)
    if rank_ties not in _RANK_TIES:
        raise ValueError(f'unknown method "{rank_ties}"')
    L = board.models
    C = _points(board, rank_ties)  # noqa: N806
    alive = np.ones(L, dtype=bool)
    survival = np.zeros(L, dtype=np.float64)
    round_idx = 0.0
    running = None if C is None else C.sum(axis=1)
    while alive.sum() > 1:
        idx = np.flatnonzero(alive)
        if running is None:
            assert board.levels is not None
            points = _dense_points(board.levels, idx, board.trials)
        else:
            points = running[idx]
        if rule == "nanson":
            out = points <= float(points.mean())
        else:
            out = points == float(np.min(points))
        if np.all(out):
            break
        eliminated = idx[out]
        survival[eliminated] = round_idx
        alive[eliminated] = False
        round_idx += 1.0
        if running is not None and C is not None:
            running -= C[:, eliminated].sum(axis=1)
    survival[alive] = round_idx
    return _result(survival, method, return_scores)


def nanson(
    R: Any,  # noqa: N803
    rank_ties: str = "average",
    method: RankMethod = "competition",
    return_scores: bool = False,
) -> RankResult:
    r"""Rank models by Nanson's rule: each round, Borda among the models still
    in, and every model at or below the round's mean is eliminated.

    The scores are survival rounds (eliminated later = higher); if every
    remaining model has the mean score, they all tie.

    Reference: Nanson, E. J. (1882). Methods of election. Transactions and
    Proceedings of the Royal Society of Victoria 19.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        rank_ties: scipy's tie rule for the per-question ranks:
            ``"average"``, ``"min"``, ``"max"``, ``"dense"`` or ``"ordinal"``.
        method: tie rule of the final ranks (see :func:`avg`).
        return_scores: also return the scores.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 0]], [[1, 0], [0, 0]], [[0, 0], [0, 0]]])
        >>> nanson(R, return_scores=True)[1].tolist()
        [1.0, 0.0, 0.0]
    """
    return _eliminate(R, rank_ties, method, return_scores, "nanson")


def baldwin(
    R: Any,  # noqa: N803
    rank_ties: str = "average",
    method: RankMethod = "competition",
    return_scores: bool = False,
) -> RankResult:
    r"""Rank models by Baldwin's rule: each round, Borda among the models still
    in, and the models with the lowest score are eliminated.

    The scores are survival rounds; if every remaining model ties at the
    minimum, they all tie.

    Reference: Baldwin, J. M. (1926). The technique of the Nanson preferential
    majority system of election. Proceedings of the Royal Society of
    Victoria 39.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        rank_ties: scipy's tie rule for the per-question ranks (see
            :func:`nanson`).
        method: tie rule of the final ranks (see :func:`avg`).
        return_scores: also return the scores.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 0]], [[1, 0], [0, 0]], [[0, 0], [0, 0]]])
        >>> baldwin(R, return_scores=True)[1].tolist()
        [2.0, 1.0, 0.0]
    """
    return _eliminate(R, rank_ties, method, return_scores, "baldwin")


@functools.lru_cache(maxsize=8)
def _median_order(M: int) -> npt.NDArray[np.intp]:  # noqa: N803
    """The positions of a sorted list of M grades in the order the iterative
    lower median removes them: always the last of the lower part or the first
    of the upper part."""
    order = np.empty(M, dtype=np.intp)
    lo = (M - 1) // 2
    hi = lo + 1
    order[0] = lo
    lo -= 1
    for t in range(M - 1, 0, -1):
        if (t - 1) // 2 <= lo:
            order[M - t] = lo
            lo -= 1
        else:
            order[M - t] = hi
            hi += 1
    order.flags.writeable = False  # shared by the cache
    return order


def _classes_by_keys(levels: npt.NDArray[Any]) -> npt.NDArray[np.intp]:
    """Majority judgment's classes (0 the lowest) by numpy, for grades wider
    than a byte (over 255 trials; the core's ``majority_classes`` takes
    bytes): each model's key is its sorted grades read in the median-removal
    order, grouped by equal keys."""
    keys = np.sort(levels, axis=1)[:, _median_order(levels.shape[1])]
    # Each key as one opaque string of big-endian grades: byte order is the
    # lexicographic order of the grades (numpy's unique with axis=0 compares
    # a structured dtype of M fields, 100x slower).
    rows = np.ascontiguousarray(keys.astype(keys.dtype.newbyteorder(">")))
    _, group = np.unique(rows.view(np.dtype((np.void, rows.shape[1] * rows.itemsize))).ravel(), return_inverse=True)
    return np.asarray(group.reshape(-1), dtype=np.intp)


def majority_judgment(R: Any, method: RankMethod = "competition", return_scores: bool = False) -> RankResult:  # noqa: N803
    r"""Rank models by majority judgment on their per-question grades
    :math:`k_{lm}`.

    Models are compared by their lower-median grade; ties are broken by
    removing one median grade from each and comparing again, until the
    medians differ or nothing is left. The scores are the levels of that
    order (L for the best class, L - 1 next, ...).

    Reference: Balinski, M., & Laraki, R. (2011). Majority Judgment:
    Measuring, Ranking, and Electing. MIT Press.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        method: tie rule of the ranks (see :func:`avg`).
        return_scores: also return the scores.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 0], [0, 0]], [[1, 0], [1, 0], [1, 0]], [[0, 0], [0, 0], [1, 1]]])
        >>> majority_judgment(R, return_scores=True)[1].tolist()
        [2.0, 3.0, 1.0]
    """
    board = read_board(R, levels=True)
    levels = board.levels
    assert levels is not None
    if levels.dtype == np.uint8:
        # The core: each sorted row from its histogram, keys compared as bytes.
        group = _kscore.majority_classes(levels, board.trials)
    else:
        group = _classes_by_keys(levels)
    groups = int(group.max()) + 1
    # Ascending key order: the last group is the best (score L).
    scores = (board.models - (groups - 1 - group)).astype(np.float64)
    return _result(scores, method, return_scores)
