"""The direct count: rows counted in the Rust core on every core, without
DuckDB's query (docs/leaderboard.md, *How it reads*).

Parquet files (parquet_rows.py: pyarrow decodes row groups, the core counts
them) and CSV/TSV/JSON Lines files, plain or compressed (text_rows.py: the
core parses byte ranges of lines), are read by reading threads
(row_pool.py), each counting into a shard of its own; the core adds the
shards up and names the cells (``RowBoard.merge``, ``RowBoard.name``).

Anything the direct count cannot vouch for (an outcome outside the
categories, a repeated sample id, a missing id, a value it does not read
the way DuckDB would, a layout it does not take) stops it, and DuckDB's
query counts the input the general way, which checks and names every row:
the result is the same either way. Why it handed over is a note under
``--verbose``. Under ``--memory-limit`` DuckDB counts (it spills to disk;
this count would not).
"""

from __future__ import annotations

from .._counts import Counts
from . import parquet_rows, text_rows
from .source import Source
from .sql import RowSql

#: Whether the direct count is tried (tests compare it with DuckDB's query by turning it off).
ENABLED = True


def applies(source: Source, r: RowSql) -> str | None:
    """None where the direct count may take this input (it may still
    stop), else why not."""
    if not ENABLED:
        return "turned off"
    if not source.context.direct:
        return "a memory limit (DuckDB spills to disk)"
    if source.relation is not None or not source.files or r.names is None:
        return "not a file"
    if source.kind == "parquet":
        return parquet_rows.applies(source, r)
    if source.kind in ("csv", "tsv", "jsonl"):
        return text_rows.applies(source, r)
    return f"{source.kind} input"


def count_rows(source: Source, r: RowSql) -> Counts | str:
    """The counts, or why the rows cannot be counted here."""
    if source.kind == "parquet":
        return parquet_rows.count_rows(source, r)
    return text_rows.count_rows(source, r)
