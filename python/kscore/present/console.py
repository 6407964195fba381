"""rich's tables and consoles: the command's wide table (``--wide``), its
comparison table (``kscore compare``), and the consoles on standard error
(notes, warnings, the progress bar).

rich is imported inside each function, on first use: a quiet run that
writes CSV, JSON or Markdown never imports it (0.02-0.05 s of a run;
docs/leaderboard.md, *Speed*). A table is printed into a buffer that has
the destination's encoding, with the console the destination would have
had (a file: 400 columns, no colour; standard output: 400 columns when
piped, the terminal's width and colours on a terminal), so that the text
is the same as printed there.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from .model import Board, ComparisonReport, Target, rank_text
from .terminal import comparison_cells, fixed
from .wording import one_line


class _Buffer(io.StringIO):
    """A text buffer with an encoding (rich draws its boxes in ASCII for a
    destination that cannot encode them)."""

    def __init__(self, encoding: str) -> None:
        super().__init__()
        self._encoding = encoding

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding


def _printed(target: Target, draw: Callable[[Any], None]) -> str:
    """What ``draw(console)`` prints, as the console of ``target`` would."""
    from rich.console import Console

    buf = _Buffer(target.encoding)
    if target.file:
        console = Console(file=buf, width=400, color_system=None, highlight=False)
    elif target.tty:  # (rich takes the width from the terminal, as printing there)
        console = Console(file=buf, force_terminal=True, highlight=False)
    else:
        console = Console(file=buf, width=400, highlight=False)
    draw(console)
    return buf.getvalue()


def _rich(text: str) -> str:
    """A name or caption in a rich table: one line, its brackets not taken as
    markup (a model named ``[/]`` made rich raise)."""
    from rich.markup import escape

    return escape(one_line(text))


def _table(board: Board, title: str, caption: str) -> Any:
    from rich.table import Table

    table = Table(title=_rich(title), caption=_rich(caption), title_justify="left", caption_justify="left")
    table.add_column("rank", justify="right")
    table.add_column("model", style="bold")
    plain = [m for m in board.metrics if m.plain]
    metrics = [m for m in board.metrics if not m.plain]
    for c in board.info:
        table.add_column(c.name, justify="right")
    for m in plain:
        table.add_column(m.name, justify="right")
    for m in metrics:
        table.add_column(m.name + (" *" if m.name == board.sort else ""), justify="right")
    for i, name in enumerate(board.models):
        cells = [rank_text(board.ranks[i]), _rich(name), *(c.cells[i] for c in board.info)]
        cells += ["n/a" if (v := m.values[i]) is None else f"{v.value:.4f}" for m in plain]
        for m in metrics:
            v = m.values[i]
            cells.append("n/a" if v is None else f"{v.value:.4f} [dim]\\[{fixed(v.lo)}, {fixed(v.hi)}][/dim]")
        table.add_row(*cells)
    return table


def wide_table(board: Board, target: Target) -> str:
    """The whole table (every column, each interval's ends), each subset's,
    then the plan's lines (``--plan``)."""

    def draw(console: Any) -> None:
        console.print(_table(board, board.title, board.words.caption))
        for name, sub in board.subsets.items():
            console.print(_table(sub, sub.title or name, sub.words.caption))
        if board.plan:
            console.print("\n".join(one_line(x) for x in board.plan), markup=False, highlight=False, soft_wrap=True)

    return _printed(target, draw)


def comparison_table(report: ComparisonReport, target: Target) -> str:
    """``kscore compare``'s table per board (the whole one captioned with
    what the numbers are, then each subset's)."""
    from rich.table import Table

    def draw(console: Any) -> None:
        for group, comps in report.groups:
            if not comps:
                continue
            title = report.title if group is None else f"{report.by} = {group}"
            table = Table(title=_rich(title), caption=_rich(report.meaning) if group is None else None,
                          title_justify="left", caption_justify="left")
            for h in ["metric", "questions", comps[0].a, comps[0].b, "diff", "lo", "hi", "p"]:
                table.add_column(_rich(h), justify="left" if h == "metric" else "right")
            for c in comps:
                table.add_row(*comparison_cells(c))
            console.print(table)

    return _printed(target, draw)


class Stderr:
    """rich's Console on standard error, made on first use: a quiet run that
    writes CSV, JSON or Markdown never imports rich."""

    def __init__(self) -> None:
        self._console: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=True, highlight=False)
        return getattr(self._console, name)


def progress_console(width: int) -> Any:
    """The console of ``--progress``: on standard error, drawn as on a
    terminal whatever it is, at least 120 columns wide."""
    from rich.console import Console

    return Console(stderr=True, force_terminal=True, width=max(width, 120))
