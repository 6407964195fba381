"""kscore.rank's voting, graph and pairwise rankers beside scorio.rank 0.2.3,
in one run, on two boards (models x questions x trials, binary, the
generator of bench_rank.py): 20 x 500 x 8 and 100 x 2000 x 4.

scorio runs in a child process per name with a time limit (its
kemeny_young MILP and baldwin take minutes at 100 models): "over N s" where
it does not finish; a name that runs under 2 s is called up to 5 times and
the median of the calls after the first (which pays scorio's lazy imports)
kept. kscore: the median of repeated calls in this process
(at least 5, up to a second of calls). Also timed: the shared counts alone
(``kscore.rank._board.read_board``), the one pass over R and the pair counts
that every ranker starts from. The load average is printed beside the
figures (a shared machine). No timing is asserted anywhere.

Run: ``python benches/bench_rank_rest.py [--limit 60] [--json out.json]
[--only NAME ...] [--dtype int8] [--before DIR]`` (int64 boards by default:
numpy's default integer, the widest tensor to read; ``--before DIR`` also
times another build, ``DIR/kscore``, e.g. main's, in the same run).
"""

from __future__ import annotations

import argparse
import functools
import json
import multiprocessing as mp
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

BOARDS = {"20 x 500 x 8": (20, 500, 8), "100 x 2000 x 4": (100, 2000, 4)}

#: name -> keyword arguments (scorio's defaults unless shown).
CALLS: dict[str, dict[str, Any]] = {
    "inverse_difficulty": {},
    "borda": {},
    "copeland": {},
    "win_rate": {},
    "minimax": {},
    "schulze": {},
    "ranked_pairs": {},
    "kemeny_young": {},
    "nanson": {},
    "baldwin": {},
    "majority_judgment": {},
    "pagerank": {},
    "spectral": {},
    "alpharank": {},
    "nash": {},
    "rank_centrality": {},
    "serial_rank": {},
    "hodge_rank": {},
}


def board(L: int, M: int, N: int, seed: int = 28, dtype: str = "int64") -> np.ndarray:
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.2, 0.8, size=(L, 1, 1))
    ease = rng.normal(0.0, 0.2, size=(1, M, 1))
    return (rng.random((L, M, N)) < np.clip(skill + ease, 0.0, 1.0)).astype(dtype)


def _scorio_child(name: str, shape: tuple[int, int, int], kw: dict[str, Any], dtype: str, out: Any) -> None:
    from scorio import rank as sr

    R = board(*shape, dtype=dtype)
    fn = getattr(sr, name)
    # The first call pays scorio's lazy imports (scipy.optimize, ...): a
    # fast name is timed again and the median of up to 5 calls kept.
    times: list[float] = []
    cpu: list[float] = []
    while not times or (len(times) < 5 and sum(times) < 2.0):
        t0, c0 = time.perf_counter(), time.process_time()
        fn(R, **kw)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    if len(times) > 1:
        times, cpu = times[1:], cpu[1:]
    out.put((statistics.median(times), statistics.median(cpu)))


def _before_child(
    where: str, name: str, shape: tuple[int, int, int], kw: dict[str, Any], dtype: str, out: Any
) -> None:
    import sys

    sys.path.insert(0, where)
    import kscore.rank as other

    R = board(*shape, dtype=dtype)
    out.put(median_time(functools.partial(getattr(other, name), R, **kw)))


def before_once(
    where: str, name: str, shape: tuple[int, int, int], kw: dict[str, Any], dtype: str
) -> tuple[float, float]:
    """Another build's (wall, CPU) medians (``--before DIR``: DIR/kscore), in a
    fresh interpreter (this one has imported this tree's kscore)."""
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    child = ctx.Process(target=_before_child, args=(where, name, shape, kw, dtype, out))
    child.start()
    wall, cpu = out.get()
    child.join()
    return float(wall), float(cpu)


