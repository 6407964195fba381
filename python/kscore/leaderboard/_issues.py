"""Errors and data warnings of a leaderboard run (docs/leaderboard.md, *Ragged and dirty data*)."""

from __future__ import annotations

from dataclasses import dataclass, field


class LeaderboardError(ValueError):
    """The input cannot be ranked: a one-line message naming the file (the
    command line prints it as ``kscore: error: ...``)."""


#: How many example rows a warning names before "... and N more".
EXAMPLES = 5


@dataclass
class Issues:
    """Data problems found while reading: warnings, or errors under ``strict``.

    ``notes`` are informational (ragged sample counts, a file without a model
    column) and never fail a run."""

    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def note(self, message: str) -> None:
        self.notes.append(message)

    def rows(self, what: str, examples: list[str], total: int, source: str = "") -> None:
        """One warning naming up to EXAMPLES rows out of ``total``."""
        if total == 0:
            return
        more = f"; ... and {total - len(examples)} more" if total > len(examples) else ""
        if total == 1:
            what = what.replace("rows", "row", 1).replace("outcomes", "outcome", 1)
        prefix = f"{source}: " if source else ""
        self.warn(f"{prefix}{total} {what} (skipped): " + "; ".join(examples) + more)
