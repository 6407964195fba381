r"""scorio.rank 0.2.3's graph rankers: ``pagerank``, ``spectral``,
``alpharank`` and ``nash``, at their exact fixed points.

All four start from scorio's tied-split win probabilities, which for binary
outcomes are :math:`\hat P_{ij} = 1/2 + (S_i - S_j)/(2MN)` (:mod:`._board`):
a constant plus a rank-two antisymmetric part. That structure gives each
method's fixed point in closed form, in O(L) from the totals:

- PageRank: the fixed point of :math:`r = dQr + (1-d)e` is a diagonal
  matrix minus a rank-two one, solved by Sherman-Morrison. scorio iterates
  at most ``max_iter`` (100) times until two iterates are within ``tol``
  (1e-6) in L1, stopping up to about 1e-6 short of it.
- spectral: :math:`A + I = (I + J + c1^\top - 1c^\top)/2` with centred
  :math:`c`, whose Perron vector lies in span{1, c}: :math:`v \propto 1 +
  tc` with :math:`t = 2/(1 + \sqrt{1 - 4\|c\|^2/L})`. scorio's power
  iteration converges to it in a few steps (the other eigenvalues are
  about 1/L of the Perron root).
- alpha-rank: the chain of single mutations satisfies detailed balance,
  :math:`\pi_s \rho(u) = \pi_r \rho(-u)` with :math:`\rho(u)/\rho(-u) =
  e^{(m-1)u}`, so :math:`\pi \propto \exp(\alpha m S / (2MN))`, a softmax.
  scorio's power iteration stops when iterates move less than 1e-12, which
  on a chain that moves with probability about 1/m a step leaves it
  about 1e-10 off.
- Nash: scorio solves the zero-sum game's LP with HiGHS, then returns the
  uniform mixture over the models with the highest total whatever the LP
  found (for a game :math:`A_{ij} = (S_i - S_j)/(MN)` that is an
  equilibrium); kscore returns that mixture without the LP, the same floats.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._arrays import FloatArray
from ._board import centred, read_board, win_probabilities
from ._metrics import RankResult, _result
from ._ties import RankMethod, rank_scores


def _positive_int(name: str, value: Any, min_value: int = 1) -> int:
    """scorio's ``_validate_positive_int``: an int (bool refused) >= min_value."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    ivalue = int(value)
    if ivalue < min_value:
        raise ValueError(f"{name} must be >= {min_value}, got {ivalue}")
    return ivalue


def _positive_float(name: str, value: Any) -> float:
    """scorio's ``_validate_positive_float``: a positive finite float."""
    fvalue = float(value)
    if not np.isfinite(fvalue) or fvalue <= 0.0:
        raise ValueError(f"{name} must be a positive finite scalar, got {value}")
    return fvalue


def _teleport(teleport: Any, L: int) -> FloatArray:  # noqa: N803
    """scorio's checks of PageRank's teleport vector, normalised."""
    if teleport is None:
        return np.full(L, 1.0 / L)
    e = np.asarray(teleport, dtype=float)
    if e.ndim != 1 or e.shape[0] != L:
        raise ValueError(f"teleport must have shape (L={L},), got {e.shape}")
    if not np.all(np.isfinite(e)):
        raise ValueError("teleport must contain finite values")
    if np.any(e < 0):
        raise ValueError("teleport must be nonnegative")
    s = float(e.sum())
    if s <= 0:
        raise ValueError("teleport must sum to a positive value")
    return e / s


