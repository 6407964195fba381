"""Parquet columns described from the footer (read/describe.py
``footer_columns``), as DuckDB describes them, and a Parquet board counted
directly without DuckDB (issue 39: DuckDB was opened only to describe the
columns)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kscore.leaderboard.read.describe import ARROW_TO_DUCKDB, footer_columns
from kscore.leaderboard.read.source import Source

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
duckdb = pytest.importorskip("duckdb")

ROOT = Path(__file__).resolve().parent.parent


def duckdb_columns(path: Path) -> list[tuple[str, str]]:
    rel = duckdb.connect().sql(f"SELECT * FROM read_parquet('{path}') LIMIT 0")
    return [(str(n), str(t)) for n, t in zip(rel.columns, rel.types)]


def source(*files: Path) -> Source:
    return Source(str(files[0]), "parquet", list(files))


#: A column of each type the footer description names, as pyarrow writes it.
NAMED: dict[str, Any] = {
    "bool": pa.array([True, False]), "int8": pa.array([1, 2], pa.int8()), "int16": pa.array([1, 2], pa.int16()),
    "int32": pa.array([1, 2], pa.int32()), "int64": pa.array([1, 2], pa.int64()),
    "uint8": pa.array([1, 2], pa.uint8()), "uint16": pa.array([1, 2], pa.uint16()),
    "uint32": pa.array([1, 2], pa.uint32()), "uint64": pa.array([1, 2], pa.uint64()),
    "float": pa.array([0.5, 1.0], pa.float32()), "double": pa.array([0.5, 1.0]),
    "string": pa.array(["a", "b"]), "large_string": pa.array(["a", "b"], pa.large_string()),
    "dictionary": pa.array(["a", "b"]).dictionary_encode(),
    "int dictionary": pa.array([1, 2]).dictionary_encode(),  # (written and read back as int64)
}

#: Columns it leaves to DuckDB.
OTHERS: dict[str, Any] = {
    "timestamp": pa.array([0, 1], pa.timestamp("ms")), "date": pa.array([0, 1], pa.date32()),
    "decimal": pa.array([1, 2], pa.decimal128(10, 2)), "binary": pa.array([b"a", b"b"]),
    "list": pa.array([[1], [2]]), "struct": pa.array([{"x": 1}, {"x": 2}]),
    "float16": pa.array(np.array([0.5, 1.0], np.float16)), "null": pa.array([None, None]),
}


def test_the_table_covers_every_named_type() -> None:
    assert {str(a.type) for a in NAMED.values() if not pa.types.is_dictionary(a.type)} == set(ARROW_TO_DUCKDB)


@pytest.mark.parametrize("kind", sorted(NAMED))
def test_each_type_is_described_as_duckdb_does(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "r.parquet"
    pq.write_table(pa.table({"model": ["a", "b"], "Question ID": ["q1", "q2"], kind: NAMED[kind]}), path)
    found = footer_columns(source(path))
    assert found is not None
    assert found == duckdb_columns(path)


def test_every_named_type_at_once_in_order(tmp_path: Path) -> None:
    path = tmp_path / "r.parquet"
    pq.write_table(pa.table(NAMED), path, row_group_size=1)
    assert footer_columns(source(path)) == duckdb_columns(path)


@pytest.mark.parametrize("kind", sorted(OTHERS))
def test_other_types_are_left_to_duckdb(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "r.parquet"
    pq.write_table(pa.table({"model": ["a", "b"], kind: OTHERS[kind]}), path)
    assert footer_columns(source(path)) is None


def test_what_it_cannot_vouch_for_is_left_to_duckdb(tmp_path: Path) -> None:
    table = pa.table({"model": ["a"], "question": ["q"], "correct": [1]})
    hive = tmp_path / "model=a"
    hive.mkdir()
    pq.write_table(table.drop_columns(["model"]), hive / "r.parquet")
    assert footer_columns(source(hive / "r.parquet")) is None  # (DuckDB adds the folder's column)
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 not a footer PAR1")
    assert footer_columns(source(broken)) is None
    twice = tmp_path / "twice.parquet"
    pq.write_table(pa.Table.from_arrays([pa.array([1]), pa.array([2])], names=["a", "a"]), twice)
    assert footer_columns(source(twice)) is None
    csv = tmp_path / "r.csv"
    csv.write_text("model,question,correct\na,q,1\n")
    assert footer_columns(Source(str(csv), "csv", [csv])) is None
    # Several files: the first file's schema, as DuckDB binds a list of files.
    other = tmp_path / "other.parquet"
    pq.write_table(table, other)
    assert footer_columns(source(other, twice)) == [("model", "VARCHAR"), ("question", "VARCHAR"),
                                                    ("correct", "BIGINT")]


def test_a_parquet_board_counted_directly_never_imports_duckdb(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    for m in range(3):
        q = np.repeat(np.arange(50), 4)
        pq.write_table(pa.table({"model": [f"m{m}"] * len(q), "question": [f"q{i}" for i in q],
                                 "sample": np.tile(np.arange(4), 50).astype(np.int8),
                                 "correct": (rng.random(len(q)) < 0.5).astype(np.int8)}), tmp_path / f"m{m}.parquet")
    code = ("import sys, kscore; b = kscore.leaderboard(sys.argv[1]); "
            "print(len(b.rows), 'duckdb' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["3", "False"]
    # A problem the direct count stops at (a missing question id) still goes to DuckDB, which names it.
    pq.write_table(pa.table({"model": ["m9"] * 2, "question": ["q1", None], "sample": np.arange(2, dtype=np.int8),
                             "correct": np.ones(2, np.int8)}), tmp_path / "m9.parquet")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["4", "True"]
