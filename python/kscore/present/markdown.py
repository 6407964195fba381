"""A :class:`~kscore.present.model.Board` as GitHub-flavoured Markdown: a
table that renders in a pull request, with the terminal's compact cells
(``0.769 ±0.021``), whole model names (escaped: a ``|`` in a name does not
split its row) and the footer under it; each subset a table of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from .model import Board, rank_text
from .text import compact_cell

# ASCII punctuation that Markdown could read as syntax inside a cell: escaped
# with a backslash (GFM lets any ASCII punctuation be escaped).
_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&#!])")


def escape(text: str) -> str:
    """``text`` shown literally in a GFM table cell.

    >>> print(escape("org/a|b_*c*"))
    org/a\\|b\\_\\*c\\*
    """
    return _SPECIAL.sub(r"\\\1", " ".join(text.split()))


def table(board: Board) -> list[str]:
    """The table's lines: header, delimiter row, a row per model."""
    head = ["rank", "model", *(m.name for m in board.metrics), *(c.name for c in board.info)]
    align = ["---:", ":---", *(["---:"] * len(board.metrics)), *(["---:"] * len(board.info))]
    lines = [_row(escape(h) for h in head), _row(align)]
    for i, name in enumerate(board.models):
        cells = [rank_text(board.ranks[i]), escape(name)]
        cells += [escape(compact_cell(m.values[i], m.digits)) for m in board.metrics]
        cells += [escape(c.cells[i]) for c in board.info]
        lines.append(_row(cells))
    return lines


def render_markdown(board: Board, level: int = 2) -> str:
    """The title as a heading of ``level``, the table, the footer and notes,
    then each subset as a section one level down."""
    out: list[str] = []
    if board.title:
        out += ["#" * level + " " + escape(board.title), ""]
    out += table(board)
    text = [t for t in [board.footer, *board.notes] if t]
    if text:
        out += ["", *(escape(t) + "  " for t in text[:-1]), escape(text[-1])]
    for name, sub in board.subsets.items():
        titled = sub if sub.title else replace(sub, title=name)
        out += ["", render_markdown(titled, min(level + 1, 6)).rstrip("\n")]
    return "\n".join(out) + "\n"


def _row(cells: Iterable[str]) -> str:
    return "| " + " | ".join(cells) + " |"
