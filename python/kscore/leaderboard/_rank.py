"""Sorting models and their rank ranges from paired tests
(docs/leaderboard.md, *Rank ranges*)."""

from __future__ import annotations

from ._compare import Pairwise
from ._metrics import ModelRow
from ._spec import Metric


def sort_rows(rows: list[ModelRow], sort: Metric) -> list[ModelRow]:
    """By the metric's estimate, highest first (then by name); models
    without it last."""
    key = sort.name

    def sort_key(r: ModelRow) -> tuple[int, float, str]:
        v = r.values.get(key)
        return (0, -v.estimate, r.model) if v is not None else (1, 0.0, r.model)

    return sorted(rows, key=sort_key)


def scored_models(rows: list[ModelRow], sort: Metric) -> list[str]:
    """The models that have the sort metric, in board order."""
    return [r.model for r in rows if r.values.get(sort.name) is not None]


def rank(rows: list[ModelRow], pw: Pairwise, adjust: str = "none") -> list[ModelRow]:
    """Give each model of ``pw`` its rank range: best = 1 + the number of
    models significantly better, worst = the number of models minus the
    number significantly worse (paired two-sided tests at 1 - confidence,
    raw p-values or Holm-adjusted with ``adjust="holm"``)."""
    sig = pw.significant(adjust)
    better = sig.sum(axis=0)  # [j]: models significantly better than j
    worse = sig.sum(axis=1)  # [i]: models significantly worse than i
    pos = {m: i for i, m in enumerate(pw.models)}
    L = len(pw.models)
    for r in rows:
        i = pos.get(r.model)
        r.rank = None if i is None else (int(better[i]) + 1, L - int(worse[i]))
    return rows


def rank_label(r: ModelRow) -> str:
    """``3`` or ``2-4`` (``-`` without a rank)."""
    if r.rank is None:
        return "-"
    a, b = r.rank
    return str(a) if a == b else f"{a}-{b}"

