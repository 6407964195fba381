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

Run: ``python benches/bench_rank_rest.py [--limit 60] [--json out.json]``.
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


def board(L: int, M: int, N: int, seed: int = 28) -> np.ndarray:
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.2, 0.8, size=(L, 1, 1))
    ease = rng.normal(0.0, 0.2, size=(1, M, 1))
    return (rng.random((L, M, N)) < np.clip(skill + ease, 0.0, 1.0)).astype(np.int64)


def _scorio_child(name: str, shape: tuple[int, int, int], kw: dict[str, Any], out: Any) -> None:
    from scorio import rank as sr

    R = board(*shape)
    fn = getattr(sr, name)
    # The first call pays scorio's lazy imports (scipy.optimize, ...): a
    # fast name is timed again and the median of up to 5 calls kept.
    times: list[float] = []
    while not times or (len(times) < 5 and sum(times) < 2.0):
        t0 = time.perf_counter()
        fn(R, **kw)
        times.append(time.perf_counter() - t0)
    out.put(statistics.median(times[1:]) if len(times) > 1 else times[0])


def scorio_once(name: str, shape: tuple[int, int, int], kw: dict[str, Any], limit: float) -> float | None:
    """scorio's time for one call, or None past `limit` seconds."""
    ctx = mp.get_context("fork")
    out = ctx.Queue()
    child = ctx.Process(target=_scorio_child, args=(name, shape, kw, out))
    child.start()
    child.join(limit)
    if child.is_alive():
        child.kill()
        child.join()
        return None
    return float(out.get()) if not out.empty() else None


def median_time(fn: Callable[[], Any], budget_s: float = 1.0, least: int = 5) -> float:
    fn()  # warm
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < least or (time.perf_counter() - start < budget_s and len(times) < 200):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


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
    args = parser.parse_args()
    names = args.only or list(CALLS)
    results: dict[str, dict[str, Any]] = {}
    print(f"load average at start: {os.getloadavg()}")
    for label, shape in BOARDS.items():
        R = board(*shape)
        print(f"\n## {label}  (load {os.getloadavg()[0]:.1f})")
        print("| name | scorio | kscore | ratio |\n|---|---|---|---|")
        for what, flags in [
            ("counts: totals", {}),
            ("counts: levels + G", {"levels": True, "greater": True}),
            ("counts: W (sample wins)", {"wins": True}),
        ]:
            t = median_time(functools.partial(_board.read_board, R, **flags))
            print(f"| {what} | | {fmt(t, 0)} | |")
            results[f"{label} / {what}"] = {"kscore_s": t}
        for name in names:
            kw = CALLS[name]
            theirs = scorio_once(name, shape, kw, args.limit)
            ours = median_time(functools.partial(getattr(kr, name), R, **kw))
            ratio = f"{theirs / ours:,.0f}x" if theirs is not None else f"over {args.limit / ours:,.0f}x"
            print(f"| {name} | {fmt(theirs, args.limit)} | {fmt(ours, 0)} | {ratio} |", flush=True)
            results[f"{label} / {name}"] = {"scorio_s": theirs, "kscore_s": ours, "load": os.getloadavg()[0]}
    print(f"\nload average at end: {os.getloadavg()}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main()
