"""kscore.rank's fitted rankers, rating systems and sampler beside
scorio.rank 0.2.3, in one run (issue 37, rank-fit's names).

Sizes (models x questions x trials, binary; ``--sizes``):

- ``aime`` 20 x 30 x 64 and ``small`` 20 x 500 x 8: the boards scorio's
  users rank (a handful of models on AIME or MATH-500 with samples);
- ``large`` 100 x 2000 x 4: the issue's large board;
- ``wide`` 1000 x 2000 x 1 and ``board`` 5000 x 28000 x 1 (a public
  leaderboard's item matrix): kscore only unless ``--scorio-all`` (scorio
  takes hours there).

Every call runs in a child process (fork), so that a slow scorio call can be
killed at ``--limit`` seconds and each side's peak memory is its own. Each
side's figure is the median of up to ``--repeat`` calls (kscore: at least
21), fewer where the calls use up ``--budget`` seconds (the number of calls
is printed); kscore makes one untimed call first; scorio's CPU times are
printed beside its walls too. A scorio name that does not finish within the
limit is reported as "over N s". The load average is printed at the start
and end of every row (this machine is shared).

Run: ``python benches/bench_rank_fit.py [--sizes aime,small,large]
[--names bradley_terry,elo] [--limit 120] [--repeat 5] [--budget 60]``;
``--kscore-only`` skips scorio. ``--before DIR`` also times another build
of kscore in the same run (``DIR/kscore``: a copy of ``python/kscore``
with its compiled extension, e.g. main's), its calls as kscore's; the
table then gives its median and its ratio to this tree's. Beside every
wall median, the median CPU time of the same calls (``time.process_time``:
less sensitive to the shared machine's load than the wall time).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import statistics
import time
from typing import Any

import numpy as np

NAMES = [
    "bradley_terry",
    "bradley_terry_map",
    "bradley_terry_davidson",
    "bradley_terry_davidson_map",
    "rao_kupper",
    "rao_kupper_map",
    "plackett_luce",
    "plackett_luce_map",
    "davidson_luce",
    "davidson_luce_map",
    "bradley_terry_luce",
    "bradley_terry_luce_map",
    "elo",
    "glicko",
    "trueskill",
    "bayesian_mcmc",
]

SIZES = {
    "aime": (20, 30, 64),
    "small": (20, 500, 8),
    "large": (100, 2000, 4),
    "wide": (1000, 2000, 1),
    "board": (5000, 28000, 1),
}
#: sizes where scorio runs only with --scorio-all
KSCORE_ONLY = {"wide", "board"}


def board(L: int, M: int, N: int, seed: int = 37) -> np.ndarray:
    """Models of spread skill on questions of spread difficulty (int8, built
    in blocks of models so that the largest board needs no float copy)."""
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.2, 0.85, size=L)
    ease = rng.normal(0.0, 0.15, size=(M, 1))
    R = np.empty((L, M, N), dtype=np.int8)
    step = max(1, 2_000_000 // (M * N))
    for lo in range(0, L, step):
        hi = min(L, lo + step)
        p = np.clip(skill[lo:hi, None, None] + ease[None], 0.0, 1.0)
        R[lo:hi] = rng.random((hi - lo, M, N)) < p
    return R


def _child(side: str, name: str, size: str, repeat: int, budget: float, queue: Any) -> None:
    if side == "scorio":
        from scorio import rank as lib
    else:
        if side != "kscore":  # another build: ``--before DIR``
            import sys

            sys.path.insert(0, side)
        import kscore.rank as lib  # type: ignore[no-redef]
    R = board(*SIZES[size])
    fn = getattr(lib, name)
    try:
        if side != "scorio":
            fn(R)  # untimed: first-call costs (imports, page faults)
        times: list[float] = []
        cpu: list[float] = []
        start = time.perf_counter()
        # kscore's calls are short: more of them (within the budget) for a stable median
        calls = repeat if side == "scorio" else max(repeat, 21)
        while len(times) < calls:
            t0, c0 = time.perf_counter(), time.process_time()
            fn(R)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            queue.put(("partial", (times, cpu), 0))
            if time.perf_counter() - start > budget:
                break
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
        queue.put(("ok", (times, cpu), rss))
    except Exception as exc:  # noqa: BLE001 - reported, not hidden
        queue.put((f"{type(exc).__name__}: {exc}"[:80], ([], []), 0))


def measure(
    side: str, name: str, size: str, repeat: int, budget: float, limit: float
) -> tuple[str, list[float], list[float], int]:
    """(status, call times, their CPU times, peak RSS KiB); status "timeout"
    when the first call did not finish within ``limit`` (later calls cut off
    are dropped)."""
    ctx = mp.get_context("fork")
    queue: Any = ctx.Queue()
    child = ctx.Process(target=_child, args=(side, name, size, repeat, budget, queue))
    child.start()
    child.join(limit)
    killed = child.is_alive()
    if killed:
        child.kill()
        child.join()
    status, (times, cpu), rss = "died", ([], []), 0
    while not queue.empty():
        status, (times, cpu), rss = queue.get()
    if status == "partial":
        status = "ok" if times else "timeout"
    if killed and not times:
        status = "timeout"
    return status, times, cpu, rss


def fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=float, default=120.0, help="seconds before a child is killed")
    parser.add_argument("--repeat", type=int, default=5, help="calls per side at most")
    parser.add_argument("--budget", type=float, default=60.0, help="no further call past this many seconds")
    parser.add_argument("--sizes", default="aime,small,large")
    parser.add_argument("--names", default=",".join(NAMES))
    parser.add_argument("--kscore-only", action="store_true")
    parser.add_argument("--scorio-all", action="store_true", help="run scorio at the kscore-only sizes too")
    parser.add_argument("--before", default="", help="DIR holding another build's kscore package")
    args = parser.parse_args()
    print(f"load average (1/5/15 min) at start: {load()}")
    extra = " before (calls) / cpu | before / kscore (wall, cpu) |" if args.before else ""
    scorio_cells = " scorio (calls) / cpu | scorio / kscore (wall, cpu) |"
    print(f"| name | size | kscore (calls) / cpu | kscore peak RSS |{extra}{scorio_cells} load |")
    print("|---|---|---|---|---|---|---|" + ("---|---|" if args.before else ""))
    for size in args.sizes.split(","):
        L, M, N = SIZES[size]
        for name in args.names.split(","):
            status, ours, cpu, rss = measure("kscore", name, size, args.repeat, args.budget, args.limit)
            if status != "ok":
                blank = " - | - |" if args.before else ""
                print(f"| {name} | {L} x {M} x {N} | {status} | - |{blank} - | - | {load()} |", flush=True)
                continue
            mine = statistics.median(ours)
            cells = [f"{fmt(mine)} ({len(ours)}) / {fmt(statistics.median(cpu))}", f"{rss / 1024:,.0f} MiB"]
            if args.before:
                status, old, old_cpu, _ = measure(args.before, name, size, args.repeat, args.budget, args.limit)
                if status == "ok":
                    prior = statistics.median(old)
                    ratio = f"{prior / mine:.2f}x, cpu {statistics.median(old_cpu) / statistics.median(cpu):.2f}x"
                    cells += [f"{fmt(prior)} ({len(old)}) / {fmt(statistics.median(old_cpu))}", ratio]
                else:
                    cells += [status, "-"]
            if args.kscore_only or (size in KSCORE_ONLY and not args.scorio_all):
                cells += ["-", "-"]
            else:
                status, theirs, their_cpu, _ = measure("scorio", name, size, args.repeat, args.budget, args.limit)
                if status == "timeout":
                    cells += [f"over {args.limit:.0f} s", f"over {args.limit / mine:,.0f}x"]
                elif status == "ok":
                    med, med_cpu = statistics.median(theirs), statistics.median(their_cpu)
                    ratio = f"{med / mine:,.0f}x, cpu {med_cpu / statistics.median(cpu):,.0f}x"
                    cells += [f"{fmt(med)} ({len(theirs)}) / {fmt(med_cpu)}", ratio]
                else:
                    cells += [status, "-"]
            print(f"| {name} | {L} x {M} x {N} | " + " | ".join(cells) + f" | {load()} |", flush=True)
    print(f"load average (1/5/15 min) at end: {load()}")


if __name__ == "__main__":
    main()
