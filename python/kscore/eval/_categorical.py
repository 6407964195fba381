"""Categorical banks for Bayes@N, Avg@N and Max@k, validated in scorio 0.2.3's
order with its exact messages.

The order (first failing check wins): R's shape and dtype, R's values
(finite, integer-valued, int64), then ``w`` (or, without ``w``, "R is
binary"), then R0's shape, dtype and values, then the category range of R,
then that of R0. R and R0 are each read once, in place, by the Rust intake,
which validates the entries and counts the categories of every row in the
same pass; out-of-range entries are only flagged there, so that ``w`` and R0
errors can win as they do in scorio.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _kscore
from .._inputs import as_matrix, normalize_weights

_BINARY_WEIGHTS = np.array([0.0, 1.0])
_BINARY_WEIGHTS.setflags(write=False)

_NEEDS_W = "weight vector 'w' must be provided"


@dataclass(frozen=True, slots=True, eq=False)
class CategoricalBank:
    """Validated rewards and the per-row category counts of R (and R0)."""

    weights: npt.NDArray[np.float64]
    counts: _kscore.CategoryCounts
    prior: _kscore.CategoryCounts | None


def _categorical_matrix(values: Any, name: str, allow_empty_trials: bool = False) -> npt.NDArray[Any]:
    """``as_matrix``, except that timedelta64 is read as int64: scorio's
    categorical path casts it (its binary path fails on it instead)."""
    try:
        array = np.asarray(values)
    except (TypeError, ValueError):
        array = None
    if array is not None and array.dtype.kind == "m":
        values = array.astype(np.int64)
    return as_matrix(values, name=name, allow_empty_trials=allow_empty_trials)


def _not_binary(matrix: npt.NDArray[Any]) -> ValueError:
    """scorio's message for a non-binary R without ``w`` (error path only)."""
    observed = ", ".join(map(str, np.unique(np.asarray(matrix, dtype=np.int64))))
    return ValueError(
        f"R is not binary (observed: {observed}), so weight vector 'w' must be provided."
    )


def _prior_counts(prior: Any, rows: int, categories: int) -> _kscore.CategoryCounts:
    """Shape checks and the counting pass of a given R0."""
    try:
        array = np.asarray(prior)
    except (TypeError, ValueError) as exc:
        raise ValueError("R0 must be a rectangular numeric or boolean array.") from exc
    if array.ndim == 1:
        try:
            array = array.reshape(rows, -1)
        except ValueError as exc:
            raise ValueError(
                "A 1D R0 must contain a multiple of M entries so it can be reshaped "
                "to one row per question."
            ) from exc
    elif array.ndim != 2:
        raise ValueError(f"R0 must be a 1D or 2D array; got {array.ndim} dimensions.")
    if array.shape[0] != rows:
        raise ValueError("R0 must have the same number of rows (M) as R.")
    matrix = _categorical_matrix(array, "R0", allow_empty_trials=True)
    return _kscore.CategoryCounts.from_matrix(matrix, categories, "R0")


def prepare_bank(
    R: Any, w: Any = None, R0: Any = None, *, binary_message: str | None = None
) -> CategoricalBank:
    """Validate ``R``, ``w`` and ``R0`` in scorio's order and count categories.

    ``binary_message`` replaces the "R is not binary" error when ``w`` is None
    (``avg`` reports "Entries of R must be integers in [0, 1]." instead).
    """
    matrix = _categorical_matrix(R, "R")
    weights: npt.NDArray[np.float64] | None = None
    deferred: BaseException | None = None
    if w is not None:
        try:
            weights = normalize_weights(w)
        except Exception as exc:  # noqa: BLE001 - re-raised after R's value checks
            deferred = exc
    categories = 2 if weights is None else int(weights.size)
    counts = _kscore.CategoryCounts.from_matrix(matrix, categories, "R")
    if deferred is not None:
        raise deferred
    if weights is None:
        if not counts.in_range:
            error = _not_binary(matrix)
            if binary_message is not None:
                raise ValueError(binary_message) from error
            raise error
        weights = _BINARY_WEIGHTS
        categories = 2
    prior = None if R0 is None else _prior_counts(R0, counts.rows, categories)
    if not counts.in_range:
        raise ValueError(f"Entries of R must be integers in [0, {categories - 1}].")
    if prior is not None and not prior.in_range:
        raise ValueError(f"Entries of R0 must be integers in [0, {categories - 1}].")
    return CategoricalBank(weights=weights, counts=counts, prior=prior)
