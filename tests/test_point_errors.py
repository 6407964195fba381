"""Bad input gets scorio's exception type and message, never a panic."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scorio import eval as se

from kscore import eval as ke

from .conftest import same_error

GOOD = np.array([[0, 1, 1], [1, 0, 0]])

BAD_R: list[Any] = [
    None,
    5,
    [],
    [[]],
    np.zeros((0, 3)),
    np.zeros((0, 0)),
    np.zeros((2, 3, 4)),
    [[1, 0], [1]],
    [[1 + 0j, 0]],
    [["a", "b"]],
    np.array([[1, 0]], dtype=object),
    [[0.5, 1.0]],
    [[np.nan, 1.0]],
    [[np.inf, 0.0]],
    [[2, 0]],
    [[-1, 0]],
    [[1e19, 0.0]],
    np.array([[2**63, 0]], dtype=np.uint64),
    np.array([[0.5, np.nan]]),  # NaN wins over fractional
    np.array([[3, 0.5]]),  # fractional wins over non-binary
    np.array([[2, 0]], dtype=np.uint8),
    np.array([[255, 0]], dtype=np.uint8),
    np.array([[-128, 1]], dtype=np.int8),
    np.array([[1, 0]], dtype="datetime64[s]"),
    np.array([[1e400, 0]], dtype=np.longdouble),
]

FUNCS = ["pass_at_k", "pass_hat_k", "mg_pass_at_k", "maj_at_k", "auc_at_k", "geom_at_k", "geom_ds_at_k",
         "geo_spectrum_at_k", "g_pass_at_k"]


@pytest.mark.parametrize("R", BAD_R, ids=range(len(BAD_R)))
@pytest.mark.parametrize("name", FUNCS)
def test_bad_matrix(name: str, R: Any) -> None:
    same_error(getattr(ke, name), getattr(se, name), R, 1)


@pytest.mark.parametrize("k", [0, -1, 4, 2.0, "2", None, True, np.bool_(True), np.float64(1.0)])
@pytest.mark.parametrize("name", FUNCS)
def test_bad_k(name: str, k: Any) -> None:
    same_error(getattr(ke, name), getattr(se, name), GOOD, k)


def test_numpy_integer_k_is_accepted() -> None:
    small: Any = np.int8(2)
    wide: Any = np.uint64(2)
    assert ke.pass_at_k(GOOD, small) == ke.pass_at_k(GOOD, 2)
    assert ke.pass_at_k(GOOD, wide) == ke.pass_at_k(GOOD, 2)


@pytest.mark.parametrize("tau", [-0.1, 1.1, float("nan"), "x", None])
def test_bad_tau(tau: Any) -> None:
    same_error(ke.g_pass_at_k_tau, se.g_pass_at_k_tau, GOOD, 2, tau)
    # R errors come before tau errors, and tau errors before k errors.
    same_error(ke.g_pass_at_k_tau, se.g_pass_at_k_tau, [[2]], 2, tau)
    same_error(ke.g_pass_at_k_tau, se.g_pass_at_k_tau, GOOD, 9, tau)


@pytest.mark.parametrize(
    "weights",
    [None, [0.5], [[0.5, 0.5]], [0.5, 1j], ["a", "b"], [np.nan, 0.1], [-0.1, 0.5], [0.6, 0.6], [[0.1], [0.2, 0.3]]],
)
def test_bad_spectrum_weights(weights: Any) -> None:
    same_error(ke.threshold_spectrum_at_k, se.threshold_spectrum_at_k, GOOD, 2, weights)
    if weights is not None:
        same_error(ke.geo_spectrum_at_k, se.geo_spectrum_at_k, GOOD, 2, 0.5, weights)


@pytest.mark.parametrize("lam,lambda_", [(0.3, 0.2), (1.5, None), (float("nan"), None), (0.5, 2.0), ("a", None)])
def test_bad_lambda(lam: Any, lambda_: Any) -> None:
    same_error(ke.geo_spectrum_at_k, se.geo_spectrum_at_k, GOOD, 2, lam, None, lambda_)
    # lam is checked before R
    same_error(ke.geo_spectrum_at_k, se.geo_spectrum_at_k, [[7]], 2, lam, None, lambda_)


def test_power_errors() -> None:
    same_error(ke.geom_ds_at_k, se.geom_ds_at_k, GOOD, 2, 0.0, 0.0)
    same_error(ke.geom_at_k, se.geom_at_k, GOOD, 2, 0.0, 0.0)
    same_error(ke.geom_at_k, se.geom_at_k, [[0, 0, 0]], 2, -1.0, 0.0)
    same_error(ke.geom_at_k, se.geom_at_k, [[0, 0, 0], [1, 1, 1]], 2, -1.0, -1.0)
    same_error(ke.geom_at_k, se.geom_at_k, [[1, 0, 0]], 2, 1.0, -1.0)
    same_error(ke.geom_ds_at_k, se.geom_ds_at_k, [[1, 0, 0]], 2, 1.0, -1.0)
    same_error(ke.geom_at_k, se.geom_at_k, GOOD, 2, "a", 1.0)


def test_readonly_and_big_arrays_are_not_copied() -> None:
    R = np.zeros((10, 10), dtype=np.uint8)
    R.setflags(write=False)
    assert ke.pass_at_k(R, 3) == 0.0