def pagerank(
    R: Any,  # noqa: N803
    damping: float = 0.85,
    max_iter: int = 100,
    tol: float = 1e-6,
    method: RankMethod = "competition",
    return_scores: bool = False,
    teleport: Any = None,
) -> RankResult:
    r"""Rank models by PageRank on the tied-split win-probability graph.

    With :math:`Q` scorio's column-stochastic matrix (from model j, model i
    gets :math:`\hat P_{ij}/(L-1)`, j keeps the rest), the scores are the
    fixed point

    .. math::

        r = d\,Q\,r + (1 - d)\,e ,

    computed exactly in O(L): :math:`I - dQ` is diagonal minus rank two.
    ``max_iter`` and ``tol`` are checked as in scorio and otherwise unused
    (scorio stops its iteration up to about ``tol`` short of this point).

    Reference: Page, L., Brin, S., Motwani, R., & Winograd, T. (1999). The
    PageRank Citation Ranking: Bringing Order to the Web. Stanford InfoLab.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        damping: d in (0, 1).
        max_iter: scorio's iteration cap (checked: an int >= 1).
        tol: scorio's L1 stopping tolerance (checked: positive, finite).
        method: tie rule of the ranks (see :func:`avg`).
        return_scores: also return the scores.
        teleport: non-negative ``(L,)`` vector e (normalised), default uniform.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 0]], [[1, 0], [0, 0]], [[0, 0], [0, 0]]])
        >>> pagerank(R).tolist()
        [1, 2, 3]
    """
    damping = float(damping)
    if not np.isfinite(damping) or not (0.0 < damping < 1.0):
        raise ValueError("damping must be in (0, 1)")
    _positive_int("max_iter", max_iter)
    _positive_float("tol", tol)
    board = read_board(R)
    L = board.models
    e = _teleport(teleport, L)
    # Q r's i-th entry, with sum(r) = 1 and delta centred (delta_i - delta_j
    # = (S_i - S_j) / (2MN)), is [1/2 + delta_i - beta + r_i (L/2 - 1 +
    # L delta_i)] / (L - 1), beta = delta . r; solve for r_i given beta, then
    # beta from delta . r = beta.
    delta = centred(board, 2.0 * board.outcomes)
    kappa = damping / (L - 1)
    diag = 1.0 - kappa * (0.5 * (L - 2) + L * delta)
    a = (kappa * (0.5 + delta) + (1.0 - damping) * e) / diag
    b = kappa / diag
    beta = float(delta @ a) / (1.0 + float(delta @ b))
    scores = a - beta * b
    return _result(scores, method, return_scores)


def spectral(
    R: Any,  # noqa: N803
    max_iter: int = 10_000,
    tol: float = 1e-12,
    method: RankMethod = "competition",
    return_scores: bool = False,
) -> RankResult:
    r"""Rank models by the Perron vector of Keener's smoothed win-rate matrix.

    :math:`A_{ij} = (W_{ij} + T_{ij}/2 + 1)/(MN + 2)` off the diagonal; the
    scores are the Perron vector of :math:`A` (summing to one), in closed
    form:

    .. math::

        v_l = \frac{1 + t\,c_l}{L}, \quad c_l = \frac{S_l - \bar S}{MN + 2},
        \quad t = \frac{2}{1 + \sqrt{1 - 4\|c\|^2 / L}} .

    ``max_iter`` and ``tol`` are checked as in scorio and otherwise unused.

    Reference: Keener, J. P. (1993). The Perron-Frobenius Theorem and the
    Ranking of Football Teams. SIAM Review 35(1).

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        max_iter: scorio's iteration cap (checked: an int >= 1).
        tol: scorio's stopping tolerance (checked: positive, finite).
        method: tie rule of the ranks (see :func:`avg`).
        return_scores: also return the scores.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 0]], [[1, 0], [0, 0]], [[0, 0], [0, 0]]])
        >>> spectral(R).tolist()
        [1, 2, 3]
    """
    _positive_int("max_iter", max_iter)
    _positive_float("tol", tol)
    board = read_board(R)
    L = board.models
    c = centred(board, board.outcomes + 2.0)
    t = 2.0 / (1.0 + np.sqrt(1.0 - 4.0 * float(c @ c) / L))
    scores = (1.0 + t * c) / L
    return _result(scores, method, return_scores)


