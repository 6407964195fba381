"""The geometric blend ``x**a * y**b`` with scorio's zero rules.

The numbers come from the core (``delta::blend``, shared with the delta
method of the ``*_ci`` functions). Only powers that are not real numbers stay
in Python: scorio runs them through Python's own comparison and ``**``, and
the exact TypeError depends on the data, so the same Python code decides."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _kscore

_REAL = (int, float, np.integer, np.floating)


def _python_blend(x: float, y: float, a: Any, b: Any) -> float:
    """scorio's scalar blend, verbatim in behaviour (for non-real powers)."""
    if a == 0.0 and b == 0.0:
        raise ValueError("at least one power must be non-zero")
    if x == 0.0 and a < 0.0:
        if y == 0.0 and b > 0.0:
            return 0.0
        raise ValueError(f"x_power must be non-negative when x is zero; got x_power={a}")
    if y == 0.0 and b < 0.0:
        if x == 0.0 and a > 0.0:
            return 0.0
        raise ValueError(f"y_power must be non-negative when y is zero; got y_power={b}")
    return float((x**a) * (y**b))


def power(value: Any) -> tuple[float, str]:
    """A blend exponent as a float plus its text for scorio's messages;
    a non-real power fails as Python's ``**`` does in scorio."""
    if not isinstance(value, _REAL):
        _python_blend(0.5, 0.5, value, value)  # raises the TypeError
        raise TypeError(f"unsupported power type: {type(value).__name__}")
    return float(value), f"{value}"


def real_powers(a: Any, b: Any) -> bool:
    """Whether both powers are real numbers (the core blends them)."""
    return isinstance(a, _REAL) and isinstance(b, _REAL)


# The default powers (a = b = 1/2) with their text made once: formatting
# two floats took 0.5 us of a 5 us call on a 20 x 8 matrix.
_HALVES = (0.5, 0.5, "0.5", "0.5")


def blend_args(a: Any, b: Any) -> tuple[float, float, str, str]:
    """Real powers as the core takes them: values, then their text as Python
    prints them (for scorio's messages)."""
    if type(a) is float and type(b) is float and a == 0.5 and b == 0.5:
        return _HALVES
    return float(a), float(b), f"{a}", f"{b}"


def weighted_geometric_means(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], a: Any, b: Any
) -> npt.NDArray[np.float64]:
    """Element-wise ``x**a * y**b``; raises as the first offending element
    (in order) would, Python's OverflowError included."""
    if not real_powers(a, b):
        return np.array([_python_blend(float(xi), float(yi), a, b) for xi, yi in zip(x, y)])
    return _kscore.blend(
        np.ascontiguousarray(x, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64), *blend_args(a, b)
    )


def weighted_geometric_mean(x: float, y: float, a: Any, b: Any) -> float:
    """``x**a * y**b`` for one pair."""
    return float(weighted_geometric_means(np.array([x]), np.array([y]), a, b)[0])
