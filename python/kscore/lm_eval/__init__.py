"""kscore's metrics inside lm-evaluation-harness (``pip install 'kscore[lm-eval]'``).

Importing this module registers with lm_eval (0.4.12 or newer, below 0.5):

* the metric ``kscore``: it grades every repeat of a document (lm_eval's
  ``exact_match`` and its options, or a grade a filter gave) and hands the
  outcomes on under the name of each kscore metric asked for with
  ``metrics:`` -- ``pass@K``, ``pass^K``, ``g-pass@K_TAU``, ``mg-pass@K``,
  ``maj@K``, ``auc@K``, ``cons@K``, ``avg@n``, ``bayes@N`` (the names of
  ``kscore leaderboard``);
* the aggregation ``kscore``: each metric over the task's documents, computed
  by kscore's core from the per-document counts, with its standard error
  (which lm_eval gives no aggregation of its own making).

lm_eval's default ``take_first`` filter scores only the first repeat; a task
that uses ``kscore`` gives a ``filter_list`` that keeps them all. The task
YAML, the command line (``python -m kscore.lm_eval`` is lm_eval's with kscore
registered) and what the numbers are: docs/lm_eval.md.

The values and standard errors equal ``kscore leaderboard``'s on the run's
``--log_samples`` file (tests/test_lm_eval.py checks it on a real run).
"""

from __future__ import annotations

import sys

from ._compat import REQUIRES, check


def _run_as_main() -> bool:
    """Whether this import is ``python -m kscore.lm_eval`` locating its ``__main__``."""
    argv = getattr(sys, "orig_argv", [])
    return "-m" in argv[:-1] and argv[argv.index("-m") + 1] == __name__


try:
    __version_checked__ = check()
except ImportError as exc:
    if _run_as_main():  # the command line: one line on stderr, exit status 2, no traceback
        print(f"kscore: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    raise

from ._aggregate import Outcomes, aggregate, standard_error  # noqa: E402  (after the version check)
from ._outcomes import grade, outcomes  # noqa: E402
from ._register import NAME, register  # noqa: E402

register()

__all__ = ["NAME", "REQUIRES", "Outcomes", "aggregate", "grade", "outcomes", "register", "standard_error"]
