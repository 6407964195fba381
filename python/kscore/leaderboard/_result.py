"""The result of :func:`kscore.leaderboard`: ranked models with every metric's
posterior mean, interval and point estimate, as a table for arrow, pandas or
polars (docs/leaderboard.md, *Python API*)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._counts import Counts
from ._metrics import ModelRow
from ._rank import rank_label
from ._spec import Metric


@dataclass
class Leaderboard:
    """Ranked models (``rows``, best first) and what they were computed from.

    ``counts``: the per-(model, question) counts table (pass it back to
    :func:`kscore.leaderboard`, or add runs with :func:`kscore.add_counts`);
    ``warnings``/``notes``: the data problems found (rows skipped, missing
    questions, ragged sample counts)."""

    rows: list[ModelRow]
    metrics: list[Metric]
    sort: Metric
    confidence: float
    source: str
    n_questions: int
    n_samples: int
    weights: list[float]
    counts: Counts
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def columns(self) -> dict[str, list[Any]]:
        """One list per column: rank, rank_lo, rank_hi, model, questions,
        samples_min, samples_max, accuracy, then for each metric ``<m>``,
        ``<m>_sigma``, ``<m>_lo``, ``<m>_hi``, ``<m>_estimate`` (None where
        not computed)."""
        rs = self.rows
        cols: dict[str, list[Any]] = {
            "rank": [rank_label(r) for r in rs],
            "rank_lo": [r.rank[0] if r.rank else None for r in rs],
            "rank_hi": [r.rank[1] if r.rank else None for r in rs],
            "model": [r.model for r in rs],
            "questions": [r.questions for r in rs],
            "samples_min": [r.n_min for r in rs],
            "samples_max": [r.n_max for r in rs],
            "accuracy": [r.accuracy for r in rs],
        }
        for m in self.metrics:
            vals = [r.values.get(m.name) for r in rs]
            cols[m.name] = [None if v is None else v.mean for v in vals]
            cols[f"{m.name}_sigma"] = [None if v is None else v.sigma for v in vals]
            cols[f"{m.name}_lo"] = [None if v is None else v.lo for v in vals]
            cols[f"{m.name}_hi"] = [None if v is None else v.hi for v in vals]
            cols[f"{m.name}_estimate"] = [None if v is None else v.estimate for v in vals]
        return cols

    def to_arrow(self) -> Any:
        """A ``pyarrow.Table`` of :meth:`columns` (needs pyarrow only)."""
        import pyarrow as pa

        return pa.table(self.columns())

    def to_pandas(self) -> Any:
        """A ``pandas.DataFrame`` of :meth:`columns` (needs pandas only)."""
        import pandas as pd

        return pd.DataFrame(self.columns())

    def to_polars(self) -> Any:
        """A ``polars.DataFrame`` of :meth:`columns` (needs polars only)."""
        import polars as pl

        return pl.DataFrame(self.columns(), strict=False)
