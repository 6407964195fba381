"""kscore.sinf against scorio.sinf 0.2.3: the same decisions, leaders,
competitor lists and z on random inputs (NaN, infinities, exact zeros and
equal means among them), rho and interval bounds within 1e-15, and the same
exception type and message for bad input."""

from __future__ import annotations

import doctest
import inspect
import math
from typing import Any

import numpy as np
import pytest
from scorio import sinf as ss

from kscore import sinf as ks
from kscore.sinf import _decisions

from .conftest import outcome, same_error

SPECIAL = [0.0, -0.0, 1e-300, 1e300, math.inf, -math.inf, math.nan]


def values(rng: np.random.Generator, n: int, scale: float) -> list[float]:
    out: list[float] = (rng.normal(0.5, scale, n)).tolist()
    for i in range(n):
        if rng.random() < 0.15:
            out[i] = SPECIAL[int(rng.integers(len(SPECIAL)))]
        elif rng.random() < 0.1 and i:
            out[i] = out[i - 1]  # ties
    return out


def close(a: Any, b: Any) -> bool:
    """Equal, both NaN, or floats within 1e-15."""
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b or abs(a - b) <= 1e-15 * max(1.0, abs(b))
    return bool(a == b) and type(a) is type(b)


@pytest.mark.parametrize("seed", range(20))
def test_ranking_confidence(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(200):
        mu_a, mu_b = values(rng, 2, 0.3)
        sa, sb = (abs(x) for x in values(rng, 2, 0.05))
        ours = outcome(ks.ranking_confidence, mu_a, sa, mu_b, sb)
        theirs = outcome(ss.ranking_confidence, mu_a, sa, mu_b, sb)
        assert ours[0] == theirs[0]
        assert close(ours[1], theirs[1]), (mu_a, sa, mu_b, sb, ours, theirs)


@pytest.mark.parametrize("seed", range(10))
def test_intervals_and_stopping(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(300):
        mu = values(rng, 1, 0.3)[0]
        sigma = values(rng, 1, 0.05)[0]
        conf = float(rng.choice([0.5, 0.8, 0.9, 0.95, 0.99, 1e-9, 1 - 1e-12, 0.0, 1.0, -0.5, 1.5, math.nan]))
        clip = [None, (0.0, 1.0), (0.4, 0.45), (math.nan, 1.0)][int(rng.integers(4))]
        ours = outcome(ks.ci_from_mu_sigma, mu, sigma, conf, clip)
        theirs = outcome(ss.ci_from_mu_sigma, mu, sigma, conf, clip)
        assert ours[0] == theirs[0] and close(ours[1], theirs[1]), (mu, sigma, conf, clip, ours, theirs)
        width = abs(values(rng, 1, 0.05)[0])
        for kw in ({"max_ci_width": width}, {"max_half_width": width}):
            ours = outcome(ks.should_stop, sigma, conf, **kw)
            theirs = outcome(ss.should_stop, sigma, conf, **kw)
            assert ours == theirs and type(ours[1]) is type(theirs[1]), (sigma, conf, kw)


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("method", ["ci_overlap", "zscore"])
def test_top1_and_allocation(seed: int, method: str) -> None:
    rng = np.random.default_rng([seed, len(method)])
    for _ in range(40):
        n = int(rng.integers(1, 12))
        scale = float(rng.choice([0.001, 0.05, 0.3]))
        mus = values(rng, n, scale)
        sigmas = [abs(x) for x in values(rng, n, scale / 5)]
        conf = float(rng.choice([0.5, 0.9, 0.95, 0.999]))
        for args in ((mus, sigmas), (np.array(mus), tuple(sigmas))):
            ours = outcome(ks.should_stop_top1, *args, conf, method)
            theirs = outcome(ss.should_stop_top1, *args, conf, method)
            assert ours[0] == theirs[0]
            if ours[0] == "ok":
                assert ours[1] == theirs[1]
                assert type(ours[1]["leader"]) is int and all(type(j) is int for j in ours[1]["ambiguous"])
            else:
                assert ours[1] == theirs[1]
            ours = outcome(ks.suggest_next_allocation, *args, conf, method)
            theirs = outcome(ss.suggest_next_allocation, *args, conf, method)
            assert ours == theirs, (args, conf, method)


def test_bad_input_raises_scorios_errors() -> None:
    same_error(ks.ci_from_mu_sigma, ss.ci_from_mu_sigma, 0.5, 0.1, 1.0)
    same_error(ks.ci_from_mu_sigma, ss.ci_from_mu_sigma, 0.5, 0.1, 0.0)
    same_error(ks.ci_from_mu_sigma, ss.ci_from_mu_sigma, 0.5, 0.1, math.nan)
    same_error(ks.ci_from_mu_sigma, ss.ci_from_mu_sigma, 0.5, -0.1)
    same_error(ks.ci_from_mu_sigma, ss.ci_from_mu_sigma, 0.5, "x")
    same_error(ks.should_stop, ss.should_stop, 0.1)
    same_error(ks.should_stop, ss.should_stop, 0.1, max_ci_width=0.1, max_half_width=0.1)
    same_error(ks.should_stop, ss.should_stop, "x", max_ci_width=0.1)
    same_error(ks.ranking_confidence, ss.ranking_confidence, "a", 0.1, 0.2, 0.1)
    for fn in ("should_stop_top1", "suggest_next_allocation"):
        k, s = getattr(ks, fn), getattr(ss, fn)
        same_error(k, s, [0.1, 0.2], [0.1])
        same_error(k, s, [[0.1, 0.2]], [[0.1, 0.2]])
        same_error(k, s, [], [])
        same_error(k, s, [0.1, 0.2], [0.1, 0.1], 0.95, "bayes")
        same_error(k, s, ["a", "b"], [0.1, 0.1])
    same_error(ks.suggest_next_allocation, ss.suggest_next_allocation, [0.5], [0.1])


def test_exported_and_typed() -> None:
    assert ks.__all__ == ss.__all__
    for name in ks.__all__:
        ours, theirs = inspect.signature(getattr(ks, name)), inspect.signature(getattr(ss, name))
        assert list(ours.parameters) == list(theirs.parameters)
        for p in ours.parameters.values():
            assert p.default == theirs.parameters[p.name].default


def test_docstring_examples() -> None:
    for module in (ks, _decisions):
        assert doctest.testmod(module).failed == 0
