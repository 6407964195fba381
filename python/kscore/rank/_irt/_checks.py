"""Argument checks of scorio.rank 0.2.3's IRT rankers, with its exception
types and messages (``scorio/rank/irt.py``: ``_validate_positive_int``,
``_validate_nonnegative_float``, the guessing and time checks, the dynamic
score targets)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

#: scorio's L-BFGS-B box on log-discriminations, and the largest |ability|
#: or |difficulty| it calls a stable estimate.
LOG_DISCRIMINATION_BOUND = 8.0
MAX_STABLE_LOCATION = 50.0


def positive_int(name: str, value: Any, min_value: int = 1) -> int:
    """An integer hyperparameter ``>= min_value`` (bool refused)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    ivalue = int(value)
    if ivalue < min_value:
        raise ValueError(f"{name} must be >= {min_value}, got {ivalue}")
    return ivalue


def nonnegative_float(name: str, value: Any) -> float:
    """A finite scalar ``>= 0``."""
    fvalue = float(value)
    if not np.isfinite(fvalue) or fvalue < 0.0:
        raise ValueError(f"{name} must be a finite scalar >= 0.0, got {value!r}")
    return fvalue


def guessing_upper(value: Any) -> float:
    """The 3PL guessing bound, in (0, 1)."""
    upper = float(value)
    if not np.isfinite(upper) or not (0.0 < upper < 1.0):
        raise ValueError("guessing_upper must be in (0, 1) and finite.")
    return upper


def fix_guessing(value: Any, upper: float) -> float | None:
    """An optional fixed guessing parameter in ``[0, upper]``."""
    if value is None:
        return None
    fixed = float(value)
    if not np.isfinite(fixed) or not (0.0 <= fixed <= upper):
        raise ValueError(f"fix_guessing must be in [0, guessing_upper={upper}] and finite.")
    return fixed


_TARGET_ALIASES = {
    "baseline": "initial",
    "start": "initial",
    "end": "final",
    "average": "mean",
    "delta": "gain",
    "trend": "gain",
}


def score_target(value: Any) -> str:
    """A dynamic IRT score target, aliases resolved."""
    target = str(value).strip().lower()
    target = _TARGET_ALIASES.get(target, target)
    if target not in {"initial", "final", "mean", "gain"}:
        raise ValueError(
            "score_target must be one of "
            "{'initial', 'final', 'mean', 'gain'} "
            "(aliases: baseline, start, end, average, delta, trend)."
        )
    return target


def time_points(values: Any, n_time: int) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The measurement times as given, and scaled to [0, 1]."""
    if values is None:
        raw = np.linspace(0.0, 1.0, n_time, dtype=float)
    else:
        raw = np.asarray(values, dtype=float)
        if raw.ndim != 1 or raw.shape[0] != n_time:
            raise ValueError("time_points must be a 1D array with length equal to R.shape[2].")
        if not np.all(np.isfinite(raw)):
            raise ValueError("time_points must contain only finite values.")
        if np.any(np.diff(raw) <= 0.0):
            raise ValueError("time_points must be strictly increasing.")
    if n_time < 2:
        return raw, np.zeros(n_time, dtype=float)
    span = float(raw[-1] - raw[0])
    if not np.isfinite(span) or span <= 0.0:
        raise ValueError("time_points must span a positive interval.")
    return raw, (raw - raw[0]) / span


def quantile_in_unit(quantile: Any) -> None:
    """``0 < quantile < 1`` (scorio compares without converting)."""
    if not (0.0 < quantile < 1.0):
        raise ValueError("quantile must be in (0, 1)")
