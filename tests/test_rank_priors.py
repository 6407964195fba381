"""kscore.rank's priors against scorio.rank 0.2.3's: the same constructors,
attributes, validation (exception types and messages) and penalty values;
and the derivatives the solvers use, against central differences of the
penalty."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scorio import rank as sr

import kscore.rank as kr
from kscore.rank import _priors

from .conftest import outcome

NAMES = ["GaussianPrior", "LaplacePrior", "CauchyPrior", "UniformPrior", "CustomPrior", "EmpiricalPrior"]


def test_the_seven_names_are_exported() -> None:
    for name in ["Prior", *NAMES]:
        assert hasattr(kr, name) and name in kr.__all__


BAD_SCALARS: list[Any] = [
    0.0,
    -1.0,
    float("nan"),
    float("inf"),
    True,
    "1",
    None,
    np.array([1.0]),
    10**400,
    np.float64(2.0),
    3,
]


@pytest.mark.parametrize("name", ["GaussianPrior", "LaplacePrior", "CauchyPrior"])
def test_constructors_validate_like_scorio(name: str) -> None:
    for first in [0.0, *BAD_SCALARS]:
        for second in [1.0, *BAD_SCALARS]:
            ours = outcome(getattr(kr, name), first, second)
            theirs = outcome(getattr(sr, name), first, second)
            assert ours[0] == theirs[0], (first, second, ours, theirs)
            if ours[0] != "ok":
                assert ours[1] == theirs[1]
            else:
                for attr in ["mean", "var", "loc", "scale"]:
                    if hasattr(theirs[1], attr):
                        assert getattr(ours[1], attr) == getattr(theirs[1], attr)
                        assert type(getattr(ours[1], attr)) is type(getattr(theirs[1], attr))


def test_custom_and_empirical_validate_like_scorio() -> None:
    for fn in [None, 3, "x"]:
        assert outcome(kr.CustomPrior, fn) == outcome(sr.CustomPrior, fn)
    rng = np.random.default_rng(5)
    good = rng.integers(0, 2, size=(4, 6, 2))
    cases: list[tuple[Any, Any, Any]] = [
        (good, 1.0, 1e-6),
        (good[:, :, 0], 2.5, 0.01),
        (good.astype(bool), 1.0, 1e-6),
        (good.astype(float), 1.0, 1e-6),
        (np.ones((3, 2, 2)), 1.0, 1e-6),
        (np.zeros((3, 2)), 1.0, 0.2),
        (good, 0.0, 1e-6),
        (good, 1.0, 0.5),
        (good, 1.0, 0.0),
        (good, True, 1e-6),
        (good, 1.0, "a"),
        (good[0, 0], 1.0, 1e-6),
        (np.zeros((0, 3)), 1.0, 1e-6),
        (np.array([["a", "b"], ["c", "d"]]), 1.0, 1e-6),
        (good + 0j, 1.0, 1e-6),
        (np.where(good == 1, np.nan, 0.0), 1.0, 1e-6),
        (good * 2, 1.0, 1e-6),
        (good[None], 1.0, 1e-6),
    ]
    for R0, var, eps in cases:
        ours = outcome(kr.EmpiricalPrior, R0, var=var, eps=eps)
        theirs = outcome(sr.EmpiricalPrior, R0, var=var, eps=eps)
        assert ours[0] == theirs[0], (R0, var, eps)
        if ours[0] != "ok":
            assert ours[1] == theirs[1]
            continue
        np.testing.assert_array_equal(ours[1].prior_mean, theirs[1].prior_mean)
        np.testing.assert_array_equal(ours[1].R0, theirs[1].R0)
        assert ours[1].R0.dtype == theirs[1].R0.dtype
        assert (ours[1].var, ours[1].eps) == (theirs[1].var, theirs[1].eps)


def priors(R0: np.ndarray) -> list[tuple[Any, Any]]:
    """(kscore prior, scorio prior) pairs of every class."""
    fn = lambda theta: float(np.sum(np.log1p(theta**2)) + 0.3 * np.sum(theta) ** 2)  # noqa: E731
    return [
        (kr.GaussianPrior(0.4, 2.0), sr.GaussianPrior(0.4, 2.0)),
        (kr.LaplacePrior(-0.2, 0.7), sr.LaplacePrior(-0.2, 0.7)),
        (kr.CauchyPrior(0.1, 1.5), sr.CauchyPrior(0.1, 1.5)),
        (kr.UniformPrior(), sr.UniformPrior()),
        (kr.CustomPrior(fn), sr.CustomPrior(fn)),
        (kr.EmpiricalPrior(R0, var=0.8), sr.EmpiricalPrior(R0, var=0.8)),
    ]


def test_penalties_equal_scorios_bit_for_bit() -> None:
    rng = np.random.default_rng(11)
    R0 = rng.integers(0, 2, size=(5, 7, 3))
    for _ in range(20):
        theta = rng.normal(0, 2, size=5)
        for ours, theirs in priors(R0):
            assert ours.penalty(theta) == theirs.penalty(theta)
    # EmpiricalPrior refuses a theta of the wrong length, as scorio.
    ours = outcome(kr.EmpiricalPrior(R0).penalty, np.zeros(4))
    assert ours == outcome(sr.EmpiricalPrior(R0).penalty, np.zeros(4))
    assert ours[0] == "ValueError"


def test_terms_derivatives_match_central_differences() -> None:
    """The gradient and Hessian diagonal of each kind (along centred
    directions for the numeric kind) against differences of ``penalty``."""
    rng = np.random.default_rng(3)
    R0 = rng.integers(0, 2, size=(5, 7, 3))
    h = 1e-5
    for ours, _ in priors(R0):
        terms = _priors.terms_of(ours, 5)
        for _ in range(5):
            theta = rng.normal(0, 1.5, size=5)
            theta -= theta.mean()
            value, grad, diag = terms.derivatives(theta)
            assert value == ours.penalty(theta)
            for i in range(5):
                direction = np.eye(5)[i]
                if terms.kind == "custom":
                    direction = direction - 1.0 / 5
                up, down = ours.penalty(theta + h * direction), ours.penalty(theta - h * direction)
                centre = ours.penalty(theta)
                fd = (up - down) / (2 * h)
                fd2 = (up - 2 * centre + down) / (h * h)
                assert abs(grad[i] - fd) < 1e-7 * (1 + abs(fd)), (terms.kind, i)
                if terms.kind != "laplace":
                    assert abs(diag[i] - fd2) < 1e-3 * (1 + abs(fd2)), (terms.kind, i)
                else:
                    assert diag[i] == 0.0


def test_terms_kinds_and_exchangeability() -> None:
    R0 = np.ones((3, 2))
    kinds = {
        kr.GaussianPrior(): "gaussian",
        kr.EmpiricalPrior(R0): "gaussian",
        kr.LaplacePrior(): "laplace",
        kr.CauchyPrior(): "cauchy",
        kr.UniformPrior(): "none",
        kr.CustomPrior(lambda t: 0.0): "custom",
    }
    for prior, kind in kinds.items():
        assert _priors.terms_of(prior, 3).kind == kind

    class Shifted(kr.GaussianPrior):  # a subclass may change the penalty
        def penalty(self, theta: np.ndarray) -> float:
            return super().penalty(theta + 1.0)

    assert _priors.terms_of(Shifted(), 3).kind == "custom"
    assert not _priors.is_exchangeable(Shifted())
    assert not _priors.is_exchangeable(kr.EmpiricalPrior(R0))
    assert _priors.is_exchangeable(kr.CauchyPrior())
    with pytest.raises(ValueError, match=r"theta length \(4\) must match number of models \(3\)"):
        _priors.terms_of(kr.EmpiricalPrior(R0), 4)


@pytest.mark.parametrize("family", ["paired", "luce"])
def test_coerce_prior_matches_scorio(family: str) -> None:
    import importlib

    module = importlib.import_module("scorio.rank.bradley_terry" if family == "paired" else "scorio.rank.listwise")
    theirs_fn = module._coerce_prior
    for value in [1.0, 2, np.float32(0.5), 0.0, -3, float("nan"), float("inf"), True, np.bool_(True), "x", None, [1.0]]:
        ours = outcome(_priors.coerce_prior, value, family)
        theirs = outcome(theirs_fn, value)
        assert ours[0] == theirs[0], value
        if ours[0] == "ok":
            assert isinstance(ours[1], kr.GaussianPrior)
            assert (ours[1].mean, ours[1].var) == (theirs[1].mean, theirs[1].var)
        else:
            assert ours[1] == theirs[1]
    prior = kr.LaplacePrior()
    assert _priors.coerce_prior(prior) is prior


def test_examples() -> None:
    import doctest

    result = doctest.testmod(_priors, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
