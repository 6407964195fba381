"""The HTML page of a Board: self-contained (no URL to load, a CSP that
forbids loads), of modest size, and, opened by a real browser (Debian's
chromium, headless; .ci/run installs it), showing every model, every column
and the comparison matrix, sorting on a header's click, with no console
error. The screenshot is kept under /tmp/kscore-present/ to look at."""

from __future__ import annotations

import re
import shutil
import subprocess
from html import unescape
from pathlib import Path
from urllib.parse import quote

import pytest

from kscore.present.html import render_html
from kscore.present.model import Board

from .present_boards import board

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_browser = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
SHOTS = Path("/tmp/kscore-present")


def _chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    cmd = [CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", f"--user-data-dir={tmp / 'profile'}",
           "--enable-logging=stderr", "--v=0", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180, check=True)


def _page(tmp: Path, b: Board, name: str = "board.html") -> Path:
    path = tmp / name
    path.write_text(render_html(b), encoding="utf-8")
    return path


def _main_table(dom: str) -> str:
    start = dom.index('<table class="sortable"')
    return dom[start:dom.index("</table>", start)]


def _order(dom: str) -> list[int]:
    return [int(i) for i in re.findall(r'<tr data-i="(\d+)"', _main_table(dom))]


def _console(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def test_page_loads_nothing() -> None:
    page = render_html(board(30, 4, subsets=1))
    assert not re.search(r"https?:", page), "a URL in the page"
    assert not re.search(r"<(link|img|iframe|object|embed)\b|\bsrc\s*=|@import|url\(|\bimport\s*\(", page)
    assert "default-src 'none'" in page  # the CSP: a browser refuses any load


def test_size_is_modest_for_200_models_20_metrics() -> None:
    full = len(render_html(board(200, 20)).encode())
    no_matrix = len(render_html(board(200, 20, pairwise=False)).encode())
    half = len(render_html(board(100, 20, pairwise=False)).encode())
    assert full < 1_500_000, full
    assert no_matrix < 2.2 * half, (no_matrix, half)  # the table and curves grow linearly with the models


@needs_browser
def test_browser_shows_every_model_column_and_the_matrix(tmp_path: Path) -> None:
    b = board(30, 8, subsets=2)  # 30: the matrix's cells show their numbers (more: colours only)
    path = _page(tmp_path, b)
    run = _chromium(tmp_path, "--dump-dom", path.as_uri())
    assert _console(run.stderr) == []  # no script error, no refused load
    dom = run.stdout
    text = unescape(re.sub(r"<[^>]+>", "\n", dom))
    names = [unescape(x) for x in re.findall(r'<td class="name">([^<]*)</td>', _main_table(dom))]
    assert names == b.models
    headers = [unescape(h) for h in re.findall(r"<th[^>]*data-name=\"[^\"]*\"[^>]*>([^<]*)</th>", _main_table(dom))]
    assert headers == ["rank", "model", *(m.name for m in b.metrics), *(c.name for c in b.info)]
    matrix = dom[dom.index('<div class="scroll pw-box">'):]
    matrix = matrix[:matrix.index("</table>")]
    rows = re.findall(r"<tr>(.*?)</tr>", matrix)
    assert len(rows) == 1 + len(b.models)
    assert all(len(re.findall(r"<td", r)) == len(b.models) for r in rows[1:])
    pw = b.pairwise
    assert pw is not None
    d = pw.difference[0][1]
    assert d is not None and f"+{d:.2f}" in rows[1]  # row 1 minus column 2, as the cell shows it
    for i, row in enumerate(rows[1:]):  # colour-coded: green where the row is significantly better, red worse
        classes = re.findall(r'<td class="([a-z]+)\d?"', row)
        for j, c in enumerate(classes):
            dij = pw.difference[i][j]
            want = "na" if dij is None else "ns" if not pw.significant[i][j] else "up" if dij > 0 else "dn"
            assert c == want, (i, j, c, want)
    assert {"up", "dn", "ns"} <= set(re.findall(r'<td class="([a-z]+)\d?"', matrix))
    assert dom.count('<section class="subset">') == 2
    assert b.footer in text


@needs_browser
def test_browser_sorts_on_a_click(tmp_path: Path) -> None:
    b = board(40, 8)
    path = _page(tmp_path, b)
    metric = b.metrics[-1]  # not computed for one model: that one goes last

    def order(clicks: str) -> list[int]:
        run = _chromium(tmp_path, "--dump-dom", path.as_uri() + "#sort=" + quote(clicks))
        assert _console(run.stderr) == []
        return _order(run.stdout)

    assert order("") == list(range(40))
    values = [(v.value if v else None) for v in metric.values]
    scored = [i for i in range(40) if values[i] is not None]
    by_value = sorted(scored, key=lambda i: (-round(values[i] or 0, 3), i))
    assert order(metric.name) == by_value + [i for i in range(40) if values[i] is None]
    ascending = sorted(scored, key=lambda i: (round(values[i] or 0, 3), i))
    assert order(f"{metric.name},{metric.name}") == ascending + [i for i in range(40) if values[i] is None]
    assert order("model") == sorted(range(40), key=lambda i: (b.models[i].lower(), i))
    assert order("model,rank") == list(range(40))


@needs_browser
def test_screenshot(tmp_path: Path) -> None:
    SHOTS.mkdir(exist_ok=True)
    for n, m in ((12, 6), (200, 20)):
        path = _page(tmp_path, board(n, m, subsets=1 if n < 100 else 0), f"board-{n}.html")
        shot = SHOTS / f"page-{n}.png"
        shot.unlink(missing_ok=True)
        _chromium(tmp_path, "--window-size=1400,2400", "--hide-scrollbars", f"--screenshot={shot}", path.as_uri())
        data = shot.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000
        shutil.copy(path, SHOTS / path.name)


@needs_browser
def test_cli_writes_the_page_with_every_model_and_the_matrix(tmp_path: Path) -> None:
    """``kscore leaderboard --format html`` on the shipped sample: the page a
    browser renders names every model, every metric, the pairwise matrix on
    the ranking metric and the footer's interval."""
    pytest.importorskip("duckdb")  # the leaderboard's engine (cli extra)
    import json
    import sys

    out = tmp_path / "board.html"
    done = subprocess.run([sys.executable, "-m", "kscore", "leaderboard", "-o", str(out)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    board_json = json.loads(subprocess.run([sys.executable, "-m", "kscore", "leaderboard", "--format", "json"],
                                           capture_output=True, text=True, timeout=300, check=True).stdout)
    run = _chromium(tmp_path, "--dump-dom", out.as_uri())
    dom = run.stdout
    models = [m["model"] for m in board_json["models"]]
    assert len(models) == 8 and all(m in dom for m in models)
    assert all(metric in _main_table(dom) for metric in board_json["models"][0]["metrics"])
    assert "Pairwise comparisons" in dom and "interval over questions" in dom
    assert not [line for line in _console(run.stderr) if "Refused" in line or "Error" in line]


@needs_browser
def test_page_of_10000_models_is_small_and_finds_a_model(tmp_path: Path) -> None:
    # Issue 26: a sweep of 10,000 checkpoints with alike names, 100
    # questions x 4 samples: the page stays under 20 MB (the matrix for the
    # top models only, a "vs next" column for the rest) and its search box
    # finds one model among them.
    import numpy as np
    import pandas as pd

    import kscore
    from kscore.present.from_leaderboard import MATRIX_MODELS, page_board

    rng = np.random.default_rng(3)
    L, Q = 10_000, 100
    names = [f"sweep-{i % 7}/qwen2.5-7b-grpo-lr{('1e-6', '2e-6', '5e-6')[i // 7 % 3]}-seed{i // 21 % 8}-"
             f"step{i:06d}" for i in range(L)]
    p = 1 / (1 + np.exp(-(rng.normal(0, 0.4, L)[:, None] - rng.normal(0, 1.5, Q))))
    counts = pd.DataFrame({"model": np.repeat(names, Q), "question": np.tile([f"q{j}" for j in range(Q)], L),
                           "n": 4, "c": rng.binomial(4, p).ravel()})
    lb = kscore.leaderboard(counts, metrics="pass@1,bayes@N")
    b = page_board(lb)
    assert b.pairwise is not None and len(b.pairwise.difference) == MATRIX_MODELS
    page = render_html(b)
    assert len(page.encode()) < 20e6
    target = lb.rows[6543].model
    path = tmp_path / "board.html"
    path.write_text(page, encoding="utf-8")
    run = _chromium(tmp_path, "--dump-dom", path.as_uri() + "#find=" + quote(target.split("/")[1]))
    table = _main_table(run.stdout)
    shown = [unescape(m) for m in re.findall(r'<tr data-i="\d+">.*?<td class="name">([^<]*)</td>', table)]
    assert shown == [target]  # (hidden rows carry hidden="")
    assert len(re.findall(r'<tr data-i="\d+" hidden=""', table)) == L - 1
    assert f"1 of {L} models" in run.stdout
    assert not [line for line in _console(run.stderr) if "Uncaught" in line or "Error" in line]
