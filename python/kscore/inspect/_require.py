"""Which inspect_ai kscore.inspect works with, checked once on import.

kscore's metrics read every epoch of every sample, which inspect hands to a
metric declared ``@metric(scores="unreduced")``; an inspect_ai without that
keyword would silently give them one reduced score per sample instead."""

from __future__ import annotations

import inspect as _pyinspect

#: The inspect_ai the tests run (pinned in pyproject's ``test`` extra).
TESTED = "0.3.285"
#: The first inspect_ai with ``@metric(scores=...)``.
FIRST = "0.3.241"
NEEDS = f"kscore.inspect needs inspect_ai >= {FIRST} (@metric(scores=\"unreduced\"); tested: {FIRST}, {TESTED}): " \
        "pip install 'kscore[inspect]'"


def check() -> None:
    """Raise a one-line ImportError where inspect_ai is missing or too old."""
    try:
        import inspect_ai
        from inspect_ai.scorer import metric
    except ImportError as exc:
        raise ImportError(f"{NEEDS} (inspect_ai is not installed: {exc})") from None
    if "scores" not in _pyinspect.signature(metric).parameters:
        version = getattr(inspect_ai, "__version__", "unknown")
        raise ImportError(f"{NEEDS}; installed: inspect_ai {version}") from None
