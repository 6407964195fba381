"""The leaderboard's options: their checks, shared by ``leaderboard()``,
``count()`` and the Dask reader, and :class:`ReadOptions`, the one object
that carries a read's options from ``leaderboard()`` / ``count()`` (and the
CLI's flags, :data:`READ_KEYWORDS`) down the read. A leaf (no package
imports but the error type), so that read/ need not import _run.py."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ._issues import LeaderboardError

INTERVALS = ("questions", "posterior", "wilson")
"""``interval=``: over questions, the Bayesian posterior, Wilson's (small boards)."""
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


@dataclass
class ColumnNames:
    """Column names by role; ``None``: auto-detect (model and sample may be absent)."""

    model: str | None = None
    question: str | None = None
    outcome: str | None = None
    sample: str | None = None
    #: Question attributes to carry into the counts (``--cluster``, ``--by``).
    extra: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReadOptions:
    """How to read a source: which columns hold what (``names``), the number
    of outcome categories (``len(weights)``), the input format (None: from
    the name) and DuckDB's memory limit. Made once by ``leaderboard()`` or
    ``count()`` (:func:`read_options`) and passed whole down the read."""

    names: ColumnNames = field(default_factory=ColumnNames)
    n_categories: int = 2
    input_format: str | None = None
    memory_limit: str | int | None = None


#: The keywords of ``leaderboard()`` and ``count()`` that say how to read the
#: source (:func:`read_options`): the CLI's flags of the same names pass
#: through them whole (:func:`read_keywords`).
READ_KEYWORDS = ("cluster", "by", "model_col", "question_col", "outcome_col", "sample_col", "input_format",
                 "memory_limit")


def read_options(n_categories: int, cluster: str | None = None, by: str | None = None, model_col: str | None = None,
                 question_col: str | None = None, outcome_col: str | None = None, sample_col: str | None = None,
                 input_format: str | None = None, memory_limit: str | int | None = None) -> ReadOptions:
    """The :class:`ReadOptions` of ``leaderboard()``'s / ``count()``'s keywords:
    ``cluster`` and ``by`` are question columns carried beside the counts."""
    extra = tuple(dict.fromkeys(x for x in (cluster, by) if x is not None))
    return ReadOptions(ColumnNames(model_col, question_col, outcome_col, sample_col, extra), n_categories,
                       input_format, memory_limit)


def read_keywords(flags: object) -> dict[str, Any]:
    """The :data:`READ_KEYWORDS` of parsed flags (attributes of the same names)."""
    return {name: getattr(flags, name) for name in READ_KEYWORDS}
