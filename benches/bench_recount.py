"""Recomputation: a stored board's counts plus one new model's raw rows,
against counting every raw row again, and DuckDB's bare ``GROUP BY`` of
those rows, in the same run (docs/leaderboard.md, *Recomputation*).

The dataset is bench_leaderboard.py's: Parquet files of long-format rows,
one per model (``model-NNN.parquet``: model, question_id, sample, correct),
plus one more model, ``new/model-NNN.parquet``, of 1M rows (the questions
x 10 samples). Its board's counts are stored once (``kscore count
'raw/*.parquet' -o stored.parquet``); then, each in a fresh process and in
interleaved rounds (so that a change of load on a shared machine hits
them alike):

- update in place: ``kscore count board/stored.parquet new/model-NNN.parquet
  -o updated.parquet`` (reads the stored counts and the new model's rows
  only, writes the whole table again);
- update beside: ``kscore count new/model-NNN.parquet -o board/new.parquet``
  (the new model's counts only, a file beside the stored table: the board
  is then ``'board/*.parquet'``);
- full recount: ``kscore count 'raw/*.parquet' new/model-NNN.parquet -o full.parquet``;
- DuckDB: the bare ``GROUP BY model, question_id`` (count, sum) of the same
  raw rows, the floor of any recount;
- with ``--boards``, the leaderboards (``--format csv``) of ``updated.parquet``,
  of ``'board/*.parquet'`` and of the raw rows.

The updated and recounted tables are checked equal, and the boards byte for byte. Medians and peak memory (VmHWM) are
printed, with the load average. Run::

    python benches/bench_recount.py DIR                      # 100 models x 100 000 questions x 10 samples
    python benches/bench_recount.py DIR --samples 100        # the billion-row layout (10 minutes to write)

Each process reports its wall time, its CPU time (user + system, all its
threads: on a shared machine the wall time grows with the others' load,
the CPU time much less) and its peak memory.

No timing is asserted (benches/ only measures).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

PEAK = """
import resource
def CPU():  # user + system seconds of this process's threads (less shaken by other work than the wall time)
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
def PEAK():
    with open("/proc/self/status") as fh:
        return next(int(l.split()[1]) for l in fh if l.startswith("VmHWM")) / 1024
"""

KSCORE = """
import json, sys, time
""" + PEAK + """
t0 = time.perf_counter()
from kscore.cli import main
rc = main(sys.argv[1:] + ["--quiet"])
print(json.dumps({"rc": rc, "wall": time.perf_counter() - t0, "cpu": CPU(), "rss_mb": PEAK()}))
"""

DUCKDB = """
import json, sys, time
""" + PEAK + """
t0 = time.perf_counter()
import duckdb
files = sys.argv[1:]
table = duckdb.sql("SELECT model, question_id, count(*) AS n, sum(correct) AS c FROM read_parquet("
                   + repr(files) + ") GROUP BY model, question_id").to_arrow_table()
print(json.dumps({"rc": 0, "wall": time.perf_counter() - t0, "cpu": CPU(), "rss_mb": PEAK(),
                  "cells": table.num_rows}))
"""


def run(script: str, *argv: str, pythonpath: str | None = None) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=pythonpath) if pythonpath else None
    out = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, check=False, env=env)
    if out.returncode != 0:
        raise SystemExit(f"failed: {' '.join(argv)}\n{out.stderr[-2000:]}")
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    if result["rc"] != 0:
        raise SystemExit(f"failed: {' '.join(argv)}\n{out.stderr[-2000:]}")
    return result


def dataset(root: Path, models: int, questions: int, samples: int) -> tuple[list[Path], Path]:
    """The raw files of the stored board and the new model's 1M rows (10 samples a question)."""
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_leaderboard import write_dataset

    raw = root / "raw"
    if not raw.is_dir() or len(list(raw.glob("*.parquet"))) != models:
        t0 = time.perf_counter()
        write_dataset(raw, models, questions, samples)
        print(f"wrote {models * questions * samples:,} rows in {time.perf_counter() - t0:.0f} s", flush=True)
    new = root / "new" / f"model-{models:03d}.parquet"
    if not new.exists():
        import duckdb

        # One model's rows (10 samples a question), renamed to a model the
        # board does not have.
        tmp = root / "new-tmp"
        (first,) = write_dataset(tmp, 1, questions, 10)
        new.parent.mkdir(exist_ok=True)
        duckdb.sql(f"COPY (SELECT '{new.stem}' AS model, question_id, sample, correct FROM read_parquet('{first}')) "
                   f"TO '{new}' (FORMAT parquet)")
        shutil.rmtree(tmp)
    return sorted(raw.glob("*.parquet")), new


