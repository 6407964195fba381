"""``--adjust simultaneous`` and ``--pairwise`` from the command line: the
footer and the JSON name the models that could be #1; the pairs written
(JSON lists, ``--pairwise-output`` CSV and JSON Lines) equal the Python
API's matrix entries; a bad ``--pairwise`` is one line of error."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import kscore

pytest.importorskip("rich")
pytest.importorskip("duckdb")
pd = pytest.importorskip("pandas")


def kscore_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kscore.cli", *map(str, args)], capture_output=True, text=True,
                          check=False, timeout=120)


@pytest.fixture(scope="module")
def counts_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(11)
    L, Q = 12, 80
    ability = np.repeat([0.8, 0.3, 0.28, 0.0], 3) + rng.normal(0, 0.02, L)
    p = 1 / (1 + np.exp(-(ability[:, None] - rng.normal(0, 1, Q))))
    df = pd.DataFrame({"model": np.repeat([f"org/model-{i:02d}" for i in range(L)], Q),
                       "question": np.tile([f"q{j}" for j in range(Q)], L), "n": 4,
                       "c": rng.binomial(4, p).ravel()})
    path = tmp_path_factory.mktemp("pairs") / "counts.csv"
    df.to_csv(path, index=False)
    return path


def test_simultaneous_footer_and_json_name_the_possible_best(counts_csv: Path) -> None:
    board = kscore.leaderboard(str(counts_csv), metrics="pass@1", adjust="simultaneous")
    best = board.ranks.could_be_best if board.ranks else []
    assert best and best == [r.model for r in board.rows if r.rank and r.rank[0] == 1]
    table = kscore_cli("leaderboard", counts_csv, "--metric", "pass@1", "--adjust", "simultaneous")
    assert table.returncode == 0, table.stderr
    assert "could be #1: " + ", ".join(best) in table.stdout
    assert "(simultaneous)" in table.stdout
    doc = json.loads(kscore_cli("leaderboard", counts_csv, "--metric", "pass@1", "--adjust", "simultaneous",
                                "--format", "json").stdout)
    assert doc["could_be_best"] == best and doc["adjust_used"] == "simultaneous"
    assert [m["rank_range"] for m in doc["models"]] == [list(r.rank) for r in board.rows if r.rank]


def test_pairwise_lists_and_streams_equal_the_matrix(counts_csv: Path, tmp_path: Path) -> None:
    board = kscore.leaderboard(str(counts_csv), metrics="pass@1", adjust="holm")
    pw = board.pairwise()
    sig = pw.significant()

    def check(rows: list[dict[str, object]]) -> None:
        for r in rows:
            i, j = pw.models.index(str(r["a"])), pw.models.index(str(r["b"]))
            assert float(str(r["diff"])) == pytest.approx(pw.diff[i, j], abs=1e-12)
            assert float(str(r["p"])) == pytest.approx(pw.p[i, j], rel=1e-9)
            assert str(r["significant"]) in ("True", "true") if sig[i, j] or sig[j, i] else \
                str(r["significant"]) in ("False", "false")

    doc = json.loads(kscore_cli("leaderboard", counts_csv, "--metric", "pass@1", "--adjust", "holm", "--format",
                                "json", "--pairwise", "adjacent").stdout)
    rows = doc["pairs"]["rows"]
    assert [(r["a"], r["b"]) for r in rows] == list(zip(pw.models, pw.models[1:]))
    check(rows)
    out = tmp_path / "pairs.csv"
    res = kscore_cli("leaderboard", counts_csv, "--metric", "pass@1", "--adjust", "holm", "--format", "csv",
                     "--pairwise", "all", "--pairwise-output", out)
    assert res.returncode == 0, res.stderr
    with out.open() as f:
        rows_csv = list(csv.DictReader(f))
    assert len(rows_csv) == 12 * 11 // 2 and {r["metric"] for r in rows_csv} == {"pass@1"}
    check(rows_csv)
    lines = tmp_path / "pairs.jsonl"
    res = kscore_cli("leaderboard", counts_csv, "--metric", "pass@1", "--pairwise", "top", "4",
                     "--pairwise-output", lines, "--format", "csv")
    assert res.returncode == 0, res.stderr
    top = [json.loads(x) for x in lines.read_text().splitlines()]
    assert len(top) == 6 and {r["a"] for r in top} | {r["b"] for r in top} == set(pw.models[:4])


def test_bad_pairwise_is_one_line(counts_csv: Path) -> None:
    res = kscore_cli("leaderboard", counts_csv, "--pairwise", "top", "x")
    assert res.returncode in (1, 2) and "Traceback" not in res.stderr
    assert "--pairwise takes all, adjacent, none or top N" in res.stderr
