"""Argument checks shared by every metric, with scorio 0.2.3's exact messages.

Cheap metadata checks (shape, dtype) run here; the value checks (finite,
integer-valued, in range) run in the Rust intake during the same pass that
counts successes, so the matrix is read once and never copied.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import numpy.typing as npt

from . import _kscore

# dtypes the Rust intake reads in place (native byte order).
_NATIVE = frozenset(
    np.dtype(t)
    for t in (
        np.bool_, np.int8, np.int16, np.int32, np.int64,
        np.uint8, np.uint16, np.uint32, np.uint64, np.float32, np.float64,
    )
)


_FLOAT64 = np.dtype(np.float64)


def as_matrix(
    values: object, *, name: str = "R", allow_empty_trials: bool = False
) -> npt.NDArray[Any]:
    """Return ``values`` as a 2-D array the intake can read, without copying
    the common dtypes. 1-D input is one question."""
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a rectangular numeric or boolean array.") from exc
    if array.ndim == 2 and array.dtype in _NATIVE:
        # The common case, in a few hundred nanoseconds: none of the checks
        # below can fail for a non-empty 2-D array of a native dtype.
        m, n = array.shape
        if m and (n or allow_empty_trials):
            return array
    if array.ndim == 1:
        array = array.reshape(1, -1)
    elif array.ndim != 2:
        raise ValueError(f"{name} must be a 1D or 2D array; got {array.ndim} dimensions.")
    m, n = array.shape
    if m == 0:
        raise ValueError(f"{name} must contain at least one question (M >= 1).")
    if n == 0 and not allow_empty_trials:
        raise ValueError(f"{name} must contain at least one trial (N >= 1).")
    dtype = array.dtype
    if np.issubdtype(dtype, np.complexfloating):
        raise ValueError(f"{name} must contain real values, not complex values.")
    if not (
        np.issubdtype(dtype, np.bool_)
        or np.issubdtype(dtype, np.integer)
        or np.issubdtype(dtype, np.floating)
    ):
        raise ValueError(f"{name} must contain only numeric or boolean values.")
    if dtype in _NATIVE:
        return array
    return _to_native(array, name)


def _to_native(array: npt.NDArray[Any], name: str) -> npt.NDArray[Any]:
    """Rare dtypes: float16, long double, non-native byte order, timedelta."""
    dtype = array.dtype
    if dtype.kind == "m":
        raise TypeError(
            f"Cannot cast array data from {dtype!r} to dtype('int64') according to the rule 'safe'"
        )
    if dtype.kind == "f" and dtype.itemsize > 8:
        # long double: check in its own precision, then hand over int64.
        if not np.all(np.isfinite(array)):
            raise ValueError(f"{name} must contain only finite values.")
        if not np.all(array == np.trunc(array)):
            raise ValueError(f"{name} must contain only integer-valued entries.")
        lower = np.longdouble(np.iinfo(np.int64).min)
        upper = np.longdouble(2) ** 63
        if np.any(array < lower) or np.any(array >= upper):
            raise ValueError(f"{name} entries must fit in a signed 64-bit integer.")
        return array.astype(np.int64)
    if dtype.kind == "f" and dtype.itemsize < 4:
        return array.astype(np.float32)  # exact for float16
    return array.astype(dtype.newbyteorder("="))


def binary_bank(R: object) -> _kscore.BinaryBank:
    """Validate a binary outcome matrix and histogram its row sums (one pass)."""
    return _kscore.BinaryBank.from_matrix(as_matrix(R))


def integral_scalar(value: object, *, name: str, stop: str = ".") -> int:
    if type(value) is int:  # the common call, without numpy's ABC checks
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer; got {value!r}{stop}")
    return int(value)


def validate_finite_k(n: int, k: object) -> int:
    """``1 <= k <= N`` (finite-bank budget)."""
    budget = integral_scalar(k, name="k")
    if not 1 <= budget <= n:
        raise ValueError(f"k must satisfy 1 <= k <= N (N={n}); got k={budget}")
    return budget


def validate_latent_k(k: object, *, name: str = "k", counts: bool = False) -> int:
    """``k >= 1``: a latent budget (fresh draws, may exceed N) in
    ``kscore.eval``, and every budget of ``kscore.counts``, whose bound
    against each question's n comes later, from the counts. The two keep
    their messages: scorio's for eval (``got k=0``), and for counts one that
    reads well for array positions (``ks[3] must be >= 1; got 0``)."""
    budget = integral_scalar(k, name=name, stop="" if counts else ".")
    if budget < 1:
        got = f"{budget}" if counts else f"{name}={budget}"
        raise ValueError(f"{name} must be >= 1; got {got}")
    return budget


def validate_tau(tau: Any) -> None:
    if not (0.0 <= tau <= 1.0):
        raise ValueError(f"tau must be in [0, 1]; got {tau}")


def tau_double(tau: Any, k: int) -> float:
    """tau as the double the core's G-Pass@k_tau credit reads (the smallest j
    whose double j/k is at least tau), giving scorio's threshold
    ``max(1, ceil(tau k))`` for tau of any type. scorio computes it in tau's
    own arithmetic: a float32 0.6 times 5 rounds to 3.0 and compares equal
    to 3/5, so it needs 3 successes where the double 0.6000000238 needs 4.
    Python and float64 taus are already doubles; another type is replaced by
    j/k of the threshold j it gives in its own type (tau = 0 stays 0:
    both need one success)."""
    if type(tau) in (float, int, np.float64):
        return float(tau)
    if tau <= 0:
        return 0.0
    threshold = math.floor(tau * k)
    if tau > threshold / k:
        threshold += 1
    return max(1, int(threshold)) / k


def real_vector(values: object, *, name: str) -> npt.NDArray[np.float64]:
    """scorio's vector normalisation (messages without trailing period)."""
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric or boolean array") from exc
    if np.issubdtype(array.dtype, np.complexfloating):
        raise ValueError(f"{name} must contain real values, not complex values")
    if not (np.issubdtype(array.dtype, np.number) or np.issubdtype(array.dtype, np.bool_)):
        raise ValueError(f"{name} must contain only numeric values")
    with np.errstate(over="ignore", invalid="ignore"):
        normalized = np.asarray(array, dtype=float)
    if not np.all(np.isfinite(normalized)):
        raise ValueError(f"{name} must be finite")
    return normalized


