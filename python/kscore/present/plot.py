"""Plots of a :class:`~kscore.present.model.Board` for any number of models
(matplotlib, from the ``cli`` extra).

* :func:`plot_curves`: pass@k against k with bands; up to
  :data:`OVERLAY_MAX` models in one chart with a legend, more as small
  multiples (one panel per model in rank order, the top model dashed in
  each for reference), so that 200 models stay readable.
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
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter

from .model import Board, Curve
from .names import shorten_names

OVERLAY_MAX = 10
DPI = 100
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
    """The curves' figure; raises ValueError when the board has no curves."""
    drawn = _drawn(board)
    if not drawn:
        raise ValueError("the board has no curves to plot")
    k_max = max(max(c.k) for _, c in drawn)
    title = title if title is not None else f"{board.curve_label} with bands ({len(drawn)} models)"
    if len(drawn) <= OVERLAY_MAX:
        fig = Figure(figsize=(9.6, 6.0))
        ax = fig.add_subplot()
        for i, c in drawn:
            (line,) = ax.plot(c.k, c.value, marker="o", markersize=3, linewidth=1.5, label=board.models[i])
            ax.fill_between(c.k, c.lo, c.hi, color=line.get_color(), alpha=0.18, linewidth=0)
        _style_k(ax, k_max)
        ax.set_xlabel("k (samples)")
        ax.set_ylabel(board.curve_label)
        ax.legend(loc="best", fontsize="small")
        ax.set_title(title)
        fig.tight_layout()
        return fig
    return _multiples(board, drawn, k_max, title)


def _multiples(board: Board, drawn: list[tuple[int, Curve]], k_max: int, title: str) -> Figure:
    """One small panel per model, drawn in a single axes (a cell of a grid per
    model: a figure of 200 matplotlib axes takes minutes to draw); each
    cell's frame spans k = 1..k_max across (log scale) and the value range
    up, written once in the title."""
    n = len(drawn)
    cols = min(n, max(4, math.ceil(math.sqrt(n * 1.6))))
    rows = math.ceil(n / cols)
    panel_w, panel_h = 1.45, 1.05
    fig = Figure(figsize=(cols * panel_w + 0.3, rows * panel_h + 0.9))
    ax = fig.add_axes((0.15 / fig.get_figwidth(), 0.2 / fig.get_figheight(), 1 - 0.3 / fig.get_figwidth(),
                       1 - 1.0 / fig.get_figheight()))
    size = 6.5 if n <= 60 else 5.5
    names = shorten_names([board.models[i] for i, _ in drawn], int(panel_w * 0.95 / (size * 0.6 / 72)) - 5)
    ys = [y for _, c in drawn for y in (*c.lo, *c.hi) if math.isfinite(y)]
    y0, y1 = (0.0, 1.0) if ys and min(ys) >= 0 and max(ys) <= 1 else (min(ys, default=0.0), max(ys, default=1.0))
    span = math.log2(max(2, k_max))
    width, height = 0.9, 0.72  # of a cell (1 x 1), the rest a gap and the caption

    def cell(slot: int, ks: Sequence[int], vals: Sequence[float]) -> tuple[list[float], list[float]]:
        c, r = slot % cols, slot // cols
        xs = [c + 0.05 + math.log2(max(k, 1)) / span * width for k in ks]
        return xs, [-r - 0.95 + (v - y0) / ((y1 - y0) or 1.0) * height for v in vals]

    _, ref = drawn[0]
    for slot, (i, c) in enumerate(drawn):
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
        rank = board.ranks[i]
        ax.text(col + 0.05, -row - 0.2, (f"{rank[0]}. " if rank else "") + names[slot], fontsize=size, va="bottom")
    ax.set_xlim(0, cols)
    ax.set_ylim(-rows, 0)
    ax.set_axis_off()
    fig.suptitle(f"{title}\neach panel: k = 1 to {k_max} across (log scale), {board.curve_label} {y0:g} to "
                 f"{y1:g} up (grey line: {(y0 + y1) / 2:g}); dashed: the top model, {names[0]}", fontsize=9)
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
