"""The ``inspect_ai`` entry point (pyproject ``[project.entry-points.inspect_ai]``,
name ``kscore``): inspect loads this module when it meets a ``kscore/<name>``
it does not know yet (``--metric kscore/pass_at_k``, a log's metric specs);
importing it registers every kscore metric and reducer (their decorators)."""

from __future__ import annotations

from ._metrics import auc_at_k, avg_at_n, bayes, g_pass_at_k_tau, maj_at_k, mg_pass_at_k, pass_at_k, pass_hat_k
from ._reducers import g_pass_at, maj_at, mg_pass_at

__all__ = ["pass_at_k", "pass_hat_k", "g_pass_at_k_tau", "mg_pass_at_k", "maj_at_k", "auc_at_k", "bayes",
           "avg_at_n", "g_pass_at", "mg_pass_at", "maj_at"]
