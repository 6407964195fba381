"""``kscore leaderboard --memory-limit``: time and peak memory of a large
read under DuckDB memory limits, beside DuckDB alone doing the bare count
under the same limits, each in a fresh process (peak RSS: ``VmHWM``).

    python benches/bench_memory_limit.py DIR --models 100 --questions 100000 --samples 10 \\
        --limits none,1GB,512MB --rounds 1

writes the dataset into DIR first if it is not there (bench_leaderboard.py's
``write_dataset``: one Parquet file per model, written by DuckDB model by
model), then runs, per round and in turns, kscore (``--format csv -o``,
``--quiet``) and DuckDB's ``GROUP BY model, question_id`` with ``count`` and
``sum`` under each limit, and prints wall seconds and peak RSS (medians over
the rounds). Both spill to a temporary folder (kscore's own; DuckDB's set
by the script). No timing is asserted anywhere; docs/leaderboard.md,
*Bounded memory*, has the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

PEAK = """
def PEAK():
    with open("/proc/self/status") as fh:
        return next(int(l.split()[1]) for l in fh if l.startswith("VmHWM")) / 1024
"""

KSCORE = """
import json, sys, time
""" + PEAK + """
t0 = time.perf_counter()
from kscore.cli import main
extra = ["--memory-limit", sys.argv[3]] if sys.argv[3] != "none" else []
rc = main(["leaderboard", sys.argv[1], "--format", "csv", "--output", sys.argv[2], "--quiet", *extra])
print(json.dumps({"rc": rc, "wall": time.perf_counter() - t0, "rss_mb": PEAK()}))
"""

DUCKDB = """
import json, sys, tempfile, time
""" + PEAK + """
t0 = time.perf_counter()
import duckdb
con = duckdb.connect()
with tempfile.TemporaryDirectory() as tmp:
    con.execute(f"SET temp_directory = '{tmp}/spill'")
    if sys.argv[3] != "none":
        con.execute(f"SET memory_limit = '{sys.argv[3]}'")
    con.sql(f"SELECT model, question_id, count(*) AS n, sum(correct) AS c FROM read_parquet('{sys.argv[1]}') "
            "GROUP BY ALL").to_arrow_table()
    con.close()
print(json.dumps({"rc": 0, "wall": time.perf_counter() - t0, "rss_mb": PEAK()}))
"""


def run(script: str, source: str, out: Path, limit: str) -> dict[str, Any]:
    res = subprocess.run([sys.executable, "-c", script, source, str(out), limit], capture_output=True, text=True,
                         check=False)
    if res.returncode != 0 or not res.stdout.strip():
        return {"rc": res.returncode, "wall": float("nan"), "rss_mb": float("nan"), "err": res.stderr[-300:]}
    got: dict[str, Any] = json.loads(res.stdout.strip().splitlines()[-1])
    return got


def main() -> int:
    from bench_leaderboard import write_dataset

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir", type=Path)
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--questions", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--limits", default="none,1GB,512MB")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--tools", default="kscore,duckdb")
    args = parser.parse_args()
    if not any(args.dir.glob("*.parquet")):
        t0 = time.perf_counter()
        files = write_dataset(args.dir, args.models, args.questions, args.samples)
        size = sum(f.stat().st_size for f in files)
        print(f"wrote {args.models * args.questions * args.samples:,} rows in {len(files)} files, "
              f"{size / 1e9:.2f} GB, {time.perf_counter() - t0:.0f} s", flush=True)
    source = str(args.dir / "*.parquet")
    limits = args.limits.split(",")
    scripts = {"kscore": KSCORE, "duckdb": DUCKDB}
    tools = args.tools.split(",")
    results: dict[tuple[str, str], list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        boards = {}
        for r in range(args.rounds):
            for limit in limits:
                for tool in tools:
                    out = Path(tmp) / f"{tool}-{limit}.csv"
                    got = run(scripts[tool], source, out, limit)
                    results.setdefault((tool, limit), []).append(got)
                    print(f"round {r + 1} {tool:6} limit {limit:6}: {got}", flush=True)
                    if tool == "kscore" and out.exists():
                        boards[limit] = out.read_bytes()
        same = len(set(boards.values())) == 1
    print(f"\nload average {os.getloadavg()[0]:.1f}; boards under every limit identical: {same}")
    print(f"{'tool':8} {'limit':8} {'wall s':>8} {'peak RSS MB':>12}")
    for (tool, limit), rows in results.items():
        wall = statistics.median(x["wall"] for x in rows)
        rss = statistics.median(x["rss_mb"] for x in rows)
        print(f"{tool:8} {limit:8} {wall:8.1f} {rss:12.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
