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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .._counts import Counts
from .._types import IntArray
from ..runtime import profile, threads
from .source import Source
from .sql import RowSql

#: Whether the direct count is tried (tests compare it with DuckDB's query by turning it off).
ENABLED = True

#: The core's word for a repeated sample id (then DuckDB counts with every row checked at once).
REPEATED = "a repeated sample id"


@dataclass
class Found:
    """The counts of a direct count: sorted names, per cell its model and
    question code and its category counts (categories x cells), and per
    carried attribute each question's value."""

    models: list[str]
    questions: list[str]
    model: IntArray
    question: IntArray
    categories: IntArray
    attributes: dict[str, list[str | None]]


def applies(source: Source, r: RowSql) -> str | None:
    """None where the direct count may take this input (it may still
    stop), else why not."""
    from . import parquet_rows, text_rows

    if not ENABLED:
        return "turned off"
    if not source.direct:
        return "a memory limit (DuckDB spills to disk)"
    if source.relation is not None or not source.files or r.names is None:
        return "not a file"
    if source.kind == "parquet":
        return parquet_rows.applies(source, r)
    if source.kind in ("csv", "tsv", "jsonl"):
        return text_rows.applies(source, r)
    return f"{source.kind} input"


def count_rows(source: Source, r: RowSql) -> Found | str:
    """The counts, or why the rows cannot be counted here."""
    from . import parquet_rows, text_rows

    if source.kind == "parquet":
        return parquet_rows.count_rows(source, r)
    return text_rows.count_rows(source, r)


def count_units(source: Source, board: object, units: Sequence[Any], work: Callable[..., str | None],
                extra: tuple[tuple[str, str], ...]) -> Found | str:
    """Count ``units`` on the reading threads (row_pool.py: ``work(unit,
    shard, clock, stop)`` on each, a shard of ``board`` per thread), then add
    the shards up and name the cells; the source's progress meter is
    dropped at the end."""
    from .row_pool import Pool

    try:
        with profile.phase("read + count", threads="all") as row:
            pool = Pool(units, threads.count(), board.shard, work)  # type: ignore[attr-defined]
            shards = pool.run()
            profile.note(row, {f"{k} (CPU)": v for k, v in pool.spent.cpu.items()})
    finally:
        source.meter = None
    return finish(board, shards, extra)


def finish(board: object, shards: list[object] | str, extra: tuple[tuple[str, str], ...]) -> Found | str:
    """The shards of ``board`` added up and named (or why not)."""
    if isinstance(shards, str):
        return shards
    with profile.phase("merge", threads="all"):
        why = board.merge(shards)  # type: ignore[attr-defined]
    if why is not None:
        return str(why)
    with profile.phase("name", threads="all"):
        out = board.name()  # type: ignore[attr-defined]
    if isinstance(out, str):
        return out
    models, questions, m, q, cats, attributes = out
    if len(m) == 0:
        return "no rows"
    return Found(models, questions, m, q, cats, {name: values for (name, _), values in zip(extra, attributes)})


def to_counts(found: Found) -> Counts:
    """The counts table (``categories``: cells x categories, a view of the core's array)."""
    return Counts(found.models, found.questions, found.model, found.question, found.categories.T,
                  found.attributes)
