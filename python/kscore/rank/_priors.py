r"""scorio.rank 0.2.3's priors on log-strengths, and what an exact fit needs
from them.

The seven classes (``Prior``, ``GaussianPrior``, ``LaplacePrior``,
``CauchyPrior``, ``UniformPrior``, ``CustomPrior``, ``EmpiricalPrior``) have
scorio's constructors, attributes, validation (types and messages) and
``penalty`` values. A MAP ranker minimises

.. math::

    \mathrm{NLL}(\theta) + P(\theta), \qquad \textstyle\sum_i \theta_i = 0,

as scorio does (it centres ``theta`` before the penalty). :func:`terms_of`
turns a prior into :class:`PriorTerms`: the penalty with its gradient and
Hessian diagonal, which the Newton solvers of the Rust core use:

- Gaussian and empirical priors: quadratic, exact derivatives;
- Cauchy: exact derivatives; the penalty is not convex (the Hessian diagonal
  is negative beyond one scale from ``loc``), so the solver's Newton step
  is safeguarded (it adds a multiple of the identity until the Hessian is
  positive definite and always line-searches);
- Laplace: ``|theta_i - loc| / scale`` has a kink at ``loc``; the solver
  treats it exactly (an active set of coordinates held at ``loc`` while
  the subgradient condition holds), so its optimum is the exact minimiser,
  coordinates sitting exactly at ``loc`` included;
- uniform: no penalty (the rankers fit the maximum likelihood, as scorio);
- custom priors (``CustomPrior``, and any other ``Prior`` subclass, whose
  ``penalty`` may be anything): fourth-order central differences of
  ``penalty`` along centred directions (gradient error about 1e-11 of the
  penalty's scale) and the matching second differences for the Hessian
  diagonal.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]


def _finite_scalar(value: Any, name: str) -> float:
    """``value`` as a finite float; scorio's TypeError for non-scalars."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a finite scalar")
    try:
        number = float(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a finite scalar") from exc
    except OverflowError as exc:
        raise ValueError(f"{name} must be finite") from exc
    if not np.isfinite(number):
        raise ValueError(f"{name} must be finite")
    return number


def _location_scale(loc: Any, scale: Any) -> tuple[float, float]:
    """A finite location and a positive finite scale (scorio's messages)."""
    location = _finite_scalar(loc, "Location")
    spread = _finite_scalar(scale, "Scale")
    if spread <= 0:
        raise ValueError("Scale must be positive")
    return location, spread


class Prior(ABC):
    """A prior penalty ``P(theta)`` (minus the log-prior, up to a constant)
    on the centred log-strengths of a MAP ranker.

    Examples:
        >>> class Ridge(Prior):
        ...     def penalty(self, theta: np.ndarray) -> float:
        ...         return float(np.sum(theta**2))
        >>> Ridge().penalty(np.array([1.0, -2.0]))
        5.0
    """

    @abstractmethod
    def penalty(self, theta: np.ndarray) -> float:
        """The penalty ``P(theta)`` of a log-strength vector ``(L,)``."""


class GaussianPrior(Prior):
    r"""Isotropic Gaussian prior: :math:`P(\theta) = \sum_i (\theta_i - \mathrm{mean})^2 / (2\,\mathrm{var})`.

    Examples:
        >>> GaussianPrior(mean=0.0, var=1.0).penalty(np.array([0.5, -0.5]))
        0.25
    """

    def __init__(self, mean: float = 0.0, var: float = 1.0):
        mean = _finite_scalar(mean, "Mean")
        var = _finite_scalar(var, "Variance")
        if var <= 0:
            raise ValueError("Variance must be positive")
        self.mean = mean
        self.var = var

    def penalty(self, theta: np.ndarray) -> float:
        return float(((theta - self.mean) ** 2).sum() / (2 * self.var))


class LaplacePrior(Prior):
    r"""Laplace prior: :math:`P(\theta) = \sum_i |\theta_i - \mathrm{loc}| / \mathrm{scale}`.

    Examples:
        >>> LaplacePrior(loc=0.0, scale=1.0).penalty(np.array([0.5, -0.5]))
        1.0
    """

    def __init__(self, loc: float = 0.0, scale: float = 1.0):
        self.loc, self.scale = _location_scale(loc, scale)

    def penalty(self, theta: np.ndarray) -> float:
        return float(np.abs(theta - self.loc).sum() / self.scale)


class CauchyPrior(Prior):
    r"""Cauchy prior: :math:`P(\theta) = \sum_i \log(1 + ((\theta_i - \mathrm{loc}) / \mathrm{scale})^2)`.

    Examples:
        >>> round(CauchyPrior(loc=0.0, scale=1.0).penalty(np.array([2.0, -2.0])), 3)
        3.219
    """

    def __init__(self, loc: float = 0.0, scale: float = 1.0):
        self.loc, self.scale = _location_scale(loc, scale)

    def penalty(self, theta: np.ndarray) -> float:
        z = (theta - self.loc) / self.scale
        return float(np.log1p(z**2).sum())


class UniformPrior(Prior):
    """Improper uniform prior: no penalty (MAP is maximum likelihood).

    Examples:
        >>> UniformPrior().penalty(np.array([100.0, -100.0]))
        0.0
    """

    def penalty(self, theta: np.ndarray) -> float:
        return 0.0


class CustomPrior(Prior):
    """A user's penalty: ``penalty_fn(theta)`` (a callable to a scalar).

    Examples:
        >>> prior = CustomPrior(lambda theta: np.log1p(theta**2).sum())
        >>> float(prior.penalty(np.array([0.0, 1.0]))) > 0.0
        True
    """

    def __init__(self, penalty_fn: Callable[[np.ndarray], float]):
        if not callable(penalty_fn):
            raise ValueError("penalty_fn must be callable")
        self._penalty_fn = penalty_fn

    def penalty(self, theta: np.ndarray) -> float:
        return self._penalty_fn(theta)


class EmpiricalPrior(Prior):
    r"""Gaussian prior around each model's centred empirical logit in ``R0``.

    :math:`\mu_i = \operatorname{logit}(\operatorname{clip}(\mathrm{acc}_i, \epsilon, 1 - \epsilon))`,
    centred, and :math:`P(\theta) = \sum_i (\theta_i - \mu_i)^2 / (2\,\mathrm{var})`.

    Reference: Hariri, M., Samandar, A., Hinczewski, M., & Chaudhary, V.
    (2026). Don't Pass@k: A Bayesian Framework for Large Language Model
    Evaluation. ICLR 2026.

    Examples:
        >>> R0 = np.array([[1, 1, 1, 0, 1], [0, 1, 0, 0, 1]])
        >>> EmpiricalPrior(R0, var=1.0).prior_mean.shape
        (2,)
    """

    def __init__(self, R0: np.ndarray, var: float = 1.0, eps: float = 1e-6):  # noqa: N803
        var = _finite_scalar(var, "Variance")
        if var <= 0:
            raise ValueError("Variance must be positive")
        eps = _finite_scalar(eps, "eps")
        if not 0.0 < eps < 0.5:
            raise ValueError("eps must be strictly between 0 and 0.5")
        outcomes = np.asarray(R0)
        if outcomes.ndim == 2:
            outcomes = outcomes[:, :, np.newaxis]
        elif outcomes.ndim != 3:
            raise ValueError(f"R0 must be 2D (L, M) or 3D (L, M, D), got ndim={outcomes.ndim}")
        if any(size == 0 for size in outcomes.shape):
            raise ValueError("R0 must be non-empty in every dimension")
        if not (np.issubdtype(outcomes.dtype, np.number) or np.issubdtype(outcomes.dtype, np.bool_)):
            raise ValueError(f"R0 must be numeric, got dtype {outcomes.dtype}")
        if np.issubdtype(outcomes.dtype, np.complexfloating):
            raise ValueError("R0 must contain real-valued outcomes")
        if not np.isfinite(outcomes).all():
            raise ValueError("R0 must not contain NaN or Inf values")
        if not np.all((outcomes == 0) | (outcomes == 1)):
            raise ValueError("R0 must contain only binary values (0 or 1)")
        outcomes = outcomes.astype(int, copy=False)
        self.R0 = outcomes
        self.var = var
        self.eps = eps
        # scorio's per-model means, in its order of operations (same bits).
        acc = np.clip(np.array([outcomes[model].mean() for model in range(outcomes.shape[0])]), eps, 1 - eps)
        prior_mean = np.log(acc / (1 - acc))
        self.prior_mean = prior_mean - prior_mean.mean()

    def penalty(self, theta: np.ndarray) -> float:
        _check_length(len(theta), len(self.prior_mean))
        return float(((theta - self.prior_mean) ** 2).sum() / (2 * self.var))


def _check_length(got: int, models: int) -> None:
    if got != models:
        raise ValueError(f"theta length ({got}) must match number of models ({models})")


# ---------------------------------------------------------------------------
# What a fit needs from a prior.

#: ``gaussian``: quadratic around ``mean`` (per model) with ``precision``;
#: ``laplace``: ``weight * sum |theta - loc|``; ``cauchy``: ``sum log1p(z^2)``,
#: ``z = (theta - loc) / scale``; ``custom``: ``penalty`` only (numeric
#: derivatives); ``none``: no penalty.
PriorKind = Literal["none", "gaussian", "laplace", "cauchy", "custom"]

#: Step of the numeric derivatives of a custom penalty, relative to
#: ``max(1, |theta_i|)``: fourth-order differences balance truncation
#: (h^4, ~1e-12) against rounding (eps / h, ~1e-13).
_STEP = 1e-3


@dataclass(frozen=True)
class PriorTerms:
    """A prior as the solvers see it, for ``L`` models.

    ``mean`` (Gaussian: per model), ``loc``, ``precision`` (Gaussian),
    ``weight`` (Laplace: ``1 / scale``) and ``scale`` (Cauchy) are set for
    their kinds; ``prior`` is the object itself (its ``penalty``).
    """

    kind: PriorKind
    prior: Prior
    models: int
    mean: Floats | None = None
    precision: float = 0.0
    loc: float = 0.0
    weight: float = 0.0
    scale: float = 1.0

    def value(self, theta: Floats) -> float:
        """The penalty at ``theta`` (scorio's ``penalty``)."""
        return float(self.prior.penalty(theta))

    def derivatives(self, theta: Floats) -> tuple[float, Floats, Floats]:
        """``(P, gradient, Hessian diagonal)`` at ``theta``.

        Laplace: the gradient is ``sign(theta - loc) * weight`` (0 at the
        kink: the solver handles coordinates at ``loc`` by their
        subgradient), the Hessian diagonal 0. Custom: along the centred
        directions ``e_i - 1/L`` (the penalty is only ever evaluated at
        centred vectors, as scorio does), so the gradient is the projected
        one.
        """
        theta = np.asarray(theta, dtype=np.float64)
        if self.kind == "none":
            zeros = np.zeros_like(theta)
            return 0.0, zeros, zeros.copy()
        if self.kind == "gaussian":
            assert self.mean is not None
            diff = theta - self.mean
            return (
                self.value(theta),
                diff * self.precision,
                np.full_like(theta, self.precision),
            )
        if self.kind == "laplace":
            return self.value(theta), np.sign(theta - self.loc) * self.weight, np.zeros_like(theta)
        if self.kind == "cauchy":
            z = (theta - self.loc) / self.scale
            one = 1.0 + z * z
            return (
                self.value(theta),
                2.0 * z / (self.scale * one),
                2.0 * (1.0 - z * z) / (self.scale * self.scale * one * one),
            )
        return self._numeric(theta)

    def _numeric(self, theta: Floats) -> tuple[float, Floats, Floats]:
        """Fourth-order central differences of ``penalty`` along ``e_i - 1/L``."""
        L = theta.size
        centre = self.value(theta)
        grad = np.empty(L)
        hess = np.empty(L)
        for i in range(L):
            h = _STEP * max(1.0, abs(float(theta[i])))
            direction = -np.full(L, 1.0 / L)
            direction[i] += 1.0
            f = [self.value(theta + (k * h) * direction) for k in (-2, -1, 1, 2)]
            grad[i] = (f[0] - 8.0 * f[1] + 8.0 * f[2] - f[3]) / (12.0 * h)
            hess[i] = (-f[0] + 16.0 * f[1] - 30.0 * centre + 16.0 * f[2] - f[3]) / (12.0 * h * h)
        return centre, grad, hess


def terms_of(prior: Prior, models: int) -> PriorTerms:
    """What the solvers need from ``prior`` for ``models`` models: the
    analytic kinds for scorio's own classes (exact types: a subclass may
    override ``penalty``), ``custom`` for anything else."""
    kind = type(prior)
    if kind is UniformPrior:
        return PriorTerms("none", prior, models)
    if kind is GaussianPrior:
        assert isinstance(prior, GaussianPrior)
        return PriorTerms("gaussian", prior, models, mean=np.full(models, prior.mean), precision=1.0 / prior.var)
    if kind is EmpiricalPrior:
        assert isinstance(prior, EmpiricalPrior)
        _check_length(models, len(prior.prior_mean))
        return PriorTerms(
            "gaussian", prior, models, mean=np.asarray(prior.prior_mean, dtype=np.float64), precision=1.0 / prior.var
        )
    if kind is LaplacePrior:
        assert isinstance(prior, LaplacePrior)
        return PriorTerms("laplace", prior, models, loc=prior.loc, weight=1.0 / prior.scale)
    if kind is CauchyPrior:
        assert isinstance(prior, CauchyPrior)
        return PriorTerms("cauchy", prior, models, loc=prior.loc, scale=prior.scale)
    return PriorTerms("custom", prior, models)


def is_exchangeable(prior: Prior) -> bool:
    """Whether relabelling models leaves the penalty unchanged (scorio's test,
    on exact types)."""
    return type(prior) in (GaussianPrior, LaplacePrior, CauchyPrior, UniformPrior)


#: scorio's two wordings of a bad numeric prior: the paired-comparison
#: rankers' and the Luce family's.
PriorFamily = Literal["paired", "luce"]


def coerce_prior(prior: Any, family: PriorFamily = "paired") -> Prior:
    """A ``Prior``, or a positive finite number read as a Gaussian variance
    around 0, with scorio's exceptions for anything else."""
    if isinstance(prior, bool):  # (numpy's bool is not a number: the TypeError below)
        raise TypeError("prior must be a Prior object or positive finite float")
    if isinstance(prior, (int, float, np.integer, np.floating)):
        var = float(prior)
        if not np.isfinite(var) or var <= 0.0:
            if family == "paired":
                raise ValueError("prior must be a positive finite scalar variance")
            raise ValueError(f"prior must be a finite scalar > 0.0, got {var}")
        return GaussianPrior(mean=0.0, var=var)
    if not isinstance(prior, Prior):
        raise TypeError(f"prior must be a Prior object or float, got {type(prior).__name__}")
    return prior
