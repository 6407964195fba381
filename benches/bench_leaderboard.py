"""``kscore leaderboard`` end to end (reading included) against the obvious
pandas + scorio script, on the same files, each in a fresh process so that
peak memory (``ru_maxrss``) is its own.

Workloads (generated once into a temporary directory, fixed seed):

- a 10-million-row Parquet file: 100 models x 10 000 questions x 10 samples;
- a 1-million-row CSV file: 100 models x 1 000 questions x 10 samples.

Beside them, the bare counting every leaderboard needs, by DuckDB (``GROUP
BY model, question_id`` with count and sum) and Polars (streaming
``group_by``), whole processes too. kscore and pandas+scorio compute the
default leaderboard: pass@1, pass@4, pass@10, maj@10
and Bayes@N, each with its 95% credible interval, for every model. The
pandas reference reads with pandas, pivots each model's rows into a questions x
samples matrix (``groupby`` + ``pivot``) and calls scorio on it.

kscore, DuckDB and Polars run in 5 interleaved rounds (each round runs
each once, so that a change of load on a shared machine hits them alike);
the medians, the paired median difference kscore - DuckDB and the load
average are printed.

kscore's modules are byte-compiled first (``compileall``, as ``pip install``
does for an installed package): an editable install run with
``PYTHONDONTWRITEBYTECODE`` set would otherwise compile them from source in
every process, which the installed DuckDB, Polars and pandas never do.

Run with ``python -m pytest benches/bench_leaderboard.py -s`` (needs pandas,
which is not a dependency of kscore: ``pip install pandas``). No timing is
asserted; the figures are printed and recorded in the summary table.

The billion-row run (not a test: one run, measured by hand) reads a dataset
of Parquet files, one per model, that DuckDB writes model by model (memory
stays bounded whatever the size; 1e9 rows of 100 samples take 0.3 GB on
disk and some 10 minutes on a shared 2-core machine)::

    python benches/bench_leaderboard.py DIR --models 100 --questions 100000 --samples 100
    /usr/bin/time -v kscore leaderboard 'DIR/*.parquet' --format csv -o board.csv --quiet

(docs/leaderboard.md, *Speed*, has the figures.)
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import record  # benches/conftest.py (rootdir-relative import, no package)

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")

# Peak resident memory of this process: VmHWM (ru_maxrss would also count the
# parent's memory at fork time, which Linux carries over exec).
PEAK = """
def PEAK():
    try:
        with open("/proc/self/status") as fh:
            return next(int(l.split()[1]) for l in fh if l.startswith("VmHWM")) / 1024
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
"""

KSCORE = """
import json, resource, sys, time
""" + PEAK + """
t0 = time.perf_counter()
from kscore.cli import main
rc = main(["leaderboard", sys.argv[1], "--format", "csv", "--output", sys.argv[2], "--quiet"])
wall = time.perf_counter() - t0
print(json.dumps({"rc": rc, "wall": wall, "rss_mb": PEAK()}))
"""

REFERENCE = """
import json, resource, sys, time
""" + PEAK + """
t0 = time.perf_counter()
import numpy as np
import pandas as pd
from scorio import eval as se
path = sys.argv[1]
df = pd.read_parquet(path) if path.endswith(".parquet") else pd.read_csv(path)
rows = []
for model, g in df.groupby("model", sort=False):
    R = g.pivot(index="question_id", columns="sample", values="correct").to_numpy()
    row = {"model": model}
    for k in (1, 4, 10):
        row[f"pass@{k}"] = se.pass_at_k_ci(R, k)
    row["maj@10"] = se.maj_at_k_ci(R, 10)
    row["bayes@N"] = se.bayes_ci(R, bounds=(0.0, 1.0))
    rows.append(row)
rows.sort(key=lambda r: -r["bayes@N"][0])
pd.DataFrame([{k: (v[0] if isinstance(v, tuple) else v) for k, v in r.items()} for r in rows]).to_csv(sys.argv[2])
wall = time.perf_counter() - t0
print(json.dumps({"rc": 0, "wall": wall, "rss_mb": PEAK()}))
"""


DUCKDB = """
import json, resource, sys, time
""" + PEAK + """
t0 = time.perf_counter()
import duckdb
path = sys.argv[1]
scan = f"read_parquet('{path}')" if path.endswith(".parquet") else f"read_csv('{path}')"
duckdb.sql(f"SELECT model, question_id, count(*) AS n, sum(correct) AS c FROM {scan} GROUP BY ALL").to_arrow_table()
wall = time.perf_counter() - t0
print(json.dumps({"rc": 0, "wall": wall, "rss_mb": PEAK()}))
"""

POLARS = """
import json, resource, sys, time
""" + PEAK + """
t0 = time.perf_counter()
import polars as pl
path = sys.argv[1]
lf = pl.scan_parquet(path) if path.endswith(".parquet") else pl.scan_csv(path)
lf.group_by("model", "question_id").agg(pl.len().alias("n"), pl.col("correct").sum().alias("c")).collect(
    engine="streaming")
