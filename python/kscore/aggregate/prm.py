"""``prm_aggregate``: a process reward model's step scores reduced to one reward per trace.

scorio 0.2.3's ``prm_aggregate`` (Lightman et al., 2023; Wang et al., 2024;
``scorio/aggregate/prm.py``): same methods, default and messages for one trace;
``batch=True`` (or ``lengths=``) for many traces at once, a sequence of traces or
a padded ``(..., L)`` array, reduced in one pass of the core (numpy's pairwise sum
for ``mean``, a left-to-right product for ``prod``: scorio's numbers to the bit).
"""

from __future__ import annotations

from typing import Any

from ._tokens import STEP_MESSAGES, many_values, one_values, shaped
from .confidence import signal

__all__ = ["prm_aggregate"]

_METHODS = ("last", "min", "mean", "prod", "max")


def prm_aggregate(step_scores: Any, *, method: str = "last", batch: bool = False, lengths: Any = None) -> Any:
    """The trace's reward: its ``last``, ``min``, ``mean``, ``prod`` or ``max`` step score."""
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}.")
    if batch or lengths is not None:
        tr = many_values(step_scores, lengths, "step scores")
    else:
        tr = one_values(step_scores, STEP_MESSAGES)
    return shaped(signal(tr, "value", str(method), STEP_MESSAGES), tr)
