"""Plots of 3, 30 and 200 models: curves (one chart, then small multiples)
and intervals (a row per model), every model drawn and named distinctly.
The PNGs are kept under /tmp/kscore-present/ to look at."""

from __future__ import annotations

from pathlib import Path

import matplotlib.image as mpimg
import pytest
from matplotlib.text import Text

from kscore.present.model import rank_text
from kscore.present.plot import OVERLAY_MAX, curves_figure, plot_curves, plot_intervals

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
    assert height >= 10 * n  # a row of at least 10 pixels per model
    assert width >= 900


def test_intervals_name_every_model_distinctly() -> None:
    from kscore.present.plot import intervals_figure

    b = board(200, 6, pairwise=False)
    fig = intervals_figure(b)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert len(labels) == 200 and len(set(labels)) == 200
    assert [ax.get_title() for ax in fig.axes] == [m.name for m in b.metrics[:4]]


def test_no_curves_is_an_error() -> None:
    with pytest.raises(ValueError, match="no curves"):
        curves_figure(board(3, 2, curves=False, pairwise=False))
