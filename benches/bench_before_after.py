"""``kscore leaderboard`` of one tree against an older one (issue 36's
speed target: no slower than 1.2x the leaderboard before), each run a fresh
process whose CPU time (user + system of all its threads: less shaken by
other work than the wall time) and wall time are taken, the two trees
taking turns in every round so that a change of load hits them alike.
Printed: per job the medians, the median of the per-round CPU ratios after
/ before, and the load average.

Boards: benches/bench_models.py's (``MODELSxQUESTIONS``, 4 samples, long
near-tied sweep names), written on first use into ``--dir``; any other file
or glob given with ``--file``. ``--flags`` are the command's options, one
job per ``;``-separated set::

    python benches/bench_before_after.py --before /abs/old/python --boards 1000x50,10000x100 \\
        --flags ';--adjust simultaneous' --rounds 3 --dir /tmp/boards

(the older tree's ``python/`` folder with its compiled module, an absolute
path, put first on ``PYTHONPATH``). No timing is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_models import write_board  # noqa: E402
from bench_recount import KSCORE, run  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True, help="the older tree's python/ folder (absolute)")
    ap.add_argument("--boards", default="", help="MODELSxQUESTIONS,... (bench_models.py's boards)")
    ap.add_argument("--file", action="append", default=[], help="a file or glob to rank (more than one: repeat)")
    ap.add_argument("--flags", default="", help="';'-separated sets of options, one job each ('' the defaults)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/kscore-before-after"))
    args = ap.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    inputs = list(args.file)
    for spec in [s for s in args.boards.split(",") if s]:
        models, questions = (int(x) for x in spec.split("x"))
        path = args.dir / f"board_{models}x{questions}x4.parquet"
        if not path.exists():
            write_board(path, models, questions, 4)
        inputs.append(str(path))
    out = args.dir / "out.csv"
    print(f"{os.cpu_count()} cores; load average at start {os.getloadavg()[0]:.1f}", flush=True)
    print("| input | options | CPU before | CPU after | after / before (median of rounds) | wall before | wall after |"
          "\n|---|---|---:|---:|---:|---:|---:|", flush=True)
    loads = []
    for src in inputs:
        for flags in args.flags.split(";"):
            argv = ["leaderboard", src, "--format", "csv", "-o", str(out), *flags.split()]
            got: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
            for _ in range(args.rounds):
                for tree in ("before", "after"):
                    loads.append(os.getloadavg()[0])
                    got[tree].append(run(KSCORE, *argv, pythonpath=args.before if tree == "before" else None))
            ratio = statistics.median(a["cpu"] / b["cpu"] for a, b in zip(got["after"], got["before"]))
            cpu = {k: statistics.median(x["cpu"] for x in v) for k, v in got.items()}
            wall = {k: statistics.median(x["wall"] for x in v) for k, v in got.items()}
            print(f"| {Path(src).name} | {flags or '(defaults)'} | {cpu['before']:.2f} s | {cpu['after']:.2f} s | "
                  f"{ratio:.3f}x | {wall['before']:.2f} s | {wall['after']:.2f} s |", flush=True)
    out.unlink(missing_ok=True)
    print(f"{args.rounds} interleaved rounds; load average {min(loads):.1f}-{max(loads):.1f}")


if __name__ == "__main__":
    main()
