r"""scorio.rank 0.2.3's paired-comparison rankers: ``bradley_terry``,
``bradley_terry_map``, ``bradley_terry_davidson``,
``bradley_terry_davidson_map``, ``rao_kupper``, ``rao_kupper_map``.

Each model pair's decisive wins :math:`W_{ij}` and ties :math:`T_{ij}`
(both right or both wrong on an event) are counted once in the Rust core;
the strengths :math:`\pi_i = e^{\theta_i}` (centred :math:`\theta`) are the
exact optimum of the likelihood (plus the prior's penalty), found by
Newton's method with the analytic gradient and Hessian
(``kscore._kscore.pairwise_fit``). scorio minimises the same objectives
with L-BFGS-B and finite differences, stopping at its optimiser's
tolerance: its scores differ from the optimum in about the sixth digit
(docs/rank.md). Signatures, defaults, validation, the special cases (no
decisive outcomes, disconnected win graphs, ``tie_strength = 1``) and the
averaging of models with identical rows are scorio's. ``max_iter`` is
validated as scorio does but does not limit the exact fit (which converges
in a few dozen Newton steps), so where scorio stops at its iteration limit
and raises, kscore returns the optimum.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._fit import Floats, fit_pairs, strengths
from ._metrics import RankResult, _result
from ._pairs import Paired, average_twins, events_of, paired
from ._priors import GaussianPrior, Prior, PriorTerms, UniformPrior, coerce_prior, is_exchangeable, terms_of
from ._ties import RankMethod
from ._validate import response_tensor


def validate_max_iter(max_iter: Any) -> int:
    """A positive integer iteration budget (scorio's checks and messages)."""
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)):
        raise TypeError(f"max_iter must be an integer, got {type(max_iter).__name__}")
    if max_iter <= 0:
        raise ValueError(f"max_iter must be > 0, got {max_iter}")
    return int(max_iter)


def _tie_strength(tie_strength: Any) -> float:
    """Rao-Kupper's kappa: a finite scalar >= 1."""
    if isinstance(tie_strength, bool):
        raise TypeError(f"tie_strength must be a finite scalar >= 1.0, got {type(tie_strength).__name__}")
    kappa = float(tie_strength)
    if not np.isfinite(kappa):
        raise ValueError("tie_strength must be finite.")
    if kappa < 1.0:
        raise ValueError("tie_strength must be >= 1.0 for Rao-Kupper")
    return kappa


def _counts(R: Any) -> Paired:  # noqa: N803
    return paired(events_of(response_tensor(R)))


_DISCONNECTED = {
    "bradley_terry": (
        "Bradley-Terry has no finite maximum-likelihood estimate because "
        "the directed win graph is not strongly connected; use "
        "bradley_terry_map for a regularized estimate."
    ),
    "davidson": (
        "Bradley-Terry-Davidson has no finite maximum-likelihood strength "
        "estimate because its win/tie graph is not strongly connected; use "
        "bradley_terry_davidson_map with a proper prior."
    ),
    "rao_kupper": (
        "Rao-Kupper has no finite maximum-likelihood strength estimate "
        "because its win/tie graph is not strongly connected; use "
        "rao_kupper_map with a proper prior."
    ),
}


#: scorio bounds Davidson's log nu to [-10, 10] (it clips it in its
#: objective): where the likelihood's optimum lies beyond (no ties: nu -> 0;
#: a model that never loses but ties: nu -> inf), the exact optimum of that
#: objective has nu on the bound.
_LOG_NU_BOUND = 10.0


def _theta(
    p: Paired, name: str, model: str, kappa: float | None, terms: PriorTerms | None, start: Floats | None
) -> Floats:
    """The exact optimum's centred log-strengths (Davidson: nu fitted within
    scorio's bounds)."""
    if model != "davidson":
        return np.asarray(fit_pairs(p, name, model, tie_parameter=kappa, terms=terms, init=start).theta)
    try:
        result = fit_pairs(p, name, model, terms=terms, init=start)
        nu = result.tie_parameter
        assert nu is not None
    except (ValueError, RuntimeError):
        if p.total_ties <= 0.0:
            raise
        nu = np.inf  # the strengths ran away with nu
    else:
        if np.exp(-_LOG_NU_BOUND) <= nu <= np.exp(_LOG_NU_BOUND):
            return np.asarray(result.theta)
    bound = np.exp(_LOG_NU_BOUND if nu > 1.0 else -_LOG_NU_BOUND)
    return np.asarray(fit_pairs(p, name, model, tie_parameter=bound, terms=terms, init=start).theta)


