"""``kscore leaderboard FILE --plot out.png`` for 3, 30 and 200 models: the
PNG is the figure kscore.present.plot draws (caught here on its way to the
file), one chart with a legend entry per model up to OVERLAY_MAX models and
a panel per model beyond, every model named distinctly, in board order, with
what the line and the band are written on it."""

from __future__ import annotations

import csv
import json
import struct
from pathlib import Path

import matplotlib.image as mpimg
import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

from kscore.cli import main
from kscore.present import plot
from kscore.present.model import Board

pytest.importorskip("pyarrow")
pytest.importorskip("rich")


def results(folder: Path, n_models: int, questions: int = 20, samples: int = 8) -> Path:
    """Long-format results (model, question, sample, correct) of ``n_models``
    with long names alike but for a few characters."""
    rng = np.random.default_rng(n_models)
    sizes = ["7b", "8b", "13b", "70b", "405b"]
    path = folder / f"results-{n_models}.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "question", "sample", "correct"])
        for i in range(n_models):
            name = f"organisation-{i % 3}/family-{sizes[i % 5]}-instruct-v{i // 5}-preview-2026-11"
            p = np.clip(rng.uniform(0.05, 0.9) + rng.normal(0, 0.2, questions), 0, 1)
            for q in range(questions):
                w.writerows([name, f"q{q}", s, int(rng.random() < p[q])] for s in range(samples))
    return path


@pytest.fixture
def figures(monkeypatch: pytest.MonkeyPatch) -> list[Figure]:
    """The figures the command draws (kscore.present.plot.curves_figure's)."""
    made: list[Figure] = []
    real = plot.curves_figure

    def spy(board: Board, title: str | None = None) -> Figure:
        made.append(real(board, title))
        return made[-1]

    monkeypatch.setattr(plot, "curves_figure", spy)
    monkeypatch.setenv("KSCORE_DEBUG", "1")  # a failure raises here with its traceback
    return made


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) from a PNG's header, after checking it decodes whole."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert mpimg.imread(path).shape[:2] == (height, width)
    return int(width), int(height)


@pytest.mark.parametrize("n", [3, 30, 200])
def test_plot_of_any_number_of_models(n: int, tmp_path: Path, figures: list[Figure]) -> None:
    png, js = tmp_path / "curves.png", tmp_path / "board.json"
    assert main(["leaderboard", str(results(tmp_path, n)), "--plot", str(png), "-o", str(js), "--quiet"]) == 0
    (fig,) = figures
    width, height = png_size(png)
    assert (width, height) == (round(fig.get_figwidth() * plot.DPI), round(fig.get_figheight() * plot.DPI))
    board = json.loads(js.read_text())
    models, ranks = [m["model"] for m in board["models"]], [m["rank"] for m in board["models"]]
    assert len(models) == n
    text = " ".join(" ".join(t.get_text().split()) for t in fig.findobj(Text))
    assert "line: the classic pass@k estimate (as the table's pass@k cells); band: its 95% interval over " \
           "questions" in text
    if n <= plot.OVERLAY_MAX:
        assert (width, height) == (960, 600)
        (legend,) = fig.legends
        labels = [t.get_text() for t in legend.get_texts()]
        assert labels == [f"{r}. {m}" for r, m in zip(ranks, models)]  # whole names, in board order
        assert len(fig.axes) == 1 and len(fig.axes[0].collections) == n  # a band per model
    else:
        (ax,) = fig.axes  # the panels are cells of one axes (200 axes take minutes to draw)
        captions = [t.get_text() for t in ax.texts]
        assert len(captions) == n and len(set(captions)) == n  # a panel per model, told apart
        assert [c.split(". ", 1)[0] for c in captions] == ranks
        assert len(ax.collections) == n and len(ax.patches) == n  # a band and a frame per model
        assert width * height >= n * 150 * 110  # a panel at least 150 x 110 pixels
        assert width < 2.5 * height  # about 16:10, not a strip


def test_top_plots_the_models_shown(tmp_path: Path, figures: list[Figure]) -> None:
    png, js = tmp_path / "curves.png", tmp_path / "board.json"
    assert main(["leaderboard", str(results(tmp_path, 30)), "--plot", str(png), "--top", "12", "--quiet",
                 "-o", str(js)]) == 0
    (fig,) = figures
    ranks = [m["rank"] for m in json.loads(js.read_text())["models"]]
    assert len(ranks) == 12 and [t.get_text().split(". ", 1)[0] for t in fig.axes[0].texts] == ranks
    png_size(png)
