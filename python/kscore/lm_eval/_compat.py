"""Which lm-evaluation-harness versions ``kscore.lm_eval`` works with, checked
before anything of lm_eval is imported.

0.4.12 is the first release whose ``process_results`` hands a metric's
aggregation on to the keys of the dict it returns (``pass@4``, ``maj@4``, ...
each reach :func:`kscore.lm_eval.aggregate`); 0.5 replaces the metric API
(``register_reduction``) and is not released on PyPI yet, so it is refused
rather than guessed at."""

from __future__ import annotations

from .._versions import require

#: The versions supported, as pip writes them (pyproject's ``lm-eval`` extra).
REQUIRES = ">=0.4.12,<0.5"
_LOW, _HIGH = (0, 4, 12), (0, 5)
INSTALL = "pip install 'kscore[lm-eval]'"


def check(installed: str | None = None) -> str:
    """The installed lm_eval version; ImportError (one line naming what is
    needed) when it is missing or outside :data:`REQUIRES`.

    Examples:
        >>> check("0.4.13")
        '0.4.13'
        >>> check("0.4.9")
        Traceback (most recent call last):
        ...
        ImportError: kscore.lm_eval needs lm_eval>=0.4.12,<0.5 (found 0.4.9): pip install 'kscore[lm-eval]'
    """
    return require("kscore.lm_eval", "lm_eval", REQUIRES, _LOW, _HIGH, INSTALL, installed)
