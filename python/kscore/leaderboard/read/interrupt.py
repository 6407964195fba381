"""Ctrl-C during a DuckDB query (docs/leaderboard.md, *Interrupting a run*).

Python runs its SIGINT handler (KeyboardInterrupt) only when the main
thread returns to the interpreter, and a DuckDB query holds the main thread
in C++ until it ends: Ctrl-C two seconds into a 100M-row read ended the
process 2.5 s later. So a long query runs on a helper thread while the main
thread waits on it in an interruptible wait; on KeyboardInterrupt the query
is stopped with ``connection.interrupt()`` (DuckDB's way, from another
thread), its thread is given a moment to unwind, and the interrupt goes on
up to the command, which ends with status 130.

DuckDB's module itself is imported where a read starts, and its
initialisation (nanobind's C++) aborts the process if a KeyboardInterrupt is
raised inside it ("Critical nanobind error": status -6, not 130, seen under
load when Ctrl-C came a tenth of a second into a run). So that import runs
with Ctrl-C held (:func:`kscore._interrupt.held_sigint`) and the signal is
delivered after it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

#: Seconds the stopped query's thread is waited for before the interrupt
#: goes on without it (DuckDB checks its interrupt flag between vectors:
#: milliseconds; the thread is a daemon, so it never holds the exit).
UNWIND_S = 0.5


def interruptible(con: Any, work: Callable[[], T]) -> T:
    """``work()`` (a DuckDB query on ``con``, which may be None) run so that
    Ctrl-C stops it at once: on a helper thread, the calling (main) thread
    waiting. Off the main thread, where no signal arrives, it runs in place.

    Examples:
        >>> interruptible(None, lambda: 6 * 7)
        42
    """
    if threading.current_thread() is not threading.main_thread():
        return work()
    box: dict[str, Any] = {}
    done = threading.Event()

    def target() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # noqa: BLE001 - raised again below, in the caller's thread
            box["error"] = exc
        finally:
            done.set()

    # Waiting on an Event, not on Thread.join: a join interrupted by Ctrl-C
    # marks a running thread as stopped in CPython < 3.13 (its bpo-45274
    # fix releases the lock the thread still holds), and the interpreter's
    # shutdown then cut the query thread off inside C++: an abort.
    threading.Thread(target=target, name="kscore-query", daemon=True).start()
    try:
        while not done.wait(0.25):  # a lock wait: a signal interrupts it at once (POSIX)
            pass
    except KeyboardInterrupt:
        # Again and again: an interrupt that comes before DuckDB has begun
        # the query is lost (the query clears the flag as it starts).
        deadline = time.monotonic() + UNWIND_S
        while True:
            if con is not None:
                try:
                    con.interrupt()
                except Exception:  # noqa: BLE001, S110 - a connection already closed: nothing to stop
                    pass
            if done.wait(0.01) or time.monotonic() > deadline:
                break
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]
