"""Plots of a :class:`~kscore.present.model.Board` for any number of models
(matplotlib, from the ``cli`` extra), as PNG, SVG or PDF.

* :func:`plot_curves`: pass@k against k with bands, saying what the line
  and the band are (``Board.curve_note``); up to :data:`OVERLAY_MAX`
  models in one chart with a legend of rank ranges and names, more as
  small multiples (one panel per model in rank order, as wide as the names
  need, the top model dashed in each for reference), so that 200 models
  stay readable.
* :func:`plot_intervals`: each model's value and interval per metric (a
  forest plot), a row per model in rank order with its rank range and
  name, a panel per metric, the sorting metric first, saying what the dot
  and the line are (``Board.interval_note``); rows keep their height, so
  the figure grows with the models, and names are shortened without
  ambiguity. The values and intervals drawn are the board's, unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

import matplotlib
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter
from matplotlib.transforms import blended_transform_factory

from .model import Board, Curve, MetricColumn, rank_text
from .names import shorten_names

OVERLAY_MAX = 10
DPI = 100
#: The formats written, by file extension (a path without one: PNG).
FORMATS = ("png", "svg", "pdf")
#: Legend of the one-chart curves: font size (points).
LEGEND_PT = 8.0
#: Small multiples: caption and header font sizes (points), panel sizes (inches).
CAPTION_PT, HEADER_PT = 7.0, 9.0
PANEL_W_MIN, PANEL_W_MAX, PANEL_H = 1.5, 2.6, 1.1
#: Line spacing of the headers' text, in font sizes.
LINE = 1.35
_AGG: Any = cast(Any, RendererAgg)(1, 1, DPI)  # backend_agg is untyped
#: Intervals: the rows' font size (points) up to 40 models and beyond, the
#: rows' height beyond 40 models (inches; 0.3 up to 12, 0.22 up to 40), the
#: widest a name may be (inches), and from how many models the scale is
#: written at the top of the panels too.
ROW_PT, ROW_PT_MANY, ROW_IN_MANY = 8.0, 7.0, 0.16
NAME_W_MAX = 3.4
TOP_AXIS_FROM = 25


def plot_format(path: str | Path, format: str | None = None) -> str:
    """``format``, else the one ``path``'s extension names (``png`` without
    one); ValueError for another.

    >>> plot_format("board.svg"), plot_format("curves"), plot_format("x.tmp", "pdf")
    ('svg', 'png', 'pdf')
    """
    fmt = (format or Path(path).suffix.lstrip(".") or "png").lower()
    if fmt not in FORMATS:
        raise ValueError(f"cannot draw {fmt!r}: the formats are {', '.join(FORMATS)}")
    return fmt


def _whole_pixels(inches: float) -> float:
    """``inches`` rounded to whole pixels at :data:`DPI` (the PNG is exactly
    the figure's size)."""
    return round(inches * DPI) / DPI


def _save(fig: Figure, path: str | Path, format: str | None = None) -> str:
    fmt = plot_format(path, format)
    # Text stays text in SVG (searchable, selectable; no date, so the same
    # board gives the same file) and TrueType in PDF.
    with matplotlib.rc_context({"svg.fonttype": "none", "pdf.fonttype": 42, "svg.hashsalt": "kscore"}):
        metadata = {"Date": None} if fmt == "svg" else {"CreationDate": None} if fmt == "pdf" else None
        fig.savefig(str(path), dpi=DPI, format=fmt, metadata=metadata)
    return str(path)


def _drawn(board: Board) -> list[tuple[int, Curve]]:
    if board.curves is None:
        return []
    return [(i, c) for i, c in enumerate(board.curves) if c is not None and c.k]


def _style_k(ax: Axes, k_max: int) -> None:
    ax.set_xscale("log", base=2)
    ax.set_xlim(1, max(2, k_max))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
    ax.grid(True, which="major", alpha=0.3)


def plot_curves(board: Board, path: str | Path, title: str | None = None, format: str | None = None) -> str:
    """Write :func:`curves_figure` to ``path`` (PNG, SVG or PDF: ``format``,
    else the path's extension) and return the path."""
    return _save(curves_figure(board, title), path, format)


def curves_figure(board: Board, title: str | None = None) -> Figure:
    """The curves' figure, captioned with ``board.curve_note`` (what the line
    and the band are); raises ValueError when the board has no curves."""
    drawn = _drawn(board)
    if not drawn:
        raise ValueError("the board has no curves to plot")
    k_max = max(max(c.k) for _, c in drawn)
    if title is None:
        title = f"{board.curve_label} curves, {len(drawn)} models" + (f"\n{board.title}" if board.title else "")
    if len(drawn) > OVERLAY_MAX:
        return _multiples(board, drawn, k_max, title)
    # Constrained layout makes room for the legend under the chart, titled
    # with the note (tight_layout ignores figure-level artists); one column
    # of entries (two beyond 3 models) as wide as the figure keeps long
    # names whole.
    ncols = 1 if len(drawn) <= 3 else 2
    fig = Figure(figsize=(9.6, 6.0 + 0.18 * max(0, math.ceil(len(drawn) / ncols) - 3)), layout="constrained")
    ax = fig.add_subplot()
    labels = _captions(board, drawn, LEGEND_PT, (fig.get_figwidth() - 0.4) / ncols - 0.6)
    for (_, c), label in zip(drawn, labels):
        (line,) = ax.plot(c.k, c.value, marker="o", markersize=3, linewidth=1.5, label=label)
        ax.fill_between(c.k, c.lo, c.hi, color=line.get_color(), alpha=0.18, linewidth=0)
    _style_k(ax, k_max)
    ax.set_xlabel("k (samples)")
    ax.set_ylabel(board.curve_label)
    ax.set_title(title)
    note = _wrap(board.curve_note, fig.get_figwidth() - 0.6, LEGEND_PT) if board.curve_note else None
    fig.legend(loc="outside lower center", ncols=ncols, fontsize=LEGEND_PT, frameon=False, title=note,
               title_fontsize=LEGEND_PT)
    return fig


def _captions(board: Board, drawn: list[tuple[int, Curve]], size: float, room: float) -> list[str]:
    """``rank. name`` for each drawn model, names shortened without ambiguity
    (:mod:`kscore.present.names`) to the most characters that keep every
    caption within ``room`` inches at ``size`` points."""
    models = [board.models[i] for i, _ in drawn]
    prefix = [_prefix(board, i) for i, _ in drawn]

    def captions(chars: int) -> list[str]:
        return [p + s for p, s in zip(prefix, shorten_names(models, chars))]

    lo, hi = 8, max(8, max(len(m) for m in models))
    while lo < hi:  # the longest names that fit (binary search: 200 names are measured a few times, not 50)
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if _guess(captions(mid), size) <= room else (lo, mid - 1)
    return captions(lo)


def _prefix(board: Board, i: int) -> str:
    rank = board.ranks[i]
    return f"{rank_text(rank)}. " if rank else ""


def _guess(texts: Sequence[str], size: float) -> float:
    """About the width of the widest of ``texts`` in inches at ``size``
    points, from their characters' widths, without kerning (which only
    narrows: "AVAVA" 7% at most): a measure takes a millisecond, and 200
    names measured at ten widths took two seconds."""
    return max((sum(_char_inches(c, size) for c in t) for t in texts), default=0.0)


def _widest(texts: Sequence[str], size: float) -> float:
    """The width of the widest of ``texts`` in inches at ``size`` points, as
    matplotlib draws it (measured for those within 10% of the widest
    :func:`_guess`)."""
    if not texts:
        return 0.0
    guess = [_guess([t], size) for t in texts]
    top = max(guess)
    return max(_inches(t, size) for t, g in zip(texts, guess) if g >= 0.9 * top)


@lru_cache(maxsize=4096)
def _char_inches(char: str, size: float) -> float:
    return _inches(char, size)


def _inches(text: str, size: float) -> float:
    """The width of ``text`` in inches at ``size`` points, as matplotlib draws
    it in a PNG at :data:`DPI` (hinted glyphs: a few percent wider than the
    outlines an SVG or a PDF draws)."""
    return float(_AGG.get_text_width_height_descent(text, FontProperties(size=size), ismath=False)[0]) / DPI


def _wrap(text: str, width: float, size: float) -> str:
    """``text`` wrapped into lines of at most ``width`` inches at ``size``
    points (its own line breaks kept)."""
    lines: list[str] = []
    for para in text.split("\n"):
        start = len(lines)
        for word in para.split():
            if len(lines) > start and _inches(f"{lines[-1]} {word}", size) <= width:
                lines[-1] += f" {word}"
            else:
                lines.append(word)
    return "\n".join(lines)


def _multiples(board: Board, drawn: list[tuple[int, Curve]], k_max: int, title: str) -> Figure:
    """One small panel per model, drawn in a single axes (a cell of a grid per
    model: a figure of 200 matplotlib axes takes minutes to draw); each
    cell's frame spans k = 1..k_max across (log scale) and the value range
    up, written once in the header. Panels are as wide as the names need
    (up to :data:`PANEL_W_MAX`), the grid about 16:10."""
    n = len(drawn)
    size = CAPTION_PT
    # A caption starts at the frame's left edge (5% into its cell) and may
    # run to 2% short of the cell's right edge.
    names = _captions(board, drawn, size, 0.93 * PANEL_W_MAX)
    panel_w = min(PANEL_W_MAX, max(PANEL_W_MIN, _widest(names, size) / 0.93))
    panel_h = PANEL_H
    cols = min(n, max(4, math.ceil(math.sqrt(1.6 * n * panel_h / panel_w))))
    rows = math.ceil(n / cols)
    ys = [y for _, c in drawn for y in (*c.lo, *c.hi) if math.isfinite(y)]
    y0, y1 = (0.0, 1.0) if ys and min(ys) >= 0 and max(ys) <= 1 else (min(ys, default=0.0), max(ys, default=1.0))
    fig_w = _whole_pixels(cols * panel_w + 0.3)
    top_name = names[0][len(_prefix(board, drawn[0][0])):]
    explain = [f"each panel: k = 1 to {k_max} across (log scale), {board.curve_label} {y0:g} to {y1:g} up "
               f"(grey line: {(y0 + y1) / 2:g}); dashed: the top model, {top_name}"]
    if board.curve_note:
        explain.append(board.curve_note)
    head = _wrap(title, fig_w - 0.4, HEADER_PT + 2)
    sub = _wrap("\n".join(explain), fig_w - 0.4, HEADER_PT)
    head_h = (head.count("\n") + 1) * (HEADER_PT + 2) * LINE / 72  # inches
    head_in = 0.12 + head_h + 0.06 + (sub.count("\n") + 1) * HEADER_PT * LINE / 72 + 0.15
    fig = Figure(figsize=(fig_w, _whole_pixels(rows * panel_h + head_in + 0.2)))
    fw, fh = fig.get_figwidth(), fig.get_figheight()
    ax = fig.add_axes((0.15 / fw, 0.2 / fh, 1 - 0.3 / fw, 1 - (head_in + 0.2) / fh))
    span = math.log2(max(2, k_max))
    width, height = 0.9, 0.72  # of a cell (1 x 1), the rest a gap and the caption

    def cell(slot: int, ks: Sequence[int], vals: Sequence[float]) -> tuple[list[float], list[float]]:
        c, r = slot % cols, slot // cols
        xs = [c + 0.05 + math.log2(max(k, 1)) / span * width for k in ks]
        return xs, [-r - 0.95 + (v - y0) / ((y1 - y0) or 1.0) * height for v in vals]

    _, ref = drawn[0]
    for slot, (_, c) in enumerate(drawn):
        col, row = slot % cols, slot // cols
        ax.add_patch(Rectangle((col + 0.05, -row - 0.95), width, height, fill=False, linewidth=0.5, edgecolor="0.75"))
        gx, gy = cell(slot, [1, k_max], [(y0 + y1) / 2] * 2)
        ax.plot(gx, gy, color="0.9", linewidth=0.5)
        if slot:
            ax.plot(*cell(slot, ref.k, ref.value), color="0.55", linewidth=0.7, linestyle="--")
        xs, lo = cell(slot, c.k, c.lo)
        _, hi = cell(slot, c.k, c.hi)
        ax.fill_between(xs, lo, hi, color="C0", alpha=0.25, linewidth=0)
        ax.plot(*cell(slot, c.k, c.value), color="C0", linewidth=1.1)
        ax.text(col + 0.05, -row - 0.2, names[slot], fontsize=size, va="bottom")
    ax.set_xlim(0, cols)
    ax.set_ylim(-rows, 0)
    ax.set_axis_off()
    fig.text(0.5, 1 - 0.12 / fh, head, fontsize=HEADER_PT + 2, ha="center", va="top", linespacing=LINE)
    fig.text(0.5, 1 - (0.18 + head_h) / fh, sub, fontsize=HEADER_PT, ha="center", va="top", color="0.25",
             linespacing=LINE)
    return fig


def plot_intervals(board: Board, path: str | Path, metrics: Sequence[str] | None = None,
                   title: str | None = None, format: str | None = None) -> str:
    """Write :func:`intervals_figure` to ``path`` (PNG, SVG or PDF: ``format``,
    else the path's extension) and return the path."""
    return _save(intervals_figure(board, metrics, title), path, format)


def interval_metrics(board: Board, metrics: Sequence[str] | None = None) -> list[MetricColumn]:
    """The metrics :func:`intervals_figure` draws, in its order: ``metrics``
    (names), by default every metric with an interval (all when none has
    one); the sorting metric first, the others in the board's order."""
    if metrics is not None:
        unknown = [m for m in metrics if m not in {c.name for c in board.metrics}]
        if unknown:
            raise ValueError(f"no metric {', '.join(map(repr, unknown))} on the board (it has "
                             f"{', '.join(c.name for c in board.metrics)})")
        chosen = [c for c in board.metrics if c.name in metrics]
    else:
        chosen = [c for c in board.metrics if any(v is not None and v.half_width is not None for v in c.values)]
        chosen = chosen or list(board.metrics)
    chosen.sort(key=lambda c: c.name != board.sort)
    if not chosen:
        raise ValueError("the board has no metric to plot")
    return chosen


def intervals_figure(board: Board, metrics: Sequence[str] | None = None, title: str | None = None) -> Figure:
    """A forest plot: a row per model in the board's (rank) order, its rank
    range and name on the left, a panel per metric (:func:`interval_metrics`)
    with each model's value (a dot, gid ``estimates``) and interval (a line,
    gid ``intervals``), the top model's interval shaded in every panel for
    reference. Rows are a fixed height, so the figure grows with the models
    (200: about 34 in tall) and names are shortened without ambiguity to
    :data:`NAME_W_MAX` inches; scales are repeated at the top past
    :data:`TOP_AXIS_FROM` models."""
    chosen = interval_metrics(board, metrics)
    n, k = len(board.models), len(chosen)
    if n == 0:
        raise ValueError("the board has no models to plot")
    size = ROW_PT if n <= 40 else ROW_PT_MANY
    row = 0.3 if n <= 12 else 0.22 if n <= 40 else ROW_IN_MANY  # inches
    ranks = [rank_text(r) for r in board.ranks]
    rank_w = _widest(ranks, size)
    names = _names(board.models, size, NAME_W_MAX)
    name_w = _widest(names, size)
    panel_w = min(2.8, max(1.9, 11.0 / k))
    gap = 0.2
    left = 0.15 + rank_w + 0.12 + name_w + 0.15
    fig_w = _whole_pixels(max(6.4, left + k * panel_w + (k - 1) * gap + 0.25))
    # The header: a title, then what the dot, line and shading are.
    if title is None:
        sort = f", sorted by {board.sort}" if board.sort else ""
        title = f"{board.title or 'leaderboard'}\nestimates and intervals, {n} models{sort}"
    note = (board.interval_note or board.footer) + "; shaded: the interval of the top model"
    head = _wrap(title, fig_w - 0.4, HEADER_PT + 2)
    sub = _wrap(note, min(fig_w - 0.4, 10.0), HEADER_PT)
    head_h = (head.count("\n") + 1) * (HEADER_PT + 2) * LINE / 72
    sub_h = (sub.count("\n") + 1) * HEADER_PT * LINE / 72
    top_axis = n >= TOP_AXIS_FROM
    top = 0.12 + head_h + 0.06 + sub_h + 0.2 + (0.32 if top_axis else 0.05) + 0.22  # to the first row
    bottom = 0.62 if top_axis else 0.45
    fig_h = _whole_pixels(top + n * row + bottom)
    fig = Figure(figsize=(fig_w, fig_h))
    fig.text(0.5, 1 - 0.12 / fig_h, head, fontsize=HEADER_PT + 2, ha="center", va="top", linespacing=LINE)
    fig.text(0.5, 1 - (0.18 + head_h) / fig_h, sub, fontsize=HEADER_PT, ha="center", va="top", color="0.25",
             linespacing=LINE)
    ys = list(range(n))
    stripes = [[(0, y - 0.5), (1, y - 0.5), (1, y + 0.5), (0, y + 0.5)] for y in ys[1::2]]
    for j, column in enumerate(chosen):
        x0 = left + j * (panel_w + gap)
        ax = fig.add_axes((x0 / fig_w, bottom / fig_h, panel_w / fig_w, n * row / fig_h))
        ax.add_collection(PolyCollection(stripes, facecolors="0.95", edgecolors="none", zorder=0,
                                         transform=ax.get_yaxis_transform()), autolim=False)
        _forest(ax, column, ys, size, n)
        ax.set_ylim(n - 0.5, -0.5)
        ax.set_yticks([])
        ax.tick_params(labelsize=size, length=3)
        ax.grid(True, axis="x", alpha=0.35, linewidth=0.6)
        ax.set_title(f"{column.name} (sorted by)" if column.name == board.sort else column.name,
                     fontsize=HEADER_PT + 0.5, pad=4)
        if top_axis:  # the scale where a tall figure starts too, and the metric where it ends
            ax.tick_params(top=True, labeltop=True)
            ax.set_xlabel(column.name, fontsize=size + 0.5)
    first = fig.axes[0]
    names_at = blended_transform_factory(fig.transFigure, first.transData)
    for y, rank, name in zip(ys, ranks, names):
        fig.text((0.15 + rank_w) / fig_w, y, rank, fontsize=size, ha="right", va="center_baseline",
                 transform=names_at, gid="rank")
        fig.text((0.15 + rank_w + 0.12) / fig_w, y, name, fontsize=size, ha="left", va="center_baseline",
                 transform=names_at, gid="name")
    fig.text((0.15 + rank_w) / fig_w, 1 - (top - 0.08) / fig_h, "rank", fontsize=size, ha="right", va="bottom",
             color="0.3")
    fig.text((0.15 + rank_w + 0.12) / fig_w, 1 - (top - 0.08) / fig_h, "model", fontsize=size, ha="left",
             va="bottom", color="0.3")
    return fig


def _forest(ax: Axes, column: MetricColumn, ys: list[int], size: float, n: int) -> None:
    """One metric's panel: the dots and lines of every model with a value,
    ``not computed`` (or ``n/a``, a NaN) in grey where there is none, the
    top model's interval shaded."""
    drawn = [(y, v) for y, v in zip(ys, column.values) if v is not None and math.isfinite(v.value)]
    segments = [[(v.lo, y), (v.hi, y)] for y, v in drawn
                if v.half_width is not None and v.lo is not None and v.hi is not None]
    thick = 1.8 if n <= 40 else 1.2
    ax.add_collection(LineCollection(segments, colors="C0", linewidths=thick, capstyle="butt", gid="intervals"))
    ax.plot([v.value for _, v in drawn], [y for y, _ in drawn], "o", color="#0b3d91",
            markersize=4.0 if n <= 40 else 2.6, linestyle="none", gid="estimates", zorder=3)
    xs = [x for _, v in drawn for x in (v.value, v.lo, v.hi) if x is not None and math.isfinite(x)]
    lo_x, hi_x = (min(xs), max(xs)) if xs else (0.0, 1.0)
    pad = (hi_x - lo_x) * 0.05 or 0.05
    ax.set_xlim(lo_x - pad, hi_x + pad)
    ref = column.values[0] if column.values else None
    if ref is not None and ref.half_width is not None and ref.lo is not None and ref.hi is not None:
        ax.axvspan(ref.lo, ref.hi, color="C0", alpha=0.1, linewidth=0, zorder=0.5)
    for y, v in zip(ys, column.values):
        if v is None or not math.isfinite(v.value):
            ax.text(0.03, y, "not computed" if v is None else "n/a", transform=ax.get_yaxis_transform(),
                    fontsize=size - 0.5, color="0.45", style="italic", va="center_baseline", gid="missing")


def _names(models: Sequence[str], size: float, room: float) -> list[str]:
    """The models' names shortened without ambiguity to the most characters
    that keep each within ``room`` inches at ``size`` points."""
    lo, hi = 8, max(8, max((len(m) for m in models), default=8))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if _guess(shorten_names(models, mid), size) <= room else (lo, mid - 1)
    return shorten_names(models, lo)
