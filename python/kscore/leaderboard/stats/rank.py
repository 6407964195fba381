"""Sorting models and their rank ranges from paired tests
(docs/leaderboard.md, *Rank ranges*)."""

from __future__ import annotations

from .._spec import Metric
from .ranges import RankSets
from .values import ModelRow


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


def rank(rows: list[ModelRow], sets: RankSets) -> list[ModelRow]:
    """Give each model of ``sets`` its rank range: best = 1 + the number of
    models significantly better, worst = the number of models minus the
    number significantly worse (:func:`kscore.leaderboard.stats.ranges.rank_sets`)."""
    lo, hi = sets.lo.tolist(), sets.hi.tolist()
    models = sets.models
    # (the usual order: the sets' models are the rows' in board order, skipping those without the metric; each
    # model is one row, so once all are met in order, no other row has a range)
    k, n = 0, len(models)
    for r in rows:
        if k < n and r.model == models[k]:
            r.rank = (lo[k], hi[k])
            k += 1
        else:
            r.rank = None
    if k == n:
        return rows
    pos = {m: i for i, m in enumerate(models)}
    for r in rows:
        i = pos.get(r.model)
        r.rank = None if i is None else (lo[i], hi[i])
    return rows


def rank_label(r: ModelRow) -> str:
    """``3`` or ``2-4`` (``-`` without a rank)."""
    if r.rank is None:
        return "-"
    a, b = r.rank
    return str(a) if a == b else f"{a}-{b}"

