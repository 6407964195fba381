"""The engine's lean count (Parquet statistics prove every outcome a
category and every sample id an integer >= 0) gives the counts, warnings and
named rows of the checked count: the same rows from a pyarrow table (never
proven) are the reference."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import kscore
from kscore.leaderboard.read import aggregate as _aggregate
from kscore.leaderboard.read import arrow as _arrow
from kscore.leaderboard.read import parquet_rows as _parquet_rows
from kscore.leaderboard.read import query as _query

pa = pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")
import pyarrow.parquet as pq  # noqa: E402


def rows(n_samples: int, categories: int = 2, seed: int = 3) -> Any:
    rng = np.random.default_rng(seed)
    out = []
    for m in ("m-a", "m-b", "m-c"):
        for q in range(12):
            for s in range(n_samples):
                out.append((m, f"q{q:02d}", s, int(rng.integers(0, categories))))
    return out


def table(data: list[tuple[Any, ...]], outcome: Any = None, sample: Any = None) -> Any:
    outcome, sample = outcome or pa.int8(), sample or pa.int16()
    cols = list(zip(*data))
    return pa.table({"model": pa.array(cols[0], pa.string()), "question": pa.array(cols[1], pa.string()),
                     "sample": pa.array(cols[2], sample), "correct": pa.array(cols[3], outcome)})


def counts_of(board: kscore.Leaderboard) -> dict[tuple[str, str], list[int]]:
    c = board.counts
    return {(c.models[m], c.questions[q]): list(map(int, cat)) for m, q, cat in zip(c.model, c.question, c.categories)}


def check(tmp_path: Path, t: Any, proven: bool, seen: list[str] | None = None, **kw: Any) -> kscore.Leaderboard:
    """The Parquet file's board equals the table's; ``proven``: the lean count
    ran; ``seen`` gets the aggregation queries. (The direct count of Parquet
    rows, read/parquet_rows.py, is off for DuckDB's queries to run; with it
    on, the board is the same.)"""
    path = tmp_path / "r.parquet"
    pq.write_table(t, path, row_group_size=50)
    seen = seen if seen is not None else []
    query = _query.count_query  # (aggregate.py's name for it is patched: the query it runs)

    def spy(r: Any) -> str:
        sql = query(r)
        seen.append(sql)
        return sql

    setattr(_aggregate, "count_query", spy)  # noqa: B010 - the module's own name, patched
    _parquet_rows.ENABLED = False
    try:
        got = kscore.leaderboard(path, **kw)
    finally:
        setattr(_aggregate, "count_query", query)  # noqa: B010
        _parquet_rows.ENABLED = True
    ref = kscore.leaderboard(t, **kw)
    direct = kscore.leaderboard(path, **kw)
    assert counts_of(direct) == counts_of(got) and direct.warnings == got.warnings
    assert counts_of(got) == counts_of(ref)
    assert [w.split(": ", 1)[1] for w in got.warnings] == [w.split(": ", 1)[1] for w in ref.warnings]
    assert [r.model for r in got.rows] == [r.model for r in ref.rows]
    assert (" AS bad" not in seen[0]) == proven  # the checked count counts rows with a problem
    return got


@pytest.mark.parametrize("n_samples", [1, 10, 31, 32, 40, 100])
def test_binary_any_sample_count(tmp_path: Path, n_samples: int) -> None:
    # 2 bits a sample id: ids 0..31 fit the 64-bit mask (0..30 a signed one);
    # more ids are counted on a bitstring.
    seen: list[str] = []
    check(tmp_path, table(rows(n_samples)), proven=True, metrics="pass@1,bayes@N", seen=seen)
    assert ("bitstring_agg" in seen[0]) == (n_samples > 32)


@pytest.mark.parametrize("n_samples", [5, 21, 22, 70])
def test_graded_outcomes(tmp_path: Path, n_samples: int) -> None:
    check(tmp_path, table(rows(n_samples, categories=3)), proven=True, weights="0,0.5,1",
          metrics="pass@1,bayes@N")


def test_sample_ids_past_the_bitstring_are_counted_exactly(tmp_path: Path) -> None:
    data = rows(3)
    data[4] = (data[4][0], data[4][1], _query.BITSTRING_IDS, data[4][3])
    check(tmp_path, table(data), proven=False, metrics="pass@1")


@pytest.mark.parametrize("n_samples", [40, 100])
def test_repeated_ids_past_the_mask_are_named_like_the_checked_count(tmp_path: Path, n_samples: int) -> None:
    data = rows(n_samples)
    data.insert(20, data[3])  # repeats (m-a, q00, 3)
    board = check(tmp_path, table(data), proven=True, metrics="pass@1")
    assert any("1 duplicate row" in w and "row 21" in w and "repeats row 4" in w for w in board.warnings)
    assert sum(board.counts.n) == len(data) - 1


def test_boolean_outcomes_and_no_sample_column(tmp_path: Path) -> None:
    data = rows(6)
    t = table([(m, q, s, bool(v)) for m, q, s, v in data], outcome=pa.bool_()).drop_columns(["sample"])
    board = check(tmp_path, t, proven=True, metrics="pass@1,bayes@N")
    assert sum(board.counts.n) == len(data)


def test_repeated_sample_ids_are_named_like_the_checked_count(tmp_path: Path) -> None:
    data = rows(8)
    data.insert(20, data[3])                      # repeats (m-a, q00, 3)
    data.append(("m-c", "q11", 7, 1 - data[-1][3]))  # repeats an id with the other outcome
    board = check(tmp_path, table(data), proven=True, metrics="pass@1")
    assert any("2 duplicate rows" in w and "row 21" in w and "repeats row 4" in w for w in board.warnings)
    assert sum(board.counts.n) == len(data) - 2


def test_missing_ids_are_named_like_the_checked_count(tmp_path: Path) -> None:
    data: list[tuple[Any, ...]] = list(rows(4))
    data[5] = (None, data[5][1], data[5][2], data[5][3])
    data[9] = (data[9][0], None, data[9][2], data[9][3])
    board = check(tmp_path, table(data), proven=True, metrics="pass@1")
    assert any("2 rows without a model, question or sample id" in w and "row 6" in w and "row 10" in w
               for w in board.warnings)


@pytest.mark.parametrize("bad", ["null outcome", "outcome 2", "negative sample", "null sample"])
def test_statistics_that_prove_nothing_check_every_row(tmp_path: Path, bad: str) -> None:
    data: list[tuple[Any, ...]] = list(rows(4))
    m, q, s, v = data[7]
    data[7] = {"null outcome": (m, q, s, None), "outcome 2": (m, q, s, 2), "negative sample": (m, q, -1, v),
               "null sample": (m, q, None, v)}[bad]
    board = check(tmp_path, table(data), proven=False, metrics="pass@1")
    # A negative sample id is an id like any other (not 0..63: counted exactly).
    assert any(re.search(r"row 8\b", w) for w in board.warnings) == (bad != "negative sample")


def test_codes_are_sorted_names_and_cells_ordered() -> None:
    t = pa.table({"m": pa.array(["b", None, "a", "b", "c"]), "x": pa.array([1, 2, 3, 4, 5], pa.int64())})
    names, codes = _arrow.codes(t, "m")
    assert names == ["a", "b", "c"] and codes.tolist() == [1, -1, 0, 1, 2]
    assert _arrow.int_column(t.slice(1), "x").tolist() == [2, 3, 4, 5]
    m, q = np.array([2, 0, 1, 0]), np.array([0, 5, 1, 2])
    for nq in (6, 10**6):
        order = _arrow.by_model_question(m, q, nq)
        assert list(zip(m[order], q[order])) == [(0, 2), (0, 5), (1, 1), (2, 0)]
    parts: tuple[list[str | None], ...] = (["z", "a"], ["q", "a", None], [])
    chunked = pa.Table.from_batches([pa.record_batch({"m": pa.array(x, pa.string())}) for x in parts])
    names, codes = _arrow.codes(chunked, "m")
    assert names == ["a", "q", "z"] and codes.tolist() == [2, 0, 1, 0, -1]


@pytest.mark.parametrize("fmt", ["csv", "tsv", "csv.gz", "csv.zst"])
def test_one_csv_file_is_sniffed_once(tmp_path: Path, fmt: str) -> None:
    """DuckDB's sniffer runs once (sniff_csv); every read_csv after it
    declares what it found (auto_detect = false): the same board as the
    table's, CRLF line ends and a date column included."""
    import gzip

    from kscore.leaderboard.read import source as _source

    data = rows(4)
    sep = "\t" if fmt == "tsv" else ","
    lines = [sep.join(["model", "question", "sample", "correct", "day"])]
    lines += [sep.join([m, q, str(s), str(v), f"{13 + s}/02/2024"]) for m, q, s, v in data]
    text = ("\r\n".join(lines) + "\r\n").encode()
    path = tmp_path / f"r.{fmt}"
    if fmt == "csv.gz":
        text = gzip.compress(text)
    elif fmt == "csv.zst":
        sink = pa.BufferOutputStream()
        with pa.CompressedOutputStream(sink, "zstd") as f:
            f.write(text)
        text = sink.getvalue().to_pybytes()
    path.write_bytes(text)
    scans: list[str] = []
    run = _source.Source.run

    def spy(self: Any, sql: str, filename: bool = False, row_number: bool = False) -> Any:
        scans.append(self.scan(filename, row_number))
        return run(self, sql, filename, row_number)

    _source.Source.run = spy  # type: ignore[method-assign]
    try:
        got = kscore.leaderboard(path, metrics="pass@1,bayes@N")
    finally:
        _source.Source.run = run  # type: ignore[method-assign]
    ref = kscore.leaderboard(table(data), metrics="pass@1,bayes@N")
    assert counts_of(got) == counts_of(ref)
    assert scans and all("auto_detect = false" in s and "'day': 'DATE'" in s and "dateformat = '%d/%m/%Y'" in s
                         for s in scans)


def test_several_csv_files_keep_matching_columns_by_name(tmp_path: Path) -> None:
    """DuckDB sniffs each of several files and matches their columns by
    name (declared columns would be taken by position)."""
    (tmp_path / "a.csv").write_text("model,question,sample,correct\na,q1,0,1\na,q2,0,0\n")
    (tmp_path / "b.csv").write_text("question,sample,correct,model\nq1,0,0,b\nq2,0,0,b\n")
    board = kscore.leaderboard(tmp_path, metrics="pass@1")
    assert counts_of(board) == {("a", "q1"): [0, 1], ("a", "q2"): [1, 0], ("b", "q1"): [1, 0], ("b", "q2"): [1, 0]}
