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

The names come from :mod:`kscore.leaderboard.api`, the internal surface the
other rooms import; these are its public part.
"""

from __future__ import annotations

from .api import (
    ColumnNames,
    Comparison,
    Counts,
    Issues,
    Leaderboard,
    LeaderboardError,
    Metric,
    ModelRow,
    ModelSpread,
    PairPlan,
    Pairwise,
    Plan,
    Progress,
    Show,
    Shown,
    Value,
    add_counts,
    count,
    counts_from_dask,
    from_cells,
    input_files,
    leaderboard,
    read_counts,
)

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
    "Show",
    "Shown",
    "input_files",
]
