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
pytest.importorskip("duckdb")  # the leaderboard's engine (cli extra)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kscore", *args], capture_output=True, text=True, timeout=300)


def write_results(path: Path, names: list[str], rng: np.random.Generator, short: int = -1) -> Path:
    """A long-format Parquet file: 40 questions x 8 samples per model (4 for
    the model at index `short`), each question with its own success rate."""
    rows: dict[str, list[object]] = {"model": [], "question": [], "sample": [], "correct": []}
    for j, name in enumerate(names):
        p = rng.uniform(0.2, 0.9, 40)
        for q in range(40):
            for s in range(4 if j == short else 8):
                rows["model"].append(name)
                rows["question"].append(f"q{q}")
                rows["sample"].append(s)
                rows["correct"].append(int(rng.random() < p[q]))
    pq.write_table(pa.table(rows), path)
    return path


@pytest.fixture(scope="module")
def similar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(7)
    names = [f"organisation/family-{size}b-instruct-{v}-preview-2026-11-{d:02d}"
             for size in (7, 8, 70) for v in ("dpo", "sft") for d in (1, 2, 3, 4, 5)]
    return write_results(tmp_path_factory.mktemp("similar") / "results.parquet", names, rng)


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


@pytest.fixture(scope="module")
def awkward(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """30 long alike names, one with Markdown's syntax in it, and a model with
    4 samples per question (its pass@8 and maj@8 are not computed)."""
    rng = np.random.default_rng(11)
    names = [f"organisation/family-{size}b-instruct-{v}-preview-2026-11-{d:02d}"
             for size in (7, 8, 70) for v in ("dpo", "sft") for d in (1, 2, 3, 4, 5)]
    names[3] = "lab|pipe/model_with*markdown*<chars>&"
    return write_results(tmp_path_factory.mktemp("awkward") / "results.parquet", names, rng, short=7)


def test_markdown_is_a_table_of_every_model_with_the_terminal_cells(awkward: Path) -> None:
    from .markdown_tables import tables

    done = run("leaderboard", str(awkward), "--k", "1,8", "--format", "markdown")
    assert done.returncode == 0, done.stderr
    found = tables(done.stdout)
    assert len(found) == 1
    head, *rows = found[0]
    board = json.loads(run("leaderboard", str(awkward), "--k", "1,8", "--format", "json").stdout)
    metrics = list(board["models"][0]["metrics"])
    assert head == ["rank", "model", *metrics, "accuracy", "questions", "samples"]
    assert len(rows) == len(board["models"]) == 30
    missing = 0
    for row, model in zip(rows, board["models"]):
        assert len(row) == len(head)
        assert row[:2] == [model["rank"], model["model"]]  # whole names, '|' and '*' included
        for cell, metric in zip(row[2:], metrics):
            v = model["metrics"][metric]
            if v is None:
                assert cell == "-"
                missing += 1
            else:  # whole, never cut: the value and half the interval
                assert cell == f"{v['estimate']:.3f} ±{(v['hi'] - v['lo']) / 2:.3f}", (model["model"], metric)
        assert row[-3:] == [f"{model['accuracy']:.3f}", str(model["questions"]), str(model["samples"][0])]
    assert missing == 2  # the model with 4 samples has no pass@8 or maj@8
    assert "…" not in done.stdout
    # The 80-column table shows the same cells, for the columns it has room for.
    terminal = run("leaderboard", str(awkward), "--k", "1,8").stdout
    cells = {c for row in rows for c in row[2:2 + len(metrics)] if "±" in c}
    shown = set(re.findall(r"\d\.\d{3} ±\d\.\d{3}", terminal))
    assert shown and shown <= cells
    footer = done.stdout.split("\n\n")[-1]
    assert footer.startswith("cells: the classic estimate ±half the 95% interval over questions")
