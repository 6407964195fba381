"""kscore.rank's Luce composites (``bradley_terry_luce``, ``davidson_luce``
and their ``_map`` variants) beside scorio.rank 0.2.3 and another build of
kscore, in one run.

Boards: bench_rank_fit.py's generator (seed 37, int8): ``small`` 20 x 500 x
8 and ``large`` 100 x 2000 x 4 (models x questions x trials).

kscore (this tree, and ``--before DIR``: ``DIR/kscore``, e.g. main's build,
in a fresh interpreter): the median wall and CPU (``time.process_time``, all
threads) of at least 5 calls after an untimed one, up to ``--budget``
seconds. scorio: one call in a child process (its CPU from
``resource.getrusage(RUSAGE_CHILDREN)``), killed at ``--limit`` seconds
("over N s", with the CPU it had used); ``--limit 0`` skips it. scorio's
L-BFGS-B with finite differences takes minutes to hours here (docs/rank.md:
its true times, measured with ``nice -n 19`` in the background and a large
``--limit``). The load average is printed beside every row (a shared
machine: compare ratios within one run). No timing is asserted anywhere.

Run: ``python benches/bench_rank_luce.py [--sizes small,large] [--names
bradley_terry_luce,davidson_luce] [--before DIR] [--limit 60] [--json out]``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import resource
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_rank_fit import board  # noqa: E402  (the same boards: bench_rank_fit.py's)

NAMES = ["bradley_terry_luce", "bradley_terry_luce_map", "davidson_luce", "davidson_luce_map"]
SIZES = {"small": (20, 500, 8), "large": (100, 2000, 4)}


def medians(fn: Any, R: Any, budget: float) -> tuple[float, float, int]:  # noqa: N803
    """(wall, CPU) medians of at least 5 calls after an untimed one."""
    fn(R)
    walls: list[float] = []
    cpus: list[float] = []
    start = time.perf_counter()
    while len(walls) < 5 or (time.perf_counter() - start < budget and len(walls) < 50):
        t0, c0 = time.perf_counter(), time.process_time()
        fn(R)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), statistics.median(cpus), len(walls)


def _before_child(where: str, name: str, size: str, budget: float, out: Any) -> None:
    sys.path.insert(0, where)
    import kscore.rank as other

    out.put(medians(getattr(other, name), board(*SIZES[size]), budget))


def _scorio_child(name: str, size: str) -> None:
    from scorio import rank as sr

    getattr(sr, name)(board(*SIZES[size]))


def scorio_once(name: str, size: str, limit: float) -> tuple[float, float, bool]:
    """scorio's (wall, CPU, finished) for one call in a forked child."""
    ctx = mp.get_context("fork")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = ctx.Process(target=_scorio_child, args=(name, size))
    t0 = time.perf_counter()
    child.start()
    child.join(limit)
    finished = not child.is_alive()
    cpu_alive = 0.0
    if not finished:
        with open(f"/proc/{child.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu_alive = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        child.kill()
    child.join()
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, (cpu if finished else cpu_alive), finished


def fmt(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.0f} us"


def main() -> None:
    import kscore.rank as kr

    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="small,large")
    parser.add_argument("--names", default=",".join(NAMES))
    parser.add_argument("--before", default="", help="DIR holding another build's kscore package")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per scorio call (0: skip scorio)")
    parser.add_argument("--budget", type=float, default=2.0, help="seconds of kscore calls per row")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    results: dict[str, Any] = {"load_start": os.getloadavg()}
    print(f"load average at start: {os.getloadavg()}")
    print(
        "| size | name | scorio wall / CPU | before wall / CPU | kscore wall / CPU "
        "| before / kscore CPU | scorio / kscore CPU | load |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for size in args.sizes.split(","):
        R = board(*SIZES[size])  # noqa: N806
        for name in args.names.split(","):
            row: dict[str, Any] = {}
            wall, cpu, calls = medians(getattr(kr, name), R, args.budget)
            row["kscore"] = {"wall_s": wall, "cpu_s": cpu, "calls": calls}
            cells = [size, name, "-", "-", f"{fmt(wall)} / {fmt(cpu)}", "-", "-"]
            if args.before:
                ctx = mp.get_context("spawn")
                out = ctx.Queue()
                child = ctx.Process(target=_before_child, args=(args.before, name, size, args.budget, out))
                child.start()
                b_wall, b_cpu, _ = out.get()
                child.join()
                row["before"] = {"wall_s": b_wall, "cpu_s": b_cpu}
                cells[3] = f"{fmt(b_wall)} / {fmt(b_cpu)}"
                cells[5] = f"{b_cpu / cpu:.1f}x"
            if args.limit > 0:
                s_wall, s_cpu, done = scorio_once(name, size, args.limit)
                row["scorio"] = {"wall_s": s_wall, "cpu_s": s_cpu, "finished": done}
                over = "" if done else "over "
                cells[2] = f"{over}{fmt(s_wall)} / {over}{fmt(s_cpu)}"
                cells[6] = f"{over}{s_cpu / cpu:,.0f}x"
            load = os.getloadavg()[0]
            row["load"] = load
            results[f"{size} / {name}"] = row
            print("| " + " | ".join(cells) + f" | {load:.1f} |", flush=True)
    print(f"load average at end: {os.getloadavg()}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