def _ml(p: Paired, model: str, kappa: float | None = None) -> Floats:
    """Maximum likelihood as scorio: equal strengths without decisive
    outcomes, scorio's ValueError for a disconnected graph."""
    if model == "rao_kupper" and kappa == 1.0 and p.total_ties > 0:
        raise ValueError("tie_strength=1.0 implies no ties, but tie counts exist")
    if p.total_wins <= 0.0:
        return np.ones(p.models)
    if not p.connected(ties=model != "bradley_terry"):
        raise ValueError(_DISCONNECTED[model])
    return strengths(_theta(p, model, model, kappa, None, None))


def _map(p: Paired, model: str, prior: Prior, kappa: float | None = None) -> Floats:
    """MAP as scorio: ML for a uniform prior; equal strengths without
    decisive outcomes under a zero-mean Gaussian, or when the fit's spread
    is at most 1e-5."""
    if type(prior) is UniformPrior:
        return _ml(p, model, kappa)
    if model == "rao_kupper" and kappa == 1.0 and p.total_ties > 0:
        raise ValueError("tie_strength=1.0 implies no ties, but tie counts exist")
    no_decisive = p.total_wins <= 0.0
    if no_decisive and isinstance(prior, GaussianPrior) and float(prior.mean) == 0.0:
        return np.ones(p.models)
    terms = terms_of(prior, p.models)
    # Without decisive outcomes Davidson's nu grows without bound and its
    # likelihood no longer depends on the strengths: the optimum is the
    # prior's own (as Bradley-Terry's, whose likelihood is then empty).
    fitted = "bradley_terry" if (no_decisive and model == "davidson") else model
    start = p.log_win_shares() if model != "rao_kupper" else None  # (for non-convex priors)
    scores = strengths(_theta(p, f"{model}_map", fitted, kappa, terms, start))
    if no_decisive and float(np.max(scores) - np.min(scores)) <= 1e-5:
        return np.ones(p.models)
    return scores


def _finish(scores: Floats, p: Paired, average: bool, method: str, return_scores: bool) -> RankResult:
    if average:
        scores = average_twins(scores, p.twins)
    return _result(scores, method, return_scores)


def bradley_terry(
    R: Any,  # noqa: N803
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 500,
) -> RankResult:
    r"""Rank models by Bradley-Terry maximum-likelihood strengths (ties ignored).

    .. math::

        \Pr(i \succ j) = \frac{\pi_i}{\pi_i + \pi_j}, \qquad
        \hat\theta = \arg\max_{\sum\theta = 0}
        \sum_{i \ne j} W_{ij} \left[\theta_i - \log(e^{\theta_i} + e^{\theta_j})\right],
        \qquad s_i = e^{\hat\theta_i}

    Without decisive outcomes every strength is 1; a directed win graph
    that is not strongly connected has no finite estimate (scorio's
    ValueError: use :func:`bradley_terry_map`).

    References:
        Bradley, R. A., & Terry, M. E. (1952). Rank Analysis of Incomplete
        Block Designs: I. The Method of Paired Comparisons. Biometrika.

        Hunter, D. R. (2004). MM algorithms for generalized Bradley-Terry
        models. The Annals of Statistics.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        method: tie rule (see :func:`kscore.rank.avg`).
        return_scores: also return the strengths.
        max_iter: scorio's iteration budget (validated; the exact fit does
            not need it).

    Returns:
        The ranks ``(L,)``, or ``(ranks, strengths)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0]])
        >>> ranks, scores = bradley_terry(R, return_scores=True)
        >>> ranks.tolist(), scores.round(4).tolist()
        ([1, 2, 2], [1.5874, 0.7937, 0.7937])
    """
    p = _counts(R)
    validate_max_iter(max_iter)
    return _finish(_ml(p, "bradley_terry"), p, True, method, return_scores)


