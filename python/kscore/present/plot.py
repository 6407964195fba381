"""Plots of a :class:`~kscore.present.model.Board` for any number of models
(matplotlib, from the ``cli`` extra).

* :func:`plot_curves`: pass@k against k with bands, saying what the line
  and the band are (``Board.curve_note``); up to :data:`OVERLAY_MAX`
  models in one chart with a legend of rank ranges and names, more as
  small multiples (one panel per model in rank order, as wide as the names
  need, the top model dashed in each for reference), so that 200 models
  stay readable.
* :func:`plot_intervals`: each model's value and interval per metric (a
  forest plot), a row per model in rank order; the figure grows with the
  number of models and names are shortened without ambiguity.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import Rectangle
from matplotlib.textpath import TextToPath
from matplotlib.ticker import FuncFormatter

from .model import Board, Curve, rank_text
from .names import shorten_names

OVERLAY_MAX = 10
DPI = 100
#: Legend of the one-chart curves: font size (points).
LEGEND_PT = 8.0
#: Small multiples: caption and header font sizes (points), panel sizes (inches).
CAPTION_PT, HEADER_PT = 7.0, 9.0
PANEL_W_MIN, PANEL_W_MAX, PANEL_H = 1.5, 2.6, 1.1
#: Line spacing of the headers' text, in font sizes.
LINE = 1.35
_TEXT = TextToPath()
#: Metric panels drawn by default in :func:`plot_intervals`.
MAX_METRIC_PANELS = 4


def _save(fig: Figure, path: str | Path) -> str:
    fig.savefig(str(path), dpi=DPI, format="png")
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


def plot_curves(board: Board, path: str | Path, title: str | None = None) -> str:
    """Write :func:`curves_figure` to ``path`` (PNG) and return the path."""
    return _save(curves_figure(board, title), path)


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
        lo, hi = (mid, hi) if max(_inches(t, size) for t in captions(mid)) <= room else (lo, mid - 1)
    return captions(lo)


def _prefix(board: Board, i: int) -> str:
    rank = board.ranks[i]
    return f"{rank_text(rank)}. " if rank else ""


def _inches(text: str, size: float) -> float:
    """The width of ``text`` in inches at ``size`` points, as matplotlib draws it."""
    return float(_TEXT.get_text_width_height_descent(text, FontProperties(size=size), ismath=False)[0]) / 72


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
    panel_w = min(PANEL_W_MAX, max(PANEL_W_MIN, max(_inches(t, size) for t in names) / 0.93))
    panel_h = PANEL_H
    cols = min(n, max(4, math.ceil(math.sqrt(1.6 * n * panel_h / panel_w))))
    rows = math.ceil(n / cols)
    ys = [y for _, c in drawn for y in (*c.lo, *c.hi) if math.isfinite(y)]
    y0, y1 = (0.0, 1.0) if ys and min(ys) >= 0 and max(ys) <= 1 else (min(ys, default=0.0), max(ys, default=1.0))
    fig_w = cols * panel_w + 0.3
    top_name = names[0][len(_prefix(board, drawn[0][0])):]
    explain = [f"each panel: k = 1 to {k_max} across (log scale), {board.curve_label} {y0:g} to {y1:g} up "
               f"(grey line: {(y0 + y1) / 2:g}); dashed: the top model, {top_name}"]
    if board.curve_note:
        explain.append(board.curve_note)
    head = _wrap(title, fig_w - 0.4, HEADER_PT + 2)
    sub = _wrap("\n".join(explain), fig_w - 0.4, HEADER_PT)
    head_h = (head.count("\n") + 1) * (HEADER_PT + 2) * LINE / 72  # inches
    head_in = 0.12 + head_h + 0.06 + (sub.count("\n") + 1) * HEADER_PT * LINE / 72 + 0.15
    fig = Figure(figsize=(fig_w, rows * panel_h + head_in + 0.2))
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
                   title: str | None = None) -> str:
    """Write :func:`intervals_figure` to ``path`` (PNG) and return the path."""
    return _save(intervals_figure(board, metrics, title), path)


def intervals_figure(board: Board, metrics: Sequence[str] | None = None, title: str | None = None) -> Figure:
    """A forest plot of ``metrics`` (by default the sorting metric and the
    next ones, :data:`MAX_METRIC_PANELS` at most), a row per model."""
    chosen = [m for m in board.metrics if metrics is None or m.name in metrics]
    if metrics is None:
        chosen.sort(key=lambda m: m.name != board.sort)
        chosen = chosen[:MAX_METRIC_PANELS]
    if not chosen:
        raise ValueError("no metric to plot")
    n = len(board.models)
    size = 8.0 if n <= 40 else 6.0
    row_in = max(size, 6.0) * 1.9 / 72
    left = 0.3 + size * 0.62 / 72 * min(45, max((len(s) for s in board.models), default=1) + 5)
    top, bottom = 0.75, 0.45
    fig = Figure(figsize=(left + 2.6 * len(chosen) + 0.2, top + bottom + n * row_in))
    w, h = fig.get_figwidth(), fig.get_figheight()
    fig.subplots_adjust(left=left / w, right=1 - 0.2 / w, top=1 - top / h, bottom=bottom / h, wspace=0.06)
    # Not sharey: matplotlib would then make every axes' 200 ticks.
    axes = fig.subplots(1, len(chosen), squeeze=False)[0]
    names = shorten_names(board.models, 40)
    labels = [(f"{r[0]}. " if r else "") + s for r, s in zip(board.ranks, names)]
    ys = list(range(n))
    for ax, m in zip(axes, chosen):
        for y, v in zip(ys, m.values):
            if v is None:
                continue
            if v.lo is not None and v.hi is not None:
                ax.plot([v.lo, v.hi], [y, y], color="C0", linewidth=1.6 if n <= 60 else 1.0, solid_capstyle="butt")
            ax.plot([v.value], [y], "o", color="#0b3d91", markersize=3.5 if n <= 60 else 2.0)
        for y in ys[1::2]:
            ax.axhspan(y - 0.5, y + 0.5, color="0.95", zorder=0, linewidth=0)
        ax.set_title(m.name, fontsize=9)
        ax.grid(True, axis="x", alpha=0.3)
        ax.tick_params(labelsize=size)
        ax.set_ylim(n - 0.5, -0.5)
        ax.set_yticks([])
    axes[0].set_yticks(ys, labels)
    fig.suptitle(title if title is not None else f"{board.title or 'leaderboard'}: value and interval",
                 fontsize=10, y=1 - 0.15 / h, va="top")
    return fig
