"""The rows axis (issues 26, 39): ``kscore leaderboard`` of raw results, one
file per model, against DuckDB's bare ``GROUP BY model, question_id``
(count, sum) of the same files, the floor of any leaderboard, in the same
run; and kscore with the direct count turned off (DuckDB's query counts:
the way before), whose board must be byte for byte the same.

Each job runs in a fresh process (its own peak memory, VmHWM, and CPU time:
user + system of all its threads), the jobs taking turns in each round so
that a change of load on a shared machine hits them alike. ``--threads``
runs kscore (``--threads N``) and DuckDB (``SET threads = N``) at each
count given. Printed: medians, min-max, the median of the per-round ratios
kscore / DuckDB, the load average; with ``--profile``, kscore's per-phase
profile (runtime/profile.py) at each thread count. The datasets are
rows_data.py's (written on first use, every core)::

    python benches/bench_rows.py /tmp/rows100m --questions 100000 --samples 10                 # 1e8 rows
    python benches/bench_rows.py /tmp/rows100m-int --layout int                                # integer ids
    python benches/bench_rows.py /tmp/rows100m-csv --layout csv                                # 100 CSV files
    python benches/bench_rows.py /tmp/rows1e9 --questions 100000 --samples 100 --rounds 1      # 1e9 rows
    python benches/bench_rows.py /tmp/rows100m --threads 1 2 --profile                         # scaling, profile

A ``raw/`` folder written by an older version of this script (DuckDB's
writer, bench_leaderboard.write_dataset) is used as it is. No timing is
asserted (benches/ only measures).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_recount import KSCORE, PEAK, run  # noqa: E402

#: kscore with the direct count off: every input goes through DuckDB's query.
KSCORE_QUERY = """
import json, sys, time
""" + PEAK + """
t0 = time.perf_counter()
from kscore.cli import main
from kscore.leaderboard.read import direct
direct.ENABLED = False
rc = main(sys.argv[1:] + ["--quiet"])
print(json.dumps({"rc": rc, "wall": time.perf_counter() - t0, "cpu": CPU(), "rss_mb": PEAK()}))
"""

#: DuckDB's bare count: argv = threads ("" for its default), the read function, then the files.
DUCKDB = """
import json, sys, time
""" + PEAK + """
t0 = time.perf_counter()
import duckdb
threads, reader, files = sys.argv[1], sys.argv[2], sys.argv[3:]
con = duckdb.connect()
if threads:
    con.execute(f"SET threads = {threads}")
table = con.sql(f"SELECT model, question_id, count(*) AS n, sum(correct) AS c FROM {reader}({files!r}) "
                "GROUP BY model, question_id").to_arrow_table()
print(json.dumps({"rc": 0, "wall": time.perf_counter() - t0, "cpu": CPU(), "rss_mb": PEAK(),
                  "cells": table.num_rows}))
"""

#: Polars' lazy group-by of the same files: argv = threads ("" for its default), the scan, then the files.
#: (POLARS_MAX_THREADS is read when polars is imported.)
POLARS = """
import json, os, sys, time
""" + PEAK + """
t0 = time.perf_counter()
threads, scan, files = sys.argv[1], sys.argv[2], sys.argv[3:]
if threads:
    os.environ["POLARS_MAX_THREADS"] = threads
import polars as pl
frame = getattr(pl, scan)(files)
table = frame.group_by("model", "question_id").agg(pl.len().alias("n"), pl.col("correct").sum().alias("c")).collect()
print(json.dumps({"rc": 0, "wall": time.perf_counter() - t0, "cpu": CPU(), "rss_mb": PEAK(),
                  "cells": table.height}))
