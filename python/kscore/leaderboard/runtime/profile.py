"""A per-phase profile of a run (``--profile``, ``KSCORE_PROFILE=1``):
each phase's wall time, CPU time (user + system of every thread of the
process) and the threads it may use, printed on stderr when the run ends
(docs/threads.md, *Profile*).

Phases follow one another (``mark``: reading, statistics, pairs, output,
as ``progress.phase`` names them) and may hold measured parts (``phase``:
the reading threads, the merge, the naming, DuckDB's query) whose time is
taken out of the enclosing phase's own row. A part that may use every
core says so (``threads="all"``); the rest run on one thread. On one
thread, the CPU time of the one-thread rows over the whole run's is the
serial fraction ``f``, and Amdahl's law bounds the speed-up on ``n``
cores by ``1 / (f + (1 - f) / n)``: how a 2-core machine tells what a
16-core one will do.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import wraps
from typing import ParamSpec, TextIO, TypeVar

from .threads import count

P = ParamSpec("P")
R = TypeVar("R")

#: Phase names as progress.phase marks them, as the profile shows them.
NAMES = {"reading": "read (setup)", "counting": "read (checks)", "metrics": "statistics", "pairs": "pairs",
         "writing": "output", "plotting": "plots"}


@dataclass
class Row:
    name: str
    wall: float = 0.0
    cpu: float = 0.0
    #: Threads it ran on, and whether its work is split over every thread there is.
    threads: int = 1
    parallel: bool = False
    notes: dict[str, float] = field(default_factory=dict)


def _now() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


class Profile:
    """The rows of one run, in the order the phases began."""

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self.rows: list[Row] = []
        self.lock = threading.Lock()
        self.current: Row | None = None
        self.start = _now()
        self.since = self.start
        #: CPU seconds the process spent before the profile began (the
        #: interpreter's start-up and the imports, for a command; whatever
        #: the caller did first, for the library): in no row, said apart.
        self.before = self.start[1]

    def mark(self, name: str) -> None:
        """A new phase begins (the previous one ends)."""
        with self.lock:
            self._close()
            self.current = self._row(NAMES.get(name, name), False)

    def _row(self, name: str, parallel: bool) -> Row:
        for row in self.rows:
            if row.name == name and row.parallel == parallel:
                return row
        row = Row(name, threads=self.threads if parallel else 1, parallel=parallel)
        self.rows.append(row)
        return row

    def _close(self) -> None:
        now = _now()
        if self.current is None:
            self.current = self._row("start (imports, options)", False)
        self.current.wall += now[0] - self.since[0]
        self.current.cpu += now[1] - self.since[1]
        self.since = now

    @contextmanager
    def part(self, name: str, threads: str) -> Iterator[Row]:
        with self.lock:
            self._close()
        row = self._row(name, threads == "all")
        t0 = _now()
        try:
            yield row
        finally:
            with self.lock:
                now = _now()
                row.wall += now[0] - t0[0]
                row.cpu += now[1] - t0[1]
                self.since = now

    def finish(self) -> None:
        with self.lock:
            self._close()
            self.current = None

    def table(self) -> str:
        total_wall = sum(r.wall for r in self.rows)
        total_cpu = sum(r.cpu for r in self.rows)
        serial_cpu = sum(r.cpu for r in self.rows if not r.parallel)
        lines = [f"kscore profile ({self.threads} thread{'s' * (self.threads != 1)}, {os.cpu_count()} cores, "
                 f"load average {os.getloadavg()[0]:.2f})",
                 f"{'phase':<24} {'wall s':>8} {'CPU s':>8} {'threads':>7} {'CPU/wall':>8}"]
        for r in self.rows:
            if r.wall < 5e-4 and r.cpu < 5e-4:
                continue
            ratio = r.cpu / r.wall if r.wall > 0 else 0.0
            lines.append(f"{r.name:<24} {r.wall:>8.3f} {r.cpu:>8.3f} {r.threads:>7} {ratio:>8.2f}")
            for note, seconds in r.notes.items():
                lines.append(f"  {note:<22} {'':>8} {seconds:>8.3f}")
        lines.append(f"{'total':<24} {total_wall:>8.3f} {total_cpu:>8.3f}")
        if total_cpu > 0:
            f = serial_cpu / total_cpu
            bounds = ", ".join(f"{amdahl(f, n):.1f}x at {n}" for n in AMDAHL_CORES)
            lines.append(f"one-thread phases (serial): {100 * f:.1f}% of the CPU time; Amdahl bound {bounds} cores")
            g = (serial_cpu + self.before) / (total_cpu + self.before)
            lines.append(f"before the profile (start-up, imports): {self.before:.3f} s CPU on one thread; with it "
                         f"{100 * g:.1f}% (Amdahl {amdahl(g, 16):.1f}x at 16 cores)")
        return "\n".join(lines)


#: Core counts the profile gives Amdahl's bound at (users run on 16-128).
AMDAHL_CORES = (2, 16, 64, 128)


def amdahl(f: float, n: int) -> float:
    """The speed-up bound on ``n`` cores of work whose fraction ``f`` is serial."""
    return 1.0 / (f + (1.0 - f) / n)


_ACTIVE: Profile | None = None


def enabled() -> bool:
    """Whether ``KSCORE_PROFILE`` asks for a profile."""
    return os.environ.get("KSCORE_PROFILE", "") not in ("", "0")


@contextmanager
def session(on: bool, threads: int, out: TextIO | None = None) -> Iterator[None]:
    """Profile the block (when ``on`` and no profile runs already) and print
    the table on ``out`` (stderr) when it ends, also on an error."""
    global _ACTIVE
    if not on or _ACTIVE is not None:
        yield
        return
    _ACTIVE = Profile(threads)
    try:
        yield
    finally:
        prof, _ACTIVE = _ACTIVE, None
        prof.finish()
        print(prof.table(), file=out or sys.stderr, flush=True)


def mark(name: str) -> None:
    """A new phase of the run begins (progress.phase calls this)."""
    if _ACTIVE is not None:
        _ACTIVE.mark(name)


@contextmanager
def phase(name: str, threads: str = "1") -> Iterator[Row | None]:
    """Measure a part of the current phase (``threads``: "1", or "all" for
    work on every core); yields its row (for notes) or None when no
    profile runs."""
    if _ACTIVE is None:
        yield None
        return
    with _ACTIVE.part(name, threads) as row:
        yield row


def note(row: Row | None, what: dict[str, float]) -> None:
    """Add CPU seconds by kind of work (the reading threads' own clocks) to ``row``."""
    if row is None:
        return
    for k, v in what.items():
        row.notes[k] = row.notes.get(k, 0.0) + v


def profiled(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` profiled where ``KSCORE_PROFILE`` asks (the library's calls;
    the command line opens its own session, which this joins)."""

    @wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        on = enabled()
        with session(on, count() if on else 1):
            return fn(*args, **kwargs)

    return run
