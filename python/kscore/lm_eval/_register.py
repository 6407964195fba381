"""What importing ``kscore.lm_eval`` adds to lm_eval: the metric ``kscore``
(:func:`._outcomes.outcomes`), the aggregation ``kscore``
(:func:`._aggregate.aggregate`) and its standard error.

lm_eval 0.4 gives a standard error only to the aggregations it knows
(``lm_eval.api.metrics.stderr_for_metric``: ``mean``, ``acc_all`` and a
bootstrapped few) and has no registry for others; ``evaluator_utils`` looks the
function up by name on each task, so kscore wraps it there: for kscore's
aggregation it answers :func:`._aggregate.standard_error`, for every other
aggregation exactly what lm_eval's own function answers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._aggregate import aggregate, standard_error
from ._outcomes import outcomes

#: The name of kscore's metric and of its aggregation in lm_eval's registries.
NAME = "kscore"


def _stderr_hook(original: Callable[..., Any]) -> Callable[..., Any]:
    def stderr_for_metric(metric: Callable[..., Any], bootstrap_iters: int) -> Callable[[Sequence[Any]], float] | None:
        if metric is aggregate:
            return standard_error if bootstrap_iters > 0 else None
        return original(metric, bootstrap_iters)  # type: ignore[no-any-return]

    stderr_for_metric.__wrapped__ = original  # type: ignore[attr-defined]
    stderr_for_metric.kscore = True  # type: ignore[attr-defined]
    return stderr_for_metric


def register() -> None:
    """Register the metric and aggregation ``kscore`` with lm_eval and give
    the aggregation its standard error; a second call does nothing."""
    import lm_eval.api.metrics as lm_metrics  # registers lm_eval's own metrics (exact_match, mean) first
    import lm_eval.evaluator_utils as lm_evaluator_utils
    from lm_eval.api.registry import (
        aggregation_registry,
        higher_is_better_registry,
        metric_agg_registry,
        metric_registry,
    )

    for registry, target in ((aggregation_registry, aggregate), (metric_registry, outcomes),
                             (metric_agg_registry, aggregate), (higher_is_better_registry, True)):
        if NAME in registry:
            if registry.get(NAME) is not target:
                raise ImportError(f"kscore.lm_eval: lm_eval already has a {registry._name} named {NAME!r} "
                                  f"({registry.origin(NAME)}), not kscore's")
            continue
        registry.register(NAME, target=target)
    for module in (lm_evaluator_utils, lm_metrics):
        if not getattr(module.stderr_for_metric, "kscore", False):
            module.stderr_for_metric = _stderr_hook(module.stderr_for_metric)
