"""The aggregation lm_eval calls on a task's documents: every document's
repeat outcomes in, one kscore metric and its standard error out.

The numbers are the leaderboard's (docs/leaderboard.md): the metric is the mean
over documents of each document's unbiased estimate from its ``(n, c)`` counts
(``kscore.leaderboard``'s ``question_estimates``: one core call for all
documents), and its standard error is the spread of those estimates over
documents (``group_se``, the leaderboard's ``questions`` interval), so
``kscore leaderboard`` on the run's ``--log_samples`` file prints the same
value and sigma."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .._arrays import FloatArray
from ..leaderboard.api import Metric, group_se, question_estimates

_BINARY = np.array([0.0, 1.0])


class Outcomes(list[int]):
    """One document's outcomes, one 0/1 per repeat, tagged with the metric
    they are aggregated into. lm_eval's ``--log_samples`` writes it as the
    plain JSON list it is; the tag only travels in memory, from the metric to
    the aggregation (lm_eval hands an aggregation nothing but the values).

    Examples:
        >>> from kscore.leaderboard import Metric
        >>> o = Outcomes([1, 0, 1, 1], Metric("pass_at_k", 2))
        >>> o, o.metric.name
        ([1, 0, 1, 1], 'pass@2')
    """

    def __init__(self, values: Iterable[int], metric: Metric) -> None:
        super().__init__(values)
        self.metric = metric


def _estimates(items: Sequence[Any]) -> tuple[Metric, FloatArray]:
    """The metric of ``items`` and each document's estimate of it."""
    if not items:
        raise ValueError("kscore.lm_eval: no documents to aggregate")
    first = items[0]
    if not isinstance(first, Outcomes):
        raise ValueError(f"kscore.lm_eval: the aggregation 'kscore' got {str(first)[:60]!r} for a document, not the "
                         "repeat outcomes of the metric 'kscore' (pair them in metric_list; multiple targets "
                         "per document are not supported)")
    metric = first.metric
    n = np.empty(len(items), dtype=np.int64)
    c = np.empty(len(items), dtype=np.int64)
    for i, item in enumerate(items):
        if not isinstance(item, Outcomes) or item.metric != metric:
            raise ValueError(f"kscore.lm_eval: document {i} holds {str(item)[:60]!r}, not {metric.name} outcomes")
        n[i], c[i] = len(item), sum(item)
    short = np.flatnonzero(n < metric.budget)
    if short.size:
        i = int(short[0])
        raise ValueError(f"kscore.lm_eval: {metric.name} needs at least {metric.budget} repeats per document; "
                         f"document {i} has {int(n[i])} (raise the task's repeats)")
    cats = np.stack([n - c, c], axis=1)
    return metric, question_estimates(cats, metric, _BINARY, n)


def aggregate(items: Sequence[Any]) -> float:
    """The task's value of the metric: the mean over documents of each
    document's estimate (lm_eval's aggregation ``kscore``).

    Examples:
        >>> from kscore.leaderboard import Metric
        >>> pass2 = Metric("pass_at_k", 2)
        >>> round(aggregate([Outcomes([1, 0, 0, 0], pass2), Outcomes([1, 1, 0, 0], pass2)]), 12)  # (1/2 + 5/6) / 2
        0.666666666667
    """
    return float(np.mean(_estimates(items)[1]))


def standard_error(items: Sequence[Any]) -> float:
    """The standard error of :func:`aggregate` over documents (sample standard
    deviation of the per-document estimates over the square root of their
    number: ``kscore.leaderboard``'s sigma); NaN with one document.

    Examples:
        >>> from kscore.leaderboard import Metric
        >>> pass1 = Metric("pass_at_k", 1)
        >>> standard_error([Outcomes([1, 1], pass1), Outcomes([0, 0], pass1)])  # sd 0.7071 / sqrt 2
        0.5
    """
    x = _estimates(items)[1]
    _, se, _ = group_se(x, np.zeros(len(x), dtype=np.int64), 1, None)
    return float(se[0])
