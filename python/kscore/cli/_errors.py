"""Errors and data warnings of the command line."""

from __future__ import annotations

from ..leaderboard._issues import EXAMPLES, Issues


class CliError(Exception):
    """Ends the command with a one-line message on stderr and exit status 1."""


__all__ = ["CliError", "EXAMPLES", "Issues"]