def alpharank(
    R: Any,  # noqa: N803
    alpha: float = 1.0,
    population_size: int = 50,
    max_iter: int = 100_000,
    tol: float = 1e-12,
    method: RankMethod = "competition",
    return_scores: bool = False,
) -> RankResult:
    r"""Rank models by alpha-rank's stationary distribution over single
    mutations (population size m, selection intensity alpha).

    A mutant r invading resident s fixes with probability
    :math:`\rho(u) = (1 - e^{-u})/(1 - e^{-mu})`, :math:`u = \alpha
    \frac{m}{m-1} (\hat P_{rs} - \tfrac12)`. The chain satisfies detailed
    balance, so its stationary distribution is exactly

    .. math::

        \pi_l \propto \exp\Big(\frac{\alpha\, m\, S_l}{2MN}\Big) .

    ``max_iter`` and ``tol`` are checked as in scorio and otherwise unused.

    Reference: Omidshafiei, S., et al. (2019). alpha-Rank: Multi-Agent
    Evaluation by Evolution. Scientific Reports 9.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        alpha: selection intensity, >= 0.
        population_size: m, an int >= 2.
        max_iter: scorio's iteration cap (checked: an int >= 1).
        tol: scorio's stopping tolerance (checked: positive, finite).
        method: tie rule of the ranks (see :func:`avg`).
        return_scores: also return the scores.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 0]], [[1, 0], [0, 0]], [[0, 0], [0, 0]]])
        >>> alpharank(R).tolist()
        [1, 2, 3]
    """
    _positive_int("max_iter", max_iter)
    _positive_float("tol", tol)
    m = _positive_int("population_size", population_size, min_value=2)
    alpha = float(alpha)
    if not np.isfinite(alpha) or alpha < 0.0:
        raise ValueError("alpha must be >= 0")
    board = read_board(R)
    # Largest total first: the exponents are <= 0, no overflow.
    S = board.totals  # noqa: N806
    weights = np.exp((alpha * m / (2.0 * board.outcomes)) * (S - S.max()))
    scores = weights / weights.sum()
    return _result(scores, method, return_scores)


_SCORE_TYPES = {"vs_equilibrium", "equilibrium", "advantage_vs_equilibrium"}


def nash(
    R: Any,  # noqa: N803
    n_iter: int = 100,
    temperature: float = 0.1,
    solver: str = "lp",
    score_type: str = "vs_equilibrium",
    return_equilibrium: bool = False,
    method: RankMethod = "competition",
    return_scores: bool = False,
) -> Any:
    r"""Rank models against a Nash equilibrium of the zero-sum game
    :math:`A = 2\hat P - 1` (zero diagonal).

    The game is transitive, :math:`A_{ij} = (S_i - S_j)/(MN)`, and scorio's
    equilibrium is the uniform mixture :math:`x` over the models with the
    highest total (the same whatever its LP returns). Scores:
    :math:`\hat P x` (``"vs_equilibrium"``), :math:`x` (``"equilibrium"``)
    or :math:`A x` (``"advantage_vs_equilibrium"``).

    Reference: Balduzzi, D., Tuyls, K., Perolat, J., & Graepel, T. (2018).
    Re-evaluating Evaluation. NeurIPS 2018.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        n_iter: checked as in scorio (an int >= 1), unused.
        temperature: checked as in scorio (positive, finite), unused.
        solver: ``"lp"``.
        score_type: ``"vs_equilibrium"``, ``"equilibrium"`` or
            ``"advantage_vs_equilibrium"``.
        return_equilibrium: also return the equilibrium mixture.
        method: tie rule of the ranks (see :func:`avg`).
        return_scores: also return the scores.

    Returns:
        The ranks, followed by the scores and/or the equilibrium when asked.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 0]], [[1, 0], [0, 0]], [[0, 0], [0, 0]]])
        >>> ranks, eq = nash(R, return_equilibrium=True)
        >>> ranks.tolist(), eq.tolist()
        ([1, 2, 3], [1.0, 0.0, 0.0])
    """
    _positive_int("n_iter", n_iter)
    temperature = float(temperature)
    if not np.isfinite(temperature) or temperature <= 0.0:
        raise ValueError("temperature must be a positive finite scalar")
    board = read_board(R)
    solver = str(solver)
    if solver != "lp":
        raise ValueError('solver must be "lp"')
    score_type = str(score_type)
    if score_type not in _SCORE_TYPES:
        raise ValueError('score_type must be one of "vs_equilibrium", "equilibrium", "advantage_vs_equilibrium"')
    totals = board.totals
    best = totals == totals.max()
    equilibrium = best.astype(float) / np.count_nonzero(best)
    if score_type == "equilibrium":
        scores = equilibrium
    else:
        P_hat = win_probabilities(board)  # noqa: N806
        if score_type == "advantage_vs_equilibrium":
            A = 2.0 * P_hat - 1.0  # noqa: N806
            np.fill_diagonal(A, 0.0)
            scores = A @ equilibrium
        else:
            scores = P_hat @ equilibrium
    ranking = rank_scores(scores, method)
    if return_scores and return_equilibrium:
        return ranking, scores, equilibrium
    if return_scores:
        return ranking, scores
    if return_equilibrium:
        return ranking, equilibrium
    return ranking
