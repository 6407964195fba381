"""The flags of how a command runs, shared by every command that reads
results: ``--threads``, ``--profile``, ``--verbose`` (docs/threads.md)."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..leaderboard.api import profile_enabled, profile_session, thread_count, threads_chosen, use_threads
from ._errors import CliError


def add_run_flags(out: Any) -> None:
    out.add_argument("--threads", type=int, metavar="N",
                     help="threads for reading, counting and DuckDB together (default: KSCORE_THREADS, else every "
                          "core); results never depend on it")
    out.add_argument("--profile", action="store_true",
                     help="print each phase's wall time, CPU time and threads on stderr at the end (also "
                          "KSCORE_PROFILE=1)")
    out.add_argument("--verbose", "-v", action="store_true",
                     help="say how the input was read: counted directly, or by DuckDB's query and why")


@contextmanager
def running(args: argparse.Namespace) -> Iterator[None]:
    """The command's thread count, profile and ``--verbose`` messages."""
    n = getattr(args, "threads", None)
    if n is not None and n < 1:
        raise CliError(f"--threads must be at least 1; got {n}")
    try:
        count = use_threads(n) if n is not None or threads_chosen() is not None else thread_count()
    except ValueError as exc:  # KSCORE_THREADS that is not a count
        raise CliError(str(exc)) from None
    log = logging.getLogger("kscore")
    handler = None
    if getattr(args, "verbose", False) and not getattr(args, "quiet", False):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("kscore: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
    try:
        with profile_session(getattr(args, "profile", False) or profile_enabled(), count):
            yield
    finally:
        if handler is not None:
            log.removeHandler(handler)
