"""The leaderboard's option checks, shared by ``leaderboard()``, ``count()``
and the Dask reader: a leaf (no package imports but the error type), so
that read/ need not import _run.py."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ._issues import LeaderboardError

INTERVALS = ("questions", "answers", "normal", "posterior", "wilson")
"""``interval=``: over questions (the default of stats/default_interval.py), given the questions (answer sampling
alone: stats/answers.py), the normal one over questions (the default before issue 36), the Bayesian credible
interval under a uniform prior per question, Wilson's on the effective df (small boards)."""
ADJUST = ("none", "holm", "simultaneous")
"""``adjust=``: the paired tests behind the rank ranges."""


def check(confidence: float, interval: str, adjust: str) -> None:
    """Raise :class:`LeaderboardError` on a confidence outside (0, 1) or an
    unknown ``interval`` / ``adjust``."""
    if not 0.0 < confidence < 1.0:
        raise LeaderboardError(f"--confidence must lie in (0, 1); got {confidence}")
    if interval not in INTERVALS:
        raise LeaderboardError(f"--interval must be one of {', '.join(INTERVALS)}; got {interval!r}")
    if adjust not in ADJUST:
        raise LeaderboardError(f"--adjust must be one of {', '.join(ADJUST)}; got {adjust!r}")


def weights(weights: Sequence[float] | str | None) -> npt.NDArray[np.float64]:
    """The rewards of outcome categories 0..C (``--weights``; None: 0,1)."""
    if weights is None:
        return np.array([0.0, 1.0])
    try:
        w = np.array([float(t) for t in weights.replace(" ", "").split(",") if t] if isinstance(weights, str)
                     else [float(t) for t in weights])
    except ValueError as exc:
        raise LeaderboardError(f"--weights takes numbers separated by commas, e.g. 0,0.5,1; got {weights!r}") from exc
    if len(w) < 2 or not np.all(np.isfinite(w)):
        raise LeaderboardError(f"--weights needs at least two finite numbers (one per category 0..C); got {weights!r}")
    return w
