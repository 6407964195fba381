"""A DuckDB connection as every read opens it (reader.py; recount.py's
check of a counts table)."""

from __future__ import annotations

from .memory import Spill


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
