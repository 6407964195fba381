"""Types and metric names shared by the kscore.counts modules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Union

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
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

_FAMILY = {
    "pass_at_k": "pass_at_k",
    "pass_hat_k": "pass_hat_k",
    "unanimous_at_k": "pass_hat_k",
    "g_pass_at_k": "pass_hat_k",
    "g_pass_at_k_tau": "g_pass_at_k_tau",
    "mg_pass_at_k": "mg_pass_at_k",
    "maj_at_k": "maj_at_k",
    "auc_at_k": "auc_at_k",
}

_Where = Callable[[int, int], str]
_How = Literal["question", "mean", "segments"]

