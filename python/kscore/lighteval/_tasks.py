"""Ready tasks for ``--custom-tasks kscore.lighteval``: lighteval's own AIME
and MATH-500 tasks (same data, prompt and math answer extraction) with 16
samples per problem and kscore's metrics in place of lighteval's."""

from __future__ import annotations

import dataclasses
from typing import Any

from lighteval.metrics.metrics import Metrics
from lighteval.metrics.utils.metric_utils import SampleLevelMetricGrouping

from ._metric import sampling_metric

#: Samples per problem of the ready tasks, and the metrics they report.
N = 16
METRICS = "pass@1,pass@4,pass@16,pass^4,g-pass@16_0.5,mg-pass@16,maj@16,bayes@N"


def math_metric(metrics: str = METRICS, n: int = N) -> SampleLevelMetricGrouping:
    """:func:`sampling_metric` scored as lighteval's ``pass_at_k_math`` (the
    answer's expression or LaTeX extracted from the sample and the gold, compared
    symbolically).

    Examples:
        >>> math_metric("pass@1,maj@4", n=4).metric_name
        ['pass@1', 'maj@4']
    """
    scorer = Metrics.pass_at_k_math.value.sample_level_fn.compute_score  # type: ignore[attr-defined,unused-ignore]
    return sampling_metric(metrics, n=n, sample_scoring_function=scorer)


def _variant(module: str, name: str) -> Any:
    """lighteval's task ``name`` (from ``lighteval.tasks.tasks.<module>``) as
    ``<name>_kscore``, with :func:`math_metric` as its only metric."""
    import importlib

    config = getattr(importlib.import_module(f"lighteval.tasks.tasks.{module}"), name)
    return dataclasses.replace(config, name=f"{name}_kscore", metrics=[math_metric()])


def tasks_table() -> list[Any]:
    """``aime24_kscore``, ``aime25_kscore`` and ``math_500_kscore``."""
    return [_variant("aime", "aime24"), _variant("aime", "aime25"), _variant("math_500", "math_500")]
