"""Parquet files counted in the Rust core, without a query (docs/leaderboard.md,
*How it reads*).

Where the Parquet statistics already prove every outcome a category and
every sample id an integer in a known range (``RowSql.proven``), the counts
need no per-row SQL: each file's row groups are decoded by pyarrow with the
model and question columns as dictionaries (the strings of a row group are
hashed once, not once per row), and the core counts the batches as they
come (``_kscore.RowCounter``: two array lookups per row, the cell's counts
and a bitmask of the sample ids seen). That is cheaper than DuckDB's hash
aggregation of two string keys, which re-hashes every row's strings.

The core checks each row anyway (an outcome outside the categories, a
sample id outside the range, a repeated sample id, a missing id): on any
of them, or on a layout it does not take (hive partitions, a question
column that is not text, ``--cluster``/``--by`` attributes, a sparse board),
it stops and DuckDB counts the input the general way, which checks and
names every row. The result is the same :class:`Cells` either way. Under
``--memory-limit`` DuckDB counts (it spills to disk; this count would not).
"""

from __future__ import annotations

import queue
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..._arrays import IntArray
from ..._kscore import RowCounter
from .._counts import Counts
from .source import Source
from .sql import RowSql

#: Whether the direct count is tried (tests compare it with DuckDB's by turning it off).
ENABLED = True
#: Rows per batch at most (a batch never spans row groups).
BATCH_ROWS = 1 << 22
#: Sample ids (0..N-1) up to which a cell's bitmask of ids seen is kept
#: (N / 8 bytes a cell; DuckDB's way past it).
MAX_IDS = 1024

#: DuckDB's model name of a file without a model column (read/rows.py's
#: ``regexp_extract(filename, ...)``): its name up to the first dot.
_FILE_MODEL = re.compile(r"([^/\\]+?)([.][^/\\]*)?$")

#: Arrow integer types read as they are (other widths are cast to int64).
_INTS = {"int8": np.int8, "uint8": np.uint8, "int16": np.int16, "int32": np.int32, "int64": np.int64}


class _Halt(Exception):
    """The batch cannot be counted here (the reason is the message)."""


def applies(source: Source, r: RowSql) -> bool:
    """Whether the direct count may take this input (it may still stop)."""
    if not (ENABLED and source.direct) or r.proven is None or r.names is None or r.extra or source.kind != "parquet":
        return False
    if source.relation is not None or not source.files:
        return False
    if any("=" in part for f in source.files for part in f.parts[:-1]):
        return False  # hive partitions: columns in the paths
    return r.s is None or r.proven + 1 <= MAX_IDS


def count_rows(source: Source, r: RowSql) -> tuple[list[str], list[str], IntArray, IntArray, IntArray] | str:
    """The counts (models, questions, model and question code per cell,
    categories x cells), or why the rows cannot be counted here."""
    assert r.names is not None and r.proven is not None
    model_col, question_col, outcome_col, sample_col = r.names
    counter = RowCounter(r.categories, r.proven + 1 if sample_col is not None else 0)
    models = {} if model_col is not None else {path: counter.model_code(_file_model(source, path))
                                                 for path in source.files}

    def prepare(path: Path, batch: Any) -> tuple[Any, ...]:
        return (_dictionary(batch.column(model_col)) if model_col is not None else models[path],
                _dictionary(batch.column(question_col)), _ints(batch.column(outcome_col)),
                _ints(batch.column(sample_col)) if sample_col is not None else None)

    columns = [c for c in (model_col, question_col, outcome_col, sample_col) if c is not None]
    ids = [c for c in (model_col, question_col) if c is not None]
    done = [0]
    total: list[int] = []  # the files' rows, read from their footers once the display asks (after a second)

    def meter() -> float:
        if not total:
            total.append(max(_rows(source.files), 1))
        return min(100.0, 100.0 * done[0] / total[0])

    source.meter = meter
    try:
        with _Readers(source.files, columns, ids, prepare) as batches:
            for batch in batches:
                if isinstance(batch, str):
                    return batch
                halted = counter.add(*batch)
                if halted is not None:
                    return halted
                done[0] += len(batch[2])
    finally:
        source.meter = None
    models_, questions, m, q, cats = counter.finish()
    if len(m) == 0:
        return "no rows"
    return models_, questions, m, q, cats


