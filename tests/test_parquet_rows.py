"""Parquet files counted in the Rust core (read/parquet_rows.py) give the
counts DuckDB's query gives, on every layout it takes, and hand over to
DuckDB, with the same result and warnings, where it stops (repeated sample
ids, missing ids, a sparse board, columns it does not take)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from kscore.leaderboard import ColumnNames  # noqa: E402
from kscore.leaderboard._issues import Issues  # noqa: E402
from kscore.leaderboard.read import aggregate, parquet_rows  # noqa: E402
from kscore.leaderboard.read.reader import read_counts  # noqa: E402


def both(source: Any, monkeypatch: pytest.MonkeyPatch, calls: list[str] | None = None,
         **kw: Any) -> tuple[Any, Any, Issues, Issues]:
    """The counts (and issues) with the direct count and with DuckDB's query only."""
    seen: list[str] = []
    real = parquet_rows.count_rows

    def spy(*a: Any) -> Any:
        out = real(*a)
        seen.append(out if isinstance(out, str) else "counted")
        return out

    monkeypatch.setattr(aggregate, "count_rows", spy)
    issues_direct = Issues()
    direct, _ = read_counts(source, issues=issues_direct, **kw)
    monkeypatch.setattr(parquet_rows, "ENABLED", False)
    issues_duck = Issues()
    duck, _ = read_counts(source, issues=issues_duck, **kw)
    monkeypatch.setattr(parquet_rows, "ENABLED", True)
    if calls is not None:
        calls.extend(seen)
    return direct, duck, issues_direct, issues_duck


def same(a: Any, b: Any) -> None:
    assert a.models == b.models and a.questions == b.questions
    assert np.array_equal(a.model, b.model) and np.array_equal(a.question, b.question)
    assert a.categories.shape == b.categories.shape and np.array_equal(a.categories, b.categories)


def board(seed: int, n_models: int = 5, n_questions: int = 30, n: int = 8, categories: int = 2,
          ragged: bool = True) -> dict[str, list[Any]]:
    rng = np.random.default_rng(seed)
    rows: dict[str, list[Any]] = {"model": [], "question": [], "sample": [], "outcome": []}
    for m in range(n_models):
        for q in range(n_questions):
            if ragged and rng.random() < 0.2:
                continue
            k = int(rng.integers(1, n + 1)) if ragged else n
            for s in rng.permutation(n)[:k]:
                rows["model"].append(f"model-{(m * 7) % n_models}é" if m % 2 else f"m{m}")
                rows["question"].append(f"q{(q * 11) % 97:03d}" if q % 3 else f"question {q}")
                rows["sample"].append(int(s))
                rows["outcome"].append(int(rng.integers(0, categories)))
    order = rng.permutation(len(rows["model"]))
    return {k: [v[i] for i in order] for k, v in rows.items()}


def write(path: Path, rows: dict[str, list[Any]], types: dict[str, Any], row_group_size: int | None = None) -> Path:
    table = pa.table({k: pa.array([bool(x) for x in v] if types.get(k) == pa.bool_() else v, type=types.get(k))
                      for k, v in rows.items()})
    pq.write_table(table, path, row_group_size=row_group_size)
    return path


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("outcome", "sample", "question"), [
    (pa.int8(), pa.int16(), pa.string()),
    (pa.bool_(), pa.int64(), pa.large_string()),
    (pa.uint8(), pa.int32(), pa.string()),
    (pa.int64(), pa.uint16(), pa.string()),
])
def test_direct_counts_equal_duckdbs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, outcome: Any,
                                     sample: Any, question: Any) -> None:
    rows = board(seed, n=8 if seed % 2 else 70)
    path = write(tmp_path / "b.parquet", rows, {"outcome": outcome, "sample": sample, "question": question},
                 row_group_size=[50, 1000, None][seed % 3])
    calls: list[str] = []
    direct, duck, _, _ = both(path, monkeypatch, calls)
    assert calls == ["counted"]
    same(direct, duck)


