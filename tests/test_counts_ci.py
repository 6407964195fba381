"""Credible intervals from counts (kscore.counts.*_ci), n varying per
question: equal to kscore.eval on rectangular data, and to scorio 0.2.3
pooled over the groups of questions that share n on ragged data."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scorio import eval as se

import kscore.counts as kc
from kscore import eval as ke

from .conftest import close

# name -> extra positional arguments after k
CI: dict[str, Callable[[int], tuple[Any, ...]]] = {
    "pass_at_k_ci": lambda k: (),
    "pass_hat_k_ci": lambda k: (),
    "g_pass_at_k_tau_ci": lambda k: (0.4,),
    "mg_pass_at_k_ci": lambda k: (),
    "maj_at_k_ci": lambda k: (),
    "auc_at_k_ci": lambda k: (),
    "threshold_spectrum_at_k_ci": lambda k: (np.full(k, 1.0 / k),),
}


def matrix(n: int, cs: list[int]) -> np.ndarray:
    R = np.zeros((len(cs), n), dtype=np.int8)
    for i, c in enumerate(cs):
        R[i, :c] = 1
    return R


def sigma_close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * b + 1e-12


@pytest.mark.parametrize("name", list(CI))
def test_rectangular_equals_eval(name: str) -> None:
    rng = np.random.default_rng(7)
    n, cs = 12, [int(x) for x in rng.integers(0, 13, size=40)]
    for k in (1, 3, 12):
        extra = CI[name](k)
        ours = getattr(kc, name)(n, cs, k, *extra, alpha0=0.5, beta0=2.0)
        ref = getattr(ke, name)(matrix(n, cs), k, *extra, alpha0=0.5, beta0=2.0)
        assert close(ours[0], ref[0]) and sigma_close(ours[1], ref[1]), (name, k, ours, ref)
        assert close(ours[2], ref[2], atol=1e-12) and close(ours[3], ref[3], atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(
    ns=st.lists(st.integers(3, 9), min_size=1, max_size=30),
    seed=st.integers(0, 2**31),
    name=st.sampled_from(list(CI)),
    data=st.data(),
)
def test_ragged_pools_scorio_groups(ns: list[int], seed: int, name: str, data: st.DataObject) -> None:
    rng = np.random.default_rng(seed)
    cs = [int(rng.integers(0, n + 1)) for n in ns]
    k = data.draw(st.integers(1, min(ns)))
    extra = CI[name](k)
    mu, sigma, lo, hi = getattr(kc, name)(np.array(ns), np.array(cs), k, *extra)
    m = len(ns)
    ref_mu, ref_var = 0.0, 0.0
    for n in sorted(set(ns)):
        group = [c for c, ni in zip(cs, ns) if ni == n]
        g_mu, g_sigma, _, _ = getattr(se, name)(matrix(n, group), k, *extra)
        ref_mu += len(group) / m * g_mu
        ref_var += (len(group) / m) ** 2 * g_sigma**2
    assert close(mu, ref_mu), (mu, ref_mu)
    assert sigma_close(sigma, math.sqrt(ref_var)) or abs(sigma**2 - ref_var) <= 64 * (2 * k + 2) * 2.2e-16 / m
    assert 0.0 <= lo <= hi <= 1.0


def test_errors_name_the_question() -> None:
    with pytest.raises(ValueError, match=r"k = 4 exceeds n\[1\] = 3 \(question 1\)"):
        kc.maj_at_k_ci([5, 3], [1, 1], 4)
    with pytest.raises(ValueError, match="alpha0 must be a finite positive scalar"):
        kc.pass_at_k_ci([5, 3], [1, 1], 2, alpha0=0.0)
    with pytest.raises(ValueError, match=r"confidence must be in \(0,1\)"):
        kc.pass_at_k_ci([5, 3], [1, 1], 2, confidence=1.0)
    with pytest.raises(ValueError, match="tau must be in"):
        kc.g_pass_at_k_tau_ci([5, 3], [1, 1], 2, 1.5)
    with pytest.raises(ValueError, match="weights must be non-negative"):
        kc.threshold_spectrum_at_k_ci([5, 3], [1, 1], 2, [-0.5, 0.5])
    with pytest.raises(ValueError):
        kc.pass_at_k_ci([5, 3], [6, 1], 2)


@pytest.mark.thread_unsafe(reason="doctest patches linecache and redirects stdout")
def test_counts_docstring_examples() -> None:
    """The examples in kscore.counts (the package and every module) hold."""
    import doctest
    import importlib
    import pkgutil

    modules = [kc] + [importlib.import_module(f"kscore.counts.{m.name}") for m in pkgutil.iter_modules(kc.__path__)]
    attempted = failed = 0
    for module in modules:
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        attempted += result.attempted
        failed += result.failed
    assert attempted > 10 and failed == 0
