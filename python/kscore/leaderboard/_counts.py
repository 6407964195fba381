"""The counts table: per (model, question) sample counts, all the metrics need.

A results set of any size reduces to one row per (model, question): ``n``
samples, ``c`` of them correct (the top category), and with graded outcomes
the count of every category ``c_0..c_C``. Counts are additive, so tables
from separate runs (or shards) merge by adding them (:func:`add_counts`).
See docs/leaderboard.md, *Counts tables*.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Counts:
    """``categories[i, j]``: samples of model ``models[model[i]]`` on question
    ``questions[question[i]]`` in outcome category ``j`` (0..C; the top
    category ``C`` is "correct"). One row per (model, question) present.

    ``attributes``: properties of the questions read beside the counts
    (``--cluster`` / ``--by`` columns), one value per entry of ``questions``
    (None where a question has none)."""

    models: list[str]
    questions: list[str]
    model: IntArray
    question: IntArray
    categories: IntArray
    attributes: dict[str, list[str | None]] = field(default_factory=dict)

    @property
    def n(self) -> IntArray:
        """Samples per (model, question)."""
        out: IntArray = self.categories.sum(axis=1)
        return out

    @property
    def c(self) -> IntArray:
        """Correct samples (the top category) per (model, question)."""
        out: IntArray = self.categories[:, -1]
        return out

    @property
    def n_categories(self) -> int:
        return int(self.categories.shape[1])

    def __add__(self, other: Counts) -> Counts:
        """``a + b``: :func:`add_counts` of the two tables."""
        if not isinstance(other, Counts):
            return NotImplemented
        return add_counts(self, other)

    def __radd__(self, other: object) -> Counts:
        """``sum(tables)`` starts from 0."""
        if isinstance(other, int) and other == 0:
            return self
        return NotImplemented

    def columns(self) -> dict[str, Any]:
        """Plain columns: model, question, n, c and, for more than two
        categories, c_0..c_C."""
        cols: dict[str, Any] = {
            "model": [self.models[i] for i in self.model],
            "question": [self.questions[i] for i in self.question],
            "n": self.n,
            "c": self.c,
        }
        if self.n_categories > 2:
            for j in range(self.n_categories):
                cols[f"c_{j}"] = self.categories[:, j]
        for name, values in self.attributes.items():
            if name not in cols:
                cols[name] = [values[i] for i in self.question]
        return cols

    def to_arrow(self) -> Any:
        """A pyarrow Table of :meth:`columns`."""
        import pyarrow as pa

        return pa.table(self.columns())

    def to_pandas(self) -> Any:
        import pandas as pd

        return pd.DataFrame(self.columns())

    def to_polars(self) -> Any:
        import polars as pl

        return pl.DataFrame(self.columns())


def from_cells(models: list[str], questions: list[str], model: npt.ArrayLike, question: npt.ArrayLike,
               categories: npt.ArrayLike, attributes: dict[str, list[str | None]] | None = None) -> Counts:
    """Counts from cells that may repeat a (model, question): repeats are
    added, cells with no samples dropped, rows ordered by model then question."""
    m = np.asarray(model, np.int64)
    q = np.asarray(question, np.int64)
    cat = np.asarray(categories, np.int64)
    if cat.ndim != 2 or cat.shape[0] != len(m) or len(m) != len(q):
        raise ValueError("counts: model, question and categories must have one row per cell")
    key = m * max(len(questions), 1) + q
    uniq, inverse = np.unique(key, return_inverse=True)
    summed = np.zeros((len(uniq), cat.shape[1]), np.int64)
    np.add.at(summed, inverse.ravel(), cat)
    keep = summed.sum(axis=1) > 0
    uniq, summed = uniq[keep], summed[keep]
    nq = max(len(questions), 1)
    return Counts(list(models), list(questions), uniq // nq, uniq % nq, summed, dict(attributes or {}))


def add_counts(*tables: Counts) -> Counts:
    """Merge counts tables from separate runs: the counts of each
    (model, question) are added (a question a table lacks counts zero).

    All tables must have the same number of outcome categories.

    Examples:
        >>> import numpy as np
        >>> a = from_cells(["m"], ["q1", "q2"], [0, 0], [0, 1], [[2, 3], [5, 0]])
        >>> b = from_cells(["m", "z"], ["q2", "q3"], [0, 1], [0, 1], [[1, 4], [0, 2]])
        >>> ab = add_counts(a, b)
        >>> ab.columns()["question"], ab.n.tolist(), ab.c.tolist()
        (['q1', 'q2', 'q3'], [5, 10, 2], [3, 4, 2])
    """
    if not tables:
        raise ValueError("add_counts needs at least one counts table")
    width = tables[0].n_categories
    for t in tables[1:]:
        if t.n_categories != width:
            raise ValueError(f"cannot add counts with {t.n_categories} and {width} outcome categories")
    models = sorted({x for t in tables for x in t.models})
    questions = sorted({x for t in tables for x in t.questions})
    m_index = {x: i for i, x in enumerate(models)}
    q_index = {x: i for i, x in enumerate(questions)}
    parts_m, parts_q = [], []
    for t in tables:
        parts_m.append(np.array([m_index[x] for x in t.models], np.int64)[t.model] if len(t.model) else t.model)
        parts_q.append(np.array([q_index[x] for x in t.questions], np.int64)[t.question] if len(t.question)
                       else t.question)
    # Question attributes every table has: a question's first known value.
    names = [a for a in tables[0].attributes if all(a in t.attributes for t in tables)]
    attributes: dict[str, list[str | None]] = {a: [None] * len(questions) for a in names}
    for t in tables:
        for a in names:
            merged, own = attributes[a], t.attributes[a]
            for q, v in zip(t.questions, own):
                if merged[q_index[q]] is None:
                    merged[q_index[q]] = v
    return from_cells(models, questions, np.concatenate(parts_m), np.concatenate(parts_q),
                      np.concatenate([t.categories for t in tables]), attributes)
