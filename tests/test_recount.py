"""Recomputation (docs/leaderboard.md, *Recomputation*): ``kscore count``
stores the counts table, and a board mixing stored counts tables with new
raw results equals the board of every raw row read at once, CSV byte for
byte. The counts are checked against sums computed here in plain Python,
and the Parquet counts reader against the DuckDB query it stands in for."""

from __future__ import annotations

import importlib
import warnings
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("duckdb")

from kscore.cli import main  # noqa: E402
from kscore.leaderboard import Counts, Issues, LeaderboardError, add_counts, count, from_cells, read_counts  # noqa: E402
from kscore.leaderboard._counts import sum_cells  # noqa: E402

NAMES = ["gpt-b", "alpha", "zeta", "mid-model", "beta"]


def _rows(seed: int, models: list[str], n_questions: int = 30, graded: bool = False) -> dict[str, list[Any]]:
    """Ragged long-format rows: each model answers a random subset of the
    questions with 1-6 samples each; a subject per question."""
    rng = np.random.default_rng(seed)
    out: dict[str, list[Any]] = {"model": [], "question": [], "sample": [], "correct": [], "subject": []}
    for m in models:
        ability = rng.random()
        for q in range(n_questions):
            if rng.random() < 0.15:
                continue
            for s in range(int(rng.integers(1, 7))):
                u = rng.random()
                v = (2 if u < ability else int(u < 0.8)) if graded else int(u < ability)
                out["model"].append(m)
                out["question"].append(f"q{q:03d}")
                out["sample"].append(s)
                out["correct"].append(v)
                out["subject"].append(f"subj{q % 4}")
    return out


def _write(rows: dict[str, list[Any]], path: Path, keep: Any = None) -> Path:
    table = pa.table(rows)
    if keep is not None:
        table = table.filter(pa.array(keep))
    pq.write_table(table, path)
    return path


def _split(tmp: Path, rows: dict[str, list[Any]]) -> dict[str, Path]:
    """Per model raw files under all/; the models but 'mid-model' counted
    into stored.parquet; 'mid-model' (sorting in the middle) new.parquet."""
    (tmp / "all").mkdir()
    models = np.array(rows["model"])
    for m in sorted(set(rows["model"])):
        _write(rows, tmp / "all" / f"{m}.parquet", models == m)
    new = _write(rows, tmp / "new.parquet", models == "mid-model")
    (tmp / "old").mkdir()
    for m in sorted(set(rows["model"]) - {"mid-model"}):
        _write(rows, tmp / "old" / f"{m}.parquet", models == m)
    return {"all": tmp / "all", "old": tmp / "old", "new": new}


def _cli(*argv: str) -> None:
    assert main([*argv, "--quiet"]) == 0, argv


def _expected(rows: dict[str, list[Any]], categories: int) -> dict[tuple[str, str], list[int]]:
    """Per (model, question) category counts, summed here in plain Python."""
    out: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0] * categories)
    for m, q, v in zip(rows["model"], rows["question"], rows["correct"]):
        out[(m, q)][v] += 1
    return dict(out)


def _as_dict(counts: Counts) -> dict[tuple[str, str], list[int]]:
    cols = counts.columns()
    return {(m, q): list(map(int, row)) for m, q, row in zip(cols["model"], cols["question"], counts.categories)}