def bradley_terry_map(
    R: Any,  # noqa: N803
    prior: Prior | float = 1.0,
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 500,
) -> RankResult:
    r"""Rank models by Bradley-Terry MAP strengths under a prior on the
    centred log-strengths.

    .. math::

        \hat\theta = \arg\min_{\sum\theta = 0}
        \Big[-\sum_{i \ne j} W_{ij} \log \frac{e^{\theta_i}}{e^{\theta_i} + e^{\theta_j}}
        + P(\theta)\Big], \qquad s_i = e^{\hat\theta_i}

    A number ``prior`` is the variance of a zero-mean :class:`GaussianPrior`.

    References:
        Caron, F., & Doucet, A. (2012). Efficient Bayesian inference for
        generalized Bradley-Terry models. Journal of Computational and
        Graphical Statistics.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        prior: a :class:`Prior`, or a positive variance.
        method: tie rule (see :func:`kscore.rank.avg`).
        return_scores: also return the strengths.
        max_iter: scorio's iteration budget (validated only).

    Returns:
        The ranks ``(L,)``, or ``(ranks, strengths)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 1]], [[0, 0], [0, 0]]])
        >>> ranks, scores = bradley_terry_map(R, prior=1.0, return_scores=True)
        >>> ranks.tolist(), scores.round(4).tolist()
        ([1, 2], [2.0976, 0.4767])
    """
    p = _counts(R)
    validate_max_iter(max_iter)
    prior = coerce_prior(prior)
    return _finish(_map(p, "bradley_terry", prior), p, is_exchangeable(prior), method, return_scores)


def bradley_terry_davidson(
    R: Any,  # noqa: N803
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 500,
) -> RankResult:
    r"""Rank models by Davidson's tie model (maximum likelihood, ``nu`` fitted).

    .. math::

        \Pr(i \succ j) = \frac{\pi_i}{\pi_i + \pi_j + \nu\sqrt{\pi_i\pi_j}}, \qquad
        \Pr(i \sim j) = \frac{\nu\sqrt{\pi_i\pi_j}}{\pi_i + \pi_j + \nu\sqrt{\pi_i\pi_j}}

    fitted to the decisive wins :math:`W_{ij}` and ties :math:`T_{ij}`.
    scorio bounds :math:`\log\nu` to [-10, 10]; where the likelihood's
    optimum lies beyond (no ties at all; a model that never loses but
    ties, whose strength then grows with :math:`\nu`), the result is the
    exact optimum with :math:`\nu` on that bound.

    References:
        Davidson, R. R. (1970). On extending the Bradley-Terry model to
        accommodate ties in paired comparison experiments. Journal of the
        American Statistical Association.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        method: tie rule (see :func:`kscore.rank.avg`).
        return_scores: also return the strengths.
        max_iter: scorio's iteration budget (validated only).

    Returns:
        The ranks ``(L,)``, or ``(ranks, strengths)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 0]], [[1, 0], [0, 1]], [[0, 1], [0, 0]]])
        >>> ranks, scores = bradley_terry_davidson(R, return_scores=True)
        >>> ranks.tolist(), scores.round(4).tolist()
        ([1, 2, 3], [2.3568, 1.0, 0.4243])
    """
    p = _counts(R)
    validate_max_iter(max_iter)
    return _finish(_ml(p, "davidson"), p, True, method, return_scores)


