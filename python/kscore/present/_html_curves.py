"""The HTML page's curves (pass@k against k) as inline SVG with bands: up to
:data:`OVERLAY_MAX` models in one chart with a legend, more as small
multiples (one panel per model, in rank order, the top model's curve dashed
in each for reference).

Both read like the PNG plots (:mod:`kscore.present.plot`): k across on a
log scale (base 2, a tick at each power of two), the metric up from 0 to 1
(or over the values' range when a curve leaves it), grid lines at the value
ticks, and labelled axes. The small multiples share one frame, so their
ticks are drawn in every panel but labelled sparsely."""

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
#: The x axis's title (what the PNG plots call it, plus the scale, which the
#: ticks alone do not say on a page).
K_TITLE = "k (samples, log scale)"


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


def value_ticks(y0: float, y1: float, most: int) -> list[float]:
    """Round values from ``y0`` to ``y1`` (steps of 1, 2 or 5 times a power
    of ten), at most ``most`` of them; 0 to 1 by 0.2 for ``most`` = 6.

    >>> value_ticks(0.0, 1.0, 6)
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    >>> value_ticks(0.0, 1.0, 3)
    [0.0, 0.5, 1.0]
    """
    span = (y1 - y0) or 1.0
    base = 10.0 ** math.floor(math.log10(span / max(most - 1, 1)))
    step = next(m * base for m in (1, 2, 5, 10, 20) if span / (m * base) <= most - 1)
    first = math.ceil(y0 / step - 1e-9)
    ticks = [round((first + i) * step, 12) for i in range(most + 1)]
    return [t for t in ticks if y0 - 1e-9 <= t <= y1 + 1e-9]


def k_ticks(k_max: int, most: int) -> tuple[list[int], list[int]]:
    """The powers of two from 1 to ``k_max`` (every one gets a tick mark),
    and those of them labelled: every one, or every second, fourth, ...
    power so that at most ``most`` are, always with 1.

    >>> k_ticks(64, 8)
    ([1, 2, 4, 8, 16, 32, 64], [1, 2, 4, 8, 16, 32, 64])
    >>> k_ticks(1024, 4)
    ([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024], [1, 8, 64, 512])
    """
    powers = [2**p for p in range(int(math.log2(max(k_max, 1)) + 1e-9) + 1)]
    every = math.ceil(len(powers) / max(most, 1))
    return powers, powers[::every]


class Frame:
    """Maps (k, value) to SVG coordinates, log2 k across and the value up,
    inside margins that hold the ticks' labels and the axes' titles."""

    def __init__(self, curves: list[Curve], w: int, h: int, left: int, bottom: int, top: int = 6,
                 right: int = 10) -> None:
        ks = [k for c in curves for k in c.k] or [1]
        ys = [y for c in curves for y in (*c.value, *c.lo, *c.hi)] or [0.0, 1.0]
        self.k_max = max(2, max(ks))
        self.y0, self.y1 = (0.0, 1.0) if 0 <= min(ys) and max(ys) <= 1 else (min(ys), max(ys) or 1.0)
        self.w, self.h = w, h
        self.left, self.right, self.top, self.bottom = left, w - right, top, h - bottom

    def x(self, k: int) -> int:
        return round(self.left + math.log2(max(k, 1)) / math.log2(self.k_max) * (self.right - self.left))

    def y(self, v: float) -> int:
        return round(self.bottom - (v - self.y0) / ((self.y1 - self.y0) or 1.0) * (self.bottom - self.top))

    def xy(self, k: int, v: float) -> str:
        return f"{self.x(k)},{self.y(v)}"

    def axes(self, label: str, k_labels: int, value_labels: int, titles: bool = True) -> str:
        """Grid lines at the value ticks, the two axis lines with tick marks,
        the ticks' labels and (with ``titles``) each axis's title. Each tick
        is a ``<text class="tx">`` (k) or ``<text class="ty">`` (value) whose
        ``x`` or ``y`` is where the tick is (the page's style centres the
        former and right-aligns the latter)."""
        ys = value_ticks(self.y0, self.y1, value_labels)
        marks, labelled = k_ticks(self.k_max, k_labels)
        grid = "".join(f"M{self.left} {self.y(v)}H{self.right}" for v in ys)
        ticks = "".join(f"M{self.x(k)} {self.bottom}v3" for k in marks)
        ticks += "".join(f"M{self.left} {self.y(v)}h-3" for v in ys)
        out = [f'<path class="g" d="{grid}"/>',
               f'<path class="axl" d="M{self.left} {self.top}V{self.bottom}H{self.right}{ticks}"/>']
        out += [f'<text class="ax tx" x="{self.x(k)}" y="{self.bottom + 12}">{k}</text>'
                for k in labelled]
        out += [f'<text class="ax ty" x="{self.left - 5}" y="{self.y(v)}" dy="3">{v:g}</text>'
                for v in ys]
        if titles:
            mid_x, mid_y = (self.left + self.right) // 2, (self.top + self.bottom) // 2
            out.append(f'<text class="at" x="{mid_x}" y="{self.h - 3}">{K_TITLE}</text>')
            out.append(f'<text class="at" transform="translate(11 {mid_y}) rotate(-90)">'
                       f"{escape(label)}</text>")
        return "".join(out)

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
    frame = Frame([c for _, c in drawn], 640, 320, left=48, bottom=34)
    body = "".join(_paths(frame, c, COLOURS[n % len(COLOURS)]) for n, (_, c) in enumerate(drawn))
    legend = "".join(f'<span><i style="background:{COLOURS[n % len(COLOURS)]}"></i>{escape(board.models[i])}</span>'
                     for n, (i, _) in enumerate(drawn))
    return (f'<svg viewBox="0 0 640 320" style="max-width:760px" role="img" aria-label="{escape(board.curve_label)}">'
            f"{frame.axes(board.curve_label, 12, 6)}{body}</svg><div class=\"legend\">{legend}</div>")


def _multiples(board: Board, drawn: list[tuple[int, Curve]]) -> str:
    # Small panels: three labelled k ticks and 0 / 0.5 / 1, no titles (the
    # line above the grid says what the axes are, as the PNG's caption does).
    frame = Frame([c for _, c in drawn], 200, 120, left=24, bottom=16, top=5, right=8)
    axes = frame.axes(board.curve_label, 3, 3, titles=False)
    ref_index, ref = drawn[0]
    ref_line = f'<polyline class="ref" points="{frame.line(ref)}"/>'
    short = shorten_names([board.models[i] for i, _ in drawn], 28)
    panels = []
    for (i, c), name in zip(drawn, short):
        rank = board.ranks[i]
        label = f"{rank[0]}. " if rank else ""
        panels.append(f'<figure><figcaption title="{escape(board.models[i])}">{escape(label + name)}</figcaption>'
                      f'<svg viewBox="0 0 200 120">{axes}{ref_line if i != ref_index else ""}'
                      f"{_paths(frame, c, COLOURS[0])}</svg></figure>")
    scale = (f"Each panel: k = 1 to {frame.k_max} across (log scale), "
             f"{board.curve_label} from {frame.y0:g} to {frame.y1:g} up.")
    return (f'<p class="foot">{escape(scale)} One panel per model in rank order; dashed: '
            f"{escape(board.models[ref_index])} (the first) for reference.</p><div class=\"grid\">"
            + "".join(panels) + "</div>")
