"""Each battle layout of tests/data/arena/ (written by make_fixtures.py in
its source's documented layout) reads as the battles it holds; the
command line writes one record per model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import kscore
from kscore.arena.read import Roles, read_battles

pytest.importorskip("pyarrow")

DATA = Path(__file__).parent / "data" / "arena"
EXPECTED = json.loads((DATA / "expected.json").read_text())


def triples(source: object, **roles: object) -> list[tuple[str, str, float]]:
    bt = read_battles(source, Roles(**roles))  # type: ignore[arg-type]
    return [(bt.models[a], bt.models[b], float(y)) for a, b, y in zip(bt.a, bt.b, bt.y)]


@pytest.mark.parametrize("name", ["lmarena_clean_battle.json", "lmarena_140k.parquet", "lmarena_55k.csv",
                                  "people.csv", "numeric.tsv"])
def test_each_layout_reads_as_its_battles(name: str) -> None:
    assert triples(str(DATA / name)) == [tuple(x) for x in EXPECTED["battles"]]


def test_arena_hard_judgments_read_as_its_show_result_counts_them() -> None:
    folder = DATA / "arena_hard" / "model_judgment" / "gpt-4.1"
    got = triples(str(folder))
    want = [(a, b, y) for a, b, y, _ in EXPECTED["arena_hard"]]
    assert sorted(got) == sorted(want)  # (files are read in name order)
    glob = triples(str(folder / "*.jsonl"))
    assert glob == got
    bt = read_battles(str(folder), Roles())
    assert bt.prompt is not None and bt.prompts == 3


def test_style_from_conv_metadata_as_arena_ranks_example_makes_it() -> None:
    rows = json.loads((DATA / "lmarena_clean_battle.json").read_text())
    bt = read_battles(str(DATA / "lmarena_clean_battle.json"), Roles(style=True))
    assert bt.feature_names == ["sum_assistant_tokens", "header_count", "bold_count", "list_count"]
    assert bt.features is not None
    m = [r["conv_metadata"] for r in rows]
    a = np.array([sum(x["header_count_a"].values()) for x in m], float)
    b = np.array([sum(x["header_count_b"].values()) for x in m], float)
    r = (a - b) / np.where(a + b == 0, 1, a + b)
    assert np.allclose(bt.features[:, 1], (r - r.mean()) / r.std(), rtol=0, atol=1e-12)
    same = read_battles(str(DATA / "lmarena_140k.parquet"), Roles(style=True))
    assert same.features is not None and np.allclose(same.features, bt.features, rtol=0, atol=1e-12)


def test_frames_read_like_files() -> None:
    import pandas as pd
    import polars as pl

    df = pd.read_csv(DATA / "people.csv")
    want = [tuple(x) for x in EXPECTED["battles"]]
    assert triples(df) == want
    assert triples(pl.from_pandas(df)) == want


def test_by_category_gives_a_board_per_value() -> None:
    res = kscore.arena(str(DATA / "arena_hard" / "model_judgment" / "gpt-4.1"), by="category", fragility=False)
    assert list(res.categories) == ["hard_prompt"]
    assert res.categories["hard_prompt"].models == res.board.models


def test_cli_json_lists_one_record_per_model(tmp_path: Path) -> None:
    out = tmp_path / "board.json"
    run = subprocess.run([sys.executable, "-m", "kscore", "arena", str(DATA / "lmarena_clean_battle.json"),
                          "--format", "json", "-o", str(out)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    doc = json.loads(out.read_text())
    recs = doc["models"]
    assert {r["model"] for r in recs} == set(EXPECTED["battles"][0][:2]) | {x for b in EXPECTED["battles"]
                                                                           for x in b[:2]}
    for r in recs:
        assert {"model", "rating", "lo", "hi", "rank"} <= set(r) and r["lo"] <= r["rating"] <= r["hi"]
    api = kscore.arena(str(DATA / "lmarena_clean_battle.json"))
    assert [r["rating"] for r in recs] == [float(x) for x in api.board.rating]  # full precision


@pytest.mark.parametrize("fmt", ["table", "csv", "markdown", "html"])
def test_cli_formats(tmp_path: Path, fmt: str) -> None:
    run = subprocess.run([sys.executable, "-m", "kscore", "arena", str(DATA / "lmarena_140k.parquet"),
                          "--style", "conv_metadata", "--format", fmt], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "gpt-4o-2024-05-13" in run.stdout
    if fmt != "csv":
        assert "without style control" in run.stdout


def test_cli_bad_winner_is_one_line(tmp_path: Path) -> None:
    p = tmp_path / "b.csv"
    p.write_text("model_a,model_b,winner\nx,y,model_a\ny,x,who\n")
    run = subprocess.run([sys.executable, "-m", "kscore", "arena", str(p), "--strict"], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 1
    assert run.stderr.strip().count("\n") == 0 and "b.csv, line 3: a winner outside" in run.stderr
