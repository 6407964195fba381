"""A :class:`~kscore.present.model.Board` as plain text for a terminal.

By default the table fits the terminal's width (80 columns when the output
is not a terminal): compact cells (``0.769 ±0.021``), names shortened in the
middle and never ambiguously, the least important columns left out and named
in a line under the table. ``wide=True`` shows every column, whole names and
each interval's two ends (``0.769 [0.748, 0.790]``).

Two layouts of the same columns: :func:`render_text`, the library's (the
title and notes wrapped, the columns left out named in table order), and
:func:`render_compact`, the command's default table (``kscore
leaderboard``: the sorting column marked ``*``, control characters in
names escaped, one summary line and the footer in the wording that fits,
each subset's table under it); :func:`plan_text`, ``kscore plan``'s lines.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Sequence
from math import isfinite
from typing import TextIO

from .model import Board, Estimate, Estimates, MetricColumn, PlanReport, rank_text
from .terminal import Column, cell, fit
from .wording import fitting, one_line

#: Names are shortened down to this width before columns are left out.
MIN_NAME = 28
#: The width used when the output is not a terminal (piped, redirected).
PIPE_WIDTH = 80


def terminal_width(stream: TextIO | None = None) -> int:
    """The terminal's columns when ``stream`` (stdout by default) is one,
    else :data:`PIPE_WIDTH`, so that piped output has the same compact layout."""
    stream = sys.stdout if stream is None else stream
    try:
        is_tty = stream.isatty()
    except (AttributeError, ValueError):
        is_tty = False
    return shutil.get_terminal_size((PIPE_WIDTH, 24)).columns if is_tty else PIPE_WIDTH


def wide_cell(value: Estimate | None, digits: int = 3) -> str:
    """``0.769 [0.748, 0.790]``: the value and both ends of its interval.

    >>> wide_cell(Estimate(0.76894, 0.748, 0.79)), wide_cell(Estimate(0.5)), wide_cell(None)
    ('0.769 [0.748, 0.790]', '0.500', '-')
    """
    if value is None:
        return "-"
    text = cell(value.value, None, digits)
    if value.lo is None or value.hi is None or text == "-":
        return text
    return f"{text} [{value.lo:.{digits}f}, {value.hi:.{digits}f}]"


def compact_cell(value: Estimate | None, digits: int = 3) -> str:
    """``0.769 ±0.021`` (± half the interval's width)."""
    return "-" if value is None else cell(value.value, value.half_width, digits)


def compact_cells(values: Sequence[Estimate | None], digits: int = 3) -> list[str]:
    """:func:`compact_cell` of each value, a column at a time (one loop, no
    call per cell: 100 000 models x 5 columns)."""
    spec = f".{digits}f"
    out: list[str] = []
    add = out.append
    if isinstance(values, Estimates):  # (its columns: no Estimate made)
        for x, lo, hi in zip(values.value, values.lo, values.hi):
            if x is None or not isfinite(x):
                add("-")
                continue
            text = format(x, spec)
            if lo is None or hi is None or not (isfinite(lo) and isfinite(hi)) or not isfinite(half := (hi - lo) / 2):
                add(text)
            else:
                add(f"{text} ±{format(half, spec)}")
        return out
    for v in values:
        if v is None or v.value is None or not isfinite(v.value):
            add("-")
            continue
        text = format(v.value, spec)
        lo, hi = v.lo, v.hi
        if lo is None or hi is None or not (isfinite(lo) and isfinite(hi)) or not isfinite(half := (hi - lo) / 2):
            add(text)
        else:
            add(f"{text} ±{format(half, spec)}")
    return out


def columns(board: Board, wide: bool = False, marked: bool = False) -> list[Column]:
    """The table's columns, each with its importance (rank, model and the
    sorting metric are kept longest). ``marked``: the command's headers (the
    sorting metric marked `` *``, a column's short name where it has one)
    and names with their control characters escaped."""
    cols = [Column("rank", [rank_text(r) for r in board.ranks], importance=0),
            Column("model", [one_line(m) for m in board.models] if marked else list(board.models), right=False,
                   names=True)]

    def importance(m: MetricColumn) -> int:
        return 0 if m.name == board.sort else max(1, m.importance)

    def header(m: MetricColumn) -> str:
        if not marked:
            return m.name
        return m.short or m.name + (" *" if m.name == board.sort else "")

    def cells(m: MetricColumn) -> list[str]:
        return [wide_cell(v, m.digits) for v in m.values] if wide else compact_cells(m.values, m.digits)

    cols += [Column(header(m), cells(m), importance=importance(m)) for m in board.metrics]
    cols += [Column(c.name, list(c.cells), importance=max(1, c.importance)) for c in board.info]
    return cols


def render_text(board: Board, width: int | None = None, wide: bool = False, wide_hint: str = "--wide") -> str:
    """The title, the table and the footer, each line at most ``width``
    characters (the terminal's by default) unless ``wide``."""
    width = terminal_width() if width is None else width
    cols = columns(board, wide)
    if wide:
        lines = fit(cols, 10**9).lines
        hidden: list[str] = []
    else:
        longest = max((len(m) for m in board.models), default=0)
        fitted = fit(cols, width, min_name=min(longest, MIN_NAME))
        order = [c.header for c in cols]
        lines, hidden = fitted.lines, sorted(fitted.hidden, key=order.index)
    wrap = 10**9 if wide else width
    out = textwrap.wrap(board.title, wrap) if board.title else []
    out += lines
    if hidden:
        out += textwrap.wrap(f"not shown: {', '.join(hidden)} ({wide_hint} shows all)", wrap)
    for text in [board.footer, *board.notes]:
        if text:
            out += textwrap.wrap(text, wrap)
    return "\n".join(out) + "\n"


def render_compact(board: Board, width: int) -> str:
    """The command's default table (``kscore leaderboard``), within
    ``width`` columns: the title, the table (columns that do not fit left
    out and named), the summary line, the footer in the longest wording
    that fits, the models that could be #1 (simultaneous ranks), then each
    subset's title and table; the plan's lines after them (``--plan``)."""

    def table(b: Board) -> list[str]:
        fitted = fit(columns(b, marked=True), width)
        lines = fitted.lines
        if fitted.hidden:
            lines.append(f"not shown at {width} columns: {', '.join(fitted.hidden)} (--wide shows all)")
        return lines

    words = board.words
    lines = [one_line(board.title)[:width], *table(board), words.summary[:width], fitting(words.footers, width)]
    if words.best:
        lines.append(words.best)
    for name, sub in board.subsets.items():
        lines += ["", one_line(sub.title or name)[:width], *table(sub)]
    text = "\n".join(lines) + "\n"
    if board.plan:
        text += "\n" + "\n".join(one_line(x) for x in board.plan) + "\n"
    return text


def plan_text(report: PlanReport) -> str:
    """``kscore plan``'s plain text: each board's title and plan, a blank line between."""
    lines: list[str] = []
    for p in report.plans:
        lines += [one_line(p.title), *(one_line(x) for x in p.lines), ""]
    return "\n".join(lines).rstrip("\n") + "\n"