def main() -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from rows_data import dataset_args

    parser = dataset_args(__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--boards", action="store_true", help="also time the leaderboards (CSV)")
    parser.add_argument("--no-full", action="store_true", help="skip the full recount (a billion rows: minutes)")
    args = parser.parse_args()
    import compileall

    import kscore

    compileall.compile_dir(Path(kscore.__file__).parent, quiet=1)
    root: Path = args.dir
    raw, new = dataset(root, args.models, args.questions, args.samples)
    glob = str(root / "raw" / "*.parquet")
    (root / "board").mkdir(exist_ok=True)
    stored, updated, full = root / "board" / "stored.parquet", root / "updated.parquet", root / "full.parquet"
    beside = root / "board" / "new.parquet"
    if not stored.exists():
        first = run(KSCORE, "count", glob, "-o", str(stored))
        print(f"stored the board's counts: {first['wall']:.2f} s, {first['rss_mb']:.0f} MB", flush=True)
    rows = args.models * args.questions * args.samples
    jobs = {
        "update in place (stored counts + new model's rows)": (
            KSCORE, ["count", str(stored), str(new), "-o", str(updated)]),
        "update beside (new model's counts, a file beside)": (KSCORE, ["count", str(new), "-o", str(beside)]),
        f"full recount ({rows + args.questions * 10:,} raw rows)": (
            KSCORE, ["count", glob, str(new), "-o", str(full)]),
        "DuckDB bare GROUP BY (same raw rows)": (DUCKDB, [str(f) for f in [*raw, new]]),
    }
    if args.no_full:
        jobs = {k: v for k, v in jobs.items() if not k.startswith(("full", "DuckDB"))}
    if args.boards:
        jobs["leaderboard of updated.parquet (CSV)"] = (
            KSCORE, ["leaderboard", str(updated), "--format", "csv", "-o", str(root / "board_updated.csv")])
        jobs["leaderboard of 'board/*.parquet' (CSV)"] = (
            KSCORE, ["leaderboard", str(root / "board" / "*.parquet"), "--format", "csv", "-o",
                     str(root / "board_beside.csv")])
        if not args.no_full:
            jobs["leaderboard of the raw rows (CSV)"] = (
                KSCORE, ["leaderboard", glob, str(new), "--format", "csv", "-o", str(root / "board_raw.csv")])
    times: dict[str, list[dict[str, float]]] = {k: [] for k in jobs}
    loads = []
    for r in range(args.rounds):
        for name, (script, argv) in jobs.items():
            loads.append(os.getloadavg()[0])
            times[name].append(run(script, *argv))
            print(f"round {r + 1}: {name}: {times[name][-1]['wall']:.2f} s wall, {times[name][-1]['cpu']:.2f} s CPU",
                  flush=True)
    if not args.no_full:
        import pyarrow.parquet as pq

        same = pq.read_table(updated).equals(pq.read_table(full))
        print(f"updated.parquet equals full.parquet: {same}")
        if args.boards:
            raw_board = (root / "board_raw.csv").read_bytes()
            print("boards equal:", (root / "board_updated.csv").read_bytes() == raw_board,
                  (root / "board_beside.csv").read_bytes() == raw_board)
    print(f"\n{args.models} models x {args.questions:,} questions x {args.samples} samples stored "
          f"({args.models * args.questions:,} cells), new model: {args.questions * 10:,} rows; "
          f"{args.rounds} interleaved rounds, load average {min(loads):.1f}-{max(loads):.1f}, {os.cpu_count()} cores")
    print("| job | wall (median, min-max) | CPU time (median) | peak RSS |\n|---|---|---|---|")
    for name, results in times.items():
        walls = [x["wall"] for x in results]
        print(f"| {name} | {statistics.median(walls):.2f} s ({min(walls):.2f}-{max(walls):.2f}) | "
              f"{statistics.median(x['cpu'] for x in results):.2f} s | {max(x['rss_mb'] for x in results):.0f} MB |")


if __name__ == "__main__":
    main()
