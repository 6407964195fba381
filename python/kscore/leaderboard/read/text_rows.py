"""CSV/TSV and JSON Lines files counted in the Rust core, without a query
(docs/leaderboard.md, *How it reads*; read/direct.py).

Plain files are cut into byte ranges at line ends (a range's lines are
those that start in it), compressed ones (.gz, .zst) are decompressed as
they stream, and the reading threads (row_pool.py) hand the lines to their
shard's text reader in the core, which parses and counts them
(``RowShard.add_text``; rust/kscore-core/src/intake/rows/text.rs). The
column types are DuckDB's (its sniffer's, as the query would read them):
ids as text (numbers in JSON Lines where DuckDB reads them as integers),
outcomes as numbers, booleans or words. A line the core does not read the
way DuckDB would stops the count, and DuckDB's query counts the files.
"""

from __future__ import annotations

import csv
import io
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from ..._kscore import RowBoard, TextLayout
from .._counts import Counts
from .compressed import compression
from .row_pool import Clock
from .shards import MAX_IDS, count_units, file_model
from .source import Source
from .sql import INTEGER_TYPES, RowSql

#: Bytes a reading thread hands the core at a time.
CHUNK = 1 << 24
#: Bytes of a plain file per unit (its lines are read by one thread).
UNIT = 1 << 26
#: DuckDB types whose values are integers in JSON Lines (ids read as numbers).
_INTEGER_IDS = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER")
_NUMBERS = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT",
            "FLOAT", "DOUBLE")


def _outcome_is(dtype: str) -> str | None:
    if dtype == "BOOLEAN":
        return "boolean"
    if dtype in _NUMBERS or dtype.startswith("DECIMAL"):
        return "number"
    if dtype == "VARCHAR":
        return "words"
    return None


def applies(source: Source, r: RowSql) -> str | None:
    """None where the direct count may take these text files, else why not."""
    assert r.names is not None
    if any("=" in part for f in source.files for part in f.parts[:-1]):
        return "hive-partitioned text files"
    if any(compression(f) not in (None, "gzip", "zstd") for f in source.files):
        return "a compression the direct reader does not read"
    return None


def layout(source: Source, r: RowSql) -> Any:
    """The core's ``TextLayout`` of the files (CSV: from the first file's
    header, which every file must repeat), or why none."""
    assert r.names is not None
    model_col, question_col, outcome_col, sample_col = r.names
    extra = [name for name, _ in r.extra]
    types = dict(r.types)
    outcome_is = _outcome_is(types.get(outcome_col, ""))
    if outcome_is is None:
        return f"an outcome column of type {types.get(outcome_col)}"
    if sample_col is not None and types.get(sample_col, "") not in INTEGER_TYPES:
        return "sample ids that are not integers"
    ids = [c for c in (model_col, question_col, *extra) if c is not None]
    if source.kind == "jsonl":
        numeric = []
        for c in (model_col, question_col, *extra):
            t = types.get(c or "", "VARCHAR")
            if t not in ("VARCHAR", *_INTEGER_IDS):
                return f"an id column of type {t}"
            numeric.append(t != "VARCHAR")
        return TextLayout("jsonl", model_col, question_col, outcome_col, outcome_is, sample_col, extra,
                          numeric_ids=numeric)
    if any(types.get(c) != "VARCHAR" for c in ids):
        return "an id column not read as text"
    header = _header(source.files[0], source.delimiter)
    if header is None:
        return "a header the direct reader does not read"
    names, _ = header
    if any(_header(f, source.delimiter) != header for f in source.files[1:]):
        return "files with different headers"
    if len(set(names)) != len(names):
        return "a column named twice"

    if any(c not in names for c in (*ids, outcome_col, *(x for x in [sample_col] if x))):
        return "a column missing from the header"
    return TextLayout("csv", None if model_col is None else names.index(model_col), names.index(question_col),
                      names.index(outcome_col), outcome_is, None if sample_col is None else names.index(sample_col),
                      [names.index(x) for x in extra], delimiter=source.delimiter, columns=len(names))


