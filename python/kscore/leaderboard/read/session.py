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
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._issues import LeaderboardError

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


def connect(spill: Spill | None = None) -> object:
    """A new DuckDB connection with the progress bar's state on (for
    runtime/progress.py) and, under a memory limit, the spill settings."""
    import duckdb  # (optional and heavy: imported where a read starts)

    con = duckdb.connect()
    # query_progress() (the progress display) needs the progress bar on; its
    # own printing stays off.
    con.execute("SET enable_progress_bar = true; SET enable_progress_bar_print = false")
    if spill is not None:
        con.execute(spill.settings())
    return con


@dataclass
class Session:
    """One read's connections: :meth:`connect` opens one (with the spill
    settings) and keeps it, to be closed when the read ends; ``spilled``:
    whether the read spilled to disk (known once it has ended)."""

    spill: Spill
    opened: list[Any] = field(default_factory=list)
    spilled: bool = False

    def connect(self) -> object:
        con = connect(self.spill)
        self.opened.append(con)
        return con


@contextmanager
def session(limit: str | None) -> Iterator[Session]:
    """A :class:`Session` in a fresh spill folder: its connections are closed
    when the block ends, however it ends, and the folder removed after them
    (DuckDB removes its own spill files as a connection closes)."""
    import duckdb  # (optional and heavy: imported where a read starts)

    with spill_folder(limit) as spill:
        held = Session(spill)
        try:
            yield held
        finally:
            held.spilled = spill.spilled  # DuckDB removes its folder when the connection closes
            for con in held.opened:  # before the folder goes: DuckDB removes its own spill files
                try:
                    con.close()
                except duckdb.Error:  # busy with a query still unwinding from Ctrl-C: the run is ending anyway
                    pass
