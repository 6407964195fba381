"""Sorting models and their rank ranges (docs/leaderboard.md, *Metrics and ranking*)."""

from __future__ import annotations

import numpy as np

from ._metrics import ModelRow
from ._spec import Metric


def rank(rows: list[ModelRow], sort: Metric) -> list[ModelRow]:
    """Sort by the metric's posterior mean (highest first; models without it
    last) and give each model a rank range: from 1 + the number of models
    whose interval lies entirely above its own, to the number of models whose
    interval does not lie entirely below. Models whose intervals overlap
    share rank ranges (e.g. 2-3)."""
    key = sort.name

    def sort_key(r: ModelRow) -> tuple[int, float, str]:
        v = r.values.get(key)
        return (0, -v.mean, r.model) if v is not None else (1, 0.0, r.model)

    rows = sorted(rows, key=sort_key)
    vals = [r.values.get(key) for r in rows]
    scored = [v for v in vals if v is not None]
    if scored:
        lo = np.array([v.lo for v in scored])
        hi = np.array([v.hi for v in scored])
        for r, v in zip(rows, vals):
            if v is None:
                continue
            better = int(np.sum(lo > v.hi))
            worse = int(np.sum(hi < v.lo))
            r.rank = (better + 1, len(scored) - worse)
    return rows


def rank_label(r: ModelRow) -> str:
    if r.rank is None:
        return "-"
    a, b = r.rank
    return str(a) if a == b else f"{a}-{b}"
