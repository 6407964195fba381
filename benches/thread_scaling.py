"""Thread scaling of the large-matrix kernels and of the leaderboard.

Each workload runs in a fresh process with ``KSCORE_THREADS=t`` (kscore's
pool, its reading threads and DuckDB's, docs/threads.md) and, for the
leaderboard of a DuckDB relation, a connection with ``SET threads = t``;
the figure is the median of three calls after one warm-up. The leaderboards
of the Parquet and CSV files are the direct count (read/direct.py) and
everything after it. Results never depend on the thread count
(tests/test_runtime.py, tests/test_threads.py), only the time does.

    python benches/thread_scaling.py 1 2 4 8 16

prints a Markdown table headed with the machine's core count. Run it on the
largest machine at hand; thread counts above the core count only measure
oversubscription.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SETUP = r"""
import json, os, statistics, sys, time
import numpy as np
import kscore
from kscore import eval as K

rng = np.random.default_rng(0)
name, parquet, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
if name == "pass_at_k 1e6 x 64 bool, k = 8":
    R = rng.random((10**6, 64)) < 0.5
    f = lambda: K.pass_at_k(R, 8)
elif name == "pass_at_k_ci 1e6 x 64 bool, k = 8":
    R = rng.random((10**6, 64)) < 0.5
    f = lambda: K.pass_at_k_ci(R, 8)
elif name == "mg_pass_at_k_ci 1e5 x 256 bool, k = 128":
    R = rng.random((10**5, 256)) < 0.5
    f = lambda: K.mg_pass_at_k_ci(R, 128)
elif name == "max_at_k 1e6 x 64 int8, 4 categories":
    R = rng.integers(0, 4, (10**6, 64)).astype(np.int8)
    w = np.array([0.0, 0.3, 0.6, 1.0])
    f = lambda: K.max_at_k(R, 32, w)
elif name == "geo_spectrum_at_k_ci 1000 x 64, k = 1e5":
    R = rng.random((1000, 64)) < 0.5
    f = lambda: K.geo_spectrum_at_k_ci(R, 100_000)
elif name == "geo_spectrum_star_at_k_ci 1000 x 64, k = 2e4":
    R = rng.random((1000, 64)) < 0.5
    f = lambda: K.geo_spectrum_star_at_k_ci(R, 20_000)
elif name == "mg_pass_at_k_ci 300 x 2048, k = 1024":
    R = rng.random((300, 2048)) < rng.random((300, 1))
    f = lambda: K.mg_pass_at_k_ci(R, 1024)
elif name == "leaderboard, 10M-row Parquet file (direct count)":
    f = lambda: kscore.leaderboard(parquet)
elif name == "leaderboard, 10M-row CSV file (direct count)":
    f = lambda: kscore.leaderboard(parquet.replace(".parquet", ".csv"))
elif name == "leaderboard, 10M-row Parquet":
    import duckdb
    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")
    f = lambda: kscore.leaderboard(con.read_parquet(parquet))
f()
times = []
for _ in range(3):
    t = time.perf_counter()
    f()
    times.append(time.perf_counter() - t)
print(json.dumps(statistics.median(times)))
"""

WORKLOADS = [
    "pass_at_k 1e6 x 64 bool, k = 8",
    "pass_at_k_ci 1e6 x 64 bool, k = 8",
    "mg_pass_at_k_ci 1e5 x 256 bool, k = 128",
    "max_at_k 1e6 x 64 int8, 4 categories",
    "geo_spectrum_at_k_ci 1000 x 64, k = 1e5",
    "leaderboard, 10M-row Parquet",
    "geo_spectrum_star_at_k_ci 1000 x 64, k = 2e4",
    "mg_pass_at_k_ci 300 x 2048, k = 1024",
    "leaderboard, 10M-row Parquet file (direct count)",
    "leaderboard, 10M-row CSV file (direct count)",
]


def parquet_file(folder: Path) -> Path:
    """The 10M-row results of benches/bench_leaderboard.py (100 models x
    10,000 questions x 10 samples, seed 1)."""
    sys.path.insert(0, str(Path(__file__).parent))
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq
    from bench_leaderboard import make_table

    path = folder / "results_10M.parquet"
    table = make_table(100, 10_000, 10, seed=1)
    pq.write_table(table, path)
    pacsv.write_csv(table, folder / "results_10M.csv")
    return path


def timed(name: str, parquet: Path, threads: int) -> float:
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads), KSCORE_THREADS=str(threads))
    done = subprocess.run([sys.executable, "-c", SETUP, name, str(parquet), str(threads)],
                          capture_output=True, text=True, check=True, env=env)
    seconds: float = json.loads(done.stdout)
    return seconds


def fmt(t: float) -> str:
    return f"{t * 1e3:.1f} ms" if t < 1 else f"{t:.2f} s"


def main(counts: list[int]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        parquet = parquet_file(Path(tmp))
        print(f"{os.cpu_count()} cores; load average at start {os.getloadavg()[0]:.1f}\n")
        print("| workload | " + " | ".join(f"{t} thread{'s' * (t > 1)}" for t in counts) + " |")
        print("|---|" + "---|" * len(counts))
        for name in WORKLOADS:
            times = [timed(name, parquet, t) for t in counts]
            cells = [f"{fmt(t)} ({times[0] / t:.2f}x)" for t in times]
            print(f"| {name} | " + " | ".join(cells) + " |")
        print(f"\nload average at end {os.getloadavg()[0]:.1f}; (x): speed-up over {counts[0]} thread(s)")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1, 2])