"""

#: Polars' scan of each format it scans (gzip CSV it reads whole, not lazily: left out).
POLARS_SCANS = {".parquet": "scan_parquet", ".csv": "scan_csv", ".jsonl": "scan_ndjson"}

READERS = {".parquet": "read_parquet", ".csv": "read_csv", ".gz": "read_csv", ".jsonl": "read_json"}


def files_of(root: Path, args: argparse.Namespace) -> list[Path]:
    raw = root / "raw"
    old = sorted(raw.glob("*.parquet")) if args.layout == "string" else []
    if len(old) == args.models:
        return old
    from rows_data import write

    t0 = time.perf_counter()
    files = write(root / args.layout, args.models, args.questions, args.samples, args.layout)
    print(f"{args.models * args.questions * args.samples:,} rows ready ({time.perf_counter() - t0:.0f} s)", flush=True)
    return files


def profile(args: argparse.Namespace, glob: str, out: Path, threads: int) -> str:
    """kscore's profile of one run at ``threads`` (printed on its stderr)."""
    env = dict(os.environ, KSCORE_PROFILE="1")
    done = subprocess.run([sys.executable, "-c", KSCORE, "leaderboard", glob, "--format", "csv", "-o", str(out),
                           "--threads", str(threads)], capture_output=True, text=True, env=env, check=False)
    return done.stderr.strip()


def main() -> None:
    from rows_data import dataset_args

    parser = dataset_args(__doc__)
    parser.add_argument("--layout", choices=["string", "int", "csv", "csv.gz", "jsonl"], default="string")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, nargs="*", default=[],
                        help="thread counts for kscore and DuckDB alike (default: each its own default)")
    parser.add_argument("--no-before", action="store_true", help="skip kscore with the direct count off")
    parser.add_argument("--before", metavar="PATH",
                        help="also run the kscore package at PATH (a copy of python/kscore of another build, put "
                             "first on PYTHONPATH): the code before a change, in the same rounds")
    parser.add_argument("--profile", action="store_true",
                        help="print kscore's per-phase profile at each count, and the serial fraction of the "
                             "first count's profile with Amdahl's bound beside the speed-ups measured")
    parser.add_argument("--polars", action="store_true",
                        help="also Polars' lazy group_by of the same files (Parquet, CSV, JSON Lines)")
    args = parser.parse_args()
    import compileall

    import kscore

    compileall.compile_dir(Path(kscore.__file__).parent, quiet=1)
    files = files_of(args.dir, args)
    folder = files[0].parent
    glob = str(folder / f"*{''.join(files[0].suffixes)}")
    reader = READERS[files[0].suffix]
    counts: list[int | None] = list(args.threads) or [None]
    jobs: dict[str, tuple[str, list[str]]] = {}
    outs = []
    for t in counts:
        tag = f", {t} thread{'s' * (t != 1)}" if t is not None else ""
        out = args.dir / f"board_direct{t or ''}.csv"
        outs.append(out)
        flags = ["--threads", str(t)] if t is not None else []
        jobs[f"kscore leaderboard (CSV){tag}"] = (KSCORE, ["leaderboard", glob, "--format", "csv", "-o", str(out),
                                                          *flags])
        jobs[f"DuckDB bare GROUP BY{tag}"] = (DUCKDB, [str(t or ""), reader, *[str(f) for f in files]])
        if args.polars and files[0].suffix in POLARS_SCANS:
            jobs[f"Polars group_by{tag}"] = (POLARS, [str(t or ""), POLARS_SCANS[files[0].suffix],
                                                      *[str(f) for f in files]])
    out_query = args.dir / "board_query.csv"
    if not args.no_before:
        jobs["kscore, direct count off (before)"] = (
            KSCORE_QUERY, ["leaderboard", glob, "--format", "csv", "-o", str(out_query)])
    if args.before:
        out_before = args.dir / "board_before.csv"
        outs.append(out_before)
        jobs["kscore before (--before)"] = (KSCORE, ["leaderboard", glob, "--format", "csv", "-o", str(out_before)])
    times: dict[str, list[dict[str, float]]] = {k: [] for k in jobs}
    loads = []
    for r in range(args.rounds):
        for name, (script, argv) in jobs.items():
            loads.append(os.getloadavg()[0])
            times[name].append(run(script, *argv, pythonpath=args.before if "(--before)" in name else None))
            print(f"round {r + 1}: {name}: {times[name][-1]['wall']:.2f} s wall, {times[name][-1]['cpu']:.2f} s CPU, "
                  f"{times[name][-1]['rss_mb']:.0f} MB", flush=True)
    boards = [o.read_bytes() for o in outs] + ([out_query.read_bytes()] if not args.no_before else [])
    print("boards byte for byte equal (every thread count, direct count and DuckDB's query):",
          all(b == boards[0] for b in boards))
    rows = args.models * args.questions * args.samples
    print(f"\n{rows:,} rows ({len(files)} {args.layout} files, {args.models} models x {args.questions:,} questions x "
          f"{args.samples} samples); {args.rounds} interleaved rounds, load average {min(loads):.1f}-{max(loads):.1f}, "
          f"{os.cpu_count()} cores")
    print("| job | wall (median, min-max) | / DuckDB (median of rounds) | CPU (median) | peak RSS (max) |\n"
          "|---|---|---|---|---|")
    for name, results in times.items():
        walls = [x["wall"] for x in results]
        tag = name.split(", ", 1)[1] if ", " in name and "thread" in name else ""
        duck = times.get(f"DuckDB bare GROUP BY{', ' + tag if tag else ''}") or next(
            v for k, v in times.items() if k.startswith("DuckDB"))
        ratio = statistics.median(x["wall"] / d["wall"] for x, d in zip(results, duck))
        print(f"| {name} | {statistics.median(walls):.2f} s ({min(walls):.2f}-{max(walls):.2f}) | {ratio:.2f}x | "
              f"{statistics.median(x['cpu'] for x in results):.2f} s | {max(x['rss_mb'] for x in results):.0f} MB |")
    if len(counts) > 1 and counts[0] is not None:
        base = statistics.median(x["wall"] for x in times[f"kscore leaderboard (CSV), {counts[0]} thread"
                                                               f"{'s' * (counts[0] != 1)}"])
        for t in counts[1:]:
            walls = times[f"kscore leaderboard (CSV), {t} threads"]
            print(f"kscore at {t} threads: {base / statistics.median(x['wall'] for x in walls):.2f}x over {counts[0]}")
    if args.profile:
        profiles = {t: profile(args, glob, args.dir / "board_profile.csv", t)
                    for t in [c for c in counts if c is not None] or [os.cpu_count() or 1]}
        for text in profiles.values():
            print("\n" + text)
        first = next(iter(profiles))
        f = serial_fraction(profiles[first])
        if f is not None and first == 1:
            amdahl_table(f, times, counts)


