"""``kscore.inspect``: kscore inside inspect_ai (docs/inspect.md).

``pip install 'kscore[inspect]'`` registers kscore with inspect through the
``inspect_ai`` entry-point group (name ``kscore``), so inspect finds
``kscore/pass_at_k`` and the rest by name (``inspect score --metric``).

* Metrics over the unreduced epochs, each with its standard error and
  interval over samples (clustered by a sample-metadata key on request):
  :func:`pass_at_k`, :func:`pass_hat_k`, :func:`g_pass_at_k_tau`,
  :func:`mg_pass_at_k`, :func:`maj_at_k`, :func:`auc_at_k`, :func:`bayes`,
  :func:`avg_at_n`. Attach them with ``Task(metrics=[...])`` or
  ``@scorer(metrics=[...])``.
* Epoch reducers: :func:`g_pass_at`, :func:`mg_pass_at`, :func:`maj_at`.
* From logs: :func:`compare` (two logs, paired), :func:`compare_all` (every
  pair, Holm-adjusted), :func:`power` (the board's design plan: minimum
  detectable differences, variance within and between samples).

Examples:
    >>> from inspect_ai import Task
    >>> from inspect_ai.dataset import Sample
    >>> from inspect_ai.scorer import match
    >>> from kscore.inspect import bayes, pass_at_k
    >>> task = Task(dataset=[Sample(input="1+1?", target="2")], scorer=match(),
    ...             metrics=[pass_at_k([1, 4]), bayes()], epochs=4)
"""

from __future__ import annotations

from ._require import check as _check

_check()

from ._logs import board, compare, compare_all, power  # noqa: E402
from ._registry import (  # noqa: E402
    auc_at_k,
    avg_at_n,
    bayes,
    g_pass_at,
    g_pass_at_k_tau,
    maj_at,
    maj_at_k,
    mg_pass_at,
    mg_pass_at_k,
    pass_at_k,
    pass_hat_k,
)

__all__ = [
    "pass_at_k",
    "pass_hat_k",
    "g_pass_at_k_tau",
    "mg_pass_at_k",
    "maj_at_k",
    "auc_at_k",
    "bayes",
    "avg_at_n",
    "g_pass_at",
    "mg_pass_at",
    "maj_at",
    "compare",
    "compare_all",
    "power",
    "board",
]
