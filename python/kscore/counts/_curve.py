"""Many budgets at once: :func:`curve`, one metric for every k."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _kscore
from .._arrays import FloatArray
from ._intake import _budget, _counts_where, _fits, _nonempty, _states, _tau
from ._types import _FAMILY, CurveMetric, Trials, _Where


def _budgets(ks: object, states: _kscore.CountStates, where: _Where) -> list[int]:
    if ks is None:
        hit = states.first_short(1)
        if hit is not None:
            i, ni = hit
            raise ValueError(f"a curve needs n >= 1; got {where(i, ni)} (question {i})")
        top = _min_n(states)
        return list(range(1, top + 1))
    if isinstance(ks, (int, np.integer)):
        raise ValueError(f"ks must be a sequence of budgets; got {ks!r}")
    out = [_budget(x, name=f"ks[{j}]") for j, x in enumerate(np.asarray(ks, dtype=object).ravel())]
    if not out:
        raise ValueError("ks must contain at least one budget")
    top = max(out)
    _fits(states, top, where, what=f"ks[{out.index(top)}]")
    return out


def _min_n(states: _kscore.CountStates) -> int:
    low = states.min_n
    return 0 if low is None else low


def _family(metric: str) -> str:
    family = _FAMILY.get(metric)
    if family is None:
        raise ValueError(
            f"metric {metric!r} has no budget family; use one of {sorted(_FAMILY)}"
        )
    return family


def curve(
    n: Trials,
    c: npt.ArrayLike,
    metric: CurveMetric = "pass_at_k",
    ks: Sequence[int] | npt.NDArray[np.integer[Any]] | None = None,
    *,
    tau: float | None = None,
    mean: bool = True,
) -> FloatArray:
    r"""A metric at many budgets in one call over the distinct states.

    Args:
        n, c: per-question counts, as for :func:`pass_at_k`.
        metric: a budget family: ``"pass_at_k"`` (default), ``"pass_hat_k"``,
            ``"g_pass_at_k_tau"`` (with ``tau``), ``"mg_pass_at_k"``,
            ``"maj_at_k"``, ``"auc_at_k"``.
        ks: the budgets (any order, repeats allowed); default every
            ``k = 1..min(n)``.
        mean: average over questions (shape ``(K,)``) or not (``(M, K)``).

    Pass@k and Pass^k take a recurrence over k per state (O(U * max k) in
    all for U distinct states); the other families evaluate each
    (state, k) once.

    Examples:
        >>> curve(4, [0, 2, 4])
        array([0.5       , 0.61111111, 0.66666667, 0.66666667])
    """
    family = _family(metric)
    states = _states(n, c, "n", "c", index=not mean)
    if mean:
        _nonempty(states, "c")
    budgets = _budgets(ks, states, _counts_where(n, "n"))
    t = float(_tau(tau)) if family == "g_pass_at_k_tau" else 0.0
    table = states.curve(family, t, budgets, "mean" if mean else "question")
    return table[0] if mean else table


