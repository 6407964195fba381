"""Shared helpers: scorio 0.2.3 is the oracle; kscore must match it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

# Every dtype the intake reads in place.
DTYPES: list[npt.DTypeLike] = [
    np.bool_, np.int8, np.int16, np.int32, np.int64,
    np.uint8, np.uint16, np.uint32, np.uint64, np.float32, np.float64,
]


def close(a: float, b: float, rtol: float = 1e-12, atol: float = 1e-15) -> bool:
    """The parity tolerance for mu-like outputs: |a - b| <= atol + rtol |b|."""
    return abs(a - b) <= atol + rtol * abs(b)


def outcome(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[str, Any]:
    """('ok', value) or (exception type name, message)."""
    try:
        return "ok", fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - comparing exceptions is the point
        return type(exc).__name__, str(exc)


def same_error(kfn: Callable[..., Any], sfn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """Both raise, with the same exception type and message."""
    ours = outcome(kfn, *args, **kwargs)
    theirs = outcome(sfn, *args, **kwargs)
    assert theirs[0] != "ok", f"scorio accepted {args!r} {kwargs!r}"
    assert ours == theirs


@pytest.fixture(scope="session")
def rng() -> np.random.Generator:
    return np.random.default_rng(20261121)
