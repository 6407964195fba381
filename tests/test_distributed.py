"""Past one machine: a real ``dask.distributed`` cluster (two worker
processes) counts a multi-file Parquet dataset, and the leaderboard kscore
computes from those counts is the single-machine one; counts of shards
(days) computed separately, by either engine, add up to the counts of all
rows (docs/leaderboard.md, *Past one machine*)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import kscore
from kscore.leaderboard import Counts, LeaderboardError, add_counts, counts_from_dask

pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")
pytest.importorskip("duckdb")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
import pyarrow.parquet as pq  # noqa: E402

MODELS = ["alpha", "beta", "gamma", "delta"]
DAYS = ["2024-05-01", "2024-05-02", "2024-05-03"]
Q = 25


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
                                  silence_logs=40) as cluster, distributed.Client(cluster) as c:
        yield c


def _rows(rng: np.random.Generator, day: int, graded: bool) -> list[tuple[str, str, int, int]]:
    """One day's rows: every model answers every question a ragged number of
    times (samples numbered on from the earlier days')."""
    rows = []
    for i, m in enumerate(MODELS):
        for q in range(Q):
            n = 1 + (q + i + day) % 3  # 1..3 samples a day
            start = sum(1 + (q + i + d) % 3 for d in range(day))
            p = 0.2 + 0.2 * i
            for s in range(start, start + n):
                g = int(rng.choice(3, p=[1 - p, p / 2, p / 2])) if graded else int(rng.random() < p)
                rows.append((m, f"q{q:03d}", s, g))
    return rows


def _write(rows: list[tuple[Any, ...]], path: Path, outcome: str) -> None:
    pq.write_table(pa.table({"model": [r[0] for r in rows], "question": [r[1] for r in rows],
                             "sample": pa.array([r[2] for r in rows], pa.int64()),
                             outcome: [r[3] for r in rows]}), path)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two shards a day, for binary and graded outcomes; the binary set has
    dirty rows (an outcome out of range, one unparsable, a row without a
    sample, a duplicate within a day) that both engines skip."""
    root = tmp_path_factory.mktemp("results")
    rng = np.random.default_rng(2024)
    for graded, outcome in ((False, "correct"), (True, "grade")):
        folder = root / ("graded" if graded else "binary")
        folder.mkdir()
        for d, day in enumerate(DAYS):
            rows: list[tuple[Any, ...]] = list(_rows(rng, d, graded))
            if not graded and d == 1:
                rows += [("beta", "q003", 90, 7), ("gamma", "q004", 91, -1), ("alpha", "q005", None, 1),
                         (*rows[10][:3], 1 - rows[10][3])]  # a repeat with the other outcome: the first counts
            half = len(rows) // 2
            _write(rows[:half], folder / f"{day}-part0.parquet", outcome)
            _write(rows[half:], folder / f"{day}-part1.parquet", outcome)
    return {"binary": root / "binary", "graded": root / "graded"}


def _sorted(counts: Counts) -> Any:
    return counts.to_pandas().sort_values(["model", "question"], kind="stable").reset_index(drop=True)


def _problems(warnings: list[str]) -> list[str]:
    """'3 rows with ...' of each data warning, without the examples."""
    return sorted(m.group(1) for w in warnings if (m := re.search(r": (\d+ [^()]+?) \(", w)))


METRICS = "pass@1,pass@3,pass^2,maj@3,bayes@N"


@pytest.mark.parametrize("kind,weights", [("binary", None), ("graded", "0,0.5,1")])
def test_cluster_counts_and_leaderboard_equal_single_machine(client: Any, dataset: dict[str, Path], kind: str,
                                                             weights: str | None) -> None:
    pattern = str(dataset[kind] / "*.parquet")
    assert len(list(dataset[kind].glob("*.parquet"))) == 2 * len(DAYS)
    ddf = dd.read_parquet(pattern)
    assert ddf.npartitions >= 2 * len(DAYS)
    pids = set(client.run(os.getpid).values())
    assert len(pids) == 2 and os.getpid() not in pids
    with distributed.get_task_stream(client) as stream:
        on_cluster = kscore.leaderboard(ddf, metrics=METRICS, weights=weights)
    assert {t["worker"] for t in stream.data} == set(client.scheduler_info()["workers"])  # both workers counted

    single = kscore.leaderboard(pattern, metrics=METRICS, weights=weights)
    # The same counts, column for column and dtype for dtype.
    got, want = _sorted(on_cluster.counts), _sorted(single.counts)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert list(got.columns) == (["model", "question", "n", "c"] + (["c_0", "c_1", "c_2"] if weights else []))
    # The same data problems, counted alike.
    assert _problems(on_cluster.warnings) == _problems(single.warnings)
    if kind == "binary":
        assert _problems(single.warnings) == ["1 duplicate row", "1 row without a model, question or sample id",
                                              "2 rows with an outcome out of range"]
    else:
        assert _problems(single.warnings) == []

    # The leaderboard: identical to the single machine's computed from the
    # same counts in the same (model, question) order ...
    same_order = kscore.leaderboard(add_counts(single.counts), metrics=METRICS, weights=weights)
    pd.testing.assert_frame_equal(on_cluster.to_pandas(), same_order.to_pandas(), check_exact=True)
    # ... and to the direct single-machine board but for the last bits of
    # the means: DuckDB's GROUP BY returns the (model, question) cells in no
    # fixed order, and a mean over questions summed in another order may
    # round differently.
    direct, ours = single.to_pandas(), on_cluster.to_pandas()
    assert list(direct.columns) == list(ours.columns)
    for col in direct.columns:
        if direct[col].dtype.kind == "f":
            np.testing.assert_allclose(ours[col].to_numpy(), direct[col].to_numpy(), rtol=1e-13, atol=0)
        else:
            assert ours[col].tolist() == direct[col].tolist(), col


def test_outcome_spellings_are_read_as_the_engine_reads_them(client: Any, tmp_path: Path) -> None:
    """Text, boolean and float outcomes, ids that are numbers, missing ids:
    the cluster's counts are the DuckDB engine's on the same rows."""
    text = ["1", "0", "true", " Yes", "F", "no", "1.0", "0.0", "2", "-1", "x", "", None, "nan", "inf", "0.5", "1e0",
            "T", "FALSE", "1"]
    n = len(text)
    frame = pd.DataFrame({"model": ["a", "b"] * (n // 2), "question": [q % 3 for q in range(n)],
                          "sample": list(range(n)), "result": pd.Series(text, dtype=object)})
    floats = frame.assign(result=[1.0, 0.0, np.nan, np.inf, 2.0, 0.5, -0.0, 1.0, 0.0, 1.0] * 2)
    bools = frame.assign(result=pd.array([True, False, None, True] * 5, dtype="boolean"))
    no_ids = frame.assign(model=[None if i % 7 == 0 else "a" for i in range(n)],
                          question=[None if i % 5 == 0 else "q" for i in range(n)])
    for table in (frame, floats, bools, no_ids):
        ddf = dd.from_pandas(table, npartitions=3)
        ours = kscore.leaderboard(ddf, metrics="pass@1")
        theirs = kscore.leaderboard(table, metrics="pass@1")
        pd.testing.assert_frame_equal(_sorted(ours.counts), _sorted(theirs.counts), check_exact=True)
        assert _problems(ours.warnings) == _problems(theirs.warnings)
    # Integer ids with a missing one: pandas holds that partition's ids as floats, still written 3, not 3.0.
    pq.write_table(pa.table({"model": ["a", "a", "b", "b"], "question": pa.array([3, None, 3, 40], pa.int64()),
                             "correct": [1, 0, 1, 1]}), tmp_path / "null-id.parquet")
    ours_counts = counts_from_dask(dd.read_parquet(str(tmp_path / "null-id.parquet")))
    theirs = kscore.leaderboard(str(tmp_path / "null-id.parquet"))
    assert ours_counts.columns()["question"] == ["3", "3", "40"]
    pd.testing.assert_frame_equal(_sorted(ours_counts), _sorted(theirs.counts), check_exact=True)
    graded = frame.assign(result=["0", "1", "2", "3", "2.0", "1.5", "true", "0"] * 2 + ["2", "1", "0", "x"])
    ours_counts = counts_from_dask(dd.from_pandas(graded, npartitions=2), weights="0,0.5,1")
    theirs = kscore.leaderboard(graded, weights="0,0.5,1")
    pd.testing.assert_frame_equal(_sorted(ours_counts), _sorted(theirs.counts), check_exact=True)


def test_shards_counted_apart_add_up(client: Any, dataset: dict[str, Path], tmp_path: Path) -> None:
    """Each day counted on its own, by DuckDB or by the cluster (or read back
    from a saved counts file), then added: the counts, and the leaderboard,
    of all the rows. (A duplicate within a day is dropped in both; the same
    sample repeated on two days would count twice once added.)"""
    folder = dataset["binary"]
    whole = kscore.leaderboard(str(folder / "*.parquet"))
    by_duckdb = [kscore.leaderboard(str(folder / f"{day}-*.parquet")).counts for day in DAYS]
    by_dask = [counts_from_dask(dd.read_parquet(str(folder / f"{day}-*.parquet"))) for day in DAYS]
    for shards in (by_duckdb, by_dask):
        merged = add_counts(*shards)
        pd.testing.assert_frame_equal(_sorted(merged), _sorted(whole.counts), check_exact=True)
        assert 0 < int(shards[0].n.sum()) < int(merged.n.sum())
    # Mixed: a day from each engine and one from a counts file written earlier.
    pq.write_table(by_duckdb[2].to_arrow(), tmp_path / "day3-counts.parquet")
    saved = kscore.leaderboard(str(tmp_path / "day3-counts.parquet")).counts
    mixed = by_duckdb[0] + by_dask[1] + saved
    assert isinstance(mixed, Counts)
    pd.testing.assert_frame_equal(_sorted(mixed), _sorted(whole.counts), check_exact=True)
    total = sum(by_dask)  # Counts add, from 0 too
    assert isinstance(total, Counts) and _sorted(total).equals(_sorted(mixed))
    same_order = kscore.leaderboard(add_counts(whole.counts))
    pd.testing.assert_frame_equal(kscore.leaderboard(mixed).to_pandas(), same_order.to_pandas(), check_exact=True)
    # A counts table as a dask DataFrame (e.g. shards' counts saved as Parquet) is itself a source.
    stacked = pd.concat([s.to_pandas() for s in by_dask], ignore_index=True)
    from_dask_counts = kscore.leaderboard(dd.from_pandas(stacked, npartitions=3))
    pd.testing.assert_frame_equal(_sorted(from_dask_counts.counts), _sorted(whole.counts), check_exact=True)


def test_columns_named_and_errors(client: Any) -> None:
    frame = pd.DataFrame({"who": ["a", "a", "b"], "item": ["x", "y", "x"], "ok": [1, 0, 1]})
    ddf = dd.from_pandas(frame, npartitions=2)
    counts = counts_from_dask(ddf, model="who", question="item", outcome="ok")
    assert counts.columns()["model"] == ["a", "a", "b"] and counts.n.tolist() == [1, 1, 1]
    board = kscore.leaderboard(ddf.rename(columns={"who": "w"}), question_col="item", outcome_col="ok")
    assert [r.model for r in board.rows] == ["dask DataFrame"]  # no model column: one model, like a pandas table
    with pytest.raises(LeaderboardError, match="no column 'nope'"):
        counts_from_dask(ddf, outcome="nope")
    with pytest.raises(LeaderboardError, match="no valid results"):
        counts_from_dask(ddf.assign(ok=5), model="who", question="item", outcome="ok")


def test_dask_is_imported_only_for_a_dask_source() -> None:
    code = ("import sys, pandas as pd, kscore\n"
            "kscore.leaderboard(pd.DataFrame({'model': ['a'], 'question': ['q'], 'correct': [1]}))\n"
            "assert 'dask' not in sys.modules, 'dask imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True)
