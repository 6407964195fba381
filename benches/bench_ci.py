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
