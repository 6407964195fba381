"""``rasch_2pl``, ``rasch_2pl_map``, ``rasch_3pl`` and ``rasch_3pl_map``:
the two- and three-parameter logistic models by regularised joint
likelihood and by MAP, drop-in for scorio.rank 0.2.3's."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .._ties import RankMethod
from . import _board, _joint, _priors
from ._checks import fix_guessing as check_fix_guessing
from ._checks import guessing_upper as check_guessing_upper
from ._checks import nonnegative_float, positive_int
from ._rasch import IrtResult, result


def _require_joint(k: npt.NDArray[Any], N: int, label: str) -> None:  # noqa: N803
    L, M = k.shape
    rows, cols = _board.totals(k)
    _board.require_finite_person(rows, M, N, label)
    _board.require_finite_items(cols, L, N, label)
    _board.require_no_separation(k, N, label)


def _fit(
    k: npt.NDArray[Any],
    N: int,  # noqa: N803
    prior: Any,
    *,
    label: str,
    name: str,
    guess: _joint.Guess | None,
    reg_discrimination: float,
    max_iter: int,
    orbit: npt.NDArray[np.int64],
) -> _joint.LogisticFit:
    """The ML fit (``prior`` None: scorio's checks first) or the MAP fit
    (scorio's item check only)."""
    L = k.shape[0]
    if prior is None:
        _require_joint(k, N, label)
        spec: Any = _priors.FLAT
        exchangeable = True
    else:
        _, cols = _board.totals(k)
        _board.require_finite_items(cols, L, N, f"{label} MAP")
        spec = _priors.spec(prior, L)
        if spec is None:
            spec = prior
        exchangeable = _priors.is_exchangeable(prior)
    fit = _joint.logistic(
        k,
        N,
        name=name,
        prior=spec,
        guess=guess,
        reg_discrimination=reg_discrimination,
        max_iter=max_iter,
        exchangeable=exchangeable,
        orbit=orbit,
    )
    _joint.require_stable(fit.theta, fit.beta, fit.item(1), name)
    return fit


def _require_scale(map_fit: bool, reg: float, label: str) -> None:
    """scorio's refusal of a joint ML fit without a ridge on ``log a``."""
    if not map_fit and reg == 0.0:
        raise ValueError(
            f"reg_discrimination must be positive for {label} joint estimation; "
            "without it, the ability/discrimination scale is not identified."
        )


def _counts_and_prior(R: Any, prior: Any, reg: float, label: str) -> tuple[npt.NDArray[Any], int, Any, str]:  # noqa: N803
    """The counts, the prior (None: the joint ML fit, which a uniform prior
    is, as in scorio: then it needs the ridge) and the fit's name."""
    k, N = _board.counts(R)
    if prior is not None:
        prior = _priors.coerce(prior)
        if _priors.is_uniform(prior):
            if reg <= 0.0:
                raise ValueError(f"reg_discrimination must be positive for an identified {label} joint fit.")
            prior = None
    name = f"rasch_{label.lower()}" + ("" if prior is None else "_map")
    return k, N, prior, name


def _abilities(fit: _joint.LogisticFit, orbit: npt.NDArray[np.int64], prior: Any) -> npt.NDArray[np.float64]:
    """The abilities, averaged over equivalent models as scorio does unless
    a prior tells them apart."""
    if prior is None or _priors.is_exchangeable(prior):
        return _board.average_over_orbits(fit.theta, orbit)
    return fit.theta.copy()


def _two_pl(
    R: Any, prior: Any, method: str, return_scores: bool, max_iter: Any, return_item_params: bool, reg: Any  # noqa: N803
) -> IrtResult:
    max_iter = positive_int("max_iter", max_iter)
    reg = nonnegative_float("reg_discrimination", reg)
    _require_scale(prior is not None, reg, "2PL")
    k, N, prior, name = _counts_and_prior(R, prior, reg, "2PL")
    orbit = _board.orbits(k)
    fit = _fit(k, N, prior, label="2PL", name=name, guess=None, reg_discrimination=reg, max_iter=max_iter, orbit=orbit)
    params = {"difficulty": fit.beta, "discrimination": np.exp(fit.item(1))} if return_item_params else None
    return result(_abilities(fit, orbit, prior), method, return_scores, params)


def rasch_2pl(
    R: Any,  # noqa: N803
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 500,
    return_item_params: bool = False,
    reg_discrimination: float = 0.01,
) -> IrtResult:
    r"""Rank models by 2PL abilities, fitted by regularised joint likelihood.

    .. math::

        k_{lm} \sim \mathrm{Binomial}\bigl(N, \sigma(a_m(\theta_l - b_m))\bigr),
        \qquad \text{penalty } \lambda \sum_m (\log a_m)^2

    (``reg_discrimination`` :math:`= \lambda > 0` fixes the scale). The
    objective is not convex: kscore returns the optimum its Newton path from
    scorio's start reaches, to rounding, and runs scorio's audit (refits from
    perturbed starts when the fit looks suspicious; ValueError when equally
    good fits rank differently).

    References:
        Birnbaum, A. (1968). Some Latent Trait Models and Their Use in
        Inferring an Examinee's Ability. In Statistical Theories of Mental
        Test Scores.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        method: tie rule.
        return_scores: also return the abilities.
        max_iter: most Newton iterations.
        return_item_params: also return ``{"difficulty": b, "discrimination": a}``.
        reg_discrimination: positive ridge on ``log a``.

    Returns:
        ranks, ``(ranks, theta)`` or ``(ranks, theta, params)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0]])
        >>> rasch_2pl(R).tolist()
        [1, 2, 2]
    """
    return _two_pl(R, None, method, return_scores, max_iter, return_item_params, reg_discrimination)


def rasch_2pl_map(
    R: Any,  # noqa: N803
    prior: Any = 1.0,
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 500,
    return_item_params: bool = False,
    reg_discrimination: float = 0.01,
) -> IrtResult:
    r"""Rank models by 2PL abilities fitted by MAP (a prior on abilities).

    .. math::

        \arg\min\; -\sum_{l,m} \log p(k_{lm} \mid \theta_l, a_m, b_m)
        + P(\theta) + \lambda \sum_m (\log a_m)^2

    References:
        Birnbaum, A. (1968), as :func:`rasch_2pl`; Mislevy, R. J. (1986).
        Bayes modal estimation in item response models. Psychometrika.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        prior: a ``Prior`` or a positive float (Gaussian variance).
        method: tie rule.
        return_scores: also return the abilities.
        max_iter: most Newton iterations.
        return_item_params: also return ``{"difficulty": b, "discrimination": a}``.
        reg_discrimination: ridge on ``log a`` (``>= 0``).

    Returns:
        ranks, ``(ranks, theta)`` or ``(ranks, theta, params)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 1]], [[0, 0], [0, 0]]])
        >>> rasch_2pl_map(R, prior=1.0).tolist()
        [1, 2]
    """
    return _two_pl(R, prior, method, return_scores, max_iter, return_item_params, reg_discrimination)


def _three_pl(
    R: Any,  # noqa: N803
    prior: Any,
    method: str,
    return_scores: bool,
    max_iter: Any,
    fix_guessing: Any,
    return_item_params: bool,
    reg_discrimination: Any,
    reg_guessing: Any,
    guessing_upper: Any,
) -> IrtResult:
    max_iter = positive_int("max_iter", max_iter)
    reg_d = nonnegative_float("reg_discrimination", reg_discrimination)
    reg_g = nonnegative_float("reg_guessing", reg_guessing)
    upper = check_guessing_upper(guessing_upper)
    fixed = check_fix_guessing(fix_guessing, upper)
    _require_scale(prior is not None, reg_d, "3PL")
    if fixed is None and reg_g == 0.0:
        raise ValueError(
            "reg_guessing must be positive when 3PL guessing parameters are "
            "estimated, so boundary guessing logits cannot diverge."
        )
    k, N, prior, name = _counts_and_prior(R, prior, reg_d, "3PL")
    orbit = _board.orbits(k)
    guess = _joint.Guess(fixed=fixed, upper=upper, reg=reg_g)
    fit = _fit(
        k, N, prior, label="3PL", name=name, guess=guess, reg_discrimination=reg_d, max_iter=max_iter, orbit=orbit
    )
    M = k.shape[1]
    if fixed is None:
        logit_c = fit.item(2)
        if np.max(np.abs(logit_c)) > 30.0:
            raise ValueError(
                f"{name} guessing parameters saturated at a boundary; "
                "use stronger guessing regularization or fix_guessing."
            )
        c = upper / (1.0 + np.exp(-logit_c))
    else:
        c = np.full(M, fixed)
    params = (
        {"difficulty": fit.beta, "discrimination": np.exp(fit.item(1)), "guessing": c} if return_item_params else None
    )
    return result(_abilities(fit, orbit, prior), method, return_scores, params)


def rasch_3pl(
    R: Any,  # noqa: N803
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 500,
    fix_guessing: float | None = None,
    return_item_params: bool = False,
    reg_discrimination: float = 0.01,
    reg_guessing: float = 0.1,
    guessing_upper: float = 0.5,
) -> IrtResult:
    r"""Rank models by 3PL abilities, fitted by regularised joint likelihood.

    .. math::

        p_{lm} = c_m + (1 - c_m)\,\sigma\bigl(a_m(\theta_l - b_m)\bigr),
        \qquad c_m = u\,\sigma(\gamma_m) \in [0, u]

    with ridges on :math:`\log a` and :math:`\gamma`, or ``c`` fixed
    (``fix_guessing``). Not convex: the optimum kscore's Newton path from
    scorio's start reaches, with scorio's audit (see :func:`rasch_2pl`).

    References:
        Lord, F. M. (1980). Applications of Item Response Theory to
        Practical Testing Problems. Birnbaum, A. (1968).

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        method: tie rule.
        return_scores: also return the abilities.
        max_iter: most Newton iterations.
        fix_guessing: a fixed ``c`` in ``[0, guessing_upper]``, or None.
        return_item_params: also return difficulty, discrimination and guessing.
        reg_discrimination: positive ridge on ``log a``.
        reg_guessing: ridge on the guessing logits (positive when estimated).
        guessing_upper: the upper bound ``u`` of ``c``, in ``(0, 1)``.

    Returns:
        ranks, ``(ranks, theta)`` or ``(ranks, theta, params)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0]])
        >>> rasch_3pl(R, fix_guessing=0.1).tolist()
        [1, 2, 2]
    """
    return _three_pl(
        R,
        None,
        method,
        return_scores,
        max_iter,
        fix_guessing,
        return_item_params,
        reg_discrimination,
        reg_guessing,
        guessing_upper,
    )


def rasch_3pl_map(
    R: Any,  # noqa: N803
    prior: Any = 1.0,
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 500,
    fix_guessing: float | None = None,
    return_item_params: bool = False,
    reg_discrimination: float = 0.01,
    reg_guessing: float = 0.1,
    guessing_upper: float = 0.5,
) -> IrtResult:
    r"""Rank models by 3PL abilities fitted by MAP (a prior on abilities).

    .. math::

        \arg\min\; -\sum_{l,m} \log p_{lm} + P(\theta)
        + \lambda_a \sum_m (\log a_m)^2 + \lambda_c \sum_m \gamma_m^2

    References:
        Lord, F. M. (1980), as :func:`rasch_3pl`; Mislevy, R. J. (1986).

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        prior: a ``Prior`` or a positive float (Gaussian variance).
        method: tie rule.
        return_scores: also return the abilities.
        max_iter: most Newton iterations.
        fix_guessing: a fixed ``c``, or None.
        return_item_params: also return difficulty, discrimination and guessing.
        reg_discrimination: ridge on ``log a`` (``>= 0``).
        reg_guessing: ridge on the guessing logits.
        guessing_upper: the upper bound of ``c``.

    Returns:
        ranks, ``(ranks, theta)`` or ``(ranks, theta, params)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 0]], [[0, 1], [0, 0]]])
        >>> rasch_3pl_map(R, fix_guessing=0.2).tolist()
        [1, 2]
    """
    return _three_pl(
        R,
        prior,
        method,
        return_scores,
        max_iter,
        fix_guessing,
        return_item_params,
        reg_discrimination,
        reg_guessing,
        guessing_upper,
    )
