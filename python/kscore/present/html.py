"""A :class:`~kscore.present.model.Board` as one self-contained HTML page to
share: it works offline and asks no server for anything (inline style and
script only; a Content-Security-Policy forbids any load), with the ranked
table (intervals as bars, sortable by any column), the curves with bands,
the pairwise comparison matrix, the subsets and the footer's explanation.

Its size grows with the data: about 95 bytes per table cell, 0.95 kB per
curve and 30 bytes per pair of models (200 models x 20 metrics with curves
and the 200 x 200 matrix: 1.2 MB, of which the matrix is 0.6 MB).
"""

from __future__ import annotations

from html import escape

from ._html_assets import CSP, CSS, JS
from ._html_curves import curves_html
from ._html_matrix import matrix_html
from ._html_table import ranked_table
from .model import Board

EXPLAIN = ("Bars: each value's interval drawn on its column's scale (hover a header for the scale, a cell for the "
           "interval's ends), the tick at the value. Click a column's header to sort by it; click again to reverse.")


def _body(board: Board, level: int) -> list[str]:
    h = f"h{min(level, 6)}"
    n = len(board.models)
    out = [ranked_table(board)]
    text = [t for t in [board.footer, *board.notes] if t]
    out += [f'<p class="foot">{escape(t)}</p>' for t in text[:1]]
    out += [f'<p class="foot note">{escape(t)}</p>' for t in text[1:]]
    curves = curves_html(board)
    if curves:
        out += [f"<{h}>{escape(board.curve_label)} curves</{h}>", curves]
        out += [f'<p class="foot">{escape(board.curve_note)}</p>'] if board.curve_note else []
    if board.plan:  # the design diagnostics (kscore plan): a heading line, then items and notes
        items = "".join(f"<li>{escape(t.strip())}</li>" if t.startswith("  ") else
                        (f'</ul><p class="foot">{escape(t)}</p><ul>' if t else "") for t in board.plan[1:])
        out += [f"<{h}>Plan: {escape(board.plan[0])}</{h}>", f"<ul class=\"plan\">{items}</ul>"]
    matrix = matrix_html(board)
    if matrix and board.pairwise is not None:
        out += [f"<{h}>Pairwise comparisons: {escape(board.pairwise.metric)} ({n} models)</{h}>", matrix]
    if board.subsets:
        out.append(f"<{h}>Subsets</{h}>")
    sub = f"h{min(level + 1, 6)}"
    for name, part in board.subsets.items():
        title = part.title or name
        out += [f'<section class="subset"><{sub}>{escape(title)}</{sub}>', *_body(part, level + 2), "</section>"]
    return out


def render_html(board: Board) -> str:
    """The whole page, as text (write it with ``encoding="utf-8"``)."""
    title = escape(board.title or "kscore leaderboard")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width,initial-scale=1">',
        f"<title>{title}</title><style>{CSS}</style></head><body>",
        f"<h1>{title}</h1>",
        *_body(board, 2),
        f'<p class="foot">{escape(EXPLAIN)}</p>',
        f"<script>{JS}</script></body></html>",
    ]
    return "\n".join(parts) + "\n"
