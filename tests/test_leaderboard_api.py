"""``kscore.leaderboard``: every kind of source gives the same board, values
equal kscore.counts / kscore.eval computed independently, counts tables
round-trip and add up; real DuckDB on real files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import kscore
import kscore.counts as kc
from kscore import eval as ke
from kscore.leaderboard import Counts, LeaderboardError, add_counts

pa = pytest.importorskip("pyarrow")
duckdb = pytest.importorskip("duckdb")
import pyarrow.csv as pacsv  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

MODELS = ["alpha", "beta", "gamma"]
Q, N = 30, 6


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    """Ragged binary outcomes: question q of model m has N - (q + m) % 3 samples."""
    rng = np.random.default_rng(11)
    rows: list[tuple[str, str, int, int]] = []
    per: dict[str, tuple[list[int], list[int]]] = {}
    for i, m in enumerate(MODELS):
        ns, cs = [], []
        for q in range(Q):
            n = N - (q + i) % 3
            out = (rng.random(n) < 0.3 + 0.25 * i).astype(int)
            rows += [(m, f"q{q:02d}", s, int(out[s])) for s in range(n)]
            ns.append(n)
            cs.append(int(out.sum()))
        per[m] = (ns, cs)
    table = pa.table({"model": [r[0] for r in rows], "question": [r[1] for r in rows],
                      "sample": pa.array([r[2] for r in rows], pa.int32()), "correct": [r[3] for r in rows]})
    return {"table": table, "per": per}


def board_values(board: kscore.Leaderboard) -> dict[str, dict[str, Any]]:
    """Per model, its numeric columns (rank labels and names left out)."""
    cols = board.columns()
    return {m: {k: v[i] for k, v in cols.items() if k not in ("rank", "model")} for i, m in enumerate(cols["model"])}


def same(a: dict[str, dict[str, Any]], b: dict[str, dict[str, Any]]) -> bool:
    return a.keys() == b.keys() and all(a[m] == pytest.approx(b[m], rel=1e-14) for m in a)


def test_values_equal_kscore_counts_on_ragged_data(data: dict[str, Any]) -> None:
    board = kscore.leaderboard(data["table"], metrics="pass@1,pass@4,pass^2,maj@3,bayes@N", interval="posterior")
    got = board_values(board)
    assert sorted(got) == MODELS and [r.model for r in board.rows] == ["gamma", "beta", "alpha"]
    for m, (n, c) in data["per"].items():
        for name, point, k in [("pass@4", kc.pass_at_k, 4), ("pass^2", kc.pass_hat_k, 2), ("maj@3", kc.maj_at_k, 3)]:
            # (the posterior itself: tests/test_posterior_interval.py)
            assert got[m][f"{name}_lo"] < got[m][f"{name}_posterior_mean"] < got[m][f"{name}_hi"]
            assert got[m][name] == pytest.approx(point(np.array(n), np.array(c), k, mean=True), rel=1e-14)
        assert got[m]["accuracy"] == pytest.approx(np.mean(np.array(c) / np.array(n)), rel=1e-14)
        assert got[m]["samples_min"] == N - 2 and got[m]["samples_max"] == N
    assert any("samples per question" in note for note in board.notes)


def test_bayes_equals_kscore_eval_on_rectangular_categorical_data(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    R = {m: rng.choice(3, size=(20, 7), p=p) for m, p in [("a", [0.2, 0.3, 0.5]), ("b", [0.5, 0.3, 0.2])]}
    rows = [(m, q, s, int(A[q, s])) for m, A in R.items() for q in range(20) for s in range(7)]
    path = tmp_path / "graded.jsonl"
    path.write_text("".join(f'{{"model": "{m}", "id": {q}, "seed": {s}, "grade": "{g}"}}\n' for m, q, s, g in rows))
    w = np.array([0.0, 0.5, 1.0])
    got = board_values(kscore.leaderboard(path, weights=[0, 0.5, 1], metrics=["bayes@N", "pass@2"],
                                          interval="posterior"))
    for m, A in R.items():
        assert got[m]["bayes@N"] == pytest.approx(ke.bayes(A, w)[0], rel=1e-12)
        assert got[m]["bayes@N_lo"] < got[m]["bayes@N"] < got[m]["bayes@N_hi"]
        assert got[m]["pass@2"] == pytest.approx(ke.pass_at_k((A == 2).astype(int), 2), rel=1e-12)


def test_every_source_kind_gives_the_same_board(data: dict[str, Any], tmp_path: Path) -> None:
    pl = pytest.importorskip("polars")
    pytest.importorskip("pandas")

    table = data["table"]
    ref = board_values(kscore.leaderboard(table))
    pq.write_table(table, tmp_path / "all.parquet")
    pacsv.write_csv(table, tmp_path / "all.csv")
    by_model = tmp_path / "by_model"
    hive = tmp_path / "hive"
    for m in MODELS:
        part = table.filter(pa.compute.equal(table.column("model"), m))
        by_model.mkdir(exist_ok=True)
        pq.write_table(part.drop(["model"]), by_model / f"{m}.parquet")
        (hive / f"model={m}").mkdir(parents=True)
        pacsv.write_csv(part.drop(["model"]), hive / f"model={m}" / "part-0.csv")
    con = duckdb.connect()
    sources: list[Any] = [
        table, table.to_pandas(), pl.from_arrow(table), con.from_arrow(table), str(tmp_path / "all.parquet"),
        tmp_path / "all.csv", by_model, str(by_model / "*.parquet"), str(hive / "**" / "*.csv"), hive,
    ]
    for src in sources:
        got = board_values(kscore.leaderboard(src))
        assert got.keys() == ref.keys(), src
        for m in ref:
            assert got[m] == pytest.approx(ref[m], rel=1e-14), (src, m)


def test_counts_table_round_trips_and_runs_add_up(data: dict[str, Any], tmp_path: Path) -> None:
    table = data["table"]
    whole = kscore.leaderboard(table)
    first = table.filter(pa.compute.less(table.column("sample"), 2))
    rest = table.filter(pa.compute.greater_equal(table.column("sample"), 2))
    a, b = kscore.leaderboard(first).counts, kscore.leaderboard(rest).counts
    merged = add_counts(a, b)
    assert isinstance(merged, Counts) and int(merged.n.sum()) == table.num_rows
    for src in (merged, merged.to_arrow(), merged.to_pandas(), merged.to_polars()):
        assert same(board_values(kscore.leaderboard(src)), board_values(whole))
    # A counts file, and two counts files stacked: repeated (model, question) rows add.
    pq.write_table(a.to_arrow(), tmp_path / "a.parquet")
    pq.write_table(b.to_arrow(), tmp_path / "b.parquet")
    assert same(board_values(kscore.leaderboard(str(tmp_path / "*.parquet"))), board_values(whole))
    pytest.importorskip("pandas")
    pytest.importorskip("polars")
    with pytest.raises(ValueError, match="categories"):
        add_counts(a, kscore.leaderboard(table.drop(["sample"]), weights="0,0.5,1").counts)


def test_graded_counts_table_needs_its_category_columns(data: dict[str, Any]) -> None:
    counts = kscore.leaderboard(data["table"]).counts.to_arrow()
    with pytest.raises(LeaderboardError, match="no column c_0"):
        kscore.leaderboard(counts, weights="0,0.5,1")


def test_duplicates_found_exactly_for_large_and_text_sample_ids(tmp_path: Path) -> None:
    rows = [("m", "q1", 1000, 1), ("m", "q1", 2000, 0), ("m", "q1", 1000, 0), ("m", "q2", 5, 1), ("m", "q2", 6, 1)]
    for kind, conv in (("int", int), ("text", lambda s: f"s{s}")):
        t = pa.table({"model": [r[0] for r in rows], "question": [r[1] for r in rows],
                      "sample": [conv(r[2]) for r in rows], "correct": [r[3] for r in rows]})
        board = kscore.leaderboard(t)
        assert board.counts.n.tolist() == [2, 2], kind
        assert board.counts.c.tolist() == [1, 2], kind  # the first of the repeated sample (correct) is kept
        assert any("1 duplicate row" in w and "row 3" in w and "repeats row 1" in w for w in board.warnings), kind


def test_conversions_need_only_their_library(data: dict[str, Any]) -> None:
    pytest.importorskip("pandas")
    pytest.importorskip("polars")
    board = kscore.leaderboard(data["table"], metrics="pass@1")
    arrow = board.to_arrow()
    assert arrow.column_names[:4] == ["rank", "rank_lo", "rank_hi", "model"]
    assert board.to_pandas()["model"].tolist() == arrow.column("model").to_pylist()
    assert board.to_polars()["pass@1"].to_list() == arrow.column("pass@1").to_pylist()


def test_bad_sources_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(LeaderboardError, match="no files match"):
        kscore.leaderboard(str(tmp_path / "*.parquet"))
    with pytest.raises(LeaderboardError, match="cannot rank a dict"):
        kscore.leaderboard({"model": ["a"]})
    (tmp_path / "a.csv").write_text("model,question,correct\na,q,1\n")
    (tmp_path / "b.parquet").write_bytes(b"junk")
    with pytest.raises(LeaderboardError, match="mixes formats"):
        kscore.leaderboard(tmp_path)
