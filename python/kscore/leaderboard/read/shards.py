"""What the direct count's readers share (read/direct.py): the run of the
reading threads over the units of an input and the shards added up and
named into the counts (:func:`count_units`), the words for why it stops,
and a file's model name as DuckDB gives it."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .._counts import Counts
from ..runtime import profile
from .row_pool import Pool
from .source import Source

#: The core's word for a repeated sample id (then DuckDB counts with every row checked at once).
REPEATED = "a repeated sample id"
#: Sample ids (0..N-1) up to which a cell's bitmask of ids seen is kept
#: (N / 8 bytes a cell; DuckDB's way past it).
MAX_IDS = 1024

#: DuckDB's model name of a file without a model column (read/rows.py's
#: ``regexp_extract(filename, ...)``): its name up to the first dot.
_FILE_MODEL = re.compile(r"([^/\\]+?)([.][^/\\]*)?$")


def file_model(source: Source, path: Path) -> str:
    """The model DuckDB names a file without a model column by."""
    if not source.multi:
        return source.stem or source.label
    found = _FILE_MODEL.search(str(path))
    return found.group(1) if found else str(path)


def count_units(source: Source, board: object, units: Sequence[Any], work: Callable[..., str | None],
                extra: tuple[tuple[str, str], ...]) -> Counts | str:
    """Count ``units`` on the reading threads (row_pool.py: ``work(unit,
    shard, clock, stop)`` on each, a shard of ``board`` per thread), then add
    the shards up and name the cells; the source's progress meter is
    dropped at the end."""
    try:
        with profile.phase("read + count", threads="all") as row:
            pool = Pool(units, source.context.threads, board.shard, work)  # type: ignore[attr-defined]
            shards = pool.run()
            profile.note(row, {f"{k} (CPU)": v for k, v in pool.spent.cpu.items()})
    finally:
        source.meter = None
    return finish(board, shards, extra)


def finish(board: object, shards: list[object] | str, extra: tuple[tuple[str, str], ...]) -> Counts | str:
    """The shards of ``board`` added up and named into the counts table (or
    why not; its ``categories``, cells x categories, a view of the core's
    array)."""
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
    return Counts(models, questions, m, q, cats.T, {name: values for (name, _), values in zip(extra, attributes)})
