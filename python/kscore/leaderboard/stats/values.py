"""What the board shows of each model: its row and each metric's value.

The statistics compute every model's values at once, as columns
(:class:`ModelTable`, by model index); a row's ``values`` is a mapping onto
its entries there (:class:`RowValues`) that makes a :class:`Value` the first
time one is read and keeps it, so that a board of 100 000 models makes no
object per model and metric unless asked. The writers read the columns
(:func:`table_of`), except the entries some row holds itself (read or
written through its mapping: a kept Value may have been changed)."""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import numpy as np

from ..._arrays import BoolArray, FloatArray, IntArray


@dataclass
class Value:
    """One metric of one model.

    ``estimate``: the classic value people report (the mean over questions of
    the unbiased per-question estimator; Bayes@N's posterior mean), which the
    board shows and ranks by. ``sigma``, ``lo``, ``hi``: the standard error
    and interval of the board's ``interval`` (``questions``: over the
    sampling of questions; ``posterior``: the Bayesian posterior sd and
    credible interval, conditional on the questions; NaN where the metric
    has no posterior, cons@k). ``posterior_mean``: the centre of the
    posterior interval (``posterior`` only), which need not equal the
    estimate."""

    estimate: float
    sigma: float
    lo: float
    hi: float
    posterior_mean: float | None = None


@dataclass
class MetricColumns:
    """One metric of every model, by model index: ``missing`` where not
    computed (the row's value is None), else the :class:`Value`'s fields
    (``posterior_mean`` None: none for any model)."""

    estimate: FloatArray
    sigma: FloatArray
    lo: FloatArray
    hi: FloatArray
    missing: BoolArray
    posterior_mean: FloatArray | None = None


class ModelTable:
    """Every model's metrics as columns (``columns``, in the board's metric
    order) and, per metric, the models whose row holds that entry itself
    (``held``: read or written through :class:`RowValues`; the column is
    then not the entry)."""

    __slots__ = ("columns", "held")

    def __init__(self, columns: dict[str, MetricColumns]) -> None:
        self.columns = columns
        self.held: dict[str, BoolArray] = {}

    def hold(self, name: str, i: int) -> None:
        mask = self.held.get(name)
        if mask is None:
            mask = self.held[name] = np.zeros(len(self.columns[name].missing), bool)
        mask[i] = True

    def value(self, name: str, i: int) -> Value | None:
        """Model ``i``'s entry of metric ``name`` made from the columns."""
        c = self.columns[name]
        if c.missing[i]:
            return None
        pm = None if c.posterior_mean is None else float(c.posterior_mean[i])
        return Value(float(c.estimate[i]), float(c.sigma[i]), float(c.lo[i]), float(c.hi[i]), pm)


#: An entry deleted from a row's values.
_GONE: Any = object()


class RowValues(MutableMapping[str, "Value | None"]):
    """One model's values (model ``i`` of ``table``): a dict of metric name
    to :class:`Value` (None where not computed), each made from the columns
    on first read and then kept by the row."""

    __slots__ = ("_table", "_i", "_own")

    def __init__(self, table: ModelTable, i: int) -> None:
        self._table = table
        self._i = i
        self._own: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Value | None:
        own = self._own.get(name, self)
        if own is not self:
            if own is _GONE:
                raise KeyError(name)
            return own  # type: ignore[no-any-return]
        if name not in self._table.columns:
            raise KeyError(name)
        v: Value | None = self._table.value(name, self._i)
        self._own[name] = v
        self._table.hold(name, self._i)
        return v

    def __setitem__(self, name: str, value: Value | None) -> None:
        self._own[name] = value
        if name in self._table.columns:
            self._table.hold(name, self._i)

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        if name in self._table.columns:
            self._own[name] = _GONE
            self._table.hold(name, self._i)
        else:
            del self._own[name]

    def __contains__(self, name: object) -> bool:
        own = self._own.get(name, self) if isinstance(name, str) else self
        return own is not _GONE if own is not self else name in self._table.columns

    def __iter__(self) -> Iterator[str]:
        own = self._own
        yield from (k for k in self._table.columns if own.get(k, self) is not _GONE)
        yield from (k for k in own if k not in self._table.columns)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return repr(dict(self.items()))


@dataclass(slots=True)
class ModelRow:
    """One model: its questions, samples per question (min, max), mean
    reward per sample (``accuracy``), its metrics (None where not computed)
    and its rank range (best, worst) by the sorted metric. (Slots: 100 000
    rows hold no dict each, and their columns are read at fixed offsets.)"""

    model: str
    questions: int
    n_min: int
    n_max: int
    accuracy: float
    values: MutableMapping[str, Value | None]
    rank: tuple[int, int] | None = None


_VALUES = attrgetter("values")
_TABLE, _INDEX = attrgetter("_table"), attrgetter("_i")


def table_of(rows: list[ModelRow]) -> tuple[ModelTable, IntArray] | None:
    """The columns the rows' values are entries of and each row's model
    index there, when every row's values are a :class:`RowValues` of one
    table (None otherwise: read the rows)."""
    if not rows:
        return None
    values = list(map(_VALUES, rows))
    if set(map(type, values)) != {RowValues}:  # (sets made in C: no generator step per row)
        return None
    table = values[0]._table
    if len(set(map(id, map(_TABLE, values)))) != 1:
        return None
    return table, np.fromiter(map(_INDEX, values), np.int64, len(values))


def column(rows: list[ModelRow], found: tuple[ModelTable, IntArray] | None, name: str,
           field: str) -> list[Any]:
    """One field (``estimate``, ``sigma``, ``lo``, ``hi``, ``posterior_mean``)
    of one metric for each row, None where the row has no value: from the
    columns (``found``: :func:`table_of`'s) where the rows hold nothing of
    their own, else read of each row."""
    if found is not None and name in found[0].columns:
        table, at = found
        c = table.columns[name]
        arr = getattr(c, field)
        if arr is None:
            out: list[Any] = [None] * len(at)
        else:
            out = arr[at].tolist()
            for j in np.flatnonzero(c.missing[at]).tolist():
                out[j] = None
        held = table.held.get(name)
        if held is not None:
            get = attrgetter(field)
            for j in np.flatnonzero(held[at]).tolist():
                v = rows[j].values.get(name)
                out[j] = None if v is None else get(v)
        return out
    get = attrgetter(field)
    return [None if v is None else get(v) for v in (r.values.get(name) for r in rows)]


def float_column(rows: list[ModelRow], found: tuple[ModelTable, IntArray] | None, name: str,
                 field: str) -> FloatArray | list[Any]:
    """:func:`column` as a float64 array, NaN where it has None, taken from
    the columns without a Python float per value; :func:`column`'s list
    where some row holds values of its own or the rows have no columns."""
    if found is None or name not in found[0].columns or name in found[0].held:
        return column(rows, found, name, field)
    table, at = found
    c = table.columns[name]
    arr = getattr(c, field)
    if arr is None:
        return np.full(len(at), np.nan)
    out: FloatArray = np.asarray(arr, np.float64)[at]
    out[c.missing[at]] = np.nan
    return out
