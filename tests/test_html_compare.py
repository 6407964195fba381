"""The HTML page compares any model with every other in its own script
(kscore.present._html_assets.COMPARE_JS) from the per-question estimates it
carries (kscore.leaderboard.stats.pair_rows.compare_data): run in node on boards
with missing questions and clusters, its differences, standard errors,
question counts and decisions equal the streamed pair rows (pair_rows,
themselves checked against the all-pairs matrices in test_rank_ranges.py);
in headless Chromium, ``#compare=NAME`` fills the box."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import kscore
from kscore.leaderboard.stats.pair_rows import compare_data, pair_rows
from kscore.present._html_assets import COMPARE_JS

NODE = shutil.which("node")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _long(L: int, Q: int, seed: int, missing: bool, clusters: bool, samples: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    ability = np.round(rng.normal(0, 0.5, L) * 3) / 3  # (near-ties)
    p = 1 / (1 + np.exp(-(ability[:, None] - rng.normal(0, 1, Q))))
    df = pd.DataFrame({"model": np.repeat([f"org/model-{i:03d}" for i in range(L)], Q),
                       "question": np.tile([f"q{j}" for j in range(Q)], L),
                       "n": samples, "c": rng.binomial(samples, p).ravel(),
                       "topic": np.tile([f"t{j % 7}" for j in range(Q)], L)})
    if missing:
        df = df[rng.random(len(df)) > 0.2]
    return df if clusters else df.drop(columns="topic")


def _node(data: dict[str, object], chosen: list[int]) -> list[dict[str, list[float | None]]]:
    assert NODE is not None
    script = COMPARE_JS + f"""
var D={json.dumps(data)},X=kscoreDecode(D);
console.log(JSON.stringify({json.dumps(chosen)}.map(function(i){{
  var R=kscoreCompare(D,X,i);
  ['d','se','p'].forEach(function(k){{R[k]=R[k].map(function(x){{return isFinite(x)?x:null;}});}});
  return R;}})));
"""
    run = subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=120, check=True)
    out: list[dict[str, list[float | None]]] = json.loads(run.stdout)
    return out


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
@pytest.mark.parametrize("missing,clusters,adjust,samples", [
    (False, False, "none", 4), (True, False, "holm", 4), (False, True, "simultaneous", 3),
    (True, True, "none", 7), (False, False, "holm", 300)])
def test_page_comparisons_equal_the_pair_rows(missing: bool, clusters: bool, adjust: str, samples: int) -> None:
    df = _long(40, 60, 3, missing, clusters, samples)
    lb = kscore.leaderboard(df, metrics="pass@1", adjust=adjust, cluster="topic" if clusters else None)
    data = compare_data(lb)
    assert data is not None
    models = data["models"]
    assert isinstance(models, list) and len(models) == 40
    rows = {(r["a"], r["b"]): r for r in pair_rows(lb, "all")}
    chosen = [0, 7, 39]
    for i, got in zip(chosen, _node(data, chosen)):
        for j, b in enumerate(models):
            if j == i:
                continue
            r = rows.get((models[i], b))
            sign = 1.0
            if r is None:
                r, sign = rows[(b, models[i])], -1.0
            assert got["n"][j] == r["questions"]
            if r["diff"] is None:
                assert got["d"][j] is None
                continue
            assert got["d"][j] == pytest.approx(sign * r["diff"], abs=1e-12)
            if r["sigma"] is None:
                assert got["se"][j] is None and not got["sig"][j]
                continue
            assert got["se"][j] == pytest.approx(r["sigma"], rel=1e-9, abs=1e-15)
            assert got["sig"][j] == r["significant"], (i, j, r)
            assert got["p"][j] == pytest.approx(r["p"], rel=2e-6, abs=1e-300)


def test_estimates_are_carried_exactly_and_compactly() -> None:
    lb = kscore.leaderboard(_long(30, 50, 5, True, False, samples=3), metrics="pass@1")
    data = compare_data(lb)
    assert data is not None and data["enc"] == "u8" and data["den"] == 3
    codes = np.frombuffer(base64.b64decode(str(data["x"])), np.uint8).reshape(30, 50)
    from kscore.leaderboard.stats.compare import dense

    assert lb.scores is not None
    X, W, _ = dense(lb.scores, lb.sort.name, list(data["models"]))
    assert np.array_equal(codes == 255, ~W)
    assert np.array_equal(np.where(W, codes / 3, 0.0), np.where(W, X, 0.0))  # (the very doubles)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_browser_compares_a_chosen_model(tmp_path: Path) -> None:
    from urllib.parse import quote

    from kscore.present.from_leaderboard import page_board
    from kscore.present.html import render_html

    lb = kscore.leaderboard(_long(60, 40, 8, False, False), metrics="pass@1")
    path = tmp_path / "board.html"
    path.write_text(render_html(page_board(lb)), encoding="utf-8")
    name = lb.rows[45].model
    assert CHROMIUM is not None
    run = subprocess.run([CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox",
                          f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
                          path.as_uri() + "#compare=" + quote(name)], capture_output=True, text=True, timeout=180,
                         check=True)
    dom = run.stdout
    box = dom[dom.index('class="scroll cmp-box"'):]
    box = box[:box.index("</table>")]
    assert box.count("<tr>") == 60  # the header and the 59 others
    rows = {(r["a"], r["b"]): r for r in pair_rows(lb, "all")}
    top = lb.rows[0].model
    first = rows[(top, name)]
    row = box[box.index(f"<td>1</td><td class=\"name\">{top}</td>"):]
    shown = float(row.split("</td>")[2].split(">")[-1])  # (the chosen model minus the first, 4 decimals)
    assert shown == pytest.approx(-first["diff"], abs=0.5e-4 + 1e-12)
    assert ("significant" in row.split("</tr>")[0]) == first["significant"]