def bradley_terry_davidson_map(
    R: Any,  # noqa: N803
    prior: Prior | float = 1.0,
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 500,
) -> RankResult:
    r"""Rank models by Davidson's tie model, MAP under a prior on the
    centred log-strengths (``nu`` fitted, unpenalised).

    .. math::

        (\hat\theta, \hat\nu) = \arg\min_{\sum\theta = 0,\ \nu > 0}
        \big[-\log p(W, T \mid \theta, \nu) + P(\theta)\big]

    References:
        Davidson, R. R. (1970). On extending the Bradley-Terry model to
        accommodate ties in paired comparison experiments. Journal of the
        American Statistical Association.

        Caron, F., & Doucet, A. (2012). Efficient Bayesian inference for
        generalized Bradley-Terry models.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        prior: a :class:`Prior`, or a positive variance.
        method: tie rule (see :func:`kscore.rank.avg`).
        return_scores: also return the strengths.
        max_iter: scorio's iteration budget (validated only).

    Returns:
        The ranks ``(L,)``, or ``(ranks, strengths)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 0]], [[1, 0], [0, 0]]])
        >>> bradley_terry_davidson_map(R, prior=1.0).tolist()
        [1, 2]
    """
    p = _counts(R)
    validate_max_iter(max_iter)
    prior = coerce_prior(prior)
    return _finish(_map(p, "davidson", prior), p, is_exchangeable(prior), method, return_scores)


def rao_kupper(
    R: Any,  # noqa: N803
    tie_strength: float = 1.1,
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 500,
) -> RankResult:
    r"""Rank models by the Rao-Kupper tie model (maximum likelihood, ``kappa`` fixed).

    .. math::

        \Pr(i \succ j) = \frac{\pi_i}{\pi_i + \kappa\pi_j}, \qquad
        \Pr(i \sim j) = \frac{(\kappa^2 - 1)\pi_i\pi_j}{(\pi_i + \kappa\pi_j)(\kappa\pi_i + \pi_j)}

    with :math:`\kappa` = ``tie_strength`` :math:`\ge 1` (1 allows no ties:
    scorio's ValueError when there are any).

    References:
        Rao, P. V., & Kupper, L. L. (1967). Ties in paired-comparison
        experiments: A generalization of the Bradley-Terry model. Journal
        of the American Statistical Association.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        tie_strength: ``kappa >= 1``.
        method: tie rule (see :func:`kscore.rank.avg`).
        return_scores: also return the strengths.
        max_iter: scorio's iteration budget (validated only).

    Returns:
        The ranks ``(L,)``, or ``(ranks, strengths)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 0]], [[1, 0], [0, 0]]])
        >>> rao_kupper(R, tie_strength=1.1).tolist()
        [1, 2]
    """
    p = _counts(R)
    validate_max_iter(max_iter)
    kappa = _tie_strength(tie_strength)
    return _finish(_ml(p, "rao_kupper", kappa), p, True, method, return_scores)


def rao_kupper_map(
    R: Any,  # noqa: N803
    tie_strength: float = 1.1,
    prior: Prior | float = 1.0,
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 500,
) -> RankResult:
    r"""Rank models by the Rao-Kupper tie model, MAP under a prior on the
    centred log-strengths (``kappa`` fixed).

    .. math::

        \hat\theta = \arg\min_{\sum\theta = 0}
        \big[-\log p(W, T \mid \theta, \kappa) + P(\theta)\big]

    References:
        Rao, P. V., & Kupper, L. L. (1967). Ties in paired-comparison
        experiments: A generalization of the Bradley-Terry model. Journal
        of the American Statistical Association.

        Caron, F., & Doucet, A. (2012). Efficient Bayesian inference for
        generalized Bradley-Terry models.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        tie_strength: ``kappa >= 1``.
        prior: a :class:`Prior`, or a positive variance.
        method: tie rule (see :func:`kscore.rank.avg`).
        return_scores: also return the strengths.
        max_iter: scorio's iteration budget (validated only).

    Returns:
        The ranks ``(L,)``, or ``(ranks, strengths)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 0]], [[1, 0], [0, 0]]])
        >>> rao_kupper_map(R, prior=2.0).tolist()
        [1, 2]
    """
    p = _counts(R)
    validate_max_iter(max_iter)
    kappa = _tie_strength(tie_strength)
    prior = coerce_prior(prior)
    return _finish(_map(p, "rao_kupper", prior, kappa), p, is_exchangeable(prior), method, return_scores)
