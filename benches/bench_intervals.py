"""The cost of the default interval (issue 36): ``kscore leaderboard`` of the
same board with this checkout and with another one (main's, by default
``/work/main/.venv/bin/python``), in fresh processes taking turns, so that a
change of load on a shared machine hits both alike. Printed: medians and
min-max of the wall and CPU time, the median of the per-round ratios (this
checkout / the other), the load average. Boards: the 100M-row one of
benches/bench_rows.py (written on first use) and a Parquet board of 10,000
models (benches/bench_models.py)::

    python benches/bench_intervals.py --rows-dir /tmp/rows100m --models-board /tmp/board_10000x100x4.parquet

No timing is asserted (benches/ only measures).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_recount import KSCORE  # noqa: E402


def run(python: str, argv: list[str]) -> dict[str, float]:
    out = subprocess.run([python, "-c", KSCORE, *argv], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"failed ({python}): {' '.join(argv)}\n{out.stderr[-2000:]}")
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--other", default="/work/main/.venv/bin/python", help="the other checkout's Python")
    ap.add_argument("--rows-dir", type=Path, help="bench_rows.py's folder (100 models x 100,000 questions x 10)")
    ap.add_argument("--models-board", type=Path, help="a Parquet board of many models (bench_models.py)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    boards: dict[str, list[str]] = {}
    if args.rows_dir is not None:
        raw = args.rows_dir / "raw"
        if not raw.is_dir() or len(list(raw.glob("*.parquet"))) != 100:
            from bench_leaderboard import write_dataset

            t0 = time.perf_counter()
            write_dataset(raw, 100, 100_000, 10)
            print(f"wrote 100,000,000 rows in {time.perf_counter() - t0:.0f} s", flush=True)
        boards["100M rows (100 x 100,000 x 10)"] = ["leaderboard", str(raw / "*.parquet"), "--format", "csv",
                                                   "-o", os.devnull]
    if args.models_board is not None:
        boards[f"{args.models_board.name}"] = ["leaderboard", str(args.models_board), "--format", "csv",
                                               "-o", os.devnull]
    pythons = {"this checkout": sys.executable, "other": args.other}
    loads = []
    results: dict[tuple[str, str], list[dict[str, float]]] = {}
    for r in range(args.rounds):
        for board, argv in boards.items():
            for who, python in pythons.items():
                loads.append(os.getloadavg()[0])
                res = run(python, argv)
                results.setdefault((board, who), []).append(res)
                print(f"round {r + 1}: {board}, {who}: {res['wall']:.2f} s wall, {res['cpu']:.2f} s CPU, "
                      f"{res['rss_mb']:.0f} MB", flush=True)
    print(f"\n{args.rounds} interleaved rounds, load average {min(loads):.1f}-{max(loads):.1f}, "
          f"{os.cpu_count()} cores; "
          f"other = {args.other}\n")
    print("| board | checkout | wall (median, min-max) | CPU (median) | this / other (median of rounds, wall; CPU) |")
    print("|---|---|---|---|---|")
    for board in boards:
        mine, other = results[(board, "this checkout")], results[(board, "other")]
        for who, res in (("this", mine), ("other", other)):
            walls = [x["wall"] for x in res]
            ratio = ""
            if who == "this":
                rw = statistics.median(a["wall"] / b["wall"] for a, b in zip(mine, other))
                rc = statistics.median(a["cpu"] / b["cpu"] for a, b in zip(mine, other))
                ratio = f"{rw:.2f}x; {rc:.2f}x"
            print(f"| {board} | {who} | {statistics.median(walls):.2f} s ({min(walls):.2f}-{max(walls):.2f}) | "
                  f"{statistics.median(x['cpu'] for x in res):.2f} s | {ratio} |")


if __name__ == "__main__":
    main()
