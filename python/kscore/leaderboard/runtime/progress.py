"""A progress display for long reads (docs/leaderboard.md, *Output*).

While a DuckDB query runs, a thread polls the connection's own progress
(``query_progress()``) and draws a rich progress bar on stderr, from
``delay`` seconds on (so quick inputs print nothing). The command line shows
it on a terminal only, never when stderr is piped or with ``--quiet``;
``--progress`` forces it on."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def phase(name: str) -> None:
    """Tell stderr that a phase of the run begins (reading, counting,
    metrics, writing, plotting), where ``KSCORE_PHASES`` is set: how
    tests/test_interrupt.py sends Ctrl-C into each phase of a real run."""
    if os.environ.get("KSCORE_PHASES"):
        print(f"kscore: phase {name}", file=sys.stderr, flush=True)


class Progress:
    """Draws on ``console`` (a rich Console); ``None`` draws nothing."""

    def __init__(self, console: Any | None, delay: float = 1.0) -> None:
        self.console = console
        self.delay = delay

    @contextmanager
    def query(self, con: Any, text: str) -> Iterator[None]:
        """Show ``text`` and the percentage done of ``con``'s running query
        (``con``: anything with DuckDB's ``query_progress()``, as a read's
        Source, which also tells the progress of a count outside DuckDB)."""
        if self.console is None or con is None:
            yield
            return
        # (rich: optional and heavy, imported only when a bar is shown)
        from rich.progress import BarColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as Bar

        done = threading.Event()
        start = time.monotonic()

        def poll() -> None:
            bar: Any = None
            task: Any = None
            while not done.wait(0.1):
                if bar is None and time.monotonic() - start >= self.delay:
                    bar = Bar(TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
                              TimeElapsedColumn(), console=self.console, transient=False)
                    bar.start()
                    task = bar.add_task(text, total=100.0)
                if bar is not None:
                    try:
                        pct = float(con.query_progress())
                    except Exception:  # noqa: BLE001 - no query running (yet, or any more)
                        pct = -1.0
                    if pct >= 0:
                        bar.update(task, completed=pct)
                    bar.refresh()
            if bar is None and self.delay <= 0:
                bar = Bar(TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), console=self.console)
                bar.start()
                task = bar.add_task(text, total=100.0)
            if bar is not None:
                bar.update(task, completed=100.0)
                bar.stop()

        thread = threading.Thread(target=poll, name="kscore-progress", daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()
