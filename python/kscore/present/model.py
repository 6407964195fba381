"""What the renderers draw: a small typed model of a ranked leaderboard.

The renderers (terminal, Markdown, HTML, plots) read only this model, never
the leaderboard's own result object; :mod:`kscore.present.from_leaderboard`
builds one from a :class:`kscore.leaderboard.Leaderboard`. Models are listed
best first; every per-model list has one entry per model, in that order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Estimate:
    """A value and its interval (``lo``/``hi`` None when there is none)."""

    value: float
    lo: float | None = None
    hi: float | None = None

    @property
    def half_width(self) -> float | None:
        """Half the interval's width: what ``±`` shows (None without one)."""
        if self.lo is None or self.hi is None or not (math.isfinite(self.lo) and math.isfinite(self.hi)):
            return None
        return (self.hi - self.lo) / 2


@dataclass
class MetricColumn:
    """One numeric column: a value (and interval) per model, None where not
    computed. ``importance``: 0 is kept longest when a table must leave out
    columns; ``digits``: decimals shown; ``higher_better`` sets the direction
    a first click sorts in."""

    name: str
    values: list[Estimate | None]
    importance: int = 1
    digits: int = 3
    higher_better: bool = True


@dataclass
class InfoColumn:
    """A column of text per model (questions, samples): shown, sortable,
    left out before any metric when space is short."""

    name: str
    cells: list[str]
    importance: int = 50


@dataclass
class Curve:
    """One model's curve (pass@k against k): a point per k, with a band."""

    k: list[int]
    value: list[float]
    lo: list[float]
    hi: list[float]


@dataclass
class Pairwise:
    """Paired comparisons of every two models on ``metric``: cell ``[i][j]``
    is model ``i`` minus model ``j`` (None on the diagonal or where not
    computed), with its interval, p-value and whether it is significant."""

    metric: str
    difference: list[list[float | None]]
    lo: list[list[float | None]]
    hi: list[list[float | None]]
    p: list[list[float | None]]
    significant: list[list[bool]]
    note: str = ""
    #: Per-question estimates of every model, for comparing any model with
    #: all others in the page's script (kscore.leaderboard.stats.pair_rows.compare_data).
    on_demand: dict[str, Any] | None = None


@dataclass
class Board:
    """A ranked leaderboard to show.

    ``ranks``: each model's rank range (``(2, 3)``: rank 2 to 3), None where
    unranked; ``sort``: the name of the column the ranking is by;
    ``footer``: one line saying what the numbers and intervals are;
    ``interval_note``: what a plot of the values and intervals draws (the
    footer when empty); ``curves``: per model, None where there is none,
    ``curve_note`` what their line and band are (shown under them);
    ``subsets``: the same board for each subset of the data (``--by``), by
    subset name; ``plan``: the design diagnostics as lines of text."""

    title: str
    models: list[str]
    ranks: list[tuple[int, int] | None]
    metrics: list[MetricColumn]
    footer: str = ""
    info: list[InfoColumn] = field(default_factory=list)
    sort: str | None = None
    curves: list[Curve | None] | None = None
    curve_label: str = "pass@k"
    curve_note: str = ""
    pairwise: Pairwise | None = None
    subsets: dict[str, Board] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    interval_note: str = ""
    #: The design diagnostics in words (kscore plan), shown under the table; empty: none.
    plan: list[str] = field(default_factory=list)
    #: The pairwise matrix covers the first this many models (all: None).
    matrix_models: int | None = None

    def __post_init__(self) -> None:
        n = len(self.models)
        lengths = {"ranks": len(self.ranks), **{f"metric {m.name!r}": len(m.values) for m in self.metrics},
                   **{f"column {c.name!r}": len(c.cells) for c in self.info}}
        if self.curves is not None:
            lengths["curves"] = len(self.curves)
        if self.pairwise is not None and self.matrix_models is None:
            lengths["pairwise"] = len(self.pairwise.difference)
        wrong = [f"{what} has {m}" for what, m in lengths.items() if m != n]
        if wrong:
            raise ValueError(f"a Board of {n} models: " + "; ".join(wrong))


def rank_text(rank: tuple[int, int] | None) -> str:
    """``2-3`` for a range, ``1`` for a single rank, ``-`` for none.

    >>> rank_text((2, 3)), rank_text((1, 1)), rank_text(None)
    ('2-3', '1', '-')
    """
    if rank is None:
        return "-"
    a, b = rank
    return str(a) if a == b else f"{a}-{b}"
