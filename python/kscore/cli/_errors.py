"""Errors and data warnings of the command line."""

from __future__ import annotations

from ..leaderboard._issues import EXAMPLES, Issues


class CliError(Exception):
    """Ends the command with a one-line message on stderr and exit status 1."""


def one_line(text: str) -> str:
    """``text`` with its control characters (a newline in a model name, a
    terminal escape sequence) written as escapes (``\\n``, ``\\x1b``): every
    message is one line and prints as it reads (docs/leaderboard.md, *Output*)."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


__all__ = ["CliError", "EXAMPLES", "Issues", "one_line"]