def serial_fraction(text: str) -> float | None:
    """The serial fraction a profile printed (its one-thread phases' share of the CPU time)."""
    for line in text.splitlines():
        if line.startswith("one-thread phases (serial):"):
            return float(line.split(":", 1)[1].split("%", 1)[0]) / 100
    return None


def amdahl_table(f: float, times: dict[str, list[dict[str, float]]], counts: list[int | None]) -> None:
    """Amdahl's bound from the one-thread profile's serial fraction ``f``,
    beside each job's speed-up measured here over its own one-thread run."""
    bound = [1.0 / (f + (1.0 - f) / n) for n in (2, 16, 64, 128)]
    print(f"\nserial fraction (one-thread profile): {100 * f:.1f}%; Amdahl's bound at 2 / 16 / 64 / 128 cores: "
          + " / ".join(f"{b:.1f}x" for b in bound))
    print("| job | speed-up measured here, " + ", ".join(f"{t} threads" for t in counts[1:]) + " over 1 |\n|---|---|")
    for job in ("kscore leaderboard (CSV)", "DuckDB bare GROUP BY", "Polars group_by"):
        one = times.get(f"{job}, 1 thread")
        if not one:
            continue
        base = statistics.median(x["wall"] for x in one)
        ups = [base / statistics.median(x["wall"] for x in times[f"{job}, {t} threads"]) for t in counts[1:]]
        print(f"| {job} | " + ", ".join(f"{u:.2f}x" for u in ups) + " |")


if __name__ == "__main__":
    main()
