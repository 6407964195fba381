"""The rows axis (issue 26): ``kscore leaderboard`` of raw Parquet files,
one per model, against DuckDB's bare ``GROUP BY model, question_id`` (count,
sum) of the same files, the floor of any leaderboard, in the same run; and
kscore with the direct count of Parquet rows turned off (DuckDB's query
counts: the way before), whose board must be byte for byte the same.

Each job runs in a fresh process (its own peak memory, VmHWM, and CPU time:
user + system of all its threads), the three taking turns in each round so
that a change of load on a shared machine hits them alike. Printed: medians,
min-max, the median of the per-round ratios kscore / DuckDB, the load
average. The dataset is bench_leaderboard.py's (written on first use)::

    python benches/bench_rows.py /tmp/rows100m --questions 100000 --samples 10    # 100M rows
    python benches/bench_rows.py /tmp/rows1e9 --questions 100000 --samples 100    # 1e9 rows

No timing is asserted (benches/ only measures).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_recount import DUCKDB, KSCORE, PEAK, run  # noqa: E402

#: kscore with the direct count off: every input goes through DuckDB's query.
KSCORE_QUERY = """
import json, sys, time
""" + PEAK + """
t0 = time.perf_counter()
from kscore.cli import main
from kscore.leaderboard.read import parquet_rows
parquet_rows.ENABLED = False
rc = main(sys.argv[1:] + ["--quiet"])
print(json.dumps({"rc": rc, "wall": time.perf_counter() - t0, "cpu": CPU(), "rss_mb": PEAK()}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--questions", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-before", action="store_true", help="skip kscore with the direct count off")
    args = parser.parse_args()
    import compileall

    from bench_leaderboard import write_dataset

    import kscore

    compileall.compile_dir(Path(kscore.__file__).parent, quiet=1)
    raw = args.dir / "raw"
    if not raw.is_dir() or len(list(raw.glob("*.parquet"))) != args.models:
        t0 = time.perf_counter()
        write_dataset(raw, args.models, args.questions, args.samples)
        print(f"wrote {args.models * args.questions * args.samples:,} rows in {time.perf_counter() - t0:.0f} s")
    files = sorted(raw.glob("*.parquet"))
    glob = str(raw / "*.parquet")
    out_direct, out_query = args.dir / "board_direct.csv", args.dir / "board_query.csv"
    jobs = {
        "kscore leaderboard (CSV)": (KSCORE, ["leaderboard", glob, "--format", "csv", "-o", str(out_direct)]),
        "DuckDB bare GROUP BY": (DUCKDB, [str(f) for f in files]),
        "kscore, direct count off (before)": (
            KSCORE_QUERY, ["leaderboard", glob, "--format", "csv", "-o", str(out_query)]),
    }
    if args.no_before:
        del jobs["kscore, direct count off (before)"]
    times: dict[str, list[dict[str, float]]] = {k: [] for k in jobs}
    loads = []
    for r in range(args.rounds):
        for name, (script, argv) in jobs.items():
            loads.append(os.getloadavg()[0])
            times[name].append(run(script, *argv))
            print(f"round {r + 1}: {name}: {times[name][-1]['wall']:.2f} s wall, {times[name][-1]['cpu']:.2f} s CPU, "
                  f"{times[name][-1]['rss_mb']:.0f} MB", flush=True)
    if not args.no_before:
        print("boards equal (direct count, DuckDB's query):", out_direct.read_bytes() == out_query.read_bytes())
    rows = args.models * args.questions * args.samples
    duck = times["DuckDB bare GROUP BY"]
    print(f"\n{rows:,} rows ({args.models} files, {args.models} models x {args.questions:,} questions x "
          f"{args.samples} samples); {args.rounds} interleaved rounds, load average {min(loads):.1f}-{max(loads):.1f}, "
          f"{os.cpu_count()} cores")
    print("| job | wall (median, min-max) | / DuckDB (median of rounds) | CPU (median) | peak RSS (max) |\n"
          "|---|---|---|---|---|")
    for name, results in times.items():
        walls = [x["wall"] for x in results]
        ratio = statistics.median(x["wall"] / d["wall"] for x, d in zip(results, duck))
        print(f"| {name} | {statistics.median(walls):.2f} s ({min(walls):.2f}-{max(walls):.2f}) | {ratio:.2f}x | "
              f"{statistics.median(x['cpu'] for x in results):.2f} s | {max(x['rss_mb'] for x in results):.0f} MB |")


if __name__ == "__main__":
    main()
