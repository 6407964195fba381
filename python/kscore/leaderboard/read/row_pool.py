"""Reading threads for the direct counts (parquet_rows.py, text_rows.py).

The input is cut into units (files, row groups of a file, byte ranges of a
text file), and ``threads`` worker threads take them in turn from one list,
each counting into a shard of its own (``_kscore.RowShard``): pyarrow's
decoding, file reads, zlib and the core's counting all release the
interpreter, so the threads run on every core. Whichever thread took which
unit, the shards add up to the same counts (the merge is exact).

The calling thread only waits (in short waits: a Ctrl-C comes out at once,
and the workers stop after the unit they are on). A unit's worker returns
None, or a string saying why the rows cannot be counted here: the first
such string stops every worker and is the pool's result. Each worker keeps
the CPU time it spent reading and counting (``time.thread_time``), for the
profile (runtime/profile.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

Unit = TypeVar("Unit")


@dataclass
class Spent:
    """CPU seconds the workers spent, by kind of work (read, count)."""

    cpu: dict[str, float] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, seconds: float) -> None:
        with self.lock:
            self.cpu[kind] = self.cpu.get(kind, 0.0) + seconds


class Clock:
    """A worker's own CPU clock: ``lap(kind)`` books the CPU time since the
    last lap to ``kind``."""

    def __init__(self, spent: Spent) -> None:
        self.spent, self.last = spent, time.thread_time()
        self.own: dict[str, float] = {}

    def lap(self, kind: str) -> None:
        now = time.thread_time()
        self.own[kind] = self.own.get(kind, 0.0) + now - self.last
        self.last = now

    def close(self) -> None:
        for kind, seconds in self.own.items():
            self.spent.add(kind, seconds)


class Pool(Generic[Unit]):
    """Run ``work(unit, shard, clock, stop)`` over ``units`` on ``threads``
    threads, a shard each (``make_shard()``). :meth:`run` returns the
    shards, or why the rows cannot be counted here."""

    def __init__(self, units: Sequence[Unit], threads: int, make_shard: Callable[[], Any],
                 work: Callable[[Unit, Any, Clock, threading.Event], str | None]) -> None:
        self.units, self.work, self.make_shard = units, work, make_shard
        self.threads = max(1, min(threads, len(units)))
        self.next = 0
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.why: str | None = None
        self.spent = Spent()

    def _take(self) -> Unit | None:
        with self.lock:
            if self.stop.is_set() or self.next >= len(self.units):
                return None
            unit = self.units[self.next]
            self.next += 1
            return unit

    def _halt(self, why: str) -> None:
        with self.lock:
            if self.why is None:
                self.why = why
        self.stop.set()

    def _worker(self, shard: Any, done: threading.Event) -> None:
        clock = Clock(self.spent)
        try:
            while (unit := self._take()) is not None:
                why = self.work(unit, shard, clock, self.stop)
                if why is not None:
                    self._halt(why)
                    return
        except Exception as exc:  # noqa: BLE001 - an unreadable file: DuckDB reads it again and names the problem
            self._halt(f"the direct reader could not read it ({type(exc).__name__}: {str(exc)[:200]})")
        finally:
            clock.close()
            done.set()

    def run(self) -> list[Any] | str:
        shards = [self.make_shard() for _ in range(self.threads)]
        done = [threading.Event() for _ in shards]
        workers = [threading.Thread(target=self._worker, args=(s, d), name="kscore-read", daemon=True)
                   for s, d in zip(shards, done)]
        try:
            for w in workers:
                w.start()
            for d in done:
                while not d.wait(0.1):  # (not Thread.join: see read/interrupt.py)
                    pass
        finally:
            self.stop.set()
        if self.why is not None:
            return self.why
        return shards
