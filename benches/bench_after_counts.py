"""The leaderboard's work after the counts (issue 26): the statistics of
``_board`` (states, intervals, rank ranges), the output and the imports,
timed apart from the reading and counting, beside the whole command and
DuckDB's bare ``GROUP BY`` in the same run.

Each tree (``--trees name=path/to/python,...``: the ``PYTHONPATH`` of a
checkout, e.g. the code before and after a change) runs, in fresh
processes, interleaved, ``--repeat`` times:

- ``after counts``: ``kscore leaderboard`` with the read replaced by the
  board's counts loaded from a cache (the counts are read once, by the
  first tree, into ``--cache``): imports, statistics and output;
- ``whole``: ``kscore leaderboard FILES --format csv`` as a user runs it;

and DuckDB's bare ``GROUP BY model, question`` (count, sum) of the same
files. Medians of wall and CPU seconds are printed, with the load average
(the machine is shared: compare numbers of one run only).

Run (the 100M-row board of benches/bench_recount.py)::

    python benches/bench_after_counts.py '/tmp/recount/b100m/raw/*.parquet' \\
        --trees before=/tmp/old/python,after=python --question-col question_id
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CACHE = """
import sys, numpy as np
from kscore.leaderboard import count
counts, label = count(sys.argv[1]), sys.argv[1]  # (the public reading half: the same read in every tree)
np.savez(sys.argv[2], model=counts.model, question=counts.question, categories=counts.categories,
         fortran=np.isfortran(counts.categories), models=np.array(counts.models, object),
         questions=np.array(counts.questions, object), label=np.array(label))
print('{"rc": 0}')
"""

AFTER = """
import json, sys, time, importlib
import numpy as np
d = np.load(sys.argv[1], allow_pickle=True)
cats = np.asfortranarray(d["categories"]) if bool(d["fortran"]) else np.ascontiguousarray(d["categories"])
arrays = (d["model"], d["question"], cats)
models, questions, label = d["models"].tolist(), d["questions"].tolist(), str(d["label"])
t0, c0 = time.perf_counter(), time.process_time()
from kscore.cli import main
from kscore.leaderboard._counts import Counts
counts = Counts(models, questions, *arrays)
importlib.import_module("kscore.leaderboard._run").read_columns = lambda *a, **k: (counts, label)
rc = main(["leaderboard", "counts", *sys.argv[2:], "--quiet"])
print(json.dumps({"rc": rc, "wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}))
"""

WHOLE = """
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
from kscore.cli import main
rc = main(sys.argv[1:] + ["--quiet"])
print(json.dumps({"rc": rc, "wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}))
"""

DUCKDB = """
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
import duckdb
table = duckdb.sql(f"SELECT model, {sys.argv[1]}, count(*) AS n, sum(correct) AS c FROM read_parquet("
                   + repr(sys.argv[2:]) + f") GROUP BY model, {sys.argv[1]}").to_arrow_table()
print(json.dumps({"rc": 0, "wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}))
"""


def run(script: str, argv: list[str], path: str | None) -> dict[str, float]:
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = path
    out = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, env=env, check=False)
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        raise SystemExit(f"failed: {argv}\n{out.stderr[-2000:]}")
    result: dict[str, float] = json.loads(lines[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", help="the board's files (a glob)")
    ap.add_argument("--trees", required=True, help="name=PYTHONPATH,... (the first one reads the cache)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--format", default="csv")
    ap.add_argument("--question-col", default="question", help="the question column (for DuckDB's GROUP BY)")
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "kscore-after-counts.npz"))
    args = ap.parse_args()
    trees = [tuple(x.split("=", 1)) for x in args.trees.split(",")]
    files = sorted(glob.glob(args.source))
    if not Path(args.cache).exists():
        run(CACHE, [args.source, args.cache], trees[0][1])
    out = os.path.join(tempfile.mkdtemp(), f"board.{args.format}")
    fmt = ["--format", args.format, "-o", out]
    times: dict[str, list[dict[str, float]]] = {}
    print(f"load average at start: {os.getloadavg()[0]:.2f}", flush=True)
    for _ in range(args.repeat):
        times.setdefault("DuckDB GROUP BY", []).append(run(DUCKDB, [args.question_col, *files], None))
        for name, path in trees:
            times.setdefault(f"{name}: after counts", []).append(run(AFTER, [args.cache, *fmt], path))
            times.setdefault(f"{name}: whole", []).append(run(WHOLE, ["leaderboard", args.source, *fmt], path))
    print(f"load average at end: {os.getloadavg()[0]:.2f}\n")
    print("| what | wall s (median) | CPU s (median) | wall s (min..max) |\n|---|---|---|---|")
    for what, rs in times.items():
        w, c = [r["wall"] for r in rs], [r["cpu"] for r in rs]
        print(f"| {what} | {statistics.median(w):.3f} | {statistics.median(c):.3f} | {min(w):.2f}..{max(w):.2f} |")


if __name__ == "__main__":
    main()
