r"""scorio.rank 0.2.3's sequential rating systems: ``elo``, ``glicko``,
``trueskill``.

Every event (question and trial, trial-major as scorio streams them)
induces a match between every pair of models: a win where one is right and
the other wrong, and for both right or both wrong a draw or no match
(``tie_handling``). All matches of an event are evaluated from the ratings
at its start. The loops run in the Rust core on the packed outcomes
(``kscore._kscore.elo``, ``glicko``, ``trueskill``): the same updates in
scorio's order, equal to scorio's ratings to about 1e-15 relative (Elo's
expectations come from one power per model instead of one per pair, and
TrueSkill's normal functions from the C library's ``erfc``, where scorio
calls scipy's). Models with identical outcomes get identical ratings.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from .. import _kscore
from ._fit import Floats
from ._metrics import RankResult, _result
from ._pairs import Events, average_twins, events_of
from ._ties import RankMethod, rank_scores
from ._validate import response_tensor

#: scorio's ``tie_handling``: what both right / both wrong is.
PairwiseTieHandling = Literal["skip", "draw", "correct_draw_only"]


def _tie_policy(tie_handling: Any) -> str:
    policy = str(tie_handling)
    if policy not in {"skip", "draw", "correct_draw_only"}:
        raise ValueError('tie_handling must be one of: "skip", "draw", "correct_draw_only"')
    return policy


def elo(
    R: Any,  # noqa: N803
    K: float = 32.0,  # noqa: N803
    initial_rating: float = 1500.0,
    tie_handling: PairwiseTieHandling = "correct_draw_only",
    method: RankMethod = "competition",
    return_scores: bool = False,
) -> RankResult:
    r"""Rank models by Elo ratings over the induced matches.

    .. math::

        E_{ij} = \frac{1}{1 + 10^{(r_j - r_i)/400}}, \qquad
        r_i \leftarrow r_i + K \sum_j (S_{ij} - E_{ij})

    per event, from the event's starting ratings.

    References:
        Elo, A. E. (1978). The Rating of Chessplayers, Past and Present.
        Arco Publishing.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        K: positive step size.
        initial_rating: every model's starting rating.
        tie_handling: ``"skip"``, ``"draw"`` or ``"correct_draw_only"``
            (a draw when both are right, no match when both are wrong).
        method: tie rule of the ranks (see :func:`kscore.rank.avg`).
        return_scores: also return the ratings.

    Returns:
        The ranks ``(L,)``, or ``(ranks, ratings)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 1]], [[0, 0], [0, 0]]])
        >>> ranks, ratings = elo(R, return_scores=True)
        >>> ranks.tolist(), ratings.round(2).tolist()
        ([1, 2], [1555.8, 1444.2])
    """
    tensor = response_tensor(R)
    k = float(K)
    if not np.isfinite(k) or k <= 0.0:
        raise ValueError(f"K must be a positive finite scalar; got {k}")
    initial = float(initial_rating)
    if not np.isfinite(initial):
        raise ValueError("initial_rating must be finite.")
    policy = _tie_policy(tie_handling)
    events = events_of(tensor)
    ratings = _kscore.elo(events.bits, events.events, k, initial, policy)
    return _result(_twins_equal(ratings, events), method, return_scores)


def _twins_equal(values: Any, events: Events) -> Floats:
    """Models with identical rows get the mean of their values (equal in
    exact arithmetic; the pair order can leave them an ulp apart)."""
    twins = np.asarray(_kscore.twin_rows(events.bits, events.events), dtype=np.int64)
    return average_twins(np.asarray(values, dtype=np.float64), twins)


def glicko(
    R: Any,  # noqa: N803
    initial_rating: float = 1500.0,
    initial_rd: float = 350.0,
    c: float = 0.0,
    rd_max: float = 350.0,
    tie_handling: PairwiseTieHandling = "correct_draw_only",
    return_deviation: bool = False,
    method: RankMethod = "competition",
    return_scores: bool = False,
) -> Any:
    r"""Rank models by Glicko ratings, each event a rating period.

    .. math::

        g(RD) = \big(1 + 3q^2 RD^2/\pi^2\big)^{-1/2}, \quad
        E_{ij} = \frac{1}{1 + 10^{-g(RD_j)(r_i - r_j)/400}}, \quad
        d_i^{-2} = q^2 \sum_j g(RD_j)^2 E_{ij}(1 - E_{ij})

    .. math::

        RD_i' = \big(RD_i^{-2} + d_i^{-2}\big)^{-1/2}, \qquad
        r_i' = r_i + q\, RD_i'^2 \sum_j g(RD_j)(S_{ij} - E_{ij}),
        \qquad q = \ln 10 / 400

    References:
        Glickman, M. E. (1999). Parameter Estimation in Large Dynamic
        Paired Comparison Experiments. Journal of the Royal Statistical
        Society: Series C.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        initial_rating: every model's starting rating.
        initial_rd: starting deviation (capped at ``rd_max``).
        c: deviation growth per period (``RD <- min(sqrt(RD^2 + c^2), rd_max)``).
        rd_max: the deviation's cap.
        tie_handling: as :func:`elo`.
        return_deviation: return ``(ranks, ratings, deviations)``.
        method: tie rule of the ranks (see :func:`kscore.rank.avg`).
        return_scores: also return the ratings.

    Returns:
        The ranks ``(L,)``, ``(ranks, ratings)`` or ``(ranks, ratings, deviations)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 1]], [[0, 0], [0, 0]]])
        >>> ranks, ratings, rds = glicko(R, return_deviation=True)
        >>> ranks.tolist(), bool(ratings[0] > ratings[1]), bool(rds[0] < 350)
        ([1, 2], True, True)
    """
    tensor = response_tensor(R)
    rating0 = float(initial_rating)
    rd0 = float(initial_rd)
    if not np.isfinite(rating0):
        raise ValueError("initial_rating must be finite.")
    if not np.isfinite(rd0) or rd0 <= 0:
        raise ValueError("initial_rd must be > 0 and finite.")
    cap = float(rd_max)
    if not np.isfinite(cap) or cap <= 0:
        raise ValueError("rd_max must be > 0 and finite.")
    growth = float(c)
    if not np.isfinite(growth) or growth < 0:
        raise ValueError("c must be >= 0 and finite.")
    policy = _tie_policy(tie_handling)
    events = events_of(tensor)
    rating, rd = _kscore.glicko(events.bits, events.events, rating0, rd0, growth, cap, policy)
    rating = _twins_equal(rating, events)
    rd = _twins_equal(rd, events)
    ranking = rank_scores(rating, method)
    if return_deviation:
        return ranking, rating, rd
    return (ranking, rating) if return_scores else ranking


def trueskill(
    R: Any,  # noqa: N803
    mu_initial: float = 25.0,
    sigma_initial: float = 25.0 / 3,
    beta: float = 25.0 / 6,
    tau: float = 25.0 / 300,
    method: RankMethod = "competition",
    return_scores: bool = False,
    tie_handling: PairwiseTieHandling = "skip",
    draw_margin: float = 0.0,
) -> RankResult:
    r"""Rank models by TrueSkill means over the induced two-player matches.

    With :math:`c = \sqrt{2\beta^2 + \sigma_i^2 + \sigma_j^2}`,
    :math:`t = (\mu_i - \mu_j)/c`, :math:`\epsilon` = ``draw_margin``/:math:`c`:

    .. math::

        v = \frac{\phi(t - \epsilon)}{\Phi(t - \epsilon)}, \quad
        w = v (v + t - \epsilon), \qquad
        \mu_i' = \mu_i + \frac{\sigma_i^2}{c} v, \quad
        \sigma_i'^2 = \sigma_i^2\Big(1 - \frac{\sigma_i^2}{c^2} w\Big)

    for a win of :math:`i` (a draw: the truncated normal's moments), the
    event's pairwise sites combined in natural parameters; after each trial
    :math:`\sigma^2 \leftarrow \sigma^2 + \tau^2`.

    References:
        Herbrich, R., Minka, T., & Graepel, T. (2006). TrueSkill(TM): A
        Bayesian Skill Rating System. NeurIPS 19.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        mu_initial: starting mean.
        sigma_initial: starting deviation (positive).
        beta: performance noise (positive).
        tau: per-trial dynamics (non-negative).
        method: tie rule of the ranks (see :func:`kscore.rank.avg`).
        return_scores: also return the means.
        tie_handling: as :func:`elo` (default ``"skip"``).
        draw_margin: non-negative draw margin.

    Returns:
        The ranks ``(L,)``, or ``(ranks, means)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 1]], [[0, 0], [0, 0]]])
        >>> ranks, mu = trueskill(R, return_scores=True)
        >>> ranks.tolist(), bool(mu[0] > mu[1])
        ([1, 2], True)
    """
    tensor = response_tensor(R)
    L, M, N = tensor.shape
    mu0, sigma0, b, t, margin = (float(v) for v in (mu_initial, sigma_initial, beta, tau, draw_margin))
    if not np.isfinite(mu0):
        raise ValueError("mu_initial must be finite.")
    if not np.isfinite(sigma0) or sigma0 <= 0.0:
        raise ValueError("sigma_initial must be a positive finite scalar.")
    if not np.isfinite(b) or b <= 0.0:
        raise ValueError("beta must be a positive finite scalar.")
    if not np.isfinite(t) or t < 0.0:
        raise ValueError("tau must be a nonnegative finite scalar.")
    if not np.isfinite(margin) or margin < 0.0:
        raise ValueError("draw_margin must be a nonnegative finite scalar.")
    policy = _tie_policy(tie_handling)
    events = events_of(tensor)
    mu, _ = _kscore.trueskill(events.bits, events.events, N, mu0, sigma0, b, t, margin, policy)
    return _result(_twins_equal(mu, events), method, return_scores)
