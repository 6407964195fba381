"""Checks of scorio.rank 0.2.3's inputs, with its exception types and
messages, in its order (``scorio.rank._base.validate_input`` and the
argument checks of ``bayes`` and ``thompson``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt


def response_tensor(R: Any, binary_only: bool = True) -> npt.NDArray[Any]:  # noqa: N803
    """``R`` as an ``(L, M, N)`` array (a 2-D ``(L, M)`` is ``N = 1``) of the
    values scorio's int cast gives: the dtypes the Rust intake reads exactly
    are kept (no copy), others are cast to int as scorio does.

    Bool and 0/1 floats are accepted; with ``binary_only`` every entry must
    be 0 or 1, else any integer (floats stay binary-only). At least two
    models, one question and one trial.
    """
    array = np.asarray(R)
    if array.ndim == 2:
        array = array[:, :, np.newaxis]
    elif array.ndim != 3:
        raise ValueError(
            f"Input R must be a 2D array of shape (L, M) or 3D array of shape (L, M, N), got shape {array.shape}"
        )
    dtype = array.dtype
    kind = dtype.kind  # scorio's issubdtype tests, by kind: numbers are "iufcm"
    if kind != "b":
        if kind not in _NUMBER_KINDS:
            raise ValueError(f"Input R must be numeric, got dtype {dtype}")
        if kind == "c":
            raise ValueError("Input R must contain real-valued outcomes")
        if kind in "iu":
            # Integers are finite; 0/1 from the extremes (no boolean temporaries),
            # and only where asked.
            if binary_only and not _binary_integers(array):
                raise ValueError("Input R must contain only binary values (0 or 1)")
        else:
            if not np.isfinite(array).all():
                raise ValueError("Input R must not contain NaN or Inf values")
            binary = bool(np.all((array == 0) | (array == 1)))
            if kind == "f":
                if not binary:
                    raise ValueError(
                        "Float inputs must be binary values (0.0 or 1.0). Use integer dtype for multiclass outcomes."
                    )
            elif binary_only and not binary:
                raise ValueError("Input R must contain only binary values (0 or 1)")
        if array.dtype not in _IN_PLACE:
            array = array.astype(int, copy=False)
    L, M, N = array.shape
    if L < 2:
        raise ValueError(f"Need at least 2 models to rank, got L={L}")
    if M < 1:
        raise ValueError(f"Need at least 1 question, got M={M}")
    if N < 1:
        raise ValueError(f"Need at least 1 trial, got N={N}")
    return array


def _binary_integers(array: npt.NDArray[Any]) -> bool:
    """Every entry of an integer array is 0 or 1: one pass, the largest entry
    read as unsigned (negative entries read as huge ones)."""
    unsigned = array.view(np.dtype(f"{array.dtype.byteorder}u{array.dtype.itemsize}"))
    return array.size == 0 or bool(unsigned.max() <= 1)


def is_binary(array: npt.NDArray[Any]) -> bool:
    """Every entry of a validated ``response_tensor`` is 0 or 1."""
    if array.dtype == np.bool_:
        return True
    if array.dtype.kind in "iu":
        return _binary_integers(array)
    return bool(np.all((array == 0) | (array == 1)))


def quantile_value(quantile: Any) -> float:
    """``quantile`` as a float strictly inside (0, 1)."""
    try:
        q = float(quantile)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"quantile must be in (0, 1); got {quantile}") from exc
    if not np.isfinite(q) or not (0.0 < q < 1.0):
        raise ValueError(f"quantile must be in (0, 1); got {q}")
    return q


_NUMBER_KINDS = frozenset("iufcm")

# Valid entries of these dtypes read as the same integers in kscore's intake
# as after scorio's int cast (uint64 is cast: scorio wraps values >= 2**63).
_IN_PLACE = frozenset(
    np.dtype(t)
    for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.float32, np.float64)
)

_R0_VALUES = "R0 must contain real, finite integer-valued outcomes"


def prior_outcomes(R0: Any, L: int, M: int) -> npt.NDArray[np.int_]:  # noqa: N803
    """``R0`` as an int array, shared ``(M, D)`` or per model ``(L, M, D)``."""
    array = np.asarray(R0)
    if np.issubdtype(array.dtype, np.bool_):
        array = array.astype(int, copy=False)
    else:
        if not np.issubdtype(array.dtype, np.number) or np.issubdtype(array.dtype, np.complexfloating):
            raise ValueError(_R0_VALUES)
        if not np.isfinite(array).all():
            raise ValueError(_R0_VALUES)
        if not np.equal(array, np.floor(array)).all():
            raise ValueError(_R0_VALUES)
        array = array.astype(int, copy=False)
    if array.ndim == 2:
        if array.shape[0] != M:
            raise ValueError(f"Shared R0 must have shape (M={M}, D), got {array.shape}")
    elif array.ndim == 3:
        if array.shape[0] != L or array.shape[1] != M:
            raise ValueError(f"Model-specific R0 must have shape (L={L}, M={M}, D), got {array.shape}")
    else:
        raise ValueError(f"R0 must be shape (M, D) or (L, M, D); got ndim={array.ndim} with shape {array.shape}")
    return array


def integer_argument(name: str, value: Any, minimum: int) -> int:
    """An integer hyperparameter of at least ``minimum``, with scorio's
    TypeError (not an integer; bools refused) and ValueError messages."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    number = int(value)
    if number < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {number}")
    return number
