"""Per-sample epoch reducers beside inspect's ``pass_at(k)`` / ``pass_k(k)``:
each sample's epochs reduced to its G-Pass@k_tau, mG-Pass@k or maj@k (the
unbiased estimator from its n epochs and c correct ones, kscore.counts).

Values map as in the metrics (inspect's ``value_to_float()``; each must be
0 or 1); unscored epochs (NaN) are left out, as inspect's reducers do, and a
sample with fewer than ``k`` scored epochs reduces to NaN (unscored)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from inspect_ai.scorer import Score, ScoreReducer, score_reducer

from .. import counts as kc
from ..formats.api import to_float as default_to_float
from ._samples import ToFloat


def _reducer(where: str, k: int, estimate: Callable[[int, int], float], to_float: ToFloat | None) -> ScoreReducer:
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ValueError(f"kscore {where}: k must be a positive integer; got {k!r}")
    convert = to_float or default_to_float

    def reduce(scores: list[Score]) -> Score:
        values = [s.value for s in scores if not (isinstance(s.value, float) and math.isnan(s.value))]
        n, c = len(values), 0
        for v in values:
            f: Any = convert(v) if not isinstance(v, dict | list) else None
            if f != 0.0 and f != 1.0:
                raise ValueError(f"kscore {where}: score value {v!r} is not 0 or 1 (as inspect's value_to_float "
                                 "maps it)")
            c += int(f)
        if n < k:
            return Score(value=float("nan"), explanation=f"{n} scored epochs, fewer than k = {k}")
        return Score(value=estimate(n, c), explanation=f"{c} of {n} epochs correct")

    return reduce


@score_reducer
def g_pass_at(k: int, tau: float = 0.5, to_float: ToFloat | None = None) -> ScoreReducer:
    """Each sample's G-Pass@k_tau: the probability that at least
    ``ceil(tau k)`` of ``k`` epochs drawn without replacement are correct.

    Examples:
        >>> from kscore.inspect import g_pass_at
        >>> r = g_pass_at(4, 0.75)  # Task(..., epochs=Epochs(8, g_pass_at(4, 0.75)))
    """
    if not 0.0 <= tau <= 1.0:
        raise ValueError(f"kscore g_pass_at: tau must lie in [0, 1]; got {tau!r}")
    return _reducer("g_pass_at", k, lambda n, c: float(kc.g_pass_at_k_tau([n], [c], k, float(tau))[0]), to_float)


@score_reducer
def mg_pass_at(k: int, to_float: ToFloat | None = None) -> ScoreReducer:
    """Each sample's mG-Pass@k (G-Pass@k_tau averaged over tau in [0.5, 1]).

    Examples:
        >>> from kscore.inspect import mg_pass_at
        >>> r = mg_pass_at(4)
    """
    return _reducer("mg_pass_at", k, lambda n, c: float(kc.mg_pass_at_k([n], [c], k)[0]), to_float)


@score_reducer
def maj_at(k: int, to_float: ToFloat | None = None) -> ScoreReducer:
    """Each sample's maj@k: the probability that a strict majority of ``k``
    epochs drawn without replacement are correct.

    Examples:
        >>> from kscore.inspect import maj_at
        >>> r = maj_at(5)
    """
    return _reducer("maj_at", k, lambda n, c: float(kc.maj_at_k([n], [c], k)[0]), to_float)