wall = time.perf_counter() - t0
print(json.dumps({"rc": 0, "wall": wall, "rss_mb": PEAK()}))
"""


def make_table(n_models: int, n_questions: int, n_samples: int, seed: int) -> Any:
    """Long-format results from an item-response model (fixed seed)."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 1.0, n_models)
    b = rng.normal(0.0, 1.5, n_questions)
    p = 1.0 / (1.0 + np.exp(-(theta[:, None] - b[None, :])))
    out = (rng.random((n_models, n_questions, n_samples), dtype=np.float32) < p[:, :, None]).astype(np.int8)
    m = np.repeat(np.arange(n_models, dtype=np.int32), n_questions * n_samples)
    q = np.tile(np.repeat(np.arange(n_questions, dtype=np.int32), n_samples), n_models)
    s = np.tile(np.arange(n_samples, dtype=np.int16), n_models * n_questions)
    models = pa.array([f"model-{i:03d}" for i in range(n_models)])
    questions = pa.array([f"q{i:05d}" for i in range(n_questions)])
    return pa.table({
        "model": pa.DictionaryArray.from_arrays(pa.array(m), models).cast(pa.string()),
        "question_id": pa.DictionaryArray.from_arrays(pa.array(q), questions).cast(pa.string()),
        "sample": pa.array(s),
        "correct": pa.array(out.ravel()),
    })


def write_dataset(out: Path, n_models: int, n_questions: int, n_samples: int, seed: int = 3) -> list[Path]:
    """``n_models`` Parquet files under ``out``, ``model-NNN.parquet``, with
    the columns of :func:`make_table` (model, question_id, sample, correct)
    and outcomes from the same kind of item-response model, abilities and
    difficulties drawn from hashes of the ids (reproducible, no state to
    hold); written by DuckDB one model at a time, so that memory does not
    grow with the rows."""
    import duckdb

    out.mkdir(parents=True, exist_ok=True)
    width = max(5, len(str(n_questions - 1)))
    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = false")

    def normal(x: str, salt: int) -> str:  # Box-Muller on two hashes of x
        u1 = f"((hash({x}, {seed}, {salt}) % 4294967291) + 1) / 4294967296.0"
        u2 = f"(hash({x}, {seed}, {salt + 1}) % 4294967291) / 4294967296.0"
        return f"(sqrt(-2 * ln({u1})) * cos(2 * pi() * {u2}))"

    files = []
    for m in range(n_models):
        path = out / f"model-{m:03d}.parquet"
        theta = normal(str(m), 0)
        q = f"(i // {n_samples})"
        p = f"1 / (1 + exp(-({theta} - 1.5 * {normal(q, 2)})))"
        u = f"((hash(i, {m}, {seed}, 4) % 4294967291) / 4294967296.0)"
        con.execute(f"COPY (SELECT 'model-{m:03d}' AS model, 'q' || lpad(CAST({q} AS VARCHAR), {width}, '0') "
                    f"AS question_id, CAST(i % {n_samples} AS SMALLINT) AS sample, CAST({u} < {p} AS TINYINT) "
                    f"AS correct FROM range({n_questions * n_samples}) t(i)) TO '{path}' (FORMAT parquet)")
        files.append(path)
    return files


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    import compileall

    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    import kscore

    compileall.compile_dir(Path(kscore.__file__).parent, quiet=1)

    d = tmp_path_factory.mktemp("leaderboard")
    parquet, csv = d / "results_10M.parquet", d / "results_1M.csv"
    pq.write_table(make_table(100, 10_000, 10, seed=1), parquet)
    pacsv.write_csv(make_table(100, 1_000, 10, seed=2), csv)
    return {"parquet": parquet, "csv": csv}


