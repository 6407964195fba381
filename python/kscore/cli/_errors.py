"""Errors and data warnings of the command line."""

from __future__ import annotations

from dataclasses import dataclass, field


class CliError(Exception):
    """Ends the command with a one-line message on stderr and exit status 1."""


#: How many example rows a warning names before "... and N more".
EXAMPLES = 5


@dataclass
class Issues:
    """Data problems found while reading: warnings, or errors under --strict.

    ``notes`` are informational (ragged sample counts, a file without a model
    column) and never fail the command."""

    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def note(self, message: str) -> None:
        self.notes.append(message)

    def rows(self, what: str, examples: list[str], total: int) -> None:
        """One warning naming up to EXAMPLES rows out of ``total``."""
        if total == 0:
            return
        more = f"; ... and {total - len(examples)} more" if total > len(examples) else ""
        if total == 1:
            what = what.replace("rows", "row", 1).replace("outcomes", "outcome", 1)
        self.warn(f"{total} {what} (skipped): " + "; ".join(examples) + more)
