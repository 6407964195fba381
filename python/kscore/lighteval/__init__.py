"""kscore's metrics inside lighteval (``pip install 'kscore[lighteval]'``).

``lighteval ... --custom-tasks kscore.lighteval`` loads this module, which
adds to lighteval (0.13):

* ``Metrics.kscore`` and ``Metrics.kscore_math`` (``extend_enum``): one
  sample-level metric that grades each of a document's ``n`` samples
  (exact match, or lighteval's math answer extraction) and reports every
  kscore metric asked for -- pass@k, pass^k, G-Pass@k_tau, mG-Pass@k, maj@k,
  AUC@k, Bayes@N, ... -- per document from its counts, averaged over documents
  with its standard error (:func:`sampling_metric` builds one with any
  metrics and ``n``);
* the tasks ``aime24_kscore``, ``aime25_kscore`` and ``math_500_kscore``
  (:data:`TASKS_TABLE`): lighteval's own tasks with 16 samples per problem
  and kscore's metrics.

The values equal ``kscore leaderboard``'s on the same outcomes, and the
standard errors its sigma over questions. See docs/lighteval.md.
"""

from __future__ import annotations

from ._compat import REQUIRES, check

__version_checked__ = check()

from aenum import extend_enum  # noqa: E402  (after the version check; lighteval depends on aenum)
from lighteval.metrics.metrics import Metrics  # noqa: E402

from ._metric import DEFAULT, KscoreSampling, kscore_mean, sampling_metric  # noqa: E402
from ._tasks import METRICS, N, math_metric, tasks_table  # noqa: E402

if "kscore" not in Metrics.__members__:
    extend_enum(Metrics, "kscore", sampling_metric())
    extend_enum(Metrics, "kscore_math", math_metric())

#: The ready tasks lighteval's ``--custom-tasks kscore.lighteval`` loads.
TASKS_TABLE = tasks_table()

__all__ = ["DEFAULT", "METRICS", "N", "REQUIRES", "TASKS_TABLE", "KscoreSampling", "kscore_mean", "math_metric",
           "sampling_metric"]