class _Readers:
    """Files decoded on reader threads (pyarrow releases the interpreter
    while it decodes), their batches handed over through a short queue to
    the counting thread (the core releases it too): reading and counting
    overlap. Iterating gives prepared batches, or a string (why the rows
    cannot be counted here) as the last item. Leaving the block stops the
    readers (a Ctrl-C while waiting comes out at once: the waits are short)."""

    def __init__(self, files: list[Path], columns: list[str], ids: list[str],
                 prepare: Callable[[Path, Any], tuple[Any, ...]]) -> None:
        self.files, self.columns, self.ids, self.prepare = files, columns, ids, prepare
        self.queue: queue.Queue[Any] = queue.Queue(maxsize=READ_AHEAD)
        self.stop = threading.Event()
        # Whole files dealt out in turn; fewer files than readers: each
        # file's row groups dealt out (one big file is read on every reader).
        parts = READERS if len(files) < READERS else 1
        units = [(f, k, parts) for f in files for k in range(parts)]
        self.threads = [threading.Thread(target=self._read, args=(units[i::READERS],), name="kscore-read",
                                         daemon=True) for i in range(min(READERS, len(units)))]

    def __enter__(self) -> Iterator[tuple[Any, ...] | str]:
        for t in self.threads:
            t.start()
        return self._items()

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        while any(t.is_alive() for t in self.threads):  # unblock a reader waiting to put
            try:
                self.queue.get(timeout=0.05)
            except queue.Empty:
                pass

    def _put(self, item: object) -> bool:
        while not self.stop.is_set():
            try:
                self.queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                pass
        return False

    def _read(self, units: list[tuple[Path, int, int]]) -> None:
        try:
            for path, part, parts in units:
                for batch in _batches(path, self.columns, self.ids, part, parts):
                    if not self._put(self.prepare(path, batch)):
                        return
        except _Halt as why:
            self._put(str(why))
        except Exception as exc:  # noqa: BLE001 - an unreadable file: DuckDB reads it again and names the problem
            self._put(f"pyarrow could not read it ({type(exc).__name__})")
        finally:
            self._put(_DONE)

    def _items(self) -> Iterator[tuple[Any, ...] | str]:
        done = 0
        while done < len(self.threads):
            try:
                item = self.queue.get(timeout=0.25)
            except queue.Empty:
                continue
            if item is _DONE:
                done += 1
                continue
            yield item
            if isinstance(item, str):
                return


#: A reader's last item.
_DONE = object()
#: Reader threads (files, or one file's row groups, are dealt out to them in turn) and batches read ahead.
READERS = 2
READ_AHEAD = 4


def _rows(files: list[Path]) -> int:
    """Rows of the files by their footers (for the progress display)."""
    import pyarrow.parquet as pq

    try:
        return sum(pq.read_metadata(f).num_rows for f in files)
    except Exception:  # noqa: BLE001 - an unreadable footer: the readers find it and hand over
        return 0


def _file_model(source: Source, path: Path) -> str:
    if not source.multi:
        return source.stem or source.label
    found = _FILE_MODEL.search(str(path))
    return found.group(1) if found else str(path)


def _batches(path: Path, columns: list[str], dictionaries: list[str], part: int = 0, parts: int = 1) -> Any:
    """Row groups ``part``, ``part + parts``, ... of the file as record
    batches, the id columns as dictionaries."""
    import pyarrow.parquet as pq

    file = pq.ParquetFile(path, read_dictionary=dictionaries)
    names = file.schema_arrow.names
    if any(c not in names for c in columns):
        raise _Halt(f"a column missing in {path.name}")
    groups = list(range(part, file.num_row_groups, parts))
    if groups:
        yield from file.iter_batches(batch_size=BATCH_ROWS, row_groups=groups, columns=columns, use_threads=True)


def _buffer(buf: Any, dtype: Any, count: int) -> Any:
    if buf is None:
        return np.zeros(count, dtype)
    return np.frombuffer(buf, dtype, count=count)


def _dictionary(col: Any) -> tuple[Any, Any, Any]:
    """A dictionary column as (indices, offsets, data) numpy views."""
    import pyarrow as pa

    if not pa.types.is_dictionary(col.type) or col.null_count:
        raise _Halt("an id column that is not text, or a missing id")
    values = col.dictionary
    width: Any
    if pa.types.is_string(values.type):
        width = np.int32
    elif pa.types.is_large_string(values.type):
        width = np.int64
    else:
        raise _Halt("an id column that is not text")
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


#: The core's word for a repeated sample id (then DuckDB counts with every row checked at once).
REPEATED = "a repeated sample id"


def to_counts(found: tuple[list[str], list[str], IntArray, IntArray, IntArray]) -> Counts:
    """The counts table (``categories``: cells x categories, a view of the core's array)."""
    models, questions, m, q, cats = found
    return Counts(models, questions, m, q, cats.T)