def _header(path: Path, delimiter: str) -> tuple[list[str], int] | None:
    """A CSV file's column names and the header line's length with its line
    end (plain files; of the decompressed text otherwise)."""
    with _open(path) as fh:
        head = fh.read(1 << 20)
    end = head.find(b"\n")
    if end < 0:
        return None
    line = head[:end]
    if line.startswith(b"\xef\xbb\xbf"):
        return None  # a byte-order mark: DuckDB's way
    try:
        text = line.decode("utf-8").removesuffix("\r")
    except UnicodeDecodeError:
        return None
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter, quotechar='"', doublequote=True, strict=True))
    if len(rows) != 1:
        return None
    return rows[0], end + 1


def _open(path: Path) -> Any:
    kind = compression(path)
    if kind is None:
        return open(path, "rb")
    import pyarrow as pa

    return pa.input_stream(str(path), compression=kind)


def count_rows(source: Source, r: RowSql) -> Counts | str:
    """The counts, or why the lines cannot be counted here."""
    assert r.names is not None
    found = layout(source, r)
    if isinstance(found, str):
        return found
    text_layout = found
    model_col, _, _, sample_col = r.names
    extra = [name for name, _ in r.extra]
    board = RowBoard(r.categories, MAX_IDS if sample_col is not None else 0, len(extra), grow=True)
    model_of = {f: board.code(file_model(source, f)) for f in source.files} if model_col is None else {}
    skip = {}
    if source.kind != "jsonl":
        header = _header(source.files[0], source.delimiter)
        assert header is not None
        skip = {f: header[1] for f in source.files}
    units = _units(source.files, skip)
    total = sum(b - a for _, a, b in units)
    done = [0]
    source.meter = lambda: min(100.0, 100.0 * done[0] / max(total, 1))

    def work(unit: tuple[Path, int, int], shard: Any, clock: Clock, stop: threading.Event) -> str | None:
        path, a, b = unit
        model = model_of.get(path)
        if compression(path):
            pieces, limit = _stream(path, skip.get(path, 0)), 1 << 62
        else:
            start = _line_start(path, a, skip.get(path, 0))
            if start >= b:
                return None  # no line starts in the range
            pieces, limit = _pieces(path, start), b - start
        carry = b""
        for piece, last in pieces:
            if stop.is_set():
                return None
            data = carry + piece if carry else piece
            clock.lap("read")
            got = shard.add_text(text_layout, np.frombuffer(data, np.uint8), 0, limit, last, model)
            clock.lap("count")
            if isinstance(got, str):
                return got
            done[0] += got
            if got >= limit or last:
                return None
            carry = data[got:]
            limit -= got
        return None

    return count_units(source, board, units, work, r.extra)


def _units(files: list[Path], skip: dict[Path, int]) -> list[tuple[Path, int, int]]:
    """(file, first byte, end byte) of each unit: plain files in ranges of
    about :data:`UNIT` bytes, a compressed file whole (its size on disk)."""
    out = []
    for f in files:
        size = f.stat().st_size
        if compression(f) is not None:
            out.append((f, 0, size))
            continue
        start = skip.get(f, 0)
        for a in range(start, max(size, start + 1), UNIT):
            out.append((f, a, min(a + UNIT, size)))
    return out


def _line_start(path: Path, a: int, header: int) -> int:
    """The first line start at or after byte ``a`` of a plain file (``a``
    itself where the header ends there): past the line end at or after
    ``a - 1``."""
    if a == header:
        return a
    with open(path, "rb") as fh:
        at = a - 1
        while True:
            fh.seek(at)
            probe = fh.read(1 << 16)
            if not probe:
                return at
            nl = probe.find(b"\n")
            if nl >= 0:
                return at + nl + 1
            at += len(probe)


def _pieces(path: Path, start: int) -> Any:
    """A plain file from byte ``start`` in pieces: (bytes, whether the file ends there)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        at = start
        while at < size:
            piece = os.pread(fd, CHUNK, at)
            if not piece:
                break
            at += len(piece)
            yield piece, at >= size
        if at >= size and start >= size:
            yield b"", True
    finally:
        os.close(fd)


def _stream(path: Path, header: int) -> Any:
    """A compressed file's text after its header line, in pieces."""
    with _open(path) as fh:
        skipped = 0
        while skipped < header:
            got = fh.read(min(CHUNK, header - skipped))
            if not got:
                return
            skipped += len(got)
        while True:
            piece = fh.read(CHUNK)
            yield piece, not piece
            if not piece:
                return
