"""The HTML page's ranked table: compact cells with each interval drawn as a
bar under its value (on the column's own scale, named in the header's
tooltip), every header a sort button."""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from .model import Board, Estimate, Estimates, MetricColumn, rank_text
from .text import compact_cell, compact_cells


def scale(column: MetricColumn) -> tuple[float, float]:
    """The range the column's bars are drawn on: every value and interval
    end in it, padded by 2% each side."""
    vs = column.values
    triples = (t for t in zip(vs.value, vs.lo, vs.hi) if t[0] is not None) if isinstance(vs, Estimates) else \
        ((v.value, v.lo, v.hi) for v in vs if v is not None)  # (the same ends in the same order)
    ends = [x for t in triples for x in t if x is not None and math.isfinite(x)]
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


def metric_tds(values: Sequence[Estimate | None], digits: int, axis: tuple[float, float],
               cells: list[str]) -> list[str]:
    """:func:`metric_td` of each value, a column at a time (its columns
    read, no Estimate made, where ``values`` are :class:`Estimates`)."""
    if not isinstance(values, Estimates):
        return [metric_td(v, digits, axis, t) for v, t in zip(values, cells)]
    lo_a, hi_a = axis
    span = hi_a - lo_a
    spec = f".{digits + 1}f"
    out: list[str] = []
    add = out.append
    joined = "".join(cells)
    plain = not ("&" in joined or "<" in joined or ">" in joined or '"' in joined or "'" in joined)
    for x, lo, hi, t in zip(values.value, values.lo, values.hi, cells):
        text = t if plain else escape(t)  # (numbers: nothing to escape, one test per column)
        if x is None or lo is None or hi is None or not math.isfinite(x):
            add(f"<td>{text}</td>")
            continue
        style = (f"--l:{f'{(lo - lo_a) / span * 100:.1f}'.rstrip('0').rstrip('.')};"
                 f"--h:{f'{(hi - lo_a) / span * 100:.1f}'.rstrip('0').rstrip('.')};"
                 f"--m:{f'{(x - lo_a) / span * 100:.1f}'.rstrip('0').rstrip('.')}")
        add(f'<td style="{style}" title="{format(x, spec)} [{format(lo, spec)}, {format(hi, spec)}]">{text}</td>')
    return out


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
    # (a column at a time, then each row's cells joined)
    tds = [metric_tds(m.values, m.digits, ax, compact_cells(m.values, m.digits)) for m, ax in zip(board.metrics, axes)]
    tds += [[f"<td>{escape(x)}</td>" for x in c.cells] for c in board.info]
    ranks = [f'<td data-v="{i}">{rank_text(r)}</td>' if r else "<td>-</td>" for i, r in enumerate(board.ranks)]
    names = [f'<td class="name">{escape(name)}</td>' for name in board.models]
    rows = [f'<tr data-i="{i}">' + "".join(cells) + "</tr>" for i, cells in enumerate(zip(ranks, names, *tds))]
    return ('<div class="scroll"><table class="sortable"><thead><tr>' + "".join(head) + "</tr></thead><tbody>\n"
            + "\n".join(rows) + "\n</tbody></table></div>")
