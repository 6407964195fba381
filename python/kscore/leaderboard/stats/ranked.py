"""What the statistics of a finished board read of it.

The pairs a reader asks for (stats/pair_rows.py) and the plan (stats/plan.py)
are computed from a board once it is ranked: its rows, sorted metric, rank
sets and per-question scores. :class:`Ranked` names those attributes (the
result, :class:`kscore.leaderboard.Leaderboard`, has them), so that stats/
needs nothing from result/: imports point down (tests/test_imports.py)."""

from __future__ import annotations

from typing import Protocol

from .._spec import Metric
from .ranges import RankSets
from .scores import Scores
from .values import ModelRow


class Ranked(Protocol):
    """A ranked board, as the statistics computed from it read it."""

    rows: list[ModelRow]
    sort: Metric
    confidence: float
    weights: list[float]
    interval: str
    cluster: str | None
    ranks: RankSets | None
    scores: Scores | None
