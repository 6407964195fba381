"""Errors and data warnings of the command line."""

from __future__ import annotations

import os
import signal
import sys
from typing import NoReturn

from ..leaderboard.api import EXAMPLES, Issues
from ..present.wording import one_line

#: The exit status after Ctrl-C (128 + SIGINT, as shells report it).
EXIT_INTERRUPTED = 130


class CliError(Exception):
    """Ends the command with a one-line message on stderr and exit status 1."""


def exit_with(status: int) -> NoReturn:
    """End the process with ``status``. After Ctrl-C (status 130) without the
    interpreter's shutdown: a query or Arrow thread still unwinding from the
    stop would be cut off inside C++ by it (an abort, "terminate called
    after throwing"), and finalizing DuckDB, pyarrow and matplotlib took
    0.3-0.9 s of the 1 s an interrupt may take (docs/leaderboard.md,
    *Interrupting a run*). Outputs and temporary folders are cleaned up
    before this, on the exception's way up."""
    if status != EXIT_INTERRUPTED:
        # Every output is written: Ctrl-C during the interpreter's shutdown
        # (tenths of a second) is ignored, so that the run keeps its status
        # (Python puts back the default action of a signal it handled as it
        # shuts down, and the process ended as killed by SIGINT; it keeps an
        # ignored one ignored).
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        sys.exit(status)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more to show
            pass
    os._exit(status)


__all__ = ["CliError", "EXAMPLES", "EXIT_INTERRUPTED", "Issues", "exit_with", "one_line"]
