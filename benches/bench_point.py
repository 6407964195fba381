"""Point metrics: kscore.eval vs scorio.eval on the issue's workloads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from scorio import eval as se

from kscore import eval as ke

rng = np.random.default_rng(0)
BOOL64 = rng.random((1_000_000, 64)) < rng.random((1_000_000, 1))
INT8x8 = (rng.random((1_000_000, 8)) < 0.4).astype(np.int8)
N4096 = rng.random((1000, 4096)) < rng.random((1000, 1))


@pytest.mark.parametrize("name", ["pass_at_k", "maj_at_k"])
def test_bool_1e6x64(name: str, compare: Callable[..., None]) -> None:
    compare(f"{name} 1e6x64 bool k=8", lambda: getattr(ke, name)(BOOL64, 8),
            ("scorio", lambda: getattr(se, name)(BOOL64, 8)))


@pytest.mark.parametrize("name", ["pass_at_k", "maj_at_k"])
def test_int8_1e6x8(name: str, compare: Callable[..., None]) -> None:
    compare(f"{name} 1e6x8 int8 k=4", lambda: getattr(ke, name)(INT8x8, 4),
            ("scorio", lambda: getattr(se, name)(INT8x8, 4)))


WEIGHTS = np.zeros(2048)
WEIGHTS[[511, 1535]] = [0.3, 0.7]


@pytest.mark.parametrize(
    "name,args",
    [("auc_at_k", ()), ("mg_pass_at_k", ()), ("threshold_spectrum_at_k", (WEIGHTS,))],
)
def test_general_credit_n4096(name: str, args: tuple[Any, ...], compare: Callable[..., None]) -> None:
    compare(f"{name} M=1000 N=4096 k=2048", lambda: getattr(ke, name)(N4096, 2048, *args),
            ("scorio", lambda: getattr(se, name)(N4096, 2048, *args)), repeat_ref=1)
