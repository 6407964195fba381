"""The HTML page's ranked table: compact cells with each interval drawn as a
bar under its value (on the column's own scale, named in the header's
tooltip), every header a sort button."""

from __future__ import annotations

import math
from html import escape

from .model import Board, Estimate, MetricColumn, rank_text
from .text import compact_cell, compact_cells


def scale(column: MetricColumn) -> tuple[float, float]:
    """The range the column's bars are drawn on: every value and interval
    end in it, padded by 2% each side."""
    ends = [x for v in column.values if v is not None for x in (v.value, v.lo, v.hi)
            if x is not None and math.isfinite(x)]
    if not ends:
        return 0.0, 1.0
    lo, hi = min(ends), max(ends)
    pad = (hi - lo) * 0.02 or 0.5
    return lo - pad, hi + pad


def _pct(x: float, lo: float, hi: float) -> str:
    return f"{(x - lo) / (hi - lo) * 100:.1f}".rstrip("0").rstrip(".")


def metric_td(v: Estimate | None, digits: int, axis: tuple[float, float], cell: str | None = None) -> str:
    """``<td style="--l:..;--h:..;--m:..">0.769 ±0.021</td>``: the bar's ends
    and tick as percentages of the column's axis; a title with the ends
    (``cell``: the value's compact cell where already made)."""
    text = escape(compact_cell(v, digits) if cell is None else cell)
    if v is None or v.lo is None or v.hi is None or not math.isfinite(v.value):
        return f"<td>{text}</td>"
    lo, hi = axis
    style = f"--l:{_pct(v.lo, lo, hi)};--h:{_pct(v.hi, lo, hi)};--m:{_pct(v.value, lo, hi)}"
    title = f"{v.value:.{digits + 1}f} [{v.lo:.{digits + 1}f}, {v.hi:.{digits + 1}f}]"
    return f'<td style="{style}" title="{title}">{text}</td>'


def _th(name: str, direction: int, title: str = "", sorted_by: bool = False) -> str:
    attrs = f' data-name="{escape(name)}" data-d="{direction}"'
    if title:
        attrs += f' title="{escape(title)}"'
    if sorted_by:
        attrs += ' class="sorted-by"'
    return f"<th{attrs}>{escape(name)}</th>"


def ranked_table(board: Board) -> str:
    """The whole ``<table class="sortable">`` (rows in the board's order,
    ``data-i`` keeping it for ties; sorting by rank restores it)."""
    axes = [scale(m) for m in board.metrics]
    head = [_th("rank", 1), _th("model", 1)]
    for m, (lo, hi) in zip(board.metrics, axes):
        tip = f"bars: the interval on {lo:.{m.digits}f} to {hi:.{m.digits}f}, tick: the value; click to sort"
        head.append(_th(m.name, -1 if m.higher_better else 1, tip, m.name == board.sort))
    head += [_th(c.name, -1) for c in board.info]
    rows = []
    texts = [compact_cells(m.values, m.digits) for m in board.metrics]  # (a column at a time)
    for i, name in enumerate(board.models):
        r = board.ranks[i]
        cells = [f'<td data-v="{i}">{rank_text(r)}</td>' if r else "<td>-</td>",
                 f'<td class="name">{escape(name)}</td>']
        cells += [metric_td(m.values[i], m.digits, ax, t[i]) for m, ax, t in zip(board.metrics, axes, texts)]
        cells += [f"<td>{escape(c.cells[i])}</td>" for c in board.info]
        rows.append(f'<tr data-i="{i}">' + "".join(cells) + "</tr>")
    return ('<div class="scroll"><table class="sortable"><thead><tr>' + "".join(head) + "</tr></thead><tbody>\n"
            + "\n".join(rows) + "\n</tbody></table></div>")