def scorio_once(
    name: str, shape: tuple[int, int, int], kw: dict[str, Any], limit: float, dtype: str = "int64"
) -> tuple[float, float] | None:
    """scorio's (wall, CPU) time for one call, or None past `limit` seconds."""
    ctx = mp.get_context("fork")
    out = ctx.Queue()
    child = ctx.Process(target=_scorio_child, args=(name, shape, kw, dtype, out))
    child.start()
    child.join(limit)
    if child.is_alive():
        child.kill()
        child.join()
        return None
    if out.empty():
        return None
    wall, cpu = out.get()
    return float(wall), float(cpu)


def median_time(fn: Callable[[], Any], budget_s: float = 1.0, least: int = 5) -> tuple[float, float]:
    """(wall, CPU) medians of repeated calls."""
    fn()  # warm
    times: list[float] = []
    cpu: list[float] = []
    start = time.perf_counter()
    while len(times) < least or (time.perf_counter() - start < budget_s and len(times) < 200):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(times), statistics.median(cpu)


def fmt(seconds: float | None, limit: float) -> str:
    if seconds is None:
        return f"over {limit:.0f} s"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.0f} us"


def main() -> None:
    import kscore.rank as kr
    from kscore.rank import _board

    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per scorio call")
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--only", nargs="*", help="names to run")
    parser.add_argument("--before", default="", help="DIR holding another build's kscore package, timed too")
    parser.add_argument("--dtype", default="int64", help="the boards' dtype (int64, int8, bool, ...)")
    args = parser.parse_args()
    names = args.only or list(CALLS)
    results: dict[str, dict[str, Any]] = {}
    print(f"load average at start: {os.getloadavg()}, boards of {args.dtype}")
    for label, shape in BOARDS.items():
        R = board(*shape, dtype=args.dtype)
        print(f"\n## {label}  (load {os.getloadavg()[0]:.1f})")
        extra = " before wall / CPU | before / kscore CPU |" if args.before else ""
        print(f"| name | scorio wall / CPU |{extra} kscore wall / CPU | ratio wall / CPU |")
        print("|---|---|---|---|" + ("---|---|" if args.before else ""))
        for what, flags in [
            ("counts: totals", {}),
            ("counts: levels + G", {"levels": True, "greater": True}),
            ("counts: W (sample wins)", {"wins": True}),
        ]:
            t, c = median_time(functools.partial(_board.read_board, R, **flags))
            print(f"| {what} | | {fmt(t, 0)} / {fmt(c, 0)} | |")
            results[f"{label} / {what}"] = {"kscore_s": t, "kscore_cpu_s": c}
        for name in names:
            kw = CALLS[name]
            theirs = scorio_once(name, shape, kw, args.limit, args.dtype)
            ours, ours_cpu = median_time(functools.partial(getattr(kr, name), R, **kw))
            if theirs is None:
                over = f"over {args.limit / ours:,.0f}x"
                cells = f"over {args.limit:.0f} s | {fmt(ours, 0)} / {fmt(ours_cpu, 0)} | {over}"
            else:
                cells = (
                    f"{fmt(theirs[0], 0)} / {fmt(theirs[1], 0)} | {fmt(ours, 0)} / {fmt(ours_cpu, 0)} | "
                    f"{theirs[0] / ours:,.0f}x / {theirs[1] / ours_cpu:,.0f}x"
                )
            if args.before:
                prior = before_once(args.before, name, shape, kw, args.dtype)
                first, rest = cells.split(" | ", 1)
                cells = f"{first} | {fmt(prior[0], 0)} / {fmt(prior[1], 0)} | {prior[1] / ours_cpu:.1f}x | {rest}"
                results[f"{label} / {name} / before"] = {"kscore_s": prior[0], "kscore_cpu_s": prior[1]}
            print(f"| {name} | {cells} |", flush=True)
            results[f"{label} / {name}"] = {
                "scorio_s": theirs[0] if theirs else None,
                "scorio_cpu_s": theirs[1] if theirs else None,
                "kscore_s": ours,
                "kscore_cpu_s": ours_cpu,
                "load": os.getloadavg()[0],
            }
    print(f"\nload average at end: {os.getloadavg()}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main()
