"""Plots of 3, 30 and 200 models: curves (one chart, then small multiples)
and intervals (a row per model), every model drawn and named distinctly.
The PNGs are kept under /tmp/kscore-present/ to look at."""

from __future__ import annotations

from pathlib import Path

import matplotlib.image as mpimg
import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.text import Text

from kscore.present.model import Estimate, MetricColumn, rank_text
from kscore.present.plot import (
    OVERLAY_MAX,
    curves_figure,
    interval_metrics,
    intervals_figure,
    plot_curves,
    plot_intervals,
)

from .present_boards import board

OUT = Path("/tmp/kscore-present")


@pytest.mark.parametrize("n", [3, 30, 200])
def test_curves_for_any_number_of_models(n: int) -> None:
    b = board(n, 4, pairwise=False)
    fig = curves_figure(b)
    if n <= OVERLAY_MAX:
        (legend,) = fig.legends  # under the chart, titled with what the line and band are
        labels = [t.get_text() for t in legend.get_texts()]
        assert labels == [f"{rank_text(r)}. {name}" for r, name in zip(b.ranks, b.models)]  # whole names
        assert " ".join(legend.get_title().get_text().split()) == b.curve_note
        assert len(fig.axes[0].collections) == n  # a band per model
    else:
        texts = [t.get_text() for t in fig.axes[0].findobj(Text) if t.get_text()[:1].isdigit()]
        assert len(texts) == n and len(set(texts)) == n  # a panel per model, captions distinct
        assert [t.split(". ")[0] for t in texts] == [rank_text(r) for r in b.ranks]  # in rank order
        assert len(fig.axes[0].collections) == n  # a band per model
        header = " ".join(" ".join(t.get_text().split()) for t in fig.texts)
        assert b.curve_note in header
    OUT.mkdir(exist_ok=True)
    path = plot_curves(b, OUT / f"curves-{n}.png")
    image = mpimg.imread(path)
    assert image.shape[0] >= 500 and image.shape[1] >= 900


@pytest.mark.parametrize("n", [3, 30, 200])
def test_intervals_for_any_number_of_models(n: int) -> None:
    b = board(n, 6, pairwise=False)
    OUT.mkdir(exist_ok=True)
    path = plot_intervals(b, OUT / f"intervals-{n}.png")
    height, width = mpimg.imread(path).shape[:2]
    assert height >= 15 * n  # a row of at least 15 pixels per model
    assert width >= 900


def panel(ax: Axes) -> tuple[dict[int, float], dict[int, tuple[float, float]]]:
    """A panel's dots and lines by row."""
    (dots,) = [line for line in ax.lines if line.get_gid() == "estimates"]
    (lines,) = [c for c in ax.collections if c.get_gid() == "intervals"]
    assert isinstance(lines, LineCollection)
    xs, ys = np.asarray(dots.get_xdata(), float), np.asarray(dots.get_ydata(), float)
    return ({round(float(y)): float(x) for x, y in zip(xs, ys)},
            {round(float(s[0][1])): (float(s[0][0]), float(s[1][0])) for s in lines.get_segments()})


def test_intervals_name_every_model_distinctly_and_draw_the_boards_numbers() -> None:
    b = board(200, 6, pairwise=False)
    fig = intervals_figure(b)
    names = [t.get_text() for t in fig.findobj(Text) if t.get_gid() == "name"]
    ranks = [t.get_text() for t in fig.findobj(Text) if t.get_gid() == "rank"]
    assert len(names) == 200 and len(set(names)) == 200
    assert ranks == [rank_text(r) for r in b.ranks]
    # Every metric with an interval, the sorting one first (here the first).
    assert [ax.get_title() for ax in fig.axes] == [f"{b.metrics[0].name} (sorted by)",
                                                   *[m.name for m in b.metrics[1:]]]
    for ax, m in zip(fig.axes, b.metrics):
        dots, lines = panel(ax)
        for y, v in enumerate(m.values):
            if v is None:
                assert y not in dots and y not in lines
            else:
                assert dots[y] == v.value and lines[y] == (v.lo, v.hi)
    missing = [t for t in fig.axes[-1].texts if t.get_gid() == "missing"]
    assert [t.get_text() for t in missing] == ["not computed"]  # the model without the last metric


def test_intervals_metrics_chosen_ordered_and_as_given() -> None:
    b = board(5, 3, pairwise=False)
    b.metrics.append(MetricColumn("accuracy", [Estimate(0.5 + i / 100) for i in range(5)]))
    b.sort = b.metrics[2].name
    assert [m.name for m in interval_metrics(b)] == [b.metrics[2].name, b.metrics[0].name, b.metrics[1].name]
    assert [m.name for m in interval_metrics(b, ["accuracy", b.metrics[0].name])] == [b.metrics[0].name,
                                                                                       "accuracy"]
    fig = intervals_figure(b, ["accuracy"])
    dots, lines = panel(fig.axes[0])
    assert dots == {y: 0.5 + y / 100 for y in range(5)} and lines == {}  # no interval: dots only
    with pytest.raises(ValueError, match="no metric 'f1'"):
        intervals_figure(b, ["f1"])


def test_a_value_outside_its_interval_is_drawn_as_it_is() -> None:
    """With the posterior interval the table's classic estimate can lie
    outside the credible interval: the plot shows both unchanged and says
    so (Board.interval_note)."""
    b = board(3, 1, pairwise=False)
    values = b.metrics[0].values
    b.metrics[0].values = [values[0], Estimate(0.9, 0.5, 0.6), *values[2:]]
    b.interval_note = "dot: the classic estimate; line: the credible interval, which can miss the dot"
    fig = intervals_figure(b)
    dots, lines = panel(fig.axes[0])
    assert dots[1] == 0.9 and lines[1] == (0.5, 0.6)
    assert any(b.interval_note in " ".join(t.get_text().split()) for t in fig.texts)


@pytest.mark.parametrize("fmt", ["png", "svg", "pdf"])
def test_formats_by_extension(fmt: str, tmp_path: Path) -> None:
    b = board(3, 2, pairwise=False)
    magic = {"png": b"\x89PNG", "svg": b"<?xml", "pdf": b"%PDF-"}[fmt]
    for draw in (plot_intervals, plot_curves):
        path = draw(b, tmp_path / f"plot.{fmt}")
        assert Path(path).read_bytes().startswith(magic)
    assert Path(plot_intervals(b, tmp_path / "no-extension")).read_bytes().startswith(b"\x89PNG")
    assert Path(plot_intervals(b, tmp_path / "x.tmp", format=fmt)).read_bytes().startswith(magic)
    with pytest.raises(ValueError, match="cannot draw 'jpg'"):
        plot_intervals(b, tmp_path / "plot.jpg")


def test_no_curves_is_an_error() -> None:
    with pytest.raises(ValueError, match="no curves"):
        curves_figure(board(3, 2, curves=False, pairwise=False))
