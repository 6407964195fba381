"""DuckDB's resources for one read: its connections, their memory limit and
spill folder (docs/leaderboard.md, *Bounded memory*).

``memory_limit`` (``--memory-limit``) becomes DuckDB's ``memory_limit``;
what does not fit spills to a folder kscore makes for the run in the
system's temporary folder (``TMPDIR``) and removes when the read ends, on
an error or Ctrl-C too. Without it DuckDB would spill into ``.tmp`` in the
current folder (its default for an in-memory database), beside the user's
files. DuckDB makes the spill folder itself on its first spill, so its
existence after the read tells that the read spilled. :func:`session` holds
the read's connections (every one the source opens, :meth:`Session.connect`)
and closes them at the end, before the folder goes.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._issues import LeaderboardError
from ..runtime import threads
from .source import open_connection

_SIZE = re.compile(r"\s*(\d+(\.\d+)?)\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*", re.I)


def memory_size(limit: str | int | None) -> str | None:
    """``limit`` as DuckDB's ``memory_limit`` text: a size with its unit
    (``512MB``, ``1.5GB``, ``2GiB``) or a number of bytes.

    Examples:
        >>> memory_size("512 MB"), memory_size(10**9), memory_size(None)
        ('512MB', '1000000000B', None)
    """
    if limit is None:
        return None
    if isinstance(limit, int) and not isinstance(limit, bool):
        if limit <= 0:
            raise LeaderboardError(f"--memory-limit must be positive; got {limit}")
        return f"{limit}B"
    found = _SIZE.fullmatch(str(limit))
    if found is None or float(found.group(1)) <= 0:
        raise LeaderboardError(f"--memory-limit takes a size such as 512MB, 2GB or 1.5GiB; got {limit!r}")
    return f"{found.group(1)}{found.group(3)}"


@dataclass
class Spill:
    """The run's spill folder (``path``, made by DuckDB when it first
    spills) and the memory limit in force (None: DuckDB's default, 80% of
    the machine's memory)."""

    path: Path
    limit: str | None

    @property
    def spilled(self) -> bool:
        return self.path.exists()

    def settings(self) -> str:
        """The SQL that points a DuckDB connection at this folder and limit."""
        sql = f"SET temp_directory = '{str(self.path).replace(chr(39), chr(39) * 2)}'"
        return sql + (f"; SET memory_limit = '{self.limit}'" if self.limit is not None else "")


@contextmanager
def spill_folder(limit: str | None) -> Iterator[Spill]:
    """A :class:`Spill` in a fresh temporary folder, removed at the end of
    the block however it ends (the connections using it must be closed
    inside the block: DuckDB deletes its own files when one closes)."""
    top = Path(tempfile.mkdtemp(prefix="kscore-"))
    try:
        yield Spill(top / "spill", limit)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def duckdb_error(exc: BaseException) -> bool:
    """Whether ``exc`` is DuckDB's, without importing DuckDB (a read that
    never opened DuckDB, as the direct count of Parquet files, has none)."""
    duckdb = sys.modules.get("duckdb")
    return duckdb is not None and isinstance(exc, duckdb.Error)


def connect(spill: Spill | None = None) -> object:
    """A new DuckDB connection with the run's thread count and, under a
    memory limit, the spill settings (a read's own connections are opened
    by its Source, with the settings of the read's context)."""
    setting = threads.duckdb_setting()  # --threads / KSCORE_THREADS (default: DuckDB's, every core)
    return open_connection([x for x in (setting, spill.settings() if spill is not None else None) if x])


@dataclass
class Session:
    """One read's spill folder and connections (``opened``: each that the
    read opens is added, read/context.py, and closed when the read ends);
    ``spilled``: whether the read spilled to disk (known once it has ended)."""

    spill: Spill
    opened: list[Any] = field(default_factory=list)
    spilled: bool = False


@contextmanager
def session(limit: str | None) -> Iterator[Session]:
    """A :class:`Session` in a fresh spill folder: its connections are closed
    when the block ends, however it ends, and the folder removed after them
    (DuckDB removes its own spill files as a connection closes)."""
    with spill_folder(limit) as spill:
        held = Session(spill)
        try:
            yield held
        finally:
            held.spilled = spill.spilled  # DuckDB removes its folder when the connection closes
            for con in held.opened:  # before the folder goes: DuckDB removes its own spill files
                try:
                    con.close()
                except Exception as exc:  # busy with a query still unwinding from Ctrl-C: the run is ending anyway
                    if not duckdb_error(exc):
                        raise
