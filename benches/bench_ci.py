"""Credible intervals: kscore.eval vs scorio.eval on the issue's workloads
(scorio takes seconds to a minute on each; run it once per workload)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from scorio import eval as se

from kscore import eval as ke

rng = np.random.default_rng(0)


def bank(m: int, n: int) -> np.ndarray:
    p = rng.beta(0.6, 0.6, size=(m, 1))
    return (rng.random((m, n)) < p).astype(np.int8)


B512 = bank(1000, 512)
B64 = bank(1000, 64)
B100K = bank(1000, 100_000)


@pytest.mark.parametrize(
    "name,R,args",
    [
        ("maj_at_k_ci", B512, (256,)),
        ("g_pass_at_k_tau_ci", B512, (256, 0.3)),
        ("mg_pass_at_k_ci", B512, (256,)),
        ("geo_spectrum_at_k_ci", B64, (256,)),
        ("auc_at_k_ci", B512, (512,)),
        ("pass_at_k_ci", B512, (64,)),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_binary_ci(name: str, R: np.ndarray, args: tuple[Any, ...], compare: Callable[..., None]) -> None:
    m, n = R.shape
    compare(f"{name} M={m} N={n} args={args}", lambda: getattr(ke, name)(R, *args),
            ("scorio", lambda: getattr(se, name)(R, *args)), repeat_ref=1)


def test_maj_ci_at_n_100000(compare: Callable[..., None]) -> None:
    compare("maj_at_k_ci M=1000 N=100000 k=100000 (scorio: not run)",
            lambda: ke.maj_at_k_ci(B100K, 100_000), None)


@pytest.mark.parametrize("categories", [2, 3, 5])
def test_max_at_k_ci(categories: int, compare: Callable[..., None]) -> None:
    R = rng.integers(0, categories, size=(100_000, 8))
    w = np.linspace(0.0, 1.0, categories)
    compare(f"max_at_k_ci M=100000 N=8 k=4 C={categories}", lambda: ke.max_at_k_ci(R, 4, w),
            ("scorio", lambda: se.max_at_k_ci(R, 4, w)), repeat_ref=1)


# Large latent k (docs/kernels.md, K5 "Large k"): scorio's O(k^2) products
# take minutes to hours here, so it runs at k = 4000 only.
B200K = bank(200, 100_000)


@pytest.mark.parametrize("k", [4_000, 100_000])
def test_geo_spectrum_large_k(k: int, compare: Callable[..., None]) -> None:
    ref = ("scorio", lambda: se.geo_spectrum_at_k_ci(B64, k)) if k <= 4_000 else None
    compare(f"geo_spectrum_at_k_ci M=1000 N=64 k={k}" + ("" if ref else " (scorio: not run)"),
            lambda: ke.geo_spectrum_at_k_ci(B64, k), ref)


@pytest.mark.parametrize("k", [4_000, 100_000])
def test_auc_large_k(k: int, compare: Callable[..., None]) -> None:
    R = B200K[:, :k]
    ref = ("scorio", lambda: se.auc_at_k_ci(R, k)) if k <= 4_000 else None
    compare(f"auc_at_k_ci M=200 N=k={k}" + ("" if ref else " (scorio: not run)"),
            lambda: ke.auc_at_k_ci(R, k), ref)


def test_threshold_spectrum_large_k(compare: Callable[..., None]) -> None:
    k = 100_000
    w = np.random.default_rng(2).random(k)
    w /= 1.01 * w.sum()
    compare(f"threshold_spectrum_at_k_ci M=1000 N=64 k={k}, random weights (scorio: not run)",
            lambda: ke.threshold_spectrum_at_k_ci(B64, k, w), None)
