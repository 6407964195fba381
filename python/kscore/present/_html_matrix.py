"""The HTML page's pairwise comparison matrix: its numbers as compact JSON
(one triangle: cell ``[j][i]`` is the mirror of ``[i][j]``), turned into a
colour-coded table by the page's script; a cell's tooltip gives the
difference, its interval and the p-value."""

from __future__ import annotations

import json
import math
from html import escape

from .model import Board, Pairwise
from .names import shorten_names

#: Decimals kept for the differences and their intervals (the tooltip's).
DECIMALS = 4


def _num(x: float | None, decimals: int = DECIMALS) -> float | None:
    if x is None or not math.isfinite(x):
        return None
    return round(x, decimals)


def _p(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(f"{x:.2g}")


def data(board: Board, pw: Pairwise) -> dict[str, object]:
    """The matrix's upper triangle, row by row, as the script reads it."""
    n = len(pw.difference)  # (the first n models: the page's matrix covers the top of a large board)
    names = board.models[:n]
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    higher_better = next((m.higher_better for m in board.metrics if m.name == pw.metric), True)
    return {
        "names": names,
        "short": shorten_names(names, 24),
        "hb": higher_better,
        "dig": 2,
        "d": [_num(pw.difference[i][j]) for i, j in pairs],
        "l": [_num(pw.lo[i][j]) for i, j in pairs],
        "h": [_num(pw.hi[i][j]) for i, j in pairs],
        "p": [_p(pw.p[i][j]) for i, j in pairs],
        "s": "".join("1" if pw.significant[i][j] else "0" for i, j in pairs),
    }


def script_json(value: object) -> str:
    """JSON safe inside a ``<script>`` element (no ``</`` or ``<!--``)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c")


def matrix_html(board: Board) -> str:
    """The matrix section's body ('' when the board has none)."""
    pw = board.pairwise
    if pw is None:
        return ""
    legend = (f'<p class="foot">Each cell: the row model minus the column model on {escape(pw.metric)} '
              f"(columns numbered by rank; hover a cell for the interval and p-value)."
              f'<span class="sw up3"></span>row significantly better'
              f'<span class="sw dn3"></span>row significantly worse'
              f'<span class="sw ns"></span>not significant; darker: a larger difference.'
              + (f" {escape(pw.note)}" if pw.note else "") + "</p>")
    out = (f'<div class="pw">{legend}<script type="application/json" class="pw-data">{script_json(data(board, pw))}'
           '</script><div class="scroll pw-box"></div></div>')
    return out + compare_html(board, pw)


def compare_html(board: Board, pw: Pairwise) -> str:
    """The box comparing any model (typed, or ``#compare=NAME``) with every
    other, from the per-question estimates (computed by the page's script:
    :data:`kscore.present._html_assets.COMPARE_JS`); '' without them."""
    if pw.on_demand is None:
        return ""
    data = dict(pw.on_demand, hb=next((m.higher_better for m in board.metrics if m.name == pw.metric), True))
    return ('<div class="cmp"><label>Compare a model with all others: <input type="search" '
            'placeholder="a model\'s name, or part of it (Enter)"></label><span class="cmp-msg"></span>'
            f'<script type="application/json" class="cmp-data">{script_json(data)}</script>'
            '<div class="scroll cmp-box"></div>'
            f'<p class="foot">The difference on {escape(pw.metric)}, paired on the questions both answered, '
            "its interval and p-value, significance by the board's rule: any model, computed in the page.</p>"
            "</div>")
