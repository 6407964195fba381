"""One read's context (issue 34): what the orchestrator (read/reader.py)
resolves once, at the start of a read, and every stage below takes from the
read's :class:`~kscore.leaderboard.read.source.Source` instead of asking
the runtime again: the threads, how DuckDB connections are made and which
are open, and whether the direct count may run. Plain data: no stage calls
into it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ReadContext:
    """``threads``: the reading threads (``--threads``, ``KSCORE_THREADS``,
    else every core); ``chosen``: the count given (None: DuckDB keeps its
    own default), for ``--verbose``; ``duckdb``: the SQL run on each new
    DuckDB connection (its threads, memory limit and spill folder);
    ``opened``: the connections opened, closed when the read ends
    (read/session.py); ``direct``: whether rows may be counted outside
    DuckDB (not under a memory limit: DuckDB spills, the direct count would
    not)."""

    threads: int = 1
    chosen: int | None = None
    duckdb: tuple[str, ...] = ()
    opened: list[Any] = field(default_factory=list)
    direct: bool = True
