"""Parquet files counted in the Rust core, without a query (docs/leaderboard.md,
*How it reads*; read/direct.py).

Where the outcomes (and sample ids) are integer or boolean columns, the
counts need no per-row SQL: the files' row groups are decoded by pyarrow on every
core (row_pool.py: whole files dealt out to the reading threads, or the row
groups of a few large files), with the string id columns as dictionaries
(the strings of a row group are hashed once, not once per row) and integer
ids as they are, and each thread's core shard counts its batches as they
come (two array lookups per row, the cell's counts and a bitmask of the
sample ids seen). That is cheaper than DuckDB's hash aggregation of two
string keys, which re-hashes every row's strings.

It takes string and integer model/question ids, ``--cluster``/``--by``
columns (a question's value must be one), files named for their models and
hive-partitioned folders (a model or attribute named by the folder). The
core checks each row (an outcome outside the categories, a sample id outside
0..1023, a repeated or missing id); on anything it cannot vouch for it stops,
and DuckDB counts the input the general way (with the Parquet statistics'
proof, read/proof.py, where they give one). No footer's statistics are read
before the count: that would be work on one thread.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from ..._kscore import RowBoard
from .._counts import Counts
from .row_pool import Clock
from .shards import MAX_IDS, count_units, file_model
from .source import Source
from .sql import INTEGER_TYPES, RowSql

#: Rows per batch at most (a batch never spans row groups).
BATCH_ROWS = 1 << 22
#: Units per reading thread wanted: whole files where there are this many
#: files per thread, else row groups of the files split into as many units.
UNITS_PER_THREAD = 4

#: Arrow integer types read as they are (other widths are cast to int64).
_INTS = {"int8": np.int8, "uint8": np.uint8, "int16": np.int16, "int32": np.int32, "int64": np.int64}
#: Integer id types the core names as DuckDB does (uint64 past int64 would not be).
_INT_IDS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32")


class _Halt(Exception):
    """The batch cannot be counted here (the reason is the message)."""


def hive_values(path: Path) -> dict[str, str]:
    """The ``key=value`` folders of a path."""
    return dict(part.split("=", 1) for part in path.parts[:-1] if "=" in part)


def applies(source: Source, r: RowSql) -> str | None:
    """None where the direct count may take this Parquet input, else why not."""
    assert r.names is not None
    types = dict(r.types)
    _, _, outcome_col, sample_col = r.names
    if not (types.get(outcome_col) == "BOOLEAN" or types.get(outcome_col) in INTEGER_TYPES):
        return "an outcome column that is not integers or booleans"
    if sample_col is not None and types.get(sample_col) not in INTEGER_TYPES:
        return "a sample column that is not integers"
    keys = set().union(*(hive_values(f) for f in source.files))
    if keys:
        _, question_col, outcome_col, sample_col = r.names
        if {question_col, outcome_col, sample_col} & keys:
            return "a question, outcome or sample column in the folder names"
        used = [k for k in (r.names[0], *(name for name, _ in r.extra)) if k in keys]
        if used:
            if any(types.get(k) != "VARCHAR" for k in used):
                return "a folder value DuckDB reads as a number or date"
            if any("%" in hive_values(f).get(k, "") for f in source.files for k in used):
                return "an escaped folder value"
            if any(k not in hive_values(f) for f in source.files for k in used):
                return "a file outside the partition folders"
    return None


def count_rows(source: Source, r: RowSql) -> Counts | str:
    """The counts, or why the rows cannot be counted here."""
    assert r.names is not None
    model_col, question_col, outcome_col, sample_col = r.names
    extra = [name for name, _ in r.extra]
    # Sample ids 0..MAX_IDS-1, each cell's bitmask of ids seen growing as
    # larger ids come (the core stops at an id past them, or a negative one).
    board = RowBoard(r.categories, MAX_IDS if sample_col is not None else 0, len(extra), grow=True)
    # Per file: its model's code where the model is not a column, and its
    # attributes' codes where the folders name them.
    fixed: dict[Path, tuple[Any, list[Any]]] = {}
    for path in source.files:
        hive = hive_values(path)
        if model_col is None:
            model: Any = board.code(file_model(source, path))
        else:
            model = board.code(hive[model_col]) if model_col in hive else None
        fixed[path] = (model, [board.code(hive[x], i) if x in hive else None for i, x in enumerate(extra)])
    units = _units(source.files, source.context.threads)
    done = [0]
    total: list[int] = []  # the files' rows, from their footers once the display asks (after a second)

    def meter() -> float:
        if not total:
            total.append(max(sum(_rows(f) for f in source.files), 1))
        return min(100.0, 100.0 * done[0] / total[0])

    source.meter = meter
    columns = [c for c in (model_col, question_col, outcome_col, sample_col, *extra)
               if c is not None and not any(c in hive_values(f) for f in source.files[:1])]

    def work(unit: tuple[Path, list[int] | None], shard: Any, clock: Clock, stop: threading.Event) -> str | None:
        path, groups = unit
        model, attrs = fixed[path]
        try:
            for batch in _batches(path, columns, groups):
                if stop.is_set():
                    return None
                args = (model if model is not None else _ids(batch.column(model_col)),
                        _ids(batch.column(question_col)), _ints(batch.column(outcome_col)),
                        _ints(batch.column(sample_col)) if sample_col is not None else None,
                        [a if a is not None else _ids(batch.column(x)) for a, x in zip(attrs, extra)])
                clock.lap("read")
                why = shard.add(*args)
                clock.lap("count")
                if why is not None:
                    return str(why)
                done[0] += batch.num_rows
        except _Halt as why:
            return str(why)
        return None

    return count_units(source, board, units, work, r.extra)


def _units(files: list[Path], n: int) -> list[tuple[Path, list[int] | None]]:
    """The reading threads' units: (file, row groups or None for all).
    Whole files where there are enough of them (each model's rows in one
    thread's shard: no memory held twice); else each file's row groups in
    contiguous runs, about ``UNITS_PER_THREAD`` per thread in all."""
    import pyarrow.parquet as pq

    if len(files) >= UNITS_PER_THREAD * n or n == 1:
        return [(f, None) for f in files]
    out: list[tuple[Path, list[int] | None]] = []
    groups: list[tuple[Path, int]] = []
    for f in files:
        try:
            groups.append((f, pq.read_metadata(f).num_row_groups))
        except Exception:  # noqa: BLE001 - unreadable: its reader finds it and hands over
            out.append((f, None))
    per = max(1, sum(g for _, g in groups) // (UNITS_PER_THREAD * n))
    for f, g in groups:
        out += [(f, list(range(a, min(a + per, g)))) for a in range(0, g, per)]
    return out


def _rows(path: Path) -> int:
    """Rows of a file by its footer (for the progress display)."""
    import pyarrow.parquet as pq

    try:
        return int(pq.read_metadata(path).num_rows)
    except Exception:  # noqa: BLE001 - an unreadable footer: the reader finds it and hands over
        return 0


def _batches(path: Path, columns: list[str], groups: list[int] | None) -> Any:
    """The file's row groups (``groups``, or all) as record batches, its
    text columns as dictionaries."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    if any(c not in schema.names for c in columns):
        raise _Halt(f"a column missing in {path.name}")
    text = [c for c in columns if pa.types.is_string(schema.field(c).type) or
            pa.types.is_large_string(schema.field(c).type)]
    file = pq.ParquetFile(path, read_dictionary=text)
    yield from file.iter_batches(batch_size=BATCH_ROWS, row_groups=groups if groups is not None else
                                 range(file.num_row_groups), columns=columns, use_threads=False)


def _buffer(buf: Any, dtype: Any, count: int) -> Any:
    if buf is None:
        return np.zeros(count, dtype)
    return np.frombuffer(buf, dtype, count=count)


def _ids(col: Any) -> Any:
    """An id column: a dictionary column as (indices, offsets, data) numpy
    views, or integers as they are."""
    import pyarrow as pa

    if col.null_count:
        raise _Halt("a missing id")
    if pa.types.is_integer(col.type):
        if str(col.type) not in _INT_IDS:
            raise _Halt("an id column of unsigned 64-bit integers")
        return _ints(col)
    if not pa.types.is_dictionary(col.type):
        raise _Halt("an id column that is neither text nor integers")
    values = col.dictionary
    width: Any
    if pa.types.is_string(values.type):
        width = np.int32
    elif pa.types.is_large_string(values.type):
        width = np.int64
    else:
        raise _Halt("an id column that is neither text nor integers")
    if col.indices.type != pa.int32() or values.null_count:
        raise _Halt("an unexpected dictionary")
    idx = col.indices
    indices = _buffer(idx.buffers()[1], np.int32, len(idx) + idx.offset)[idx.offset:]
    bufs = values.buffers()
    offsets = _buffer(bufs[1], width, len(values) + 1 + values.offset)[values.offset:]
    data = _buffer(bufs[2], np.uint8, bufs[2].size if bufs[2] is not None else 0)
    return indices, offsets, data


def _ints(col: Any) -> Any:
    """An integer or boolean column as a numpy view (booleans unpacked)."""
    import pyarrow as pa

    if col.null_count:
        raise _Halt("a missing outcome or sample id")
    n, at = len(col), col.offset
    if pa.types.is_boolean(col.type):
        bits = _buffer(col.buffers()[1], np.uint8, (n + at + 7) // 8)
        return np.unpackbits(bits, count=n + at, bitorder="little")[at:]
    dtype = _INTS.get(str(col.type))
    if dtype is not None:
        return _buffer(col.buffers()[1], dtype, n + at)[at:]
    if pa.types.is_integer(col.type):  # uint16/32/64: values past int64 become negative, which the core refuses
        width = col.type.bit_width // 8
        return _buffer(col.buffers()[1], np.dtype(f"u{width}"), n + at)[at:].astype(np.int64)
    raise _Halt("an outcome or sample id that is not an integer")
