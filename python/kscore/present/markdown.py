"""A :class:`~kscore.present.model.Board` as GitHub-flavoured Markdown: a
table that renders in a pull request, with the terminal's compact cells
(``0.769 ±0.021``), whole model names (escaped: a ``|`` in a name does not
split its row) and the footer under it; each subset a table of its own.
:func:`markdown_document` is the command's (its plan under it, control
characters escaped); ``kscore compare``'s and ``kscore plan``'s reports too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from .model import Board, ComparisonReport, PlanReport, rank_text
from .terminal import comparison_cells
from .text import compact_cells
from .wording import one_line

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
    metrics = [compact_cells(m.values, m.digits) for m in board.metrics]  # (a column at a time)
    for i, name in enumerate(board.models):
        cells = [rank_text(board.ranks[i]), escape(name)]
        cells += [escape(m[i]) for m in metrics]
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


def _md(name: str) -> str:
    """A name (model, group) in a Markdown cell or heading: one line, pipes escaped."""
    return one_line(name).replace("|", "\\|")


def _md_line(line: str) -> str:
    """A plan line in Markdown: indented items as list items."""
    text = one_line(line.strip())
    return f"- {text}" if line.startswith("  ") else text


def markdown_document(board: Board) -> str:
    """The command's Markdown (``--format markdown``): :func:`render_markdown`
    with a control character in a name (a terminal escape) written as an
    escape, as in the table, then the plan (``--plan``)."""
    text = "\n".join(one_line(line) for line in render_markdown(board).split("\n"))
    if board.plan:
        lines = board.plan
        text += "\n" + "\n".join([f"## Plan: {_md(lines[0])}", "", *(_md_line(x) for x in lines[1:])]) + "\n"
    return text


def comparison_markdown(report: ComparisonReport) -> str:
    """A table per board (the whole one, then each subset), what the numbers are under them."""
    lines: list[str] = []
    for g, comps in report.groups:
        if g is not None:
            lines += ["", f"### {_md(str(report.by))} = {_md(g)}", ""]
        a, b = _md(comps[0].a), _md(comps[0].b)
        lines += ["| " + " | ".join(["metric", "questions", a, b, "diff", "lo", "hi", "p"]) + " |",
                  "|:---|" + "---:|" * 7]
        lines += ["| " + " | ".join(comparison_cells(c)) + " |" for c in comps]
    lines += ["", one_line(report.meaning) + "."]
    return "\n".join(lines) + "\n"


def plan_markdown(report: PlanReport) -> str:
    """Each board's plan under a heading (the whole board's ``##``, each subset's ``###``)."""
    lines: list[str] = []
    for i, p in enumerate(report.plans):
        lines += [f"{'##' if i == 0 else '###'} {_md(p.title)}", ""] + [_md_line(x) for x in p.lines] + [""]
    return "\n".join(lines).rstrip("\n") + "\n"
