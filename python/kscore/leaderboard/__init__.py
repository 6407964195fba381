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

from ._columns import ColumnNames
from ._compare import Comparison, Pairwise
from ._counts import Counts, add_counts, from_cells
from ._dask import counts_from_dask
from ._issues import Issues, LeaderboardError
from ._metrics import ModelRow, Value
from ._plan import ModelSpread, PairPlan, Plan
from ._progress import Progress
from ._recount import count
from ._result import Leaderboard
from ._run import leaderboard, read_counts
from ._source import input_files
from ._spec import Metric

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
