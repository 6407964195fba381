"""The HTML page's curves (pass@k against k) as inline SVG with bands: up to
:data:`OVERLAY_MAX` models in one chart with a legend, more as small
multiples (one panel per model, in rank order, the top model's curve dashed
in each for reference)."""

from __future__ import annotations

import math
from html import escape

from .model import Board, Curve
from .names import shorten_names

OVERLAY_MAX = 10
#: Points drawn per curve at most (the rest thinned evenly on a log scale).
MAX_POINTS = 48
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f",
           "#bcbd22"]


def thin(curve: Curve, most: int = MAX_POINTS) -> Curve:
    """At most ``most`` points, kept evenly on log k (the first and last
    always); points with a non-finite value are dropped."""
    keep = [i for i, v in enumerate(curve.value) if math.isfinite(v)]
    if len(keep) > most:
        logs = [math.log(max(curve.k[i], 1)) for i in keep]
        targets = [logs[0] + (logs[-1] - logs[0]) * t / (most - 1) for t in range(most)]
        chosen = sorted({min(range(len(keep)), key=lambda j: abs(logs[j] - x)) for x in targets})
        keep = [keep[j] for j in chosen]
    return Curve([curve.k[i] for i in keep], [curve.value[i] for i in keep],
                 [_or(curve.lo[i], curve.value[i]) for i in keep], [_or(curve.hi[i], curve.value[i]) for i in keep])


def _or(x: float, default: float) -> float:
    return x if math.isfinite(x) else default


class Frame:
    """Maps (k, value) to SVG coordinates: log2 k across, value up."""

    def __init__(self, curves: list[Curve], w: int, h: int, pad: int) -> None:
        ks = [k for c in curves for k in c.k] or [1]
        ys = [y for c in curves for y in (*c.lo, *c.hi)] or [0.0, 1.0]
        self.k_max = max(2, max(ks))
        self.y0, self.y1 = (0.0, 1.0) if 0 <= min(ys) and max(ys) <= 1 else (min(ys), max(ys) or 1.0)
        self.w, self.h, self.pad = w, h, pad

    def xy(self, k: int, y: float) -> str:
        x = self.pad + math.log2(max(k, 1)) / math.log2(self.k_max) * (self.w - self.pad - 4)
        v = 4 + (1 - (y - self.y0) / ((self.y1 - self.y0) or 1.0)) * (self.h - 18)
        return f"{x:.0f},{v:.0f}"

    def axes(self) -> str:
        top, bottom, mid = self.xy(1, self.y1), self.xy(1, self.y0), self.xy(1, (self.y0 + self.y1) / 2)
        lines = "".join(f"M{self.pad} {p.split(',')[1]}H{self.w - 4}" for p in (top, mid, bottom))
        yb = int(bottom.split(",")[1])
        return (f'<path class="g" d="{lines}"/>'
                f'<text class="ax" x="0" y="{yb}">{self.y0:g}</text>'
                f'<text class="ax" x="0" y="{int(top.split(",")[1]) + 8}">{self.y1:g}</text>'
                f'<text class="ax" x="{self.pad}" y="{self.h - 2}">k=1</text>'
                f'<text class="ax" x="{self.w - 4}" y="{self.h - 2}" text-anchor="end">{self.k_max}</text>')

    def line(self, c: Curve) -> str:
        return " ".join(self.xy(k, y) for k, y in zip(c.k, c.value))

    def band(self, c: Curve) -> str:
        up = [self.xy(k, y) for k, y in zip(c.k, c.hi)]
        down = [self.xy(k, y) for k, y in zip(reversed(c.k), reversed(c.lo))]
        return " ".join(up + down)


def _paths(frame: Frame, c: Curve, colour: str) -> str:
    return (f'<polygon class="band" fill="{colour}" points="{frame.band(c)}"/>'
            f'<polyline class="line" stroke="{colour}" points="{frame.line(c)}"/>')


def curves_html(board: Board) -> str:
    """The curves section's body ('' when the board has no curves)."""
    if board.curves is None:
        return ""
    drawn = [(i, thin(c)) for i, c in enumerate(board.curves) if c is not None and c.k]
    if not drawn:
        return ""
    if len(drawn) <= OVERLAY_MAX:
        return _overlay(board, drawn)
    return _multiples(board, drawn)


def _overlay(board: Board, drawn: list[tuple[int, Curve]]) -> str:
    frame = Frame([c for _, c in drawn], 640, 300, 22)
    body = "".join(_paths(frame, c, COLOURS[n % len(COLOURS)]) for n, (_, c) in enumerate(drawn))
    legend = "".join(f'<span><i style="background:{COLOURS[n % len(COLOURS)]}"></i>{escape(board.models[i])}</span>'
                     for n, (i, _) in enumerate(drawn))
    return (f'<svg viewBox="0 0 640 300" style="max-width:760px" role="img" aria-label="{escape(board.curve_label)}">'
            f"{frame.axes()}{body}</svg><div class=\"legend\">{legend}</div>")


def _multiples(board: Board, drawn: list[tuple[int, Curve]]) -> str:
    frame = Frame([c for _, c in drawn], 200, 110, 16)
    ref_index, ref = drawn[0]
    ref_line = f'<polyline class="ref" points="{frame.line(ref)}"/>'
    short = shorten_names([board.models[i] for i, _ in drawn], 28)
    panels = []
    for (i, c), name in zip(drawn, short):
        rank = board.ranks[i]
        label = f"{rank[0]}. " if rank else ""
        panels.append(f'<figure><figcaption title="{escape(board.models[i])}">{escape(label + name)}</figcaption>'
                      f'<svg viewBox="0 0 200 110">{frame.axes()}{ref_line if i != ref_index else ""}'
                      f"{_paths(frame, c, COLOURS[0])}</svg></figure>")
    return (f'<p class="foot">One panel per model in rank order; dashed: {escape(board.models[ref_index])} '
            f"(the first) for reference.</p><div class=\"grid\">" + "".join(panels) + "</div>")