@pytest.fixture(autouse=True, params=["pyarrow", "query"])
def counts_reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test with both readers of Parquet counts tables: pyarrow's
    (for large files; here on any size) and the DuckDB query (small files)."""
    counts_input = importlib.import_module("kscore.leaderboard.read.counts_input")  # (kscore.leaderboard is a function)
    monkeypatch.setattr(counts_input, "FAST_BYTES", 0 if request.param == "pyarrow" else 1 << 62)
    return str(request.param)


@pytest.mark.parametrize("graded", [False, True])
def test_mixed_board_equals_the_raw_board_byte_for_byte(tmp_path: Path, graded: bool) -> None:
    rows = _rows(1, NAMES, graded=graded)
    paths = _split(tmp_path, rows)
    weights = ["--weights", "0,0.5,1"] if graded else []
    stored = tmp_path / "stored.parquet"
    _cli("count", str(paths["old"]), "-o", str(stored), *weights)
    _cli("leaderboard", str(paths["all"]), "--format", "csv", "-o", str(tmp_path / "raw.csv"), *weights)
    _cli("leaderboard", str(stored), str(paths["new"]), "--format", "csv", "-o", str(tmp_path / "mixed.csv"), *weights)
    raw = (tmp_path / "raw.csv").read_bytes()
    assert raw.count(b"\n") == len(NAMES) + 1
    assert (tmp_path / "mixed.csv").read_bytes() == raw
    # The stored table updated in place with the new model's rows, then ranked alone.
    _cli("count", str(stored), str(paths["new"]), "-o", str(stored), *weights)
    _cli("leaderboard", str(stored), "--format", "csv", "-o", str(tmp_path / "updated.csv"), *weights)
    assert (tmp_path / "updated.csv").read_bytes() == raw
    # The counts written equal the sums of the raw rows.
    expected = _expected(rows, 3 if graded else 2)
    table = pq.read_table(stored)
    assert table.column_names[:4] == ["model", "question", "n", "c"]
    assert table.schema.field("model").type == pa.string()
    columns = (table.column(x).to_pylist() for x in ("model", "question", "n", "c"))
    got = {(m, q): (n, c) for m, q, n, c in zip(*columns)}
    assert got == {k: (sum(v), v[-1]) for k, v in expected.items()}
    assert list(got) == sorted(got)


def test_a_folder_of_counts_tables_equals_the_raw_board(tmp_path: Path) -> None:
    """The update beside: the new model's counts written next to the stored
    table, the board read as the folder (several counts tables, one source)."""
    rows = _rows(7, NAMES)
    paths = _split(tmp_path, rows)
    (tmp_path / "board").mkdir()
    _cli("count", str(paths["old"]), "-o", str(tmp_path / "board" / "stored.parquet"))
    _cli("count", str(paths["new"]), "-o", str(tmp_path / "board" / "mid-model.parquet"))
    _cli("leaderboard", str(paths["all"]), "--format", "csv", "-o", str(tmp_path / "raw.csv"))
    _cli("leaderboard", str(tmp_path / "board" / "*.parquet"), "--format", "csv", "-o", str(tmp_path / "folder.csv"))
    assert (tmp_path / "folder.csv").read_bytes() == (tmp_path / "raw.csv").read_bytes()
    assert _as_dict(count(str(tmp_path / "board"))) == _expected(rows, 2)


def test_adding_a_counted_file_again_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """kscore count records the raw files a table holds in its footer: the
    same update run twice, or two tables holding one file, are refused
    rather than counted twice."""
    rows = _rows(8, NAMES)
    paths = _split(tmp_path, rows)
    stored = tmp_path / "stored.parquet"
    _cli("count", str(paths["old"]), "-o", str(stored))
    _cli("count", str(stored), str(paths["new"]), "-o", str(stored))
    before = stored.read_bytes()
    assert main(["count", str(stored), str(paths["new"]), "-o", str(stored)]) == 1
    assert "new.parquet is already counted in" in capsys.readouterr().err
    assert stored.read_bytes() == before
    assert _as_dict(count(str(stored))) == _expected(rows, 2)  # once, not twice
    with pytest.raises(LeaderboardError, match="already counted"):
        count([stored, paths["old"] / "alpha.parquet"])
    _cli("count", str(paths["new"]), "-o", str(tmp_path / "a.parquet"))
    _cli("count", str(paths["new"]), "-o", str(tmp_path / "b.parquet"))
    assert main(["leaderboard", str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")]) == 1
    assert "is counted in both" in capsys.readouterr().err


def test_new_samples_of_a_stored_model_add_up(tmp_path: Path) -> None:
    """Later samples of models already stored (another day's run): the
    cells add, and the board equals the one of both days' raw rows."""
    day1, day2 = _rows(2, NAMES[:3]), _rows(3, NAMES[1:])
    day2["sample"] = [s + 10 for s in day2["sample"]]  # other sample ids: no repeats across the days
    both = {k: day1[k] + day2[k] for k in day1}
    _write(both, tmp_path / "both.parquet")
    _write(day1, tmp_path / "day1.parquet")
    _write(day2, tmp_path / "day2.parquet")
    _cli("count", str(tmp_path / "day1.parquet"), "-o", str(tmp_path / "stored.parquet"))
    _cli("leaderboard", str(tmp_path / "both.parquet"), "--format", "csv", "-o", str(tmp_path / "raw.csv"))
    _cli("leaderboard", str(tmp_path / "stored.parquet"), str(tmp_path / "day2.parquet"), "--format", "csv",
         "-o", str(tmp_path / "mixed.csv"))
    assert (tmp_path / "mixed.csv").read_bytes() == (tmp_path / "raw.csv").read_bytes()
    assert _as_dict(count([tmp_path / "stored.parquet", tmp_path / "day2.parquet"])) == _expected(both, 2)


def test_attributes_carried_through_the_stored_table(tmp_path: Path) -> None:
    rows = _rows(4, NAMES)
    paths = _split(tmp_path, rows)
    stored = tmp_path / "stored.csv"
    _cli("count", str(paths["old"]), "--by", "subject", "-o", str(stored))
    header = stored.read_text().splitlines()[0]
    assert header == '"model","question","n","c","subject"'
    flags = ["--by", "subject", "--cluster", "subject", "--format", "csv"]
    _cli("leaderboard", str(paths["all"]), *flags, "-o", str(tmp_path / "raw.csv"))
    _cli("leaderboard", str(stored), str(paths["new"]), *flags, "-o", str(tmp_path / "mixed.csv"))
    assert (tmp_path / "mixed.csv").read_bytes() == (tmp_path / "raw.csv").read_bytes()


def test_python_api_mixes_tables_and_files(tmp_path: Path) -> None:
    import pandas as pd

    rows = _rows(5, NAMES)
    paths = _split(tmp_path, rows)
    frame = pd.DataFrame(rows)
    old = count(frame[frame["model"] != "mid-model"])
    mixed = count([old, paths["new"]])
    assert _as_dict(mixed) == _expected(rows, 2)
    assert _as_dict(count([old.to_arrow(), str(paths["new"])])) == _expected(rows, 2)
    with pytest.raises(LeaderboardError, match="empty list"):
        count([])
    with pytest.raises(LeaderboardError, match="named twice"):
        count([str(paths["new"]), str(tmp_path / "*.parquet")])
    with pytest.raises(LeaderboardError, match="named twice"):
        count([paths["new"], paths["new"]])


def _counts_rows() -> dict[str, list[Any]]:
    """A counts table with repeated (model, question) rows, invalid rows
    (c > n, negative, missing), empty rows (n = 0) and a missing model."""
    return {
        "model": ["b", "a", "b", "a", "c", "a", None, "d", "a", "e"],
        "question": ["q2", "q1", "q2", "q3", "q1", "q1", "q1", "q9", None, "q1"],
        "n": [4, 3, 2, 5, 1, 2, 3, 0, 2, None],
        "c": [1, 3, 2, 7, -1, 0, 1, 0, 1, 1],
    }


def test_parquet_counts_reader_equals_the_query(tmp_path: Path, counts_reader: str) -> None:
    counts_input: Any = importlib.import_module("kscore.leaderboard.read.counts_input")
    rows = _counts_rows()
    path = _write(rows, tmp_path / "counts.parquet")
    fast_issues, query_issues = Issues(), Issues()
    read = counts_input._read_parquet
    used: list[bool] = []

    def spy(*args: Any) -> Any:  # the real reader, noting whether it read the table
        out = read(*args)
        used.append(out is not None)
        return out

    counts_input._read_parquet = spy
    try:
        fast, _ = read_counts(str(path), issues=fast_issues)
    finally:
        counts_input._read_parquet = read
    assert used == [counts_reader == "pyarrow"]
    query, _ = read_counts(pa.table(rows), issues=query_issues)  # an in-memory table: the DuckDB query
    assert (fast.models, fast.questions) == (query.models, query.questions) == (["a", "b"], ["q1", "q2"])
    for x in ("model", "question", "categories"):
        assert np.array_equal(getattr(fast, x), getattr(query, x)), x
    # a/q1: 3 of 3 plus 0 of 2; b/q2: 1 of 4 plus 2 of 2 (plain sums).
    assert _as_dict(fast) == {("a", "q1"): [2, 3], ("b", "q2"): [3, 3]}
    assert [w.split(": ", 1)[1] for w in fast_issues.warnings] == \
        [w.split(": ", 1)[1] for w in query_issues.warnings] == \
        ["3 counts row(s) with invalid counts (need 0 <= c <= n, integers) (skipped)"]


def test_unsigned_and_small_count_columns(tmp_path: Path, counts_reader: str) -> None:
    """Counts stored as uint32 (past 2^31) and int8 read as the query reads them."""
    rows = {"model": pa.array(["a", "b"]), "question": pa.array(["q", "q"]),
            "n": pa.array([3_000_000_000, 5], pa.uint32()), "c": pa.array([1, 2], pa.int8())}
    path = tmp_path / "counts.parquet"
    pq.write_table(pa.table(rows), path)
    got, _ = read_counts(str(path))
    assert _as_dict(got) == {("a", "q"): [2_999_999_999, 1], ("b", "q"): [3, 2]}


def test_graded_parquet_counts_reader_equals_the_query(tmp_path: Path) -> None:
    rows: dict[str, list[Any]] = {"model": ["a", "a", "b", "b"], "question": ["q1", "q1", "q1", "q2"],
                                  "n": [3, 2, 4, 2], "c": [1, 2, 1, 2],
                                  "c_0": [1, 0, 1, 0], "c_1": [1, 0, 2, 1], "c_2": [1, 2, 1, 2]}
    path = _write(rows, tmp_path / "graded.parquet")
    a, b = Issues(), Issues()
    fast, _ = read_counts(str(path), n_categories=3, issues=a)
    query, _ = read_counts(pa.table(rows), n_categories=3, issues=b)
    assert np.array_equal(fast.categories, query.categories)
    assert _as_dict(fast) == {("a", "q1"): [1, 1, 3], ("b", "q1"): [1, 2, 1]}
    assert len(a.warnings) == len(b.warnings) == 1  # b/q2: c_0..c_2 sum to 3, not n = 2


def test_count_warns_and_strict_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(_counts_rows(), tmp_path / "counts.parquet")
    with pytest.warns(UserWarning, match="invalid counts"):
        count(str(path))
    out = tmp_path / "out.parquet"
    out.write_bytes(b"previous")
    assert main(["count", str(path), "-o", str(out), "--strict"]) == 1
    assert "invalid counts" in capsys.readouterr().err
    assert out.read_bytes() == b"previous"  # nothing half-written, the old file kept
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(["count", str(path), "-o", str(out), "--quiet"]) == 0
    assert pq.read_table(out).num_rows == 2


def test_output_over_an_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = _write(_rows(6, NAMES[:2]), tmp_path / "raw.parquet")
    before = raw.read_bytes()
    assert main(["count", str(raw), "-o", str(raw)]) == 1
    assert "is the input file" in capsys.readouterr().err
    assert raw.read_bytes() == before  # raw results are never replaced by their counts
    stored = tmp_path / "stored.parquet"
    _cli("count", str(raw), "-o", str(stored))
    _cli("count", str(stored), "-o", str(stored))  # a counts table may be updated in place
    assert _as_dict(count(str(stored))) == _expected(_rows(6, NAMES[:2]), 2)


@pytest.mark.parametrize("seed", range(20))
def test_sum_cells_and_add_counts_equal_plain_sums(seed: int) -> None:
    rng = np.random.default_rng(seed)
    tables, reference = [], Counter[tuple[str, str, int]]()
    for _ in range(int(rng.integers(1, 4))):
        models = sorted({f"m{int(x)}" for x in rng.integers(0, 6, 4)})
        questions = sorted({f"q{int(x)}" for x in rng.integers(0, 50 if seed % 2 else 5000, 30)})
        n = int(rng.integers(0, 60))
        m, q = rng.integers(0, len(models), n), rng.integers(0, len(questions), n)
        cats = rng.integers(0, 3, (n, 2))
        t = from_cells(models, questions, m, q, cats)
        tables.append(t)
        for mi, qi, row in zip(m, q, cats):
            for j in range(2):
                reference[(models[mi], questions[qi], j)] += int(row[j])
    merged = add_counts(*tables)
    expected: dict[tuple[str, str], list[int]] = {}
    for (m_name, q_name, j), v in reference.items():
        expected.setdefault((m_name, q_name), [0, 0])[j] = v
    assert _as_dict(merged) == {k: v for k, v in expected.items() if sum(v) > 0}
    keys = merged.model * len(merged.questions) + merged.question
    assert np.all(np.diff(keys) > 0)  # ordered by model then question
    # sum_cells of keys given in any order equals the sorted plain sums.
    key = rng.integers(0, 40, 100)  # one model, 40 questions
    col = rng.integers(0, 3, 100)
    m, k, s = sum_cells(key // 40, key % 40, 40, [col, col])
    assert not m.any()
    plain = Counter[int]()
    for a, b in zip(key.tolist(), col.tolist()):
        plain[a] += b
    assert dict(zip(k.tolist(), s[:, 0].tolist())) == {a: b for a, b in sorted(plain.items()) if b > 0}
