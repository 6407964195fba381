"""The geometric blend ``x**a * y**b`` with scorio's zero rules, for one
pair (Python floats) or element-wise over states (first offender raises)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt


def weighted_geometric_mean(x: float, y: float, a: Any, b: Any) -> float:
    """``x**a * y**b`` with scorio's rules for zero bases."""
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


def weighted_geometric_means(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], a: Any, b: Any
) -> npt.NDArray[np.float64]:
    """Element-wise :func:`weighted_geometric_mean`; raises as the first
    offending element (in order) would, including Python's OverflowError."""
    real = (int, float, np.integer, np.floating)
    if not (isinstance(a, real) and isinstance(b, real)):
        # Exotic powers: scorio's per-state loop decides what is raised.
        return np.array([weighted_geometric_mean(float(xi), float(yi), a, b) for xi, yi in zip(x, y)])
    if a == 0.0 and b == 0.0:
        raise ValueError("at least one power must be non-zero")
    fa, fb = float(a), float(b)
    x_zero_bad = (x == 0.0) & (fa < 0.0)
    y_zero_bad = (y == 0.0) & (fb < 0.0)
    zero_out = (x_zero_bad & (y == 0.0) & (fb > 0.0)) | (y_zero_bad & (x == 0.0) & (fa > 0.0))
    x_err = x_zero_bad & ~zero_out
    y_err = y_zero_bad & ~zero_out & ~x_err
    bad = np.flatnonzero(x_err | y_err)
    if bad.size:
        if x_err[bad[0]]:
            raise ValueError(f"x_power must be non-negative when x is zero; got x_power={a}")
        raise ValueError(f"y_power must be non-negative when y is zero; got y_power={b}")
    with np.errstate(all="ignore"):
        xa = np.power(x, fa)
        yb = np.power(y, fb)
    if (np.isinf(xa) | np.isinf(yb))[~zero_out].any():
        raise OverflowError(34, "Numerical result out of range")
    with np.errstate(all="ignore"):
        out = xa * yb
    out[zero_out] = 0.0
    return out
