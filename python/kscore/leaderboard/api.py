"""The leaderboard's one internal surface: what ``cli/``, ``present/`` and the
harness integrations (``inspect/``, ``lm_eval/``, ``lighteval/``) import.

A room outside ``leaderboard/`` imports from here (``from ..leaderboard.api
import ...``), never from a module inside ``leaderboard/``: the rooms inside
can then move and split without touching their callers (tests/test_imports.py
holds every room to it). The user's surface, ``kscore.leaderboard``, is the
public subset of these names (its ``__all__``).

Grouped by what the caller does with them:

- run: :func:`leaderboard`, :func:`count`, :func:`read_counts`,
  :func:`counts_from_dask`, :func:`input_files`, :class:`Progress`, :func:`phase`
- specify metrics and reads: :class:`Metric`, :func:`parse_metrics`, :func:`parse_ks`,
  :func:`default_ks`, :class:`ColumnNames`, :class:`ReadOptions`, :data:`READ_KEYWORDS`
  (the keywords of ``leaderboard()`` / ``count()`` that say how to read, and the
  CLI's flags of the same names), :func:`read_keywords`
- errors and data warnings: :class:`LeaderboardError`, :class:`Issues`, :data:`EXAMPLES`
- counts tables: :class:`Counts`, :func:`add_counts`, :func:`from_cells`,
  :func:`counted`, :func:`is_counts_file`, :func:`output_format`, :func:`write_counts`
- results: :class:`Leaderboard`, :data:`ALL`, :class:`ModelRow`, :class:`Value`,
  :class:`Comparison`, :class:`Pairwise`, :class:`Plan`, :class:`ModelSpread`,
  :class:`PairPlan`, :func:`rank_label`, :func:`parse_pairwise`, :func:`pair_rows`,
  :func:`compare_data` (the pairs' writer is present/'s: kscore.present.tabular)
- what outputs show, computed with the board: :class:`Show`, :class:`Shown`,
  :class:`Curve`, :func:`prepare`, :func:`pairs_kind`, :func:`curve_ks`,
  :func:`leaderboard_curves` and the sizes that decide them
- per-question statistics (the integrations score one task; plots draw curves):
  :func:`question_estimates`, :func:`scores`, :func:`compute`, :func:`by_model`,
  :func:`curve`, :func:`group_se`, :func:`grid_se`, :func:`row_sums`
"""

from __future__ import annotations

from ._counts import Counts, add_counts, from_cells
from ._issues import EXAMPLES, Issues, LeaderboardError
from ._options import READ_KEYWORDS, ColumnNames, ReadOptions, read_keywords
from ._run import count, leaderboard
from ._spec import Metric, default_ks, parse_ks, parse_metrics
from .read.dask import counts_from_dask
from .read.reader import read_counts
from .read.recount import counted, is_counts_file, output_format, write_counts
from .read.source import input_files
from .result.board import ALL, Leaderboard
from .result.curves import curve_ks, leaderboard_curves
from .result.prepare import pairs_kind, prepare
from .result.show import AUTO_ALL_PAIRS, CURVE_MODELS, JSON_ALL_PAIRS, MATRIX_MODELS, Curve, Show, Shown
from .runtime.progress import Progress, phase
from .stats.compare import Comparison, Pairwise
from .stats.estimates import question_estimates
from .stats.intervals import grid_se, group_se
from .stats.metrics import compute
from .stats.pair_rows import compare_data, pair_rows, parse_pairwise
from .stats.plan import ModelSpread, PairPlan, Plan
from .stats.posterior import curve
from .stats.ranges import RankSets, rank_sets
from .stats.rank import rank_label
from .stats.scores import by_model, scores
from .stats.states import row_sums
from .stats.values import ModelRow, Value

__all__ = [
    # run
    "leaderboard",
    "count",
    "read_counts",
    "counts_from_dask",
    "input_files",
    "Progress",
    "phase",
    # specify metrics and reads
    "Metric",
    "parse_metrics",
    "parse_ks",
    "default_ks",
    "ColumnNames",
    "ReadOptions",
    "READ_KEYWORDS",
    "read_keywords",
    # errors and data warnings
    "LeaderboardError",
    "Issues",
    "EXAMPLES",
    # counts tables
    "Counts",
    "add_counts",
    "from_cells",
    "counted",
    "is_counts_file",
    "output_format",
    "write_counts",
    # results
    "Leaderboard",
    "ALL",
    "ModelRow",
    "Value",
    "Comparison",
    "Pairwise",
    "Plan",
    "ModelSpread",
    "PairPlan",
    "rank_label",
    "RankSets",
    "rank_sets",
    "parse_pairwise",
    "pair_rows",
    "compare_data",
    # what outputs show, computed with the board (result/show.py, result/prepare.py, result/curves.py)
    "Show",
    "Shown",
    "Curve",
    "prepare",
    "pairs_kind",
    "curve_ks",
    "leaderboard_curves",
    "AUTO_ALL_PAIRS",
    "JSON_ALL_PAIRS",
    "MATRIX_MODELS",
    "CURVE_MODELS",
    # per-question statistics
    "question_estimates",
    "scores",
    "compute",
    "by_model",
    "curve",
    "group_se",
    "grid_se",
    "row_sums",
]