def spectrum_weights(weights: object, k: int) -> npt.NDArray[np.float64]:
    """Threshold-spectrum weights: length k, finite, >= 0, sum <= 1."""
    w = np.asarray(weights)  # unguarded, as scorio: ragged input raises numpy's error
    if w.ndim == 1 and w.dtype == _FLOAT64 and w.shape[0] == k:
        # The common case in two reductions: a finite total (scorio's np.sum)
        # implies finite entries. Below 8 terms numpy's pairwise sum is the
        # plain left-to-right loop, so Python's sum gives the same total.
        if k < 8:
            values = w.tolist()
            total = sum(values)
            negative = min(values) < 0.0
        else:
            total = float(w.sum())
            negative = bool((w < 0.0).any())
        if math.isfinite(total) and total <= 1.0 + 1e-12 and not negative:
            return np.ascontiguousarray(w)
    if w.ndim != 1 or w.shape[0] != k:
        raise ValueError(f"weights must be a length-{k} 1D array; got shape {w.shape}")
    array = real_vector(w, name="weights")
    if np.any(array < 0.0):
        raise ValueError("weights must be non-negative")
    total = float(np.sum(array))
    if total > 1.0 + 1e-12:
        raise ValueError(f"weights must satisfy sum(weights) <= 1; got sum={total}")
    return np.ascontiguousarray(array, dtype=np.float64)


def mg_spectrum_weights(k: int) -> npt.NDArray[np.float64]:
    """GeoSpectrum* default: ``2/k`` at 1-based positions ``r >= ceil(k/2) + 1``.
    Made once per k up to 1024 (1 us of a 5 us call on a 20 x 8 matrix;
    at most 2 MB kept), read-only."""
    return _mg_spectrum_weights(k) if k <= 1024 else _make_mg_spectrum_weights(k)


def _make_mg_spectrum_weights(k: int) -> npt.NDArray[np.float64]:
    weights = np.zeros(k, dtype=np.float64)
    weights[(k + 1) // 2 :] = 2.0 / k
    weights.flags.writeable = False
    return weights


_mg_spectrum_weights = functools.lru_cache(maxsize=256)(_make_mg_spectrum_weights)


def resolve_lambda(lam: Any, lambda_: Any = None) -> float:
    if lambda_ is not None:
        if lam != 0.5:
            raise TypeError("Specify at most one of 'lam' and 'lambda_'.")
        lam = lambda_
    if not (0.0 <= lam <= 1.0):
        raise ValueError(f"lam must be in [0, 1]; got {lam}")
    return float(lam)


def finite_positive(value: object, *, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise ValueError(f"{name} must be a finite positive scalar; got {value!r}.")
    result = float(value)
    if not math.isfinite(result) or result <= 0.0:
        raise ValueError(f"{name} must be a finite positive scalar; got {value!r}.")
    return result


# Reward dtypes whose values convert to float64 exactly or by rounding only.
_REAL = frozenset(np.dtype(t) for t in (np.float64, np.float32, np.int64, np.int32, np.bool_))

def normalize_weights(weights: Any) -> npt.NDArray[np.float64]:
    """A read-only float64 copy of a user reward vector ``w`` (not None)."""
    try:
        array = np.asarray(weights)
    except (TypeError, ValueError) as exc:
        raise ValueError("w must be a finite, non-empty 1D numeric array.") from exc
    if array.ndim == 1 and array.dtype in _REAL and 0 < array.size <= 64:
        # The common case (a few rewards) without numpy's per-call overheads:
        # none of the checks below can fail when every value is finite.
        values = array.tolist()
        if all(map(math.isfinite, values)):
            normalized = np.array(values, dtype=np.float64)
            normalized.setflags(write=False)
            return normalized
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"w must be a non-empty 1D array; got shape {array.shape}.")
    is_bool = np.issubdtype(array.dtype, np.bool_)
    is_numeric = np.issubdtype(array.dtype, np.number)
    if np.issubdtype(array.dtype, np.complexfloating):
        raise ValueError("w must contain real values, not complex values.")
    if not (is_bool or is_numeric):
        raise ValueError("w must contain only numeric values.")
    if not np.all(np.isfinite(array)):
        raise ValueError("w must contain only finite values.")
    with np.errstate(over="ignore", invalid="ignore"):
        normalized = np.array(array, dtype=np.float64, order="C", copy=True)
    if not np.all(np.isfinite(normalized)):
        raise ValueError("w values must be representable as finite float64 values.")
    normalized.setflags(write=False)
    return normalized
