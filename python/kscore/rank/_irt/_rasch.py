"""``rasch`` and ``rasch_map``: the Rasch (1PL) model by joint maximum
likelihood and by MAP, drop-in for scorio.rank 0.2.3's."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .._ties import RankMethod, rank_scores
from . import _board, _joint, _priors
from ._checks import positive_int

#: ``ranks``, ``(ranks, scores)``, or ``(ranks, scores, item_params)``.
IrtResult = (
    npt.NDArray[Any]
    | tuple[npt.NDArray[Any], npt.NDArray[np.float64]]
    | tuple[npt.NDArray[Any], npt.NDArray[np.float64], dict[str, npt.NDArray[np.float64]]]
)


def result(
    scores: npt.NDArray[np.float64],
    method: str,
    return_scores: bool,
    item_params: dict[str, npt.NDArray[np.float64]] | None,
) -> IrtResult:
    """scorio's return shapes: item parameters imply scores."""
    ranking = rank_scores(scores, method)
    if item_params is not None:
        return ranking, scores, item_params
    return (ranking, scores) if return_scores else ranking


def fit_rasch(k: npt.NDArray[Any], N: int, max_iter: int) -> tuple[Any, Any]:  # noqa: N803
    """scorio's checks, then the exact joint ML fit (``_estimate_rasch_abilities``)."""
    L, M = k.shape
    rows, cols = _board.totals(k)
    _board.require_finite_person(rows, M, N, "Rasch")
    _board.require_finite_items(cols, L, N, "Rasch")
    _board.require_no_separation(k, N, "Rasch")
    return _joint.rasch(k, N, _priors.FLAT, max_iter, "rasch")


def rasch(
    R: Any,  # noqa: N803
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 500,
    return_item_params: bool = False,
) -> IrtResult:
    r"""Rank models by Rasch (1PL) abilities, fitted by joint maximum likelihood.

    Model ``l`` has ability :math:`\theta_l`, question ``m`` difficulty
    :math:`b_m` (centred), and

    .. math::

        k_{lm} \sim \mathrm{Binomial}\bigl(N, \sigma(\theta_l - b_m)\bigr).

    The fit is the exact optimum (Newton on grouped totals: the likelihood
    depends on the counts only through the models' and questions' totals).
    Models with equal totals get equal scores, as in scorio.

    References:
        Rasch, G. (1960). Probabilistic Models for Some Intelligence and
        Attainment Tests.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        method: tie rule: ``"competition"``, ``"competition_max"``, ``"dense"`` or ``"avg"``.
        return_scores: also return the abilities.
        max_iter: most Newton iterations (positive integer).
        return_item_params: also return ``{"difficulty": b}`` (implies scores).

    Returns:
        ranks ``(L,)``; ``(ranks, theta)``; or ``(ranks, theta, {"difficulty": b})``.

    Raises:
        ValueError: an all-correct or all-wrong model or question, or a
            separated response pattern (no finite estimate), as scorio.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0]])
        >>> rasch(R).tolist()
        [1, 2, 2]
    """
    max_iter = positive_int("max_iter", max_iter)
    k, N = _board.counts(R)
    theta, beta = fit_rasch(k, N, max_iter)
    rows, _ = _board.totals(k)
    scores = _board.average_by(theta, rows)
    return result(scores, method, return_scores, {"difficulty": beta} if return_item_params else None)


def rasch_map(
    R: Any,  # noqa: N803
    prior: Any = 1.0,
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 500,
    return_item_params: bool = False,
) -> IrtResult:
    r"""Rank models by Rasch abilities fitted by MAP (a prior on abilities).

    .. math::

        (\hat\theta, \hat b) = \arg\min_{\theta,\, b:\ \sum_m b_m = 0}
        -\sum_{l,m} \log p(k_{lm} \mid \theta_l, b_m) + P(\theta)

    with :math:`P` the prior's penalty (a float is a Gaussian prior's
    variance). Exact optimum for the built-in priors (Gaussian, Laplace,
    Cauchy, Empirical, Uniform: the ML fit); other priors are differenced
    as in scorio (kscore/rank/_irt/_custom.py).

    References:
        Mislevy, R. J. (1986). Bayes modal estimation in item response
        models. Psychometrika.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        prior: a ``Prior`` or a positive float (Gaussian variance).
        method: tie rule.
        return_scores: also return the abilities.
        max_iter: most Newton iterations.
        return_item_params: also return ``{"difficulty": b}``.

    Returns:
        ranks, ``(ranks, theta)`` or ``(ranks, theta, {"difficulty": b})``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 1]], [[0, 0], [0, 0]]])
        >>> rasch_map(R, prior=1.0).tolist()
        [1, 2]
    """
    max_iter = positive_int("max_iter", max_iter)
    k, N = _board.counts(R)
    prior = _priors.coerce(prior)
    L, M = k.shape
    if _priors.is_uniform(prior):
        theta, beta = fit_rasch(k, N, max_iter)
    else:
        _, cols = _board.totals(k)
        _board.require_finite_items(cols, L, N, "Rasch MAP")
        spec = _priors.spec(prior, L)
        theta, beta = _joint.rasch(k, N, spec if spec is not None else prior, max_iter, "rasch_map")
    scores = theta
    if _priors.is_exchangeable(prior):
        rows, _ = _board.totals(k)
        scores = _board.average_by(scores, rows)
    return result(scores, method, return_scores, {"difficulty": beta} if return_item_params else None)
