"""The default terminal table fits 80 columns: no value cut, no two models
shown as the same text (many long, similar names), a one-line footer."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kscore", *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def similar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(7)
    names = [f"organisation/family-{size}b-instruct-{v}-preview-2026-11-{d:02d}"
             for size in (7, 8, 70) for v in ("dpo", "sft") for d in (1, 2, 3, 4, 5)]
    rows: dict[str, list[object]] = {"model": [], "question": [], "sample": [], "correct": []}
    for name in names:
        p = rng.uniform(0.2, 0.9, 40)
        for q in range(40):
            for s in range(8):
                rows["model"].append(name)
                rows["question"].append(f"q{q}")
                rows["sample"].append(s)
                rows["correct"].append(int(rng.random() < p[q]))
    path = tmp_path_factory.mktemp("similar") / "results.parquet"
    pq.write_table(pa.table(rows), path)
    return path


def test_eighty_columns_no_cut_value_no_duplicate_name(similar: Path) -> None:
    done = run("leaderboard", str(similar), "--k", "1,4,8")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    board = json.loads(run("leaderboard", str(similar), "--k", "1,4,8", "--format", "json").stdout)
    models = board["models"]
    header = next(line for line in lines if line.lstrip().startswith("rank"))
    rows = lines[lines.index(header) + 1: lines.index(header) + 1 + len(models)]
    start = header.index("model")
    shown = [row[start:].split("  ")[0] for row in rows]
    assert len(set(shown)) == len(models) == 30, shown
    for row, model in zip(rows, models):
        cells = re.findall(r"(\d\.\d{3}) ±(\d\.\d{3})", row)
        assert cells, row
        for metric, values in model["metrics"].items():
            text = f"{values['estimate']:.3f}"
            if metric + " " in header or metric + "\n" in header + "\n":
                assert any(c[0] == text for c in cells), (metric, text, row)
    footer = lines[-1]
    assert footer.startswith("cells: estimate ±half") and "interval over questions" in footer and len(footer) <= 80


def test_wide_shows_every_column(similar: Path) -> None:
    done = run("leaderboard", str(similar), "--k", "1,4,8", "--wide")
    assert done.returncode == 0, done.stderr
    assert "questions" in done.stdout and "samples" in done.stdout and "accuracy" in done.stdout
