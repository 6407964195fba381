"""The counts table: per (model, question) sample counts, all the metrics need.

A results set of any size reduces to one row per (model, question): ``n``
samples, ``c`` of them correct (the top category), and with graded outcomes
the count of every category ``c_0..c_C``. Counts are additive, so tables
from separate runs (or shards) merge by adding them (:func:`add_counts`).
See docs/leaderboard.md, *Counts tables*.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .._arrays import IntArray

# pyarrow, pandas and polars are imported where a table is made or read: each
# is optional, and each takes a tenth of a second or more to import.


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
        """A pyarrow Table of :meth:`columns` (the names written from the
        model and question lists by Arrow, not per cell in Python)."""
        import pyarrow as pa

        return pa.table({k: v.dictionary_decode() if isinstance(v, pa.DictionaryArray) else v
                         for k, v in self._arrow_columns().items()})

    def to_parquet(self, path: str | os.PathLike[str], metadata: dict[str, str] | None = None) -> None:
        """Write :meth:`columns` to a Parquet file, a counts table that
        ``kscore.leaderboard`` and ``kscore count`` read back as a source
        (docs/leaderboard.md, *Counts tables*). The model, question and
        attribute columns are written from their dictionaries (Parquet's
        dictionary encoding, without hashing every cell's name) and read back
        as plain strings. ``metadata``: key-value pairs for the file's footer
        (``kscore count`` records there the raw files it counted).

        Examples:
            >>> import os, tempfile
            >>> t = from_cells(["m"], ["q1", "q2"], [0, 0], [0, 1], [[2, 3], [5, 0]])
            >>> path = os.path.join(tempfile.mkdtemp(), "counts.parquet")
            >>> t.to_parquet(path)
            >>> import pyarrow.parquet as pq
            >>> pq.read_table(path).column("n").to_pylist()
            [5, 5]
        """
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.table(self._arrow_columns())
        # Statistics of the counts only: the names' min/max cost a pass over
        # every cell's string (0.6 s of writing 10M cells) and filter nothing.
        numeric = [name for name in table.column_names if name in ("n", "c") or name.startswith("c_")]
        try:
            writer = pq.ParquetWriter(os.fspath(path), table.schema, store_schema=False, write_statistics=numeric)
        except TypeError:  # pragma: no cover - a pyarrow without store_schema: the names read back as dictionaries
            writer = pq.ParquetWriter(os.fspath(path), table.schema, write_statistics=numeric)
        with writer:
            writer.write_table(table)
            if metadata and hasattr(writer, "add_key_value_metadata"):  # (pyarrow >= 15)
                writer.add_key_value_metadata(metadata)

    def to_csv(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`columns` to a CSV file (a counts table, as
        :meth:`to_parquet`)."""
        import pyarrow.csv as pacsv

        pacsv.write_csv(self.to_arrow(), os.fspath(path))

    def _arrow_columns(self) -> dict[str, Any]:
        """:meth:`columns` as Arrow arrays, the names as dictionary arrays
        over ``models`` / ``questions`` (and each attribute's values)."""
        import pyarrow as pa

        def named(names: list[str | None], index: IntArray) -> Any:
            values = [x for x in dict.fromkeys(names) if x is not None]
            code = {x: i for i, x in enumerate(values)}
            per = np.array([code.get(x, -1) if x is not None else -1 for x in names], np.int32) \
                if names else np.zeros(0, np.int32)
            idx = per[index] if len(index) else np.zeros(0, np.int32)
            return pa.DictionaryArray.from_arrays(pa.array(idx, mask=idx < 0) if (idx < 0).any() else pa.array(idx),
                                                  pa.array(values, pa.string()))

        cols: dict[str, Any] = {
            "model": named(list(self.models), self.model),
            "question": named(list(self.questions), self.question),
            "n": pa.array(self.n),
            "c": pa.array(np.ascontiguousarray(self.c)),
        }
        if self.n_categories > 2:
            for j in range(self.n_categories):
                cols[f"c_{j}"] = pa.array(np.ascontiguousarray(self.categories[:, j]))
        for name, values in self.attributes.items():
            if name not in cols:
                cols[name] = named(values, self.question)
        return cols

    def to_pandas(self) -> Any:
        import pandas as pd

        return pd.DataFrame(self.columns())

    def to_polars(self) -> Any:
        import polars as pl

        return pl.DataFrame(self.columns())


def from_cells(models: list[str], questions: list[str], model: npt.ArrayLike, question: npt.ArrayLike,
               categories: npt.ArrayLike, attributes: dict[str, list[str | None]] | None = None) -> Counts:
    """Counts from cells that may repeat a (model, question): repeats are
    added, cells with no samples dropped, rows ordered by model then question.

    Examples:
        >>> t = from_cells(["a", "b"], ["q"], [1, 0, 1], [0, 0, 0], [[1, 1], [0, 2], [3, 0]])
        >>> t.columns()["model"], t.n.tolist(), t.c.tolist()
        (['a', 'b'], [2, 5], [2, 1])
    """
    m = np.asarray(model, np.int64)
    q = np.asarray(question, np.int64)
    cat = np.asarray(categories, np.int64)
    if cat.ndim != 2 or cat.shape[0] != len(m) or len(m) != len(q):
        raise ValueError("counts: model, question and categories must have one row per cell")
    m, q, summed = sum_cells(m, q, len(questions), [cat[:, j] for j in range(cat.shape[1])])
    return Counts(list(models), list(questions), m, q, summed, dict(attributes or {}))


def sum_cells(model: IntArray, question: IntArray, n_questions: int,
              columns: list[IntArray]) -> tuple[IntArray, IntArray, IntArray]:
    """The distinct (model, question) code pairs ordered by model then
    question and, per pair, the sum of each of ``columns`` (the categories,
    one value per row) over its rows; pairs whose samples (the sum over the
    columns) are not positive are dropped. The sums come back as a (cells
    x columns) array, column-major (each category contiguous, as the
    aggregation's).

    Pairs already ordered and distinct (a counts table as kscore writes it,
    or a new model's cells after a stored board's) cost one comparison pass.
    Else a stable sort of the keys ``model * Q + question``, which for
    tables stacked one after another (each already ordered) is a merge of
    the sorted runs, linear (numpy's stable sort of int64 is a timsort),
    then one segmented sum per column."""
    nq = max(n_questions, 1)
    m, q = np.asarray(model, np.int64), np.asarray(question, np.int64)
    key = m * nq
    key += q
    width = len(columns)
    if len(key) > 1 and not bool((key[1:] > key[:-1]).all()):
        order = np.argsort(key, kind="stable")
        key = key[order]
        columns = [np.take(col, order) for col in columns]
        new = np.empty(len(key), bool)
        new[0] = True
        np.not_equal(key[1:], key[:-1], out=new[1:])
        start = np.flatnonzero(new)
        if len(start) < len(key):
            key = key[start]
            columns = [np.add.reduceat(col, start) for col in columns]
        m = key // nq
        q = key - m * nq
    del key
    out = np.empty((width, len(m)), np.int64)
    for j, col in enumerate(columns):
        out[j] = col
    keep = out.sum(axis=0) > 0 if width else np.zeros(len(m), bool)
    if not keep.all():
        return m[keep], q[keep], out[:, keep].T
    return m, q, out.T


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
        parts_m.append(_renumbered(t.model, [m_index[x] for x in t.models]))
        parts_q.append(_renumbered(t.question, [q_index[x] for x in t.questions]))
    # Question attributes every table has: a question's first known value.
    names = [a for a in tables[0].attributes if all(a in t.attributes for t in tables)]
    attributes: dict[str, list[str | None]] = {a: [None] * len(questions) for a in names}
    for t in tables:
        for a in names:
            merged, own = attributes[a], t.attributes[a]
            for q, v in zip(t.questions, own):
                if merged[q_index[q]] is None:
                    merged[q_index[q]] = v
    # Each table's cells are ordered by model then question and the new codes
    # keep the names' order, so the stacked keys are runs already sorted: a
    # merge, not a sort (sum_cells).
    columns = [np.concatenate([t.categories[:, j] for t in tables]) for j in range(width)]
    cell_m, cell_q, summed = sum_cells(np.concatenate(parts_m), np.concatenate(parts_q), len(questions), columns)
    return Counts(models, questions, cell_m, cell_q, summed, attributes)


def _renumbered(code: IntArray, new: list[int]) -> IntArray:
    """``code`` through the map ``new`` (old code -> merged code); as it is
    where the map is the identity (a stored board's names, to which a new
    model sorting last is added)."""
    if not len(code) or new == list(range(len(new))):
        return code
    out: IntArray = np.asarray(new, np.int64)[code]
    return out
