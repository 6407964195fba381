"""Ctrl-C while the ``kscore`` command starts up: one line, not a traceback.

Importing numpy, the compiled core and the command line takes a few tenths of
a second (more on a busy machine); until the command's own handling is in
place (:func:`started`, first thing in ``kscore.cli.entry``), Python's
default turns Ctrl-C into a ``KeyboardInterrupt`` traceback from whatever
import it lands in. So the package's first import, when the process is the
``kscore`` command (its console script, or ``python -m kscore``), answers
Ctrl-C with ``kscore: interrupted`` on stderr and exit status 130 at once:
nothing has been written yet, so there is nothing to clean up. A program
that imports kscore as a library keeps its own Ctrl-C handling untouched.
What Python does before it reaches kscore (its own start-up, ``site``)
is out of kscore's reach.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (nothing more is imported at run time: this runs before the rest of kscore)
    from types import FrameType

#: The command's exit status after Ctrl-C (as kscore.cli's).
INTERRUPTED = 130


def _is_command() -> bool:
    """Whether this process is the ``kscore`` command."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if name in ("kscore", "kscore.exe", "kscore-script.py"):
        return True
    argv = getattr(sys, "orig_argv", [])
    return "-m" in argv[:-1] and argv[argv.index("-m") + 1] == "kscore"


def _stop(signum: int, frame: FrameType | None) -> None:
    os.write(2, b"kscore: interrupted\n")
    os._exit(INTERRUPTED)


def during_startup() -> None:
    """Answer Ctrl-C with one line until :func:`started`, in the ``kscore``
    command only (and only over Python's own default handler)."""
    if _is_command() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        try:
            signal.signal(signal.SIGINT, _stop)
        except ValueError:  # not the main thread (kscore imported from a thread): leave it be
            pass


def started() -> None:
    """The command handles Ctrl-C itself from here (``KeyboardInterrupt``:
    outputs and temporary folders cleaned up, one line, status 130)."""
    if signal.getsignal(signal.SIGINT) is _stop:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@contextmanager
def held_sigint() -> Iterator[None]:
    """Ctrl-C held for the block (a native module's initialisation, which
    cannot unwind a KeyboardInterrupt: DuckDB's nanobind aborts, rust-numpy's
    first look-up of numpy's C tables panics) and delivered once it ends, to
    whatever handler was in place. Off the main thread (no signal arrives
    there) it does nothing.

    Examples:
        >>> with held_sigint():
        ...     6 * 7
        42
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: came.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if came:
            signal.raise_signal(signal.SIGINT)
