"""Which lighteval versions ``kscore.lighteval`` works with, checked before
anything of lighteval is imported: 0.13 (the sample-level API of
``SampleLevelComputation.compute(doc, model_response)`` and
``SamplingMetric``, tested with 0.13.0, the newest on PyPI)."""

from __future__ import annotations

from .._versions import require

#: The versions supported, as pip writes them (pyproject's ``lighteval`` extra).
REQUIRES = ">=0.13,<0.14"
_LOW, _HIGH = (0, 13), (0, 14)
INSTALL = "pip install 'kscore[lighteval]'"


def check(installed: str | None = None) -> str:
    """The installed lighteval version; ImportError (one line naming what is
    needed) when it is missing or outside :data:`REQUIRES`.

    Examples:
        >>> check("0.13.0")
        '0.13.0'
        >>> check("0.12.2")
        Traceback (most recent call last):
        ...
        ImportError: kscore.lighteval needs lighteval>=0.13,<0.14 (found 0.12.2): pip install 'kscore[lighteval]'
    """
    return require("kscore.lighteval", "lighteval", REQUIRES, _LOW, _HIGH, INSTALL, installed)
