"""Reading counts: ``n`` and ``c`` arrays validated, their ``(n, c)`` states
deduplicated in the core, budgets and credits checked, with messages that
name the first offending question."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _kscore
from .._arrays import FloatArray
from .._inputs import spectrum_weights, tau_double, validate_latent_k, validate_tau
from ._types import _TABLE, _Where


def _count_vector(values: object, name: str) -> npt.NDArray[Any]:
    """A 1-D int64 or float64 array (no copy for those dtypes)."""
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 1-D array of counts") from exc
    if array.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of counts; got {array.ndim} dimensions")
    kind = array.dtype.kind
    if kind == "u" and array.dtype.itemsize == 8 and array.size:
        over = np.flatnonzero(array > np.iinfo(np.int64).max)
        if over.size:
            i = int(over[0])
            raise ValueError(f"{name}[{i}] must be at most 4294967295; got {array[i]}")
    if kind in "biu":
        return array.astype(np.int64, copy=False)
    if kind == "f":
        if array.dtype.itemsize > 8:  # long double: check here, exactly
            return _long_double(array, name)
        return array.astype(np.float64, copy=False)
    raise ValueError(f"{name} must contain integer counts; got dtype {array.dtype}")


def _long_double(array: npt.NDArray[Any], name: str) -> npt.NDArray[Any]:
    bad = np.flatnonzero(~np.isfinite(array) | (array != np.trunc(array)) | (array < 0))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"{name}[{i}] must be a non-negative integer; got {array[i]}")
    return array.astype(np.float64)


def _trials(n: object, name: str) -> int | npt.NDArray[Any]:
    """A scalar n stays a Python int; anything else becomes a count vector."""
    if isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_)):
        if n < 0:
            raise ValueError(f"{name} must be non-negative; got {n}")
        return int(n)
    return _count_vector(n, name)


def _states(n: object, c: object, n_name: str, c_name: str, *, index: bool = True) -> _kscore.CountStates:
    """Validated, deduplicated counts. ``index=False`` (means and intervals)
    keeps no per-question state index: memory beyond the counts is then
    O(distinct states), not O(questions)."""
    return _kscore.CountStates.from_counts(
        _trials(n, n_name), _count_vector(c, c_name), n_name, c_name, index
    )


def _budget(k: object, name: str = "k") -> int:
    return validate_latent_k(k, name=name, counts=True)


def _counts_where(n: object, n_name: str) -> _Where:
    scalar = isinstance(n, (int, np.integer))
    return lambda i, ni: f"{n_name} = {ni}" if scalar else f"{n_name}[{i}] = {ni}"


def _fits(states: _kscore.CountStates, k: int, where: _Where, what: str = "k") -> None:
    """Raise unless ``k <= n`` for every question (first offender named)."""
    hit = states.first_short(k)
    if hit is not None:
        i, ni = hit
        raise ValueError(
            f"{what} = {k} exceeds {where(i, ni)} (question {i}); "
            "finite-bank metrics need 1 <= k <= n for every question"
        )


def _nonempty(states: _kscore.CountStates, c_name: str) -> None:
    if states.m == 0:
        raise ValueError(f"{c_name} must contain at least one question to average")


def _credit(
    metric: str, k: int, tau: object = None, weights: object = None
) -> _kscore.Credit:
    """The credit of a finite-bank metric at budget k, from the core's metric
    table, with this metric's extra argument checked first."""
    row = _TABLE.get(metric)
    if row is None:
        raise ValueError(f"unknown metric {metric!r}")
    needs = row[1]
    if needs == "tau":
        return _kscore.Credit.of(metric, k, tau=tau_double(_tau(tau), k))
    if needs == "weights":
        if weights is None:
            raise ValueError(f"{metric} needs weights")
        return _kscore.Credit.of(metric, k, weights=spectrum_weights(weights, k))
    return _kscore.Credit.of(metric, k)


def _tau(tau: object) -> Any:
    """tau, checked: a real number in [0, 1] (of its own type: see tau_double)."""
    if tau is None:
        raise ValueError("g_pass_at_k_tau needs tau")
    if isinstance(tau, (bool, np.bool_)) or not isinstance(tau, (int, float, np.integer, np.floating)):
        raise ValueError(f"tau must be a real number in [0, 1]; got {tau!r}")
    validate_tau(tau)
    return tau


def _scalar_or_array(out: FloatArray, mean: bool) -> FloatArray | float:
    return float(out[0]) if mean else out


