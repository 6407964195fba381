"""A plain-text table that fits a terminal width.

Values are never cut: a table that does not fit first shortens the model
names (in the middle, never ambiguously: :mod:`kscore.present.names`), then
leaves out whole columns from the least important, and says so in a footer
line. Cells are formatted compactly (``0.769 ±0.021``) by :func:`cell`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..leaderboard.api import Comparison
from .names import shorten_names

GAP = "  "


@dataclass
class Column:
    """One column: a header, its cells (already text), right- or
    left-aligned, and its importance (0 is kept longest; the model column is
    the one whose cells may be shortened)."""

    header: str
    cells: list[str]
    right: bool = True
    importance: int = 0
    names: bool = False

    def width(self) -> int:
        return max(len(self.header), max(map(len, self.cells), default=0))  # (one pass in C: 100 000 cells)


def cell(value: float | None, half_width: float | None = None, digits: int = 3) -> str:
    """``0.769 ±0.021`` (or ``0.769`` without an interval, ``-`` for none).

    >>> cell(0.76894, 0.0213), cell(0.5), cell(None), cell(12.5, 1.25, 1)
    ('0.769 ±0.021', '0.500', '-', '12.5 ±1.2')
    """
    if value is None or not math.isfinite(value):
        return "-"
    text = f"{value:.{digits}f}"
    if half_width is None or not math.isfinite(half_width):
        return text
    return f"{text} ±{half_width:.{digits}f}"


def fixed(x: float | None) -> str:
    """A number to 4 decimals, ``n/a`` for none (the wide table's and
    ``kscore compare``'s cells)."""
    return "n/a" if x is None or x != x else f"{x:.4f}"


def comparison_cells(c: Comparison) -> list[str]:
    """``kscore compare``'s cells of one metric: metric, questions, each
    model's estimate, the difference, its interval, the p-value."""
    return [c.metric, str(c.questions), fixed(c.a_estimate), fixed(c.b_estimate), f"{c.diff:+.4f}", fixed(c.lo),
            fixed(c.hi), "n/a" if c.p != c.p else f"{c.p:.3g}"]


@dataclass
class Fitted:
    lines: list[str]
    hidden: list[str]


def fit(columns: Sequence[Column], width: int, min_name: int = 12) -> Fitted:
    """Lay ``columns`` out within ``width`` characters per line.

    >>> cols = [Column("model", ["a-very-long-model-name-1", "a-very-long-model-name-2"], right=False, names=True),
    ...         Column("pass@1", ["0.500 ±0.010", "0.400 ±0.011"]),
    ...         Column("extra", ["x", "y"], importance=5)]
    >>> out = fit(cols, 30)
    >>> print("\\n".join(out.lines)); out.hidden
    model                 pass@1
    a…model-name-1  0.500 ±0.010
    a…model-name-2  0.400 ±0.011
    ['extra']
    """
    shown = list(columns)
    hidden: list[str] = []
    while True:
        widths = [c.width() for c in shown]
        total = sum(widths) + len(GAP) * (len(shown) - 1)
        name_col = next((i for i, c in enumerate(shown) if c.names), None)
        if total <= width:
            break
        if name_col is not None:
            room = widths[name_col] - (total - width)
            if room >= max(min_name, len(shown[name_col].header)):
                shown[name_col] = _shortened(shown[name_col], room)
                break
        droppable = [i for i, c in enumerate(shown) if not c.names and c.importance > 0]
        if not droppable:
            # The essential columns alone are wider: names at their minimum,
            # values whole (a value is never cut).
            if name_col is not None:
                shown[name_col] = _shortened(shown[name_col], max(min_name, len(shown[name_col].header)))
            break
        worst = max(droppable, key=lambda i: (shown[i].importance, i))
        hidden.append(shown.pop(worst).header)
    widths = [c.width() for c in shown]
    lines = [_row([c.header for c in shown], shown, widths)]
    for r in range(len(shown[0].cells) if shown else 0):
        lines.append(_row([c.cells[r] for c in shown], shown, widths))
    return Fitted(lines, hidden)


def _shortened(column: Column, width: int) -> Column:
    cells = shorten_names(column.cells, width)
    return Column(column.header, cells, column.right, column.importance, column.names)


def _row(texts: Sequence[str], columns: Sequence[Column], widths: Sequence[int]) -> str:
    parts = [t.rjust(w) if c.right else t.ljust(w) for t, c, w in zip(texts, columns, widths)]
    return GAP.join(parts).rstrip()
