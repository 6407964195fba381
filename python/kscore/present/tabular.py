"""A :class:`~kscore.present.model.Board` as data: CSV and Arrow, pandas or
polars tables (its ``table``: the rows as typed columns), the JSON
document (its rows, metrics with their intervals, and the facts around
them), and the paired comparisons streamed a row per pair as CSV or JSON
Lines; ``kscore compare``'s and ``kscore plan``'s reports as CSV and JSON.

Numbers are written exactly (``repr`` of the float in CSV, the float in
JSON); a missing number is an empty CSV field and ``null`` in JSON.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from itertools import repeat
from pathlib import Path
from typing import Any

import numpy as np

from .._kscore import csv_lines
from ..leaderboard.api import ALL
from .model import Board, ComparisonReport, Estimate, Estimates, PlanReport, rank_text


def csv_field(x: Any) -> str:
    """A CSV field: ``None`` empty, quoted where it holds a comma, a quote or
    a line break (a bare ``"\\r"`` too: csv.writer quotes only the characters
    of its line terminator, and a model name with a carriage return was
    written unquoted, a line break to every reader)."""
    text = "" if x is None else str(x)
    # (four tests, not a generator: 100 000 model names spent 1 s in any() under profile)
    quote = "," in text or '"' in text or "\r" in text or "\n" in text
    return '"' + text.replace('"', '""') + '"' if quote else text


def _cells(values: list[Any]) -> list[str]:
    """A table's column as CSV fields: floats exactly (``repr``; NaN
    empty), text quoted where it must be, None empty (one test of the
    column's kind, by its first value, not one per cell)."""
    kind = next((type(x) for x in values if x is not None), None)
    if kind is float:
        return ["" if x is None or x != x else repr(x) for x in values]
    if kind is str:
        return [csv_field(x) for x in values]
    return ["" if x is None else str(x) for x in values]


#: The smallest int64: an empty field of an integer column (kscore._kscore.csv_lines).
_NO_INT = -(2**63)


def _typed(values: Any) -> Any:
    """A column for :func:`kscore._kscore.csv_lines`, the fields of
    :func:`_cells`: a float64 array where every value is a float or None
    (repr in Rust, None and NaN empty), an int64 array where every value
    is an int (not a bool) or None and fits, else the fields themselves;
    text quoted only where some value must be (one scan of the column);
    a float64 array as it is (NaN empty: the command's metric columns,
    kscore.leaderboard's ``columns(arrays=True)``)."""
    if isinstance(values, np.ndarray) and values.dtype == np.float64 and values.ndim == 1:
        return np.ascontiguousarray(values)
    kinds = set(map(type, values))
    kinds.discard(type(None))
    if kinds == {float}:
        return np.array([math.nan if x is None else x for x in values] if None in values else values, np.float64)
    if kinds == {int}:
        ints = [_NO_INT if x is None else x for x in values] if None in values else values
        if min(ints) > _NO_INT and max(ints) < 2**63:
            return np.array(ints, np.int64)
    if kinds == {str}:
        some_none = None in values
        # (no generator step per cell where none is None)
        joined = "".join(x for x in values if x is not None) if some_none else "".join(values)
        if not ("," in joined or '"' in joined or "\r" in joined or "\n" in joined):
            return ["" if x is None else x for x in values] if some_none else values
    return _cells(values)


def _csv_line(fields: Iterable[Any]) -> str:
    return ",".join(csv_field(x) for x in fields) + "\n"


def render_csv(board: Board) -> str:
    """The board's ``table`` as CSV: a header line, a line per row (the
    body written by the core a row at a time from typed columns:
    kscore._kscore.csv_lines, floats as Python's ``repr``)."""
    table = board.table or {}
    return _csv_line(table) + csv_lines([_typed(values) for values in table.values()])


def to_arrow(board: Board) -> Any:
    """A ``pyarrow.Table`` of the board's ``table`` (needs pyarrow only)."""
    import pyarrow as pa

    return pa.table(board.table or {})


def to_pandas(board: Board) -> Any:
    """A ``pandas.DataFrame`` of the board's ``table`` (needs pandas only)."""
    import pandas as pd

    return pd.DataFrame(board.table or {})


def to_polars(board: Board) -> Any:
    """A ``polars.DataFrame`` of the board's ``table`` (needs polars only)."""
    import polars as pl

    return pl.DataFrame(board.table or {}, strict=False)


def _num(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else x


#: JSON's name of each :class:`~kscore.present.model.Estimate` attribute a metric writes.
_ATTRIBUTES = {"estimate": "value", "sigma": "sigma", "lo": "lo", "hi": "hi", "posterior_mean": "posterior_mean"}


def _json_rows(board: Board) -> list[dict[str, Any]]:
    """A row per model: its rank, rank range and name, its information
    columns' and plain values, then its metrics with their intervals."""
    info = [c for c in board.info if c.values is not None]
    plain = [m for m in board.metrics if m.plain]
    metrics = [(m, [(f, _ATTRIBUTES[f]) for f in m.fields]) for m in board.metrics if not m.plain]
    rows = []
    for i, name in enumerate(board.models):
        rank = board.ranks[i]
        row: dict[str, Any] = {"rank": rank_text(rank), "rank_range": list(rank) if rank else None, "model": name}
        for c in info:
            row[c.name] = c.values[i]  # type: ignore[index]
        for p in plain:
            v = p.values[i]
            row[p.name] = None if v is None else v.value
        values: dict[str, Any] = {}
        for m, fields in metrics:
            v = m.values[i]
            values[m.name] = None if v is None else {f: _num(getattr(v, a)) for f, a in fields}
        row["metrics"] = values
        rows.append(row)
    return rows


class _Rows:
    """A board's rows in a JSON document: written by :func:`dumps` a column
    at a time (:func:`_rows_text`), the same text as the list of
    :func:`_json_rows`' dicts (which json.dumps writes, where it writes
    the document)."""

    def __init__(self, board: Board) -> None:
        self.board = board

    def rows(self) -> list[dict[str, Any]]:
        return _json_rows(self.board)


def _plain(x: Any) -> Any:
    """json.dumps' ``default``: a board's rows as their dicts."""
    if isinstance(x, _Rows):
        return x.rows()
    raise TypeError(f"Object of type {type(x).__name__} is not JSON serializable")


def _json_board(board: Board) -> dict[str, Any]:
    return {**board.totals, "models": _Rows(board), **board.extras}


def render_json(board: Board) -> str:
    """The board as one JSON document: its ``about`` facts, totals, rows and
    extras, each subset's (with ``by``), then the warnings."""
    doc: dict[str, Any] = dict(board.about)
    doc |= _json_board(board)
    if board.by is not None:
        doc["by"] = board.by
        doc["groups"] = [{"group": sub.group} | _json_board(sub) for sub in board.subsets.values()]
    doc["warnings"] = board.warnings
    return dumps(doc) + "\n"


class _Other(Exception):
    """A value :func:`dumps` leaves to the json module (a key that is not a
    str, a type json converts by its own rules or refuses)."""


def dumps(doc: Any) -> str:
    """``json.dumps(doc, indent=2)``, the same text, written by one
    recursive pass instead of json's generators (its C encoder takes no
    indent before Python 3.13): the JSON of 100 000 models is 2.5 million
    values. Anything but str keys, str, None, bool, int, float, list, tuple
    and dict: json.dumps itself."""
    out: list[str] = []
    try:
        _encode(doc, "\n", out)
    except _Other:
        return json.dumps(doc, indent=2, default=_plain)
    return "".join(out)


#: json's own string encoder (its C version where there is one) and number spellings.
_STRING = json.encoder.encode_basestring_ascii
_INF = float("inf")


def _encode(x: Any, newline: str, out: list[str]) -> None:
    """Appends ``x`` as json.dumps(indent=2) writes it at the indentation
    ``newline`` (a line break and the spaces before this value's line), in
    the order of json's type tests (a bool is an int; a float subclass
    written as a float)."""
    if isinstance(x, str):
        out.append(_STRING(x))
    elif x is None:
        out.append("null")
    elif x is True:
        out.append("true")
    elif x is False:
        out.append("false")
    elif isinstance(x, int):
        out.append(int.__repr__(x))
    elif isinstance(x, float):
        out.append(float.__repr__(x) if x == x and x != _INF and x != -_INF else
                   "NaN" if x != x else "Infinity" if x > 0 else "-Infinity")
    elif isinstance(x, (list, tuple)):
        if not x:
            out.append("[]")
            return
        if len(x) >= 16 and type(x[0]) is dict:  # (rows of one shape: a column at a time)
            text = _records_text(x, newline)
            if text is not None:
                out.append(text)
                return
        inner = newline + "  "
        out.append("[")
        for i, v in enumerate(x):
            out.append(inner if i == 0 else "," + inner)
            _encode(v, inner, out)
        out.append(newline + "]")
    elif isinstance(x, _Rows):
        out.append(_rows_text(x.board, newline))
    elif isinstance(x, dict):
        if not x:
            out.append("{}")
            return
        inner = newline + "  "
        out.append("{")
        first = True
        for k, v in x.items():
            if not isinstance(k, str):
                raise _Other
            out.append((inner if first else "," + inner) + _STRING(k) + ": ")
            first = False
            _encode(v, inner, out)
        out.append(newline + "}")
    else:
        raise _Other


def _float_text(x: float) -> str:
    return float.__repr__(x) if x == x and x != _INF and x != -_INF else \
        "NaN" if x != x else "Infinity" if x > 0 else "-Infinity"


def _texts(values: Sequence[Any], newline: str, nan_null: bool = False) -> list[str]:
    """Each value as :func:`_encode` writes it at the indentation ``newline``
    (``nan_null``: NaN as null, as :func:`_num` makes it), a column at a
    time: one test of the column's kinds, then one map; a value of another
    kind written by :func:`_encode` itself."""
    kinds = set(map(type, values))
    if kinds <= {float, type(None)} and len(values) >= 64:
        text = _finite_texts(values, nan_null)
        if text is not None:
            return text
    if kinds <= {float, type(None)}:
        r = float.__repr__  # (x - x == 0: finite)
        if nan_null:
            return ["null" if x is None or x != x else r(x) if x - x == 0.0 else _float_text(x) for x in values]
        return ["null" if x is None else r(x) if x - x == 0.0 else _float_text(x) for x in values]
    if kinds == {int}:
        return list(map(int.__repr__, values))
    if kinds == {str}:
        return list(map(_STRING, values))
    if kinds == {list} and all(type(y) is int for v in values for y in v) and all(values):
        inner = newline + "  "
        sep = "," + inner
        return ["[" + inner + sep.join(map(int.__repr__, v)) + newline + "]" for v in values]
    out: list[str] = []
    for x in values:
        one: list[str] = []
        _encode(None if nan_null and isinstance(x, float) and x != x else x, newline, one)
        out.append("".join(one))
    return out


def _finite_texts(values: Sequence[float | None], nan_null: bool) -> list[str] | None:
    """A column of floats (None: null) written by the core's ``repr`` (the
    CSV's: kscore._kscore.csv_lines), where every number is finite (NaN
    too where ``nan_null``); None otherwise."""
    x = np.array([math.nan if v is None else v for v in values] if None in values else values, np.float64)
    finite = np.isfinite(x)
    gaps = ~finite
    if gaps.any() and not (nan_null or None in values):
        return None
    if (gaps & ~np.isnan(x)).any():  # (an infinity: json's spelling)
        return None
    if not nan_null and bool(np.isnan(x[[v is not None for v in values]]).any()):
        return None
    out = csv_lines([x]).split("\n")
    out.pop()
    for j in np.flatnonzero(gaps).tolist():
        out[j] = "null"
    return out


def _object_texts(keys: list[str], columns: list[list[str]], newline: str) -> list[str]:
    """An object per entry with ``keys`` and the written values of
    ``columns`` (one list per key), at the indentation ``newline``, as
    :func:`_encode` writes a dict (``{}`` without keys)."""
    if not keys:
        return ["{}"] * (len(columns[0]) if columns else 0)
    inner = newline + "  "
    parts: list[Any] = []
    for j, (k, col) in enumerate(zip(keys, columns)):
        parts += [repeat(("{" if j == 0 else ",") + inner + _STRING(k) + ": "), col]
    parts.append(repeat(newline + "}"))
    return list(map("".join, zip(*parts)))


def _records_text(x: Sequence[Any], newline: str) -> str | None:
    """A list of dicts with the same str keys in the same order (the pairs'
    rows) as :func:`_encode` writes it, a column at a time; None for any
    other list."""
    keys = list(x[0])
    if not keys or not all(type(k) is str for k in keys):
        return None
    if not all(type(d) is dict and len(d) == len(keys) for d in x) or any(list(d) != keys for d in x):
        return None
    row_nl = newline + "  "
    cols = [_texts([d[k] for d in x], row_nl + "  ") for k in keys]
    return "[" + row_nl + ("," + row_nl).join(_object_texts(keys, cols, row_nl)) + newline + "]"


def _rows_text(board: Board, newline: str) -> str:
    """The JSON of :func:`_json_rows` (a list of objects) at the indentation
    ``newline``, written a column at a time: each column's values written
    at once, then joined per row (the same text as :func:`_encode` of the
    list)."""
    n = len(board.models)
    if not n:
        return "[]"
    row_nl = newline + "  "
    key_nl = row_nl + "  "
    metric_nl = key_nl + "  "
    ranks = board.ranks
    keys = ["rank", "rank_range", "model"]
    cols = [_texts([rank_text(r) for r in ranks], key_nl),
            _texts([list(r) if r else None for r in ranks], key_nl), _texts(board.models, key_nl)]
    for c in board.info:
        if c.values is not None:
            keys.append(c.name)
            cols.append(_texts(c.values, key_nl))
    for p in board.metrics:
        if p.plain:
            keys.append(p.name)
            cols.append(_texts(_attribute(p.values, "value"), key_nl))
    names, metric_cols = [], []
    for m in board.metrics:
        if m.plain:
            continue
        fields = list(m.fields)
        texts = _object_texts(fields, [_texts(_attribute(m.values, _ATTRIBUTES[f]), metric_nl, nan_null=True)
                                       for f in fields], metric_nl)
        for j in _missing(m.values):
            texts[j] = "null"
        names.append(m.name)
        metric_cols.append(texts)
    keys.append("metrics")
    if len(set(keys)) < len(keys) or len(set(names)) < len(names):  # (a name twice: the dict keeps one)
        out: list[str] = []
        _encode(_json_rows(board), newline, out)
        return "".join(out)
    cols.append(_object_texts(names, metric_cols, key_nl) if names else ["{}"] * n)
    rows = _object_texts(keys, cols, row_nl)
    return "[" + row_nl + ("," + row_nl).join(rows) + newline + "]"


def _attribute(values: Sequence[Estimate | None], name: str) -> list[Any]:
    """One attribute of each estimate (None where the entry is None): its
    column where ``values`` are :class:`Estimates`."""
    if isinstance(values, Estimates):
        col: list[Any] = getattr(values, name)
        return col
    return [None if v is None else getattr(v, name) for v in values]


def _missing(values: Sequence[Estimate | None]) -> list[int]:
    """The positions of the entries that are None."""
    if isinstance(values, Estimates):
        return [j for j, v in enumerate(values.value) if v is None]
    return [j for j, v in enumerate(values) if v is None]


# ------------------------------------------------------------------ paired comparisons, streamed

#: The columns of a pair's row after ``metric``: the keys of
#: :func:`kscore.leaderboard.api.pair_rows`' rows, in their order.
PAIR_FIELDS = ("a", "b", "questions", "diff", "sigma", "lo", "hi", "p", "significant")


def write_pairs_csv(rows: Iterable[dict[str, Any]], metric: str, path: str | Path) -> int:
    """Writes the pairs' ``rows`` (dicts of :data:`PAIR_FIELDS`) to ``path``
    as CSV, a row at a time as they come; returns how many."""
    count = 0
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("metric," + ",".join(PAIR_FIELDS) + "\n")
        for row in rows:
            count += 1
            f.write(",".join(csv_field(x if not isinstance(x, float) else repr(x))
                             for x in [metric, *row.values()]) + "\n")
    return count


def write_pairs_jsonl(rows: Iterable[dict[str, Any]], metric: str, path: str | Path) -> int:
    """As :func:`write_pairs_csv`, as JSON Lines (an object per pair)."""
    count = 0
    with open(path, "w", encoding="utf-8", newline="") as f:
        for row in rows:
            count += 1
            f.write(json.dumps({"metric": metric} | row, allow_nan=False) + "\n")
    return count


# ------------------------------------------------------------------ kscore compare, kscore plan

_COMPARISON_FIELDS = ["metric", "a", "b", "questions", "a_estimate", "b_estimate", "diff", "sigma", "lo", "hi", "p"]


def comparison_csv(report: ComparisonReport) -> str:
    """A line per metric (and subset, under a leading ``group``)."""
    by = report.by is not None
    out = [_csv_line((["group"] if by else []) + _COMPARISON_FIELDS)]
    for g, comps in report.groups:
        for c in comps:
            out.append(_csv_line(([ALL if g is None else g] if by else []) + [c.metric, c.a, c.b, c.questions] +
                                 ["" if x != x else repr(x) for x in (c.a_estimate, c.b_estimate, c.diff, c.sigma,
                                                                      c.lo, c.hi, c.p)]))
    return "".join(out)


def comparison_json(report: ComparisonReport) -> str:
    """The report's facts, its meaning and a list of comparisons."""
    by = report.by is not None
    comparisons: list[dict[str, Any]] = []
    for g, comps in report.groups:
        for c in comps:
            item: dict[str, Any] = {"group": ALL if g is None else g} if by else {}
            item |= {"metric": c.metric, "a": c.a, "b": c.b, "questions": c.questions,
                     "a_estimate": _num(c.a_estimate), "b_estimate": _num(c.b_estimate), "diff": _num(c.diff),
                     "sigma": _num(c.sigma), "lo": _num(c.lo), "hi": _num(c.hi), "p": _num(c.p)}
            comparisons.append(item)
    doc = {**report.about, "meaning": report.meaning, "comparisons": comparisons}
    return json.dumps(doc, indent=2) + "\n"


def plan_json(report: PlanReport) -> str:
    """The whole board's plan, each subset's, the warnings."""
    doc: dict[str, Any] = {**report.about, "plan": report.plans[0].data}
    if report.by is not None:
        doc["by"] = report.by
        doc["groups"] = [{"group": p.group, "plan": p.data} for p in report.plans[1:]]
    doc["warnings"] = report.warnings
    return json.dumps(doc, indent=2) + "\n"
