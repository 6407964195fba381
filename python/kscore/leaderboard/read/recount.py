"""Recomputation: counts tables stored, mixed with new raw results.

``count(source)`` is the reading half of :func:`kscore.leaderboard`: any
source to its counts table (docs/leaderboard.md, *Counts tables*), which
``Counts.to_parquet`` stores. A source may be several sources (a list, or
several files on the command line), each read on its own (a stored counts
table as counts, raw results counted) and their counts added. So adding a
new model's rows to a stored board reads only the new rows::

    kscore count 'results/*.parquet' -o board.parquet        # once
    kscore count board.parquet new_model.parquet -o board.parquet
    kscore leaderboard board.parquet

Counts are additive, so the mixed board is the board of all the raw rows
read at once (tests/test_recount.py checks the CSV byte for byte), except
that a sample repeated across two sources counts twice: repeats are found
within one source only.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TypeGuard

from .._counts import Counts, add_counts
from .._issues import LeaderboardError
from .._options import ColumnNames
from .counts_input import is_counts_table
from .describe import describe
from .source import input_files, open_source


def is_many(source: object) -> TypeGuard[Sequence[object]]:
    """A list or tuple of sources (not a table, not one path)."""
    return isinstance(source, (list, tuple))


def read_many(sources: Sequence[object], read: Callable[[object], tuple[Counts, str]]) -> tuple[Counts, str]:
    """Each source read by ``read`` (``reader.read`` with the read's
    options) and the counts added; the label names them all."""
    if not sources:
        raise LeaderboardError("no source given (an empty list)")
    _refuse_repeats(sources)
    counted(sources)  # refuses raw files a stored table already holds
    parts: list[tuple[Counts, str]] = [read(s) for s in sources]
    if len(parts) == 1:
        return parts[0]
    widths = {c.n_categories for c, _ in parts}
    if len(widths) > 1:  # pragma: no cover - every part is read with the same categories
        raise LeaderboardError("the sources have different numbers of outcome categories")
    return add_counts(*(c for c, _ in parts)), " + ".join(label for _, label in parts)


def _refuse_repeats(sources: Sequence[object]) -> None:
    """A file named by two of the sources (``board.parquet`` and a glob
    that matches it too) would have its counts added twice: refused."""
    seen: dict[str, str] = {}
    for source in sources:
        if not isinstance(source, (str, os.PathLike)):
            continue
        for f in input_files(source):
            real = os.path.realpath(f)
            if real in seen:
                by = "" if seen[real] == os.fspath(source) else f" (by {seen[real]} and by {os.fspath(source)})"
                raise LeaderboardError(f"{f} is named twice{by}; its counts would be added twice")
            seen[real] = os.fspath(source)


#: The footer key under which ``kscore count`` records the raw files it
#: counted (a JSON list of "path, size, modification time" entries).
COUNTED = "kscore.counted"


def file_id(path: str | os.PathLike[str]) -> str:
    """A raw file as recorded: its real path, size and modification time
    (a file rewritten since is another file; a copy elsewhere is not
    recognised)."""
    st = os.stat(path)
    return f"{os.path.realpath(path)}|{st.st_size}|{st.st_mtime_ns}"


def _recorded(path: str) -> list[str] | None:
    """The raw files a Parquet counts table written by ``kscore count``
    holds; None for any other file."""
    import json

    if not path.lower().endswith((".parquet", ".pq")):
        return None
    try:
        import pyarrow.parquet as pq  # (optional and heavy: imported where a footer is read)

        meta = pq.read_metadata(path).metadata or {}
        text = meta.get(COUNTED.encode())
        if text is None:
            return None
        found = json.loads(text)
        return [str(x) for x in found] if isinstance(found, list) else None
    except Exception:  # noqa: BLE001 - not a readable Parquet file: the read reports it
        return None


def counted(sources: Sequence[object]) -> list[str]:
    """The raw files the sources hold (recorded by stored tables, or read
    here), for the new table's footer. A raw file a stored table already
    holds, or one two stored tables hold, is refused: its counts would be
    added twice (a file rewritten since, or copied, is not recognised)."""
    holder: dict[str, str] = {}
    raw: list[tuple[str, str]] = []
    for source in sources:
        if not isinstance(source, (str, os.PathLike)):
            continue
        for f in input_files(source):
            if not os.path.isfile(f):
                continue
            found = _recorded(str(f))
            if found is None:
                raw.append((str(f), file_id(f)))
                continue
            for x in found:
                if x in holder:
                    raise LeaderboardError(f"{x.split('|')[0]} is counted in both {holder[x]} and {f}; their counts "
                                           "would add it twice")
                holder[x] = str(f)
    for name, x in raw:
        if x in holder:
            raise LeaderboardError(f"{name} is already counted in {holder[x]} (kscore count recorded it); adding it "
                                   "again would count it twice")
    return sorted({*holder, *(x for _, x in raw)})


def write_counts(counts: Counts, path: str | os.PathLike[str], fmt: str | None = None,
                 record: list[str] | None = None) -> None:
    """``counts`` to ``path``: Parquet (``.parquet``, ``.pq``, the default)
    or CSV (``.csv``), by ``fmt`` or the extension. ``record``: the raw
    files counted (:func:`counted`), kept in a Parquet file's footer."""
    import json

    kind = fmt or output_format(os.fspath(path))
    if kind == "csv":
        counts.to_csv(path)
    else:
        counts.to_parquet(path, {COUNTED: json.dumps(record)} if record else None)


def output_format(path: str) -> str:
    """csv for a ``.csv`` name, else parquet."""
    return "csv" if path.lower().endswith(".csv") else "parquet"


def is_counts_file(path: str, input_format: str | None = None) -> bool:
    """Whether ``path`` is a counts table (columns n and c, as a source):
    ``kscore count`` may then write its update over it."""
    try:
        src = open_source(path, input_format)
        if src.kind in ("npy", "npz") or src.con is None:
            return False
        try:
            return is_counts_table([n for n, _ in describe(src)], ColumnNames())
        finally:
            src.con.close()
    except Exception:  # noqa: BLE001 - unreadable: not a counts table (the read reports why)
        return False
