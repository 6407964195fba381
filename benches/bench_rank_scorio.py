"""kscore.rank's fitted rankers, rating systems and sampler beside
scorio.rank 0.2.3, in one run, at 20 x 500 x 8 and 100 x 2000 x 4 (models x
questions x trials, binary).

scorio takes seconds to hours per call at these sizes, so each scorio name
runs once, in a child process killed at a time limit (``--limit``, default
120 s): a name that does not finish is reported as "over N s". kscore's
figure is the median of ``--repeat`` calls (after one untimed call). The
load average is printed beside the table (this machine is shared).

Run: ``python benches/bench_rank_scorio.py [--limit 120] [--sizes small,large]
[--names bradley_terry,elo]``; ``--kscore-only`` skips scorio.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
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

SIZES = {"small": (20, 500, 8), "large": (100, 2000, 4)}


def board(L: int, M: int, N: int, seed: int = 37) -> np.ndarray:
    """Models of spread skill on questions of spread difficulty."""
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.2, 0.85, size=(L, 1, 1))
    ease = rng.normal(0.0, 0.15, size=(1, M, 1))
    return (rng.random((L, M, N)) < np.clip(skill + ease, 0.0, 1.0)).astype(np.int64)


def _scorio_child(name: str, size: str, queue: Any) -> None:
    from scorio import rank as sr

    R = board(*SIZES[size])
    start = time.perf_counter()
    try:
        getattr(sr, name)(R)
        queue.put(("ok", time.perf_counter() - start))
    except Exception as exc:  # noqa: BLE001 - reported, not hidden
        queue.put((type(exc).__name__, time.perf_counter() - start))


def scorio_seconds(name: str, size: str, limit: float) -> tuple[str, float]:
    """scorio's single-call time, or ("timeout", limit)."""
    queue: Any = mp.get_context("fork").Queue()
    child = mp.get_context("fork").Process(target=_scorio_child, args=(name, size, queue))
    child.start()
    child.join(limit)
    if child.is_alive():
        child.kill()
        child.join()
        return "timeout", limit
    return queue.get() if not queue.empty() else ("died", float("nan"))


def kscore_seconds(name: str, size: str, repeat: int) -> float:
    import kscore.rank as kr

    R = board(*SIZES[size])
    fn = getattr(kr, name)
    fn(R)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(R)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=float, default=120.0)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="small,large")
    parser.add_argument("--names", default=",".join(NAMES))
    parser.add_argument("--kscore-only", action="store_true")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()}")
    print("| name | size | kscore | scorio | scorio / kscore |")
    print("|---|---|---|---|---|")
    for size in args.sizes.split(","):
        L, M, N = SIZES[size]
        for name in args.names.split(","):
            ours = kscore_seconds(name, size, args.repeat)
            if args.kscore_only:
                print(f"| {name} | {L} x {M} x {N} | {fmt(ours)} | - | - |", flush=True)
                continue
            status, theirs = scorio_seconds(name, size, args.limit)
            if status == "timeout":
                shown, ratio = f"over {args.limit:.0f} s", f"over {args.limit / ours:,.0f}x"
            elif status == "ok":
                shown, ratio = fmt(theirs), f"{theirs / ours:,.0f}x"
            else:
                shown, ratio = f"{status} after {fmt(theirs)}", "-"
            print(f"| {name} | {L} x {M} x {N} | {fmt(ours)} | {shown} | {ratio} |", flush=True)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