def run(script: str, path: Path, out: Path) -> dict[str, float]:
    """Wall time of the whole process (interpreter start included) and its peak RSS."""
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", script, str(path), str(out)], capture_output=True, text=True,
                         check=False, timeout=1200)
    wall = time.perf_counter() - t0
    assert res.returncode == 0, res.stderr[-2000:]
    result: dict[str, float] = json.loads(res.stdout.strip().splitlines()[-1])
    assert result["rc"] == 0
    result["wall"] = wall
    return result


def interleaved(scripts: dict[str, str], path: Path, out: Path, repeat: int) -> dict[str, dict[str, float]]:
    """``repeat`` rounds, each running every script once in turn (so that a
    change of load on a shared machine hits them alike): per script the
    median wall time, the largest peak RSS and every run's wall time."""
    runs: dict[str, list[dict[str, float]]] = {k: [] for k in scripts}
    for _ in range(repeat):
        for k, script in scripts.items():
            runs[k].append(run(script, path, out))
    return {k: {"wall": float(np.median([r["wall"] for r in v])), "rss_mb": max(r["rss_mb"] for r in v),
                "walls": [r["wall"] for r in v]} for k, v in runs.items()}  # type: ignore[dict-item]


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_leaderboard_end_to_end(kind: str, files: dict[str, Path], tmp_path: Path, benchmark: Any) -> None:
    import os

    path = files[kind]
    rows = "10M-row Parquet" if kind == "parquet" else "1M-row CSV"
    ref = run(REFERENCE, path, tmp_path / "ref.csv")
    scripts = {"kscore": KSCORE, "duckdb": DUCKDB}
    if _has("polars"):
        scripts["polars"] = POLARS
    load = [os.getloadavg()[0]]
    got = interleaved(scripts, path, tmp_path / "ks.csv", repeat=5)
    load.append(os.getloadavg()[0])
    ks, bare, polars = got["kscore"], got["duckdb"], got.get("polars")
    benchmark.pedantic(lambda: run(KSCORE, path, tmp_path / "ks.csv"), rounds=1, iterations=1)
    # The same Bayes@N on both sides, and the same ranking up to exact ties: models whose Bayes@N is the same
    # number (on the 1M-row CSV, 0.6775 for two of them), which the two sides' sums round differently.
    board, reference = pd.read_csv(tmp_path / "ks.csv"), pd.read_csv(tmp_path / "ref.csv")
    ref_bayes = dict(zip(reference["model"], reference["bayes@N"]))
    assert sorted(board["model"]) == sorted(ref_bayes)
    assert all(b == pytest.approx(ref_bayes[m], rel=1e-12) for m, b in zip(board["model"], board["bayes@N"]))
    ranked = [ref_bayes[m] for m in board["model"]]
    assert all(a >= b * (1 - 1e-12) for a, b in zip(ranked, ranked[1:]))
    name = (f"leaderboard {rows} (peak RSS kscore {ks['rss_mb']:.0f} MB, "
            f"pandas+scorio {ref['rss_mb']:.0f} MB)")
    record(name, "pandas+scorio", ref["wall"])
    record(name, "kscore", ks["wall"])
    record(name, "duckdb GROUP BY", bare["wall"])
    paired = float(np.median([a - b for a, b in zip(ks["walls"], bare["walls"])]))  # type: ignore[call-overload]
    line = (f"\n{name}: kscore {ks['wall']:.2f} s / {ks['rss_mb']:.0f} MB, duckdb GROUP BY {bare['wall']:.2f} s / "
            f"{bare['rss_mb']:.0f} MB (kscore - duckdb, paired median: {paired:+.2f} s), "
            f"pandas+scorio {ref['wall']:.2f} s / {ref['rss_mb']:.0f} MB")
    if polars is not None:
        record(name, "polars streaming group_by", polars["wall"])
        line += f", polars {polars['wall']:.2f} s / {polars['rss_mb']:.0f} MB"
    print(line + f"; load average {min(load):.1f}-{max(load):.1f} on {os.cpu_count()} cores")


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Write a long-format Parquet dataset, one file per model "
                                     "(the billion-row run: 100 x 100000 x 100).")
    parser.add_argument("out", type=Path)
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--questions", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=100)
    args = parser.parse_args()
    t0 = time.perf_counter()
    written = write_dataset(args.out, args.models, args.questions, args.samples)
    size = sum(f.stat().st_size for f in written)
    print(f"{len(written)} files, {args.models * args.questions * args.samples:,} rows, {size / 1e9:.1f} GB, "
          f"{time.perf_counter() - t0:.0f} s")
