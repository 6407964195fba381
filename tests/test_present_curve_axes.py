"""The HTML page's pass@k curves read like a chart: labelled axes, k on a
log scale with a tick at each power of two, the metric from 0 to 1 with
grid lines, as the PNG plots have. The tick positions are checked against
the curves' own points (a point at k = 8 lies on the tick labelled 8, a
value of 0.6 on the tick labelled 0.6) and against the scale (equal steps
per doubling of k and per 0.2 of the metric). A headless-Chromium
screenshot is kept under /tmp/kscore-present/ to look at."""

from __future__ import annotations

import doctest
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import kscore.present._html_curves as html_curves
from kscore.present.html import render_html
from kscore.present.model import Board, Curve, Estimate, MetricColumn

from .present_boards import board

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SHOTS = Path("/tmp/kscore-present")
KS = [1, 2, 4, 8, 16, 32, 64]


def _board(values: list[list[float]], ks: list[int] = KS) -> Board:
    n = len(values)
    curves: list[Curve | None] = [Curve(ks, v, [max(0.0, x - 0.05) for x in v], [min(1.0, x + 0.05) for x in v])
                                  for v in values]
    metric = MetricColumn("pass@1", [Estimate(v[0]) for v in values])
    return Board("axes", [f"model-{i}" for i in range(n)], [(i + 1, i + 1) for i in range(n)], [metric],
                 curves=curves)


def _svgs(page: str) -> list[ET.Element]:
    """The curve charts' <svg> elements, parsed (inline SVG is XML here)."""
    section = page[page.index("curves</h2>"):]
    return [ET.fromstring(s) for s in re.findall(r"<svg\b.*?</svg>", section, re.DOTALL)]


def _ticks(svg: ET.Element, cls: str, coord: str) -> dict[str, int]:
    return {t.text or "": int(t.get(coord, "")) for t in svg.iter("text") if cls in (t.get("class") or "").split()}


def _points(svg: ET.Element) -> list[list[tuple[int, int]]]:
    lines = [p.get("points", "") for p in svg.iter("polyline") if p.get("class") == "line"]
    return [[(int(a), int(b)) for a, b in (xy.split(",") for xy in line.split())] for line in lines]


def test_overlay_axes_are_labelled_with_ticks_where_the_points_are() -> None:
    values = [[0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 1.0], [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]]
    (svg,) = _svgs(render_html(_board(values)))
    titles = [t.text for t in svg.iter("text") if t.get("class") == "at"]
    assert titles == ["k (samples, log scale)", "pass@k"]

    xs = _ticks(svg, "tx", "x")
    assert list(xs) == [str(k) for k in KS]  # every power of two from 1 to k_max, labelled
    steps = [xs[str(b)] - xs[str(a)] for a, b in zip(KS, KS[1:])]
    assert max(steps) - min(steps) <= 1 and min(steps) > 20  # log scale: equal steps per doubling

    ys = _ticks(svg, "ty", "y")
    assert list(ys) == ["0", "0.2", "0.4", "0.6", "0.8", "1"]
    gaps = [ys[a] - ys[b] for a, b in zip(list(ys), list(ys)[1:])]
    assert max(gaps) - min(gaps) <= 1 and min(gaps) > 20  # linear, upwards

    for line, vals in zip(_points(svg), values):
        for (x, y), k, v in zip(line, KS, vals):
            assert abs(x - xs[str(k)]) <= 1, (k, x, xs)
            label = f"{v:g}"
            if label in ys:
                assert abs(y - ys[label]) <= 1, (v, y, ys)

    # The tick marks: one on the k axis under each labelled k, one on the value axis at each value tick.
    axis = next(p.get("d", "") for p in svg.iter("path") if p.get("class") == "axl")
    bottom = ys["0"]
    for k in KS:
        assert f"M{xs[str(k)]} {bottom}v3" in axis, k
    left = xs["1"]
    for label, y in ys.items():
        assert f"M{left} {y}h-3" in axis, label


def test_large_k_labels_some_powers_and_ticks_all() -> None:
    ks = [2**p for p in range(11)]  # 1..1024
    (svg,) = _svgs(render_html(_board([[min(1.0, 0.1 * (i + 1)) for i in range(11)]], ks)))
    xs = _ticks(svg, "tx", "x")
    assert "1" in xs and 2 <= len(xs) <= 12
    assert all(int(k) in ks for k in xs)
    axis = next(p.get("d", "") for p in svg.iter("path") if p.get("class") == "axl")
    assert len(re.findall(r"v3", axis)) == len(ks)  # a tick mark at every power of two
    (line,) = _points(svg)
    assert line[0][0] == xs["1"] and line[-1][0] == max(x for x, _ in line)
    assert abs(line[-1][0] - (xs["512"] + (xs["512"] - xs["1"]) / 9)) <= 1  # 1024 is one more doubling


def test_values_outside_zero_one_get_ticks_over_their_range() -> None:
    v = [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.5]
    b = _board([v])
    b.curves = [Curve(KS, v, [x - 0.05 for x in v], [x + 0.05 for x in v])]
    b.curve_label = "reward@k"
    (svg,) = _svgs(render_html(b).replace("reward@k curves", "pass@k curves"))
    ys = {float(k): v for k, v in _ticks(svg, "ty", "y").items()}
    assert min(ys) >= 0.15 - 1e-9 and max(ys) <= 1.55 + 1e-9 and len(ys) >= 3
    (t0, y0), (t1, y1) = sorted(ys.items())[:2]
    (line,) = _points(svg)
    for (_, y), value in zip(line, v):  # each point where the ticks' linear scale puts it
        assert abs(y - (y0 + (value - t0) / (t1 - t0) * (y1 - y0))) <= 1, value
    assert [t.text for t in svg.iter("text") if t.get("class") == "at"][1] == "reward@k"


def test_small_multiples_have_ticks_in_every_panel() -> None:
    page = render_html(board(30, 3))
    svgs = _svgs(page)
    assert len(svgs) == 30
    assert "Each panel: k = 1 to 64 across (log scale), pass@k from 0 to 1 up." in page
    for svg in svgs:
        xs, ys = _ticks(svg, "tx", "x"), _ticks(svg, "ty", "y")
        assert list(xs) == ["1", "8", "64"] and list(ys) == ["0", "0.5", "1"]
        assert xs["8"] - xs["1"] == pytest.approx((xs["64"] - xs["1"]) / 2, abs=1)
        assert ys["0"] - ys["0.5"] == pytest.approx((ys["0"] - ys["1"]) / 2, abs=1)
        assert xs["1"] == _points(svg)[0][0][0]


def test_examples() -> None:
    result = doctest.testmod(html_curves)
    assert result.attempted > 0 and result.failed == 0, result


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
def test_screenshot(tmp_path: Path) -> None:
    assert CHROMIUM is not None
    SHOTS.mkdir(exist_ok=True)
    for n in (8, 30):
        page = tmp_path / f"curves-{n}.html"
        page.write_text(render_html(board(n, 3, pairwise=False)), encoding="utf-8")
        shot = SHOTS / f"curves-{n}.png"
        shot.unlink(missing_ok=True)
        subprocess.run([CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", f"--user-data-dir={tmp_path / 'p'}",
                        "--window-size=1200,1600", "--hide-scrollbars", f"--screenshot={shot}", page.as_uri()],
                       capture_output=True, text=True, timeout=180, check=True)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
