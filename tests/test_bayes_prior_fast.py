"""Bayes@N with an R0 prior in one Rust call (issue 29): ``kscore.eval.bayes``
and ``bayes_ci`` with R0 take ``_kscore.dirichlet_of_matrix(R, w, False, R0)``,
which must give the validating path's numbers bit for bit (the path every
R0 call took before: ``prepare_bank`` then ``_kscore.bayes`` on its counts),
stay within the parity tolerance of scorio 0.2.3, and hand anything unusual
back (None) so that the validating path raises scorio's error."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scorio import eval as se

from kscore import _kscore
from kscore import eval as ke
from kscore._interval import normal_ci
from kscore.eval._categorical import prepare_bank

from .test_categorical import check_ci, check_pair, reward_scale


def validating_path(R: Any, w: Any, R0: Any) -> tuple[float, float]:
    """The R0 call as it ran before the fast path (and still runs for anything unusual)."""
    bank = prepare_bank(R, w, R0)
    return _kscore.bayes(bank.counts, bank.prior, bank.weights)


def bits(pair: tuple[float, ...]) -> tuple[str, ...]:
    return tuple(float(x).hex() for x in pair)


def layout(rng: np.random.Generator, a: np.ndarray) -> np.ndarray:
    """The same values in C order, Fortran order, or a strided view."""
    choice = int(rng.integers(0, 3))
    if choice == 1:
        return np.asfortranarray(a)
    if choice == 2:
        wide = np.zeros((a.shape[0], 2 * a.shape[1]), dtype=a.dtype)
        wide[:, ::2] = a
        return wide[:, ::2]
    return a


def random_case(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    categories = int(rng.choice([2, 3, 4, 5, 8, 16, 17, 20]))  # > 16: the row-by-row kernel
    m = int(rng.choice([1, 2, 7, 100, 333, 1000]))
    n = int(rng.choice([1, 3, 8, 64, 200]))
    d = int(rng.choice([1, 2, 4, 16, 50]))
    dtype = rng.choice(["int64", "int32", "int8", "uint8", "float64", "float32", "bool"])
    if dtype == "bool":
        categories = 2
    p = rng.dirichlet(np.full(categories, 0.3))
    R = rng.choice(categories, size=(m, n), p=p).astype(dtype)
    R0 = rng.choice(categories, size=(m, d)).astype(rng.choice(["int64", "int16", "float64", dtype]))
    kind = int(rng.integers(0, 4))
    if kind == 0:
        w = rng.normal(size=categories)
    elif kind == 1:
        w = np.linspace(0.0, 1.0, categories)
    elif kind == 2:
        w = rng.choice([-1e300, 1e300, 0.0, 5e299], size=categories)
    else:
        w = np.full(categories, 0.25)  # constant: (w0, 0)
    return layout(rng, R), w, layout(rng, R0)


@pytest.mark.parametrize("seed", range(8))
def test_bit_for_bit_with_the_validating_path(seed: int) -> None:
    rng = np.random.default_rng(2900 + seed)
    for _ in range(60):
        R, w, R0 = random_case(rng)
        fast = _kscore.dirichlet_of_matrix(R, w, False, R0)
        assert fast is not None, (R.dtype, R.shape, R0.dtype, R0.shape)
        before = validating_path(R, w, R0)
        assert bits(fast) == bits(before)
        assert bits(ke.bayes(R, w, R0)) == bits(before)
        assert bits(ke.bayes_ci(R, w, R0)) == bits(normal_ci(*before))
        assert bits(ke.bayes_ci(R, w, R0, 0.9, (0.0, 1.0))) == bits(normal_ci(*before, 0.9, (0.0, 1.0)))


def test_repeated_rows_and_tiny_shapes() -> None:
    """Broadcast rows (a zero stride) in R or R0, single cells."""
    rng = np.random.default_rng(29)
    w = np.array([0.0, 0.3, 1.0])
    row = rng.integers(0, 3, size=(1, 16))
    R = np.broadcast_to(row, (50, 16))
    R0 = np.broadcast_to(rng.integers(0, 3, size=(1, 3)), (50, 3))
    same = rng.integers(0, 3, size=(20, 6))
    for r, r0 in ((R, R0), (np.ascontiguousarray(R), R0), (R, np.ascontiguousarray(R0)),
                  (np.array([[2]]), np.array([[0]])), (same, same)):  # R0 the very array R
        fast = _kscore.dirichlet_of_matrix(r, w, False, r0)
        assert fast is not None and bits(fast) == bits(validating_path(r, w, r0))


@pytest.mark.parametrize("seed", range(4))
def test_against_scorio(seed: int) -> None:
    rng = np.random.default_rng(290 + seed)
    for _ in range(25):
        R, w, R0 = random_case(rng)
        if np.abs(w).max() > 1e10:
            continue  # scorio overflows on huge rewards (tests/test_categorical.py)
        m, n = R.shape
        scale = reward_scale(w)  # the tolerance of tests/test_categorical.py's Bayes@N checks
        check_pair(ke.bayes(R, w, R0), se.bayes(R, w, R0), n=n, m=m, scale=scale)
        check_ci(ke.bayes_ci(R, w, R0), se.bayes_ci(R, w, R0), n=n, m=m, scale=scale)


def unusual() -> list[tuple[Any, Any, Any]]:
    R = np.array([[0, 1, 2, 2], [1, 1, 0, 2]])
    w = np.array([0.0, 0.5, 1.0])
    nan = np.array([[0.0, np.nan], [1.0, 2.0]])
    return [
        (R, w, np.array([0, 2, 1, 2])),  # 1-D R0 (split into M rows by the validating path)
        (R, w, np.array([[0, 2]])),  # wrong row count
        (R, w, np.zeros((2, 0), dtype=int)),  # no prior columns
        (R, w, np.array([[0, 3], [1, 2]])),  # R0 out of range
        (R, w, np.array([[0, -1], [1, 2]])),
        (R, w, nan),  # a flaw in R0
        (R, w, np.array([[0.5, 1.0], [1.0, 2.0]])),
        (np.array([[0, 1, 3, 2], [1, 1, 0, 2]]), w, np.array([[0, 2], [1, 2]])),  # R out of range
        (R.astype(float) + np.array([[0, 0, 0, np.nan], [0, 0, 0, 0]]), w, np.array([[0, 2], [1, 2]])),
        (R, np.array([0.0, np.inf, 1.0]), np.array([[0, 2], [1, 2]])),
        (R, w[:2], np.array([[0, 2], [1, 2]])),
        (R, w, np.array([[0, 2], [1, 2]], dtype=">i8")),  # non-native byte order
        (R, w, np.array([[0, 2], [1, 2]], dtype=np.float16)),
        (R, w, np.array([["0", "2"], ["1", "2"]])),
        (R, w, np.array([[0, 2], [1, 2]], dtype=complex)),
        (R, w, np.array([[[0, 2], [1, 2]]])),  # 3-D
    ]


@pytest.mark.parametrize("case", range(len(unusual())))
def test_unusual_priors_take_the_validating_path(case: int) -> None:
    R, w, R0 = unusual()[case]
    assert _kscore.dirichlet_of_matrix(R, w, False, R0) is None
    # ... which answers as scorio does: its value or its error.
    ours, theirs = outcome(ke.bayes, R, w, R0), outcome(se.bayes, R, w, R0)
    assert ours[0] == theirs[0]
    if ours[0] == "ok":
        check_pair(ours[1], theirs[1], n=R.shape[1], m=R.shape[0])
    else:
        assert ours == theirs


def test_observed_refuses_a_prior() -> None:
    R = np.array([[0, 1, 2, 2], [1, 1, 0, 2]])
    assert _kscore.dirichlet_of_matrix(R, np.array([0.0, 0.5, 1.0]), True, np.array([[0, 2], [1, 2]])) is None


def outcome(fn: Any, *args: Any) -> tuple[str, Any]:
    try:
        return "ok", fn(*args)
    except Exception as exc:  # noqa: BLE001 - comparing exceptions is the point
        return type(exc).__name__, str(exc)
