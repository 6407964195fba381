"""Types and metric names shared by the kscore.counts modules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Union

import numpy as np
import numpy.typing as npt

from .. import _kscore

#: The number of samples: one int for every question, or one per question.
Trials = Union[int, np.integer[Any], npt.ArrayLike]  # noqa: UP007 - a runtime alias on Python 3.10

#: Metrics with a budget-indexed family (usable in :func:`curve`).
CurveMetric = Literal[
    "pass_at_k",
    "pass_hat_k",
    "unanimous_at_k",
    "g_pass_at_k",
    "g_pass_at_k_tau",
    "mg_pass_at_k",
    "maj_at_k",
    "auc_at_k",
]
#: Every metric :func:`question_scores` and :func:`model_scores` accept.
Metric = Union[CurveMetric, Literal["threshold_spectrum_at_k", "avg_at_n", "cons_at_k"]]  # noqa: UP007

#: The core's metric table: each finite-bank name or alias, its canonical
#: name and what it needs besides k ("nothing", "tau" or "weights").
_TABLE = {name: (canonical, needs) for name, canonical, needs in _kscore.metric_table()}
#: Names with a curve over k (every metric but the spectrum), to canonical names.
_FAMILY = {name: canonical for name, (canonical, needs) in _TABLE.items() if needs != "weights"}

_Where = Callable[[int, int], str]
_How = Literal["question", "mean", "segments"]

