"""``kscore.leaderboard``: rank models from graded samples at any scale.

:func:`leaderboard` reads a results file, directory, glob, table or DuckDB
relation; DuckDB streams the rows into per-(model, question) counts in one
aggregation, and :mod:`kscore.counts` computes every metric's per-question
estimates from those counts; each model's value comes with an interval over
questions (or the Bayesian posterior), and models are compared pairwise on
the questions both answered. The :class:`Leaderboard` it returns converts to
arrow, pandas or polars; its ``counts`` table can be fed back, or added to
another run's with :func:`add_counts`; :func:`count` reads a source (or a
stored counts table mixed with new results) to its counts alone. Past one machine,
:func:`counts_from_dask` (or ``leaderboard(dask_dataframe)``) counts on a
Dask cluster. See docs/leaderboard.md.
"""

from __future__ import annotations

from ._counts import Counts, add_counts, from_cells
from ._issues import Issues, LeaderboardError
from ._run import leaderboard
from ._spec import Metric
from .read.columns import ColumnNames
from .read.dask import counts_from_dask
from .read.reader import read_counts
from .read.recount import count
from .read.source import input_files
from .result.board import Leaderboard
from .runtime.progress import Progress
from .stats.compare import Comparison, Pairwise
from .stats.metrics import ModelRow, Value
from .stats.plan import ModelSpread, PairPlan, Plan

__all__ = [
    "leaderboard",
    "read_counts",
    "count",
    "Leaderboard",
    "Counts",
    "add_counts",
    "from_cells",
    "counts_from_dask",
    "ColumnNames",
    "Issues",
    "LeaderboardError",
    "Metric",
    "ModelRow",
    "Value",
    "Comparison",
    "Pairwise",
    "Progress",
    "Plan",
    "ModelSpread",
    "PairPlan",
    "input_files",
]
