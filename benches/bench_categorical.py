"""Bayes@N, Avg and Max@k: kscore.eval vs scorio.eval on the issue's workloads."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from scorio import eval as se

from kscore import eval as ke

rng = np.random.default_rng(1)
BOOL64 = rng.random((1_000_000, 64)) < rng.random((1_000_000, 1))
INT8x512 = (rng.random((1_000_000, 512)) < 0.3).astype(np.int8)
CAT5 = rng.integers(0, 5, size=(1_000_000, 64)).astype(np.int8)
W5 = np.array([0.0, 0.25, 0.5, 0.75, 1.0])


@pytest.mark.parametrize("name", ["bayes", "avg"])
def test_bool_1e6x64(name: str, compare: Callable[..., None]) -> None:
    compare(f"{name} 1e6x64 bool", lambda: getattr(ke, name)(BOOL64),
            ("scorio", lambda: getattr(se, name)(BOOL64)))


@pytest.mark.parametrize("name", ["bayes", "avg"])
def test_int8_1e6x512(name: str, compare: Callable[..., None]) -> None:
    # scorio needs an int64 copy of R (4 GB) plus temporaries here: kscore only.
    compare(f"{name} 1e6x512 int8 (scorio: ~8 GB, not run)", lambda: getattr(ke, name)(INT8x512), None)


def test_max_at_k_5_categories(compare: Callable[..., None]) -> None:
    compare("max_at_k 1e6x64 int8, 5 categories, k=32", lambda: ke.max_at_k(CAT5, 32, W5),
            ("scorio", lambda: se.max_at_k(CAT5, 32, W5)))


CAT4 = rng.integers(0, 4, size=(1_000_000, 64)).astype(np.int8)
W4 = np.array([0.0, 0.25, 0.5, 1.0])
BIN8 = (CAT4 >= 2).astype(np.int8)


def test_max_at_k_4_categories(compare: Callable[..., None]) -> None:
    compare("max_at_k 1e6x64 int8, 4 categories, k=32", lambda: ke.max_at_k(CAT4, 32, W4),
            ("scorio", lambda: se.max_at_k(CAT4, 32, W4)))


def test_binary_intake_same_bytes(compare: Callable[..., None]) -> None:
    # The floor the categorical intake is measured against: a binary metric
    # reading the same 64 MB of int8.
    compare("pass_at_k 1e6x64 int8 binary, k=32 (the binary intake on the same bytes)",
            lambda: ke.pass_at_k(BIN8, 32), ("scorio", lambda: se.pass_at_k(BIN8, 32)))


def test_max_at_k_ci_4_categories(compare: Callable[..., None]) -> None:
    # scorio's latent Max@k loops over rows in Python: 194 s here (stop 20), not rerun.
    compare("max_at_k_ci 1e6x64 int8, 4 categories, k=32 (scorio: 194 s, not run)",
            lambda: ke.max_at_k_ci(CAT4, 32, W4), None)


def test_binary_interval_same_bytes(compare: Callable[..., None]) -> None:
    compare("pass_at_k_ci 1e6x64 int8 binary, k=32 (the binary interval on the same bytes)",
            lambda: ke.pass_at_k_ci(BIN8, 32), ("scorio", lambda: se.pass_at_k_ci(BIN8, 32)))


@pytest.mark.parametrize("name", ["bayes", "bayes_ci"])
def test_bayes_4_categories(name: str, compare: Callable[..., None]) -> None:
    compare(f"{name} 1e6x64 int8, 4 categories", lambda: getattr(ke, name)(CAT4, W4),
            ("scorio", lambda: getattr(se, name)(CAT4, W4)))
