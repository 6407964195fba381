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


def test_cli_tie_model_and_style_penalty_reach_the_fit(tmp_path: Path) -> None:
    out = tmp_path / "board.json"
    src = str(DATA / "lmarena_clean_battle.json")
    run = subprocess.run([sys.executable, "-m", "kscore", "arena", src, "--ties", "rao_kupper", "--format", "json",
                          "-o", str(out)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    doc = json.loads(out.read_text())
    board = next(iter(doc["boards"].values()))
    assert board["tie_parameter"]["model"] == "rao_kupper" and board["tie_parameter"]["value"] > 1.0
    api = kscore.arena(src, ties="rao_kupper")
    assert [r["rating"] for r in doc["models"]] == [float(x) for x in api.board.rating]
    assert doc["options"]["ties"] == "rao_kupper"
    run = subprocess.run([sys.executable, "-m", "kscore", "arena", str(DATA / "lmarena_140k.parquet"), "--style",
                          "conv_metadata", "--style-reg", "1", "--format", "json", "-o", str(out)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    doc = json.loads(out.read_text())
    api = kscore.arena(str(DATA / "lmarena_140k.parquet"), style=True, style_reg=1.0)
    assert doc["options"]["style_reg"] == 1.0
    assert [r["rating"] for r in doc["models"]] == [float(x) for x in api.board.rating]


def _reference(a: list[str | None], b: list[str | None], w: list[str]
               ) -> tuple[list[str], list[tuple[str, str, float]]]:
    """The battles by hand: rows with a missing or empty name, a self-battle
    or an unknown winner dropped, the names of the rest sorted."""
    res = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5}
    kept = [(x, y, res[v]) for x, y, v in zip(a, b, w) if x and y and x != y and v in res]
    return sorted({m for x, y, _ in kept for m in (x, y)}), kept


@pytest.mark.parametrize("layout", ["chunks", "large", "sliced", "dictionary_a"])
def test_in_memory_tables_code_the_models_as_a_sorted_dictionary(layout: str) -> None:
    # > 65 536 rows (several pieces in the core), names whose UTF-8 bytes sort as their code points
    # (Python's order), nulls and empty names dropped and counted
    import pyarrow as pa

    rng = np.random.default_rng(7)
    pool = ["zeta", "Zeta", "alpha", "é-model", "ß", "model-10", "model-9", "\u4e2d\u6587", "a" * 40, "😀"]
    n = 150_000
    ia, ib = rng.integers(0, len(pool), n), rng.integers(0, len(pool), n)
    a: list[str | None] = [pool[i] for i in ia]
    b: list[str | None] = [pool[i] for i in ib]
    for k in rng.choice(n, 40, replace=False):
        a[k] = None if k % 2 else ""
    w = [["model_a", "model_b", "tie", "bogus"][k] for k in rng.choice(4, n, p=[0.4, 0.4, 0.19, 0.01])]
    typ = pa.large_string() if layout == "large" else pa.string()
    if layout == "sliced":
        pad = ["pad-name"] * 3
        col_a = pa.array(pad + a + pad, typ).slice(3, n)
        col_b = pa.array(pad + b + pad, typ).slice(3, n)
    else:
        cut = [0, 1, 70_000, 70_001, n]
        col_a = pa.chunked_array([pa.array(a[s:e], typ) for s, e in zip(cut, cut[1:])])
        cut_b = [0, 65_536, 65_537, n]
        col_b = pa.chunked_array([pa.array(b[s:e], typ) for s, e in zip(cut_b, cut_b[1:])])
    if layout == "dictionary_a":
        col_a = col_a.dictionary_encode()
    table = pa.table({"model_a": col_a, "model_b": col_b, "winner": pa.array(w)})
    bt = read_battles(table, Roles())
    names, kept = _reference(a, b, w)
    assert bt.models == names
    assert [(bt.models[i], bt.models[j], float(y)) for i, j, y in zip(bt.a, bt.b, bt.y)] == kept
    assert bt.a.dtype == np.uint32 and bt.b.dtype == np.uint32
    assert any("missing model name" in x for x in bt.warnings)
    assert any("winner outside" in x for x in bt.warnings)


def _counted_by_hand(names: list[str], kept: list[tuple[str, str, float]]) -> dict[tuple[str, str, int], int]:
    """(first name, second name in sorted order, outcome of the first: 0, 1, 2) -> battles."""
    from collections import Counter

    rows: Counter[tuple[str, str, int]] = Counter()
    for x, y, r in kept:
        o = int(2 * r)
        rows[(x, y, o) if x < y else (y, x, 2 - o)] += 1
    return dict(rows)


def _rows_of(board: object, names: list[str]) -> dict[tuple[str, str, int], int]:
    pi, pj = board.pairs()  # type: ignore[attr-defined]
    rp, ro, rw, rc = board.rows()  # type: ignore[attr-defined]
    assert (np.asarray(rw) == 1.0).all()
    return {(names[pi[p]], names[pj[p]], int(o)): int(c) for p, o, c in zip(rp, ro, rc)}


@pytest.mark.parametrize("layout", ["clean", "flawed"])
def test_the_readers_pass_counts_the_boards_rows(layout: str) -> None:
    # the board counted on the reader's one pass over the columns (no weights, no prompt ids) holds the
    # unique rows of the battles counted by hand; winner words with spaces and capitals, null winners,
    # columns chunked unlike each other
    import pyarrow as pa

    from kscore.arena.ratings import board_of

    rng = np.random.default_rng(11)
    pool = [f"m{k:02d}" for k in range(23)] + ["é-model", "\u4e2d\u6587"]
    n = 140_000
    ia = rng.integers(0, len(pool), n)
    ib = (ia + rng.integers(1, len(pool), n)) % len(pool)
    a: list[str | None] = [pool[i] for i in ia]
    b: list[str | None] = [pool[i] for i in ib]
    words = ["model_a", " Model_A", "model_b", "B", "tie", "TIE ", "tie (bothbad)", "both_bad"]
    w: list[str | None] = [words[i] for i in rng.integers(0, len(words), n)]
    if layout == "flawed":
        for k in rng.choice(n, 60, replace=False):
            w[k] = None if k % 3 == 0 else "who" if k % 3 == 1 else ""
        for k in rng.choice(n, 30, replace=False):
            a[k] = None
        for k in rng.choice(n, 20, replace=False):
            b[k] = a[k]
    res = {"model_a": 1.0, "model_b": 0.0, "b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5, "both_bad": 0.5}
    kept = [(x, y, res[v.strip().lower()]) for x, y, v in zip(a, b, w)
            if x and y and x != y and v and v.strip().lower() in res]
    cut = [0, 65_535, 65_536, 100_000, n]
    col_w = pa.chunked_array([pa.array(w[s:e]) for s, e in zip(cut, cut[1:])])
    table = pa.table({"model_a": pa.array(a), "model_b": pa.array(b, pa.large_string()), "winner": col_w})
    bt = read_battles(table, Roles())
    names = sorted({m for x, y, _ in kept for m in (x, y)})
    assert bt.models == names
    assert [(bt.models[i], bt.models[j], float(y)) for i, j, y in zip(bt.a, bt.b, bt.y)] == kept
    want = _counted_by_hand(names, kept)
    board = board_of(bt)
    assert board.battles == len(kept)
    assert _rows_of(board, names) == want
    if layout == "clean":
        assert bt.board is not None and not bt.warnings
    else:
        assert sum("skipped" in x for x in bt.warnings) == 3
    # the same ratings as from the board counted from the codes (Parquet's dictionary columns' path)
    dict_table = pa.table({"model_a": pa.array(a).dictionary_encode(), "model_b": pa.array(b).dictionary_encode(),
                           "winner": col_w})
    other = read_battles(dict_table, Roles())
    assert other.board is None and other.models == names
    assert _rows_of(board_of(other), names) == want
    r1 = kscore.arena(table, fragility=False).board
    r2 = kscore.arena(dict_table, fragility=False).board
    assert r1.models == r2.models and np.array_equal(r1.rating, r2.rating) and np.array_equal(r1.hi, r2.hi)