def test_categories_and_no_sample_column(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = board(3, categories=3)
    del rows["sample"]
    path = write(tmp_path / "b.parquet", rows, {"outcome": pa.int16()})
    calls: list[str] = []
    direct, duck, _, _ = both(path, monkeypatch, calls, n_categories=3)
    assert calls == ["counted"]
    same(direct, duck)
    assert direct.categories.shape[1] == 3


def test_files_named_for_their_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = board(4)
    folder = tmp_path / "runs"
    folder.mkdir()
    for m in sorted(set(rows["model"])):
        keep = [i for i, x in enumerate(rows["model"]) if x == m]
        part = {k: [v[i] for i in keep] for k, v in rows.items() if k != "model"}
        write(folder / f"{m.replace('é', 'e')}.v1.parquet", part, {"sample": pa.int16(), "outcome": pa.int8()})
    calls: list[str] = []
    direct, duck, _, _ = both(str(folder / "*.parquet"), monkeypatch, calls)
    assert calls == ["counted"]
    same(direct, duck)
    assert all("." not in m for m in direct.models)
    # One file without a model column: the file's name is the model.
    single = tmp_path / "solo.parquet"
    write(single, {k: v for k, v in rows.items() if k != "model"}, {"sample": pa.int16()})
    calls.clear()
    # (duplicated (question, sample) pairs across the models: the direct count stops, DuckDB names them)
    direct, duck, warned, warned_duck = both(single, monkeypatch, calls)
    assert calls == ["a repeated sample id"]
    same(direct, duck)
    assert warned.warnings == warned_duck.warnings and warned.warnings


def test_row_groups_split_into_batches_with_unused_dictionary_entries(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    rows = board(5, n_models=6, n_questions=90, n=4, ragged=False)
    path = write(tmp_path / "b.parquet", rows, {"sample": pa.int8()}, row_group_size=900)
    monkeypatch.setattr(parquet_rows, "BATCH_ROWS", 37)  # each batch uses a few of its row group's dictionary
    calls: list[str] = []
    direct, duck, _, _ = both(path, monkeypatch, calls)
    assert calls == ["counted"]
    same(direct, duck)


@pytest.mark.parametrize("problem", ["duplicate", "null question", "null model"])
def test_problems_hand_over_to_duckdb_with_its_warnings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        problem: str) -> None:
    rows = board(6)
    if problem == "duplicate":
        for k in rows:
            rows[k].append(rows[k][10])
    elif problem == "null question":
        rows["question"][7] = None
    else:
        rows["model"][3] = None
    path = write(tmp_path / "b.parquet", rows, {"sample": pa.int16()})
    calls: list[str] = []
    direct, duck, warned, warned_duck = both(path, monkeypatch, calls)
    assert calls and calls[0] != "counted"
    same(direct, duck)
    assert warned.warnings == warned_duck.warnings and warned.warnings


def test_a_sparse_board_hands_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Model i answers questions first seen at rows i and i + 3000: each
    # model's row of slots spans 3,000 question codes for its 2 cells (past
    # the core's 4M free slots and 4 per cell).
    n = 6_000
    models = [f"m{i % 3000}" for i in range(n)]
    questions = [f"q{(i * 7919) % n}" for i in range(n)]
    path = write(tmp_path / "b.parquet", {"model": models, "question": questions, "sample": [0] * n,
                                          "outcome": [i % 2 for i in range(n)]}, {"sample": pa.int8()})
    calls: list[str] = []
    direct, duck, _, _ = both(path, monkeypatch, calls)
    same(direct, duck)
    assert calls == ["a sparse board"]


def test_columns_it_does_not_take_go_to_duckdb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = board(7)
    number = {q: 1000 + i for i, q in enumerate(sorted(set(rows["question"])))}
    rows["question"] = [number[q] for q in rows["question"]]  # integer question ids
    path = write(tmp_path / "b.parquet", rows, {"sample": pa.int16()})
    calls: list[str] = []
    direct, duck, _, _ = both(path, monkeypatch, calls)
    assert calls and calls[0] != "counted"
    same(direct, duck)
    # --cluster: DuckDB carries the attribute.
    rows = board(8)
    rows["topic"] = [q[:2] for q in rows["question"]]
    path = write(tmp_path / "c.parquet", rows, {"sample": pa.int16()})
    calls.clear()
    direct, duck, _, _ = both(path, monkeypatch, calls, names=ColumnNames(extra=("topic",)))
    assert calls == []
    same(direct, duck)
    assert direct.attributes == duck.attributes
