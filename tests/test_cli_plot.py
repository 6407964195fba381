"""``kscore leaderboard FILE --plot out.png`` for 3, 30 and 200 models: the
PNG is the figure kscore.present.plot draws (caught here on its way to the
file), one chart with a legend entry per model up to OVERLAY_MAX models and
a panel per model beyond, every model named distinctly, in board order, with
what the line and the band are written on it. ``--plot-intervals``: a row
per model and a panel per metric, each dot and line the table's numbers
(the JSON output's, exactly); SVG and PDF by the file's extension."""

from __future__ import annotations

import csv
import json
import struct
from collections.abc import Sequence
from pathlib import Path
from xml.etree import ElementTree

import matplotlib.image as mpimg
import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.text import Text

from kscore.cli import main
from kscore.present import plot
from kscore.present.model import Board

pytest.importorskip("pyarrow")
pytest.importorskip("rich")
pytest.importorskip("duckdb")  # the leaderboard's engine (cli extra)


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


# ------------------------------------------------------------------ --plot-intervals


@pytest.fixture
def interval_figures(monkeypatch: pytest.MonkeyPatch) -> list[Figure]:
    """The figures the command draws with kscore.present.plot.intervals_figure."""
    made: list[Figure] = []
    real = plot.intervals_figure

    def spy(board: Board, metrics: Sequence[str] | None = None, title: str | None = None) -> Figure:
        made.append(real(board, metrics, title))
        return made[-1]

    monkeypatch.setattr(plot, "intervals_figure", spy)
    monkeypatch.setenv("KSCORE_DEBUG", "1")
    return made


def drawn(ax: Axes) -> dict[int, tuple[float, float, float]]:
    """What a panel draws, by row: (dot, line's left end, line's right end)."""
    (dots,) = [line for line in ax.lines if line.get_gid() == "estimates"]
    (lines,) = [c for c in ax.collections if c.get_gid() == "intervals"]
    assert isinstance(lines, LineCollection)
    ends = {round(float(seg[0][1])): (float(seg[0][0]), float(seg[1][0])) for seg in lines.get_segments()}
    xs, ys = np.asarray(dots.get_xdata(), float), np.asarray(dots.get_ydata(), float)
    return {round(float(y)): (float(x), *ends[round(float(y))]) for x, y in zip(xs, ys)}


@pytest.mark.parametrize("n", [3, 30, 200])
def test_plot_intervals_of_any_number_of_models(n: int, tmp_path: Path, interval_figures: list[Figure]) -> None:
    """A row per model in rank order with its rank range and a distinct name,
    a panel per metric (the sorting one first), and in each the dot and the
    line the table's numbers, unchanged (the JSON's)."""
    png, js = tmp_path / "intervals.png", tmp_path / "board.json"
    assert main(["leaderboard", str(results(tmp_path, n)), "--plot-intervals", str(png), "-o", str(js),
                 "--quiet"]) == 0
    (fig,) = interval_figures
    width, height = png_size(png)
    assert (width, height) == (round(fig.get_figwidth() * plot.DPI), round(fig.get_figheight() * plot.DPI))
    board = json.loads(js.read_text())
    models = board["models"]
    metrics = list(models[0]["metrics"])
    sort = "bayes@N"
    assert [ax.get_title() for ax in fig.axes] == [f"{sort} (sorted by)", *[m for m in metrics if m != sort]]
    ranks = [t.get_text() for t in fig.findobj(Text) if t.get_gid() == "rank"]
    names = [t.get_text() for t in fig.findobj(Text) if t.get_gid() == "name"]
    assert ranks == [m["rank"] for m in models]
    assert len(names) == n and len(set(names)) == n
    for name, m in zip(names, models):
        assert name == m["model"] or "…" in name
    for ax in fig.axes:
        metric = ax.get_title().removesuffix(" (sorted by)")
        rows = drawn(ax)
        assert sorted(rows) == list(range(n))
        for y, m in enumerate(models):
            v = m["metrics"][metric]
            assert rows[y] == (v["estimate"], v["lo"], v["hi"]), (metric, m["model"])  # exactly the table's
    row_px = (fig.axes[0].get_window_extent().height) / n
    assert row_px >= 15  # a row at least 15 pixels (7-point names) at 200 models
    text = " ".join(" ".join(t.get_text().split()) for t in fig.texts)
    assert "dot: the classic estimate (the table's value); line: its 95% interval over questions" in text
    assert f"{n} models, sorted by {sort}" in text


def test_plot_intervals_with_top_and_both_plots(tmp_path: Path, interval_figures: list[Figure],
                                                figures: list[Figure]) -> None:
    curves, intervals = tmp_path / "curves.png", tmp_path / "intervals.png"
    assert main(["leaderboard", str(results(tmp_path, 30)), "--plot", str(curves), "--plot-intervals",
                 str(intervals), "--top", "12", "--quiet", "-o", str(tmp_path / "board.json")]) == 0
    (fig,) = interval_figures
    assert len(figures) == 1 and len([t for t in fig.findobj(Text) if t.get_gid() == "name"]) == 12
    png_size(curves)
    png_size(intervals)


@pytest.mark.parametrize("flag", ["--plot", "--plot-intervals"])
def test_plots_as_svg_and_pdf(flag: str, tmp_path: Path) -> None:
    """The extension chooses the format; SVG keeps the text as text (a model's
    name can be searched for)."""
    source = results(tmp_path, 3)
    svg, pdf = tmp_path / "plot.svg", tmp_path / "plot.pdf"
    assert main(["leaderboard", str(source), flag, str(svg), "--quiet", "-o", str(tmp_path / "b.csv")]) == 0
    root = ElementTree.parse(svg).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert "organisation-0/family-7b-instruct-v0-preview-2026-11" in svg.read_text()
    assert main(["leaderboard", str(source), flag, str(pdf), "--quiet", "-o", str(tmp_path / "b.csv")]) == 0
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")


@pytest.mark.parametrize("flag", ["--plot", "--plot-intervals"])
def test_a_plot_format_not_drawn_fails_before_anything_is_written(flag: str, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["leaderboard", str(results(tmp_path, 3)), flag, str(tmp_path / "plot.jpg")]) == 1
    out, err = capsys.readouterr()
    assert out == ""  # no table: refused before the results are read
    assert err.strip() == f"kscore: error: {flag} {tmp_path / 'plot.jpg'}: plots are written as .png, .svg or " \
                          ".pdf (PNG without an extension)"
    assert not (tmp_path / "plot.jpg").exists()


def test_two_outputs_of_one_file_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    same = tmp_path / "out.png"
    source = results(tmp_path, 3)
    for args in (["--plot", str(same), "--plot-intervals", str(same)], ["-o", str(same), "--plot", str(same)]):
        assert main(["leaderboard", str(source), *args]) == 1
        assert "are the same file" in capsys.readouterr().err
    assert not same.exists()
