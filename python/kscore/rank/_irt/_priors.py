"""Ability priors as the Rust fits take them.

scorio's MAP rankers take a ``Prior`` object or a float (a Gaussian prior's
variance, ``_coerce_ability_prior``) and differentiate its five built-in
classes analytically, by exact type (``_prior_gradient``); any other prior
gets a central-difference gradient. kscore reads the built-in classes by
the same exact-type rule (their names and parameters, so that scorio's and
kscore's prior objects both work) and hands them to the Newton fits; other
priors take the fallback of ``_custom.py``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

#: Priors whose penalty is unchanged by relabelling models (scorio's
#: ``_prior_is_exchangeable``): their fits average equivalent models' scores.
_EXCHANGEABLE = frozenset({"GaussianPrior", "LaplacePrior", "CauchyPrior", "UniformPrior"})


@dataclass(frozen=True)
class PriorSpec:
    """A prior for the Rust fits: ``kind`` ("flat", "gaussian", "laplace",
    "cauchy") with its location ``a`` and variance or scale ``b``; a Gaussian
    may have per-model ``means`` (``EmpiricalPrior``) and ``variances`` (the
    quadratic stand-in for a custom prior, ``_custom.py``)."""

    kind: str
    a: float = 0.0
    b: float = 1.0
    means: npt.NDArray[np.float64] | None = None
    variances: npt.NDArray[np.float64] | None = None

    @property
    def per_model(self) -> bool:
        """Whether models with equal data may get different abilities."""
        return self.means is not None or self.variances is not None

    def arguments(self) -> dict[str, Any]:
        """Keyword arguments of ``_kscore.irt_rasch`` / ``irt_logistic``."""
        return {
            "prior": self.kind,
            "prior_a": self.a,
            "prior_b": self.b,
            "prior_means": self.means,
            "prior_variances": self.variances,
        }


FLAT = PriorSpec("flat")


def coerce(prior: Any) -> Any:
    """A float is a Gaussian prior's variance; otherwise a prior object (with
    a ``penalty`` method), else scorio's TypeError."""
    if isinstance(prior, (int, float)):
        var = float(prior)
        if not np.isfinite(var) or var <= 0.0:
            raise ValueError("prior variance must be a positive finite scalar.")
        return _Gaussian(0.0, var)
    if callable(getattr(prior, "penalty", None)):
        return prior
    raise TypeError(f"prior must be a Prior object or float, got {type(prior).__name__}")


class _Gaussian:
    """The Gaussian prior a float stands for (scorio builds a
    ``GaussianPrior``; only its name and parameters are read here)."""

    def __init__(self, mean: float, var: float) -> None:
        self.mean = mean
        self.var = var

    def penalty(self, theta: npt.NDArray[np.float64]) -> float:
        return float(((theta - self.mean) ** 2).sum() / (2 * self.var))


_Gaussian.__name__ = "GaussianPrior"
_Gaussian.__qualname__ = "GaussianPrior"


def kind(prior: Any) -> str:
    """The class name scorio's exact-type tests see."""
    return type(prior).__name__


def is_uniform(prior: Any) -> bool:
    return kind(prior) == "UniformPrior"


def is_exchangeable(prior: Any) -> bool:
    return kind(prior) in _EXCHANGEABLE


def spec(prior: Any, n_models: int) -> PriorSpec | None:
    """The Rust form of a built-in prior, or None for any other."""
    name = kind(prior)
    try:
        if name == "GaussianPrior":
            return PriorSpec("gaussian", float(prior.mean), float(prior.var))
        if name == "LaplacePrior":
            return PriorSpec("laplace", float(prior.loc), float(prior.scale))
        if name == "CauchyPrior":
            return PriorSpec("cauchy", float(prior.loc), float(prior.scale))
        if name == "UniformPrior":
            return FLAT
        if name == "EmpiricalPrior":
            means = np.ascontiguousarray(prior.prior_mean, dtype=np.float64)
            if means.shape != (n_models,):
                # scorio's penalty raises on the first evaluation.
                raise ValueError(
                    f"theta length ({n_models}) must match number of models ({len(prior.prior_mean)})"
                )
            return PriorSpec("gaussian", 0.0, float(prior.var), means)
    except (AttributeError, TypeError):
        return None
    return None
