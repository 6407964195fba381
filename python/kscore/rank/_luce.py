r"""scorio.rank 0.2.3's Luce-family rankers: ``plackett_luce``,
``plackett_luce_map``, ``davidson_luce``, ``davidson_luce_map``,
``bradley_terry_luce``, ``bradley_terry_luce_map``.

Each event (a question and trial) splits the models into winners (right)
and losers (wrong); events where all or none are right are dropped.

- Plackett-Luce on binary rows is Bradley-Terry on the decisive pairwise
  wins: the same exact fit as :func:`kscore.rank.bradley_terry`, with
  scorio's normalisation (strengths summing to 1 for the maximum
  likelihood, where scorio runs Hunter's MM iteration to a tolerance).
- Davidson-Luce (Firth, Kosmidis & Turner 2019) with the tie prevalences
  :math:`\delta_t` maximised out exactly: the strengths solve a convex
  problem in which unobserved winner-set sizes get :math:`\delta_t = 0`
  (where scorio's optimiser stops at some finite value).
- Bradley-Terry-Luce rank breaking: each winner a Luce choice from itself
  and the losers.

The likelihoods are minimised by Newton's method to the exact optimum in
the Rust core (``kscore._kscore.pairwise_fit``, ``choice_fit``); scorio uses
L-BFGS-B with finite differences (docs/rank.md: by how much it is off).
Signatures, defaults, validation and messages, the special cases and the
averaging of indistinguishable models are scorio's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _kscore
from ._fit import Floats, fit_pairs, prior_arguments, strengths
from ._metrics import RankResult, _result
from ._pairs import Events, Paired, average_twins, events_of, paired
from ._priors import Prior, UniformPrior, coerce_prior, is_exchangeable, terms_of
from ._ties import RankMethod
from ._validate import integer_argument, response_tensor


def _positive_float(name: str, value: Any, minimum: float = 0.0) -> float:
    number = float(value)
    if not np.isfinite(number) or number <= minimum:
        raise ValueError(f"{name} must be a finite scalar > {minimum}, got {value}")
    return number


_PL_DISCONNECTED = (
    "Plackett-Luce has no finite maximum-likelihood estimate because "
    "the directed win graph is not strongly connected; use "
    "plackett_luce_map for a regularized estimate."
)


def _plackett_luce_ml(p: Paired) -> Floats:
    """scorio's MM fixed point exactly: the Bradley-Terry optimum, strengths
    summing to 1 (floored at 1e-10 as scorio's iteration does)."""
    if p.total_wins <= 0.0:
        return np.ones(p.models) / p.models
    if not p.connected(ties=False):
        raise ValueError(_PL_DISCONNECTED)
    theta = np.asarray(fit_pairs(p, "plackett_luce", "bradley_terry").theta)
    pi = np.exp(theta - theta.max())
    return np.asarray(np.maximum(pi / pi.sum(), 1e-10), dtype=np.float64)


def plackett_luce(
    R: Any,  # noqa: N803
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 10_000,
    tol: float = 1e-8,
) -> RankResult:
    r"""Rank models by Plackett-Luce maximum likelihood on the decisive wins.

    .. math::

        \hat\pi = \arg\max_{\sum \pi = 1}
        \sum_{i \ne j} W_{ij} \log \frac{\pi_i}{\pi_i + \pi_j}

    (scorio's pairwise reduction of binary rows). The strengths sum to 1;
    without decisive outcomes they are all ``1/L``; a win graph that is not
    strongly connected has no finite estimate (scorio's ValueError).

    References:
        Plackett, R. L. (1975). The Analysis of Permutations. Journal of
        the Royal Statistical Society: Series C.

        Luce, R. D. (1959). Individual Choice Behavior. Wiley.

        Hunter, D. R. (2004). MM algorithms for generalized Bradley-Terry
        models. The Annals of Statistics.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        method: tie rule (see :func:`kscore.rank.avg`).
        return_scores: also return the strengths.
        max_iter: scorio's MM budget (validated; the exact fit does not need it).
        tol: scorio's MM tolerance (validated only).

    Returns:
        The ranks ``(L,)``, or ``(ranks, strengths)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0]])
        >>> ranks, scores = plackett_luce(R, return_scores=True)
        >>> ranks.tolist(), scores.round(4).tolist()
        ([1, 2, 2], [0.5, 0.25, 0.25])
    """
    tensor = response_tensor(R)
    integer_argument("max_iter", max_iter, 1)
    _positive_float("tol", tol, minimum=0.0)
    p = paired(events_of(tensor))
    return _result(average_twins(_plackett_luce_ml(p), p.twins), method, return_scores)


def plackett_luce_map(
    R: Any,  # noqa: N803
    prior: Prior | float = 1.0,
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 500,
) -> RankResult:
    r"""Rank models by Plackett-Luce MAP strengths (a prior on the centred
    log-strengths; a number is a zero-mean Gaussian's variance).

    .. math::

        \hat\theta = \arg\min_{\sum\theta = 0}
        \Big[-\sum_{i \ne j} W_{ij}\big(\theta_i - \log(e^{\theta_i} + e^{\theta_j})\big)
        + P(\theta)\Big], \qquad s_i = e^{\hat\theta_i}

    With a :class:`UniformPrior` it is :func:`plackett_luce` (strengths
    summing to 1), as in scorio.

    References:
        Luce, R. D. (1959). Individual Choice Behavior. Wiley.

        Hunter, D. R. (2004). MM algorithms for generalized Bradley-Terry
        models. The Annals of Statistics.

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
        >>> plackett_luce_map(R, prior=1.0).tolist()
        [1, 2]
    """
    tensor = response_tensor(R)
    integer_argument("max_iter", max_iter, 1)
    prior = coerce_prior(prior, "luce")
    p = paired(events_of(tensor))
    if type(prior) is UniformPrior:
        scores = _plackett_luce_ml(p)
    else:
        start = p.log_win_shares()
        theta = fit_pairs(p, "plackett_luce_map", "bradley_terry", terms=terms_of(prior, p.models), init=start).theta
        scores = strengths(np.asarray(theta))
    if is_exchangeable(prior):
        scores = average_twins(scores, p.twins)
    return _result(scores, method, return_scores)


# ---------------------------------------------------------------------------
# Setwise likelihoods.


def _fit_events(events: Events, name: str, kind: str, prior: Prior | None) -> _kscore.PairwiseFit:
    """A setwise likelihood's exact optimum (centred log-strengths)."""
    terms = None if prior is None else terms_of(prior, events.models)
    result = _kscore.choice_fit(events.bits, events.events, kind, **prior_arguments(terms))
    if not result.converged:
        raise RuntimeError(
            f"{name}: the Newton fit did not converge (relative residual {result.residual / result.scale:.3g})"
        )
    return result


def _flat_direction(result: _kscore.PairwiseFit) -> bool:
    """Whether the likelihood is flat to rounding along some centred
    direction at the fit: its supremum lies at infinity there (the fit
    stopped where the gradient vanished to rounding on the way)."""
    H = result.hessian
    L = H.shape[0]
    if L < 2:
        return False
    # The Hessian on the centred directions: an orthonormal basis of them
    # is every column but the last of the Householder reflection that
    # swaps e_L and 1/sqrt(L). Its smallest curvature is below the bound
    # iff C - bound * I has no Cholesky factor (one factorisation, not
    # every eigenvalue: 0.3 ms instead of 19 ms CPU at 100 models).
    v = np.full(L, 1.0 / np.sqrt(L))
    v[-1] -= 1.0
    V = (np.eye(L) - (2.0 / float(v @ v)) * np.outer(v, v))[:, : L - 1]
    C = V.T @ H @ V - _FLAT * result.scale * np.eye(L - 1)
    try:
        np.linalg.cholesky(C)
    except np.linalg.LinAlgError:
        return True
    return False


def _tie_order(max_tie_order: Any, models: int, memberships: npt.NDArray[np.float64]) -> int:
    """scorio's checks of ``max_tie_order`` against the observed winner sets."""
    if max_tie_order is None:
        max_tie_order = max(models - 1, 1)
    order = integer_argument("max_tie_order", max_tie_order, 1)
    if order > models:
        raise ValueError(f"max_tie_order must be <= number of models ({models})")
    if np.any(memberships[:, order:] > 0):
        raise ValueError(
            "Observed winner-set size exceeds max_tie_order; increase "
            "max_tie_order so every observed event has positive model probability."
        )
    return order


def _average_rows(scores: Floats, statistics: npt.NDArray[np.float64]) -> Floats:
    """Models with identical rows of ``statistics`` get their mean score."""
    _, groups = np.unique(statistics, axis=0, return_inverse=True)
    groups = groups.reshape(-1)
    if np.unique(groups).size == groups.size:
        return scores
    result = scores.copy()
    for group in np.unique(groups).tolist():
        members = np.flatnonzero(groups == group)
        if members.size > 1:
            result[members] = float(np.mean(scores[members]))
    return result


#: The maximum-likelihood rankers pass this instead of a prior.
_ML = object()


def _davidson_luce(
    R: Any, prior: Any, name: str, max_iter: Any, max_tie_order: Any
) -> tuple[Floats, Any, Prior | None]:  # noqa: N803
    """Strengths, scorio's equivalence statistics and the prior (None for ML)."""
    tensor = response_tensor(R)
    integer_argument("max_iter", max_iter, 1)
    given = None if prior is _ML else coerce_prior(prior, "luce")
    events = events_of(tensor)
    kept, memberships, _, connected = _kscore.choice_events(events.bits, events.events)
    L = tensor.shape[0]
    _tie_order(max_tie_order, L, memberships)
    fitted = None if given is None or type(given) is UniformPrior else given
    if kept == 0:
        return np.ones(L) / L, memberships, given
    if fitted is None and not connected:
        raise ValueError(
            "Davidson-Luce has no finite maximum-likelihood strength estimate "
            "because its win/co-winner graph is not strongly connected; use "
            "davidson_luce_map with a proper prior."
        )
    try:
        result = _fit_events(events, name, "davidson_luce", fitted)
    except ValueError as exc:
        if fitted is None and "without bound" in str(exc):
            raise ValueError(_DL_UNBOUNDED) from exc
        raise
    if fitted is None and _flat_direction(result):
        raise ValueError(_DL_UNBOUNDED)
    return strengths(np.asarray(result.theta)), memberships, given


#: A curvature below this, relative to the number of events, is flat: the
#: legitimate optima of Davidson-Luce measured here have their smallest
#: curvature above 1e-4 of it (even with log-strengths spread over 170, as
#: sets of 50 winners give), the ones at infinity below 1e-12. scorio's
#: graph test does not see these (winner sets that are best sets along some
#: direction); its optimiser stops at an arbitrary point far out.
_FLAT = 1e-9
_DL_UNBOUNDED = (
    "Davidson-Luce has no finite maximum-likelihood strength estimate: the likelihood keeps "
    "increasing as the strengths of some models grow without bound (every observed winner set is "
    "a best set of its size along one direction); use davidson_luce_map with a proper prior."
)


def davidson_luce(
    R: Any,  # noqa: N803
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 500,
    max_tie_order: int | None = None,
) -> RankResult:
    r"""Rank models by Davidson-Luce maximum likelihood (setwise ties).

    Each event's winner set :math:`W` (:math:`t = |W|`) among all models:

    .. math::

        \Pr(W) = \frac{\delta_t \big(\prod_{i \in W} \alpha_i\big)^{1/t}}
        {\sum_{t'=1}^{D} \delta_{t'} \sum_{|T| = t'} \big(\prod_{i \in T} \alpha_i\big)^{1/t'}},
        \qquad \delta_1 = 1,

    the strengths :math:`\alpha` (centred in log) maximising it with the
    :math:`\delta_t` maximised out: unobserved sizes get
    :math:`\delta_t = 0`, and :math:`D` (``max_tie_order``, default
    ``L - 1``) does not change the strengths once it admits every observed
    winner set.

    References:
        Firth, D., Kosmidis, I., & Turner, H. L. (2019). Davidson-Luce
        model for multi-item choice with ties. arXiv:1909.07123.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        method: tie rule (see :func:`kscore.rank.avg`).
        return_scores: also return the strengths.
        max_iter: scorio's iteration budget (validated only).
        max_tie_order: the largest winner-set size ``D`` (at most ``L``).

    Returns:
        The ranks ``(L,)``, or ``(ranks, strengths)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0]])
        >>> davidson_luce(R).tolist()
        [1, 2, 2]
    """
    scores, memberships, _ = _davidson_luce(R, _ML, "davidson_luce", max_iter, max_tie_order)
    return _result(_average_rows(scores, memberships), method, return_scores)


def davidson_luce_map(
    R: Any,  # noqa: N803
    prior: Prior | float = 1.0,
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 500,
    max_tie_order: int | None = None,
) -> RankResult:
    r"""Rank models by Davidson-Luce MAP strengths (a prior on the centred
    log-strengths, the :math:`\delta_t` maximised out as in
    :func:`davidson_luce`).

    .. math::

        \hat\theta = \arg\min_{\sum\theta = 0}
        \Big[\min_{\delta} -\log p(W \mid \theta, \delta) + P(\theta)\Big]

    References:
        Firth, D., Kosmidis, I., & Turner, H. L. (2019). Davidson-Luce
        model for multi-item choice with ties. arXiv:1909.07123.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        prior: a :class:`Prior`, or a positive variance.
        method: tie rule (see :func:`kscore.rank.avg`).
        return_scores: also return the strengths.
        max_iter: scorio's iteration budget (validated only).
        max_tie_order: the largest winner-set size ``D`` (at most ``L``).

    Returns:
        The ranks ``(L,)``, or ``(ranks, strengths)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 1]], [[0, 0], [0, 0]]])
        >>> davidson_luce_map(R, prior=1.0).tolist()
        [1, 2]
    """
    scores, memberships, given = _davidson_luce(R, prior, "davidson_luce_map", max_iter, max_tie_order)
    assert given is not None
    if is_exchangeable(given):
        scores = _average_rows(scores, memberships)
    return _result(scores, method, return_scores)


def _bradley_terry_luce(R: Any, prior: Any, max_iter: Any) -> tuple[Floats, npt.NDArray[Any], Prior | None]:  # noqa: N803
    """Strengths, the tensor and the prior (None for ML)."""
    tensor = response_tensor(R)
    integer_argument("max_iter", max_iter, 1)
    given = None if prior is _ML else coerce_prior(prior, "luce")
    fitted = None if given is None or type(given) is UniformPrior else given
    events = events_of(tensor)
    kept, _, connected, _ = _kscore.choice_events(events.bits, events.events)
    L = tensor.shape[0]
    if kept == 0:
        return np.ones(L) / L, tensor, given
    if fitted is None and not connected:
        raise ValueError(
            "Bradley-Terry-Luce has no finite maximum-likelihood estimate "
            "because the directed choice graph is not strongly connected; "
            "use bradley_terry_luce_map for a regularized estimate."
        )
    theta = np.asarray(_fit_events(events, "bradley_terry_luce", "composite", fitted).theta)
    return strengths(theta), tensor, given


def bradley_terry_luce(
    R: Any,  # noqa: N803
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 500,
) -> RankResult:
    r"""Rank models by Bradley-Terry-Luce composite likelihood (rank breaking).

    Each winner :math:`i` of an event is a Luce choice from itself and the
    event's losers :math:`L`:

    .. math::

        \ell(\pi) = \sum_{(W, L)} \sum_{i \in W}
        \Big[\log \pi_i - \log\Big(\pi_i + \sum_{j \in L} \pi_j\Big)\Big]

    References:
        Luce, R. D. (1959). Individual Choice Behavior. Wiley.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        method: tie rule (see :func:`kscore.rank.avg`).
        return_scores: also return the strengths.
        max_iter: scorio's iteration budget (validated only).

    Returns:
        The ranks ``(L,)``, or ``(ranks, strengths)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0]])
        >>> bradley_terry_luce(R).tolist()
        [1, 2, 2]
    """
    scores, tensor, _ = _bradley_terry_luce(R, _ML, max_iter)
    return _result(average_orbits(scores, tensor), method, return_scores)


def bradley_terry_luce_map(
    R: Any,  # noqa: N803
    prior: Prior | float = 1.0,
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 500,
) -> RankResult:
    r"""Rank models by Bradley-Terry-Luce composite-likelihood MAP strengths.

    .. math::

        \hat\theta = \arg\min_{\sum\theta = 0}\big[-\ell(e^\theta) + P(\theta)\big]

    References:
        Luce, R. D. (1959). Individual Choice Behavior. Wiley.

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
        >>> bradley_terry_luce_map(R, prior=1.0).tolist()
        [1, 2]
    """
    scores, tensor, given = _bradley_terry_luce(R, prior, max_iter)
    assert given is not None
    if is_exchangeable(given):
        scores = average_orbits(scores, tensor)
    return _result(scores, method, return_scores)


# ---------------------------------------------------------------------------
# Exchangeable models (scorio's average_event_exchangeable_scores).

#: Models whose fitted scores differ by more than this (relative) are not
#: searched for a symmetry: the exact optimum gives symmetric models equal
#: strengths, so only near-equal ones can be.
_CANDIDATE = 1e-6


def average_orbits(scores: Floats, tensor: npt.NDArray[Any]) -> Floats:
    """Average the scores of models exchanged by a symmetry of the data: a
    simultaneous permutation of models and events that maps the response
    matrix to itself (scorio's search, run only between models whose
    scores agree to 1e-6)."""
    L = scores.size
    data = np.asarray(tensor).reshape(L, -1)
    parent = list(range(L))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    signatures: list[tuple[Any, ...]] = []
    for first in range(L):
        for second in range(first + 1, L):
            if find(first) == find(second):
                continue
            a, b = scores[first], scores[second]
            if abs(a - b) > _CANDIDATE * max(abs(a), abs(b)):
                continue
            if not signatures:  # made on the first candidate pair only (24 ms at 100 x 8000)
                signatures = [tuple(np.sort(row).tolist()) for row in data]
            mapping = _automorphism(data, signatures, first, second)
            if mapping is None:
                continue
            for source, target in enumerate(mapping):
                ra, rb = find(source), find(target)
                if ra != rb:
                    parent[rb] = ra
    groups = np.array([find(i) for i in range(L)])
    return _average_rows(scores, groups[:, None].astype(np.float64))


def _projection_matches(data: npt.NDArray[Any], source: list[int], target: list[int]) -> bool:
    """The columns of ``data[source]`` and ``data[target]`` are the same multiset."""
    s, t = data[source], data[target]
    return bool(np.array_equal(s[:, np.lexsort(s[::-1, :])], t[:, np.lexsort(t[::-1, :])]))


def _automorphism(
    data: npt.NDArray[Any], signatures: list[tuple[Any, ...]], source: int, target: int
) -> list[int] | None:
    """A row bijection extending ``source -> target`` whose rows, with some
    permutation of the columns, reproduce the data (backtracking over rows
    with equal value multisets, pruned by the columns' multisets)."""
    L = data.shape[0]
    if signatures[source] != signatures[target] or not _projection_matches(data, [source], [target]):
        return None
    sizes: dict[tuple[Any, ...], int] = {}
    for signature in signatures:
        sizes[signature] = sizes.get(signature, 0) + 1
    order = sorted((i for i in range(L) if i != source), key=lambda i: sizes[signatures[i]])
    sources, targets = [source], [target]
    used = {target}
    mapping = [-1] * L
    mapping[source] = target

    def search() -> bool:
        if len(sources) == L:
            return True
        chosen = set(sources)
        nxt = next(i for i in order if i not in chosen)
        candidates = [
            t
            for t in range(L)
            if t not in used
            and signatures[t] == signatures[nxt]
            and _projection_matches(data, [*sources, nxt], [*targets, t])
        ]
        sources.append(nxt)
        for t in candidates:
            used.add(t)
            targets.append(t)
            mapping[nxt] = t
            if search():
                return True
            mapping[nxt] = -1
            targets.pop()
            used.discard(t)
        sources.pop()
        return False

    return mapping if search() else None
