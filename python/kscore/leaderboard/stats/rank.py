"""Sorting models and their rank ranges from paired tests
(docs/leaderboard.md, *Rank ranges*)."""

from __future__ import annotations

from collections import deque
from itertools import compress, repeat
from operator import attrgetter, eq, itemgetter, le
from typing import Any

import numpy as np
import numpy.typing as npt

from .._spec import Metric
from .ranges import RankSets
from .values import ModelRow, table_of

_MODEL = attrgetter("model")
_FIRST, _SECOND = itemgetter(0), itemgetter(1)


def sort_rows(rows: list[ModelRow], sort: Metric) -> list[ModelRow]:
    """By the metric's estimate, highest first (then by name); models
    without it last."""
    key = sort.name
    order = _column_order(rows, key)
    if order is not None:
        return list(map(rows.__getitem__, order))

    def sort_key(r: ModelRow) -> tuple[int, float, str]:
        v = r.values.get(key)
        return (0, -v.estimate, r.model) if v is not None else (1, 0.0, r.model)

    return sorted(rows, key=sort_key)


def scored_models(rows: list[ModelRow], sort: Metric) -> list[str]:
    """The models that have the sort metric, in board order."""
    found = table_of(rows)
    if found is not None and sort.name in found[0].columns and sort.name not in found[0].held:
        have = (~found[0].columns[sort.name].missing[found[1]]).tolist()
        return list(compress(map(_MODEL, rows), have))  # (picked in C: no Python step per row)
    return [r.model for r in rows if r.values.get(sort.name) is not None]


def _column_order(rows: list[ModelRow], key: str) -> list[int] | None:
    """:func:`sort_rows`' order from the metric's column (stats/values.py)
    where no row holds its value and no estimate is NaN (the order of the
    key there: (has it, -estimate, name)); None otherwise."""
    found = table_of(rows)
    if found is None or key not in found[0].columns or key in found[0].held:
        return None
    c, at = found[0].columns[key], found[1]
    missing, est = c.missing[at], c.estimate[at]
    if np.isnan(est[~missing]).any():
        return None
    models = list(map(_MODEL, rows))
    if all(map(le, models, models[1:])):  # (names in order, as compute() makes the rows: positions order them alike)
        names: npt.NDArray[Any] = np.arange(len(models))
    elif any(map(str.endswith, models, repeat("\0"))):  # (numpy's strings drop trailing NULs)
        return None
    else:
        names = np.array(models)
    order: list[int] = np.lexsort((names, np.where(missing, 0.0, -est), missing)).tolist()
    return order


def rank(rows: list[ModelRow], sets: RankSets) -> list[ModelRow]:
    """Give each model of ``sets`` its rank range: best = 1 + the number of
    models significantly better, worst = the number of models minus the
    number significantly worse (:func:`kscore.leaderboard.stats.ranges.rank_sets`)."""
    lo, hi = sets.lo.tolist(), sets.hi.tolist()
    models = sets.models
    if len(models) == len(rows) and list(map(_MODEL, rows)) == models:
        # (every row has the metric, in the sets' order: each row its range, set by one map in C, no
        # per-row Python; a board of 100 000 models spent 0.4 s in the loop below)
        deque(map(setattr, rows, repeat("rank"), zip(lo, hi)), maxlen=0)
        return rows
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



def rank_labels(ranks: list[tuple[int, int] | None]) -> list[str]:
    """:func:`rank_label` of each rank range (``ranks``: the rows'), made by
    maps in C and one choice over arrays, not a Python call per model (a
    board of 100 000 spent 0.1 s in them)."""
    if None in ranks:
        return ["-" if r is None else str(r[0]) if r[0] == r[1] else f"{r[0]}-{r[1]}" for r in ranks]
    given: list[tuple[int, int]] = ranks  # type: ignore[assignment]  # (None is not in it)
    lo, hi = list(map(_FIRST, given)), list(map(_SECOND, given))
    one = list(map(str, lo))
    if lo == hi:
        return one
    same = np.fromiter(map(eq, lo, hi), bool, len(lo))
    labels: list[str] = np.where(same, np.array(one, object), np.array(list(map("{}-{}".format, lo, hi)),
                                                                      object)).tolist()
    return labels
