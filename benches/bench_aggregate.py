"""kscore.aggregate beside scorio.aggregate 0.2.3 in one run: each selection rule on
one batch of M questions x N candidates (scorio's own (M, N) call, which loops over
the questions in Python), answers as int ids, as a numpy string array and as a list of
lists of str; medians of --repeat runs for kscore, of --scorio-repeat for scorio; the
load average printed beside. Also one question (N candidates), where scorio's
per-call cost dominates. Every kscore result is checked equal to scorio's first.

Usage: ``python benches/bench_aggregate.py [--questions 10000] [--candidates 64] [--repeat 5]
[--before DIR] [--only RULE,...] [--clock wall|cpu|both]``; ``both``: wall and CPU medians of
the same calls; ``--before DIR``: also time an earlier build in the same run, its package copied
as ``DIR/kscore_before`` (the python/kscore folder of that commit with its compiled ``_kscore``
module beside; every import inside the package is relative).
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
from scorio import aggregate as scorio_aggregate

from kscore import aggregate

RULES: list[tuple[str, dict[str, Any]]] = [
    ("majority_vote", {}),
    ("weighted_majority_vote", {}),
    ("softmax_weighted_vote", {}),
    ("rank_weighted_vote", {}),
    ("logit_weighted_vote", {"transform": "linear"}),
    ("filtered_vote", {}),
    ("best_of_n", {}),
    ("majority_of_the_bests", {}),
    ("best_of_majority", {}),
]


#: The clock: wall time, or with ``--clock cpu`` the CPU time of all the process's threads
#: (``time.process_time``: the work done, which a loaded machine's waits do not inflate).
CLOCK = time.perf_counter


def median_s(f: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = CLOCK()
        f()
        times.append(CLOCK() - t0)
    return statistics.median(times)


def medians_both(f: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """Medians of wall time and of CPU time (all threads) over the same ``repeat`` calls."""
    wall, cpu = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        f()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu)


def before_module(path: str | None) -> Any:
    """``kscore_before.aggregate`` from ``path`` (an earlier build), or None."""
    if path is None:
        return None
    sys.path.insert(0, path)
    return importlib.import_module("kscore_before.aggregate")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=10_000)
    ap.add_argument("--candidates", type=int, default=64)
    ap.add_argument("--answers", type=int, default=8, help="distinct answers per question")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--scorio-repeat", type=int, default=1)
    ap.add_argument("--before", default=None, help="folder holding an earlier build as kscore_before")
    ap.add_argument("--no-lists", action="store_true", help="skip the list-of-str inputs")
    ap.add_argument("--only", default=None, help="comma-separated rules to run (default: all)")
    ap.add_argument("--no-single", action="store_true", help="skip the one-question timings")
    ap.add_argument("--clock", choices=["wall", "cpu", "both"], default="wall", help="cpu: all threads' CPU time")
    args = ap.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    old = before_module(args.before)
    rng = np.random.default_rng(0)
    m, n = args.questions, args.candidates
    ids = rng.integers(0, args.answers, size=(m, n))
    scores = rng.random((m, n))
    strings = np.array([f"answer {i}" for i in range(args.answers)])[ids]
    inputs: dict[str, Any] = {"ids": ids, "str array": strings}
    if not args.no_lists:
        inputs["lists"] = strings.tolist()
    print(f"{m} questions x {n} candidates, {args.answers} answers, {args.clock} clock; load average {os.getloadavg()}")
    if args.clock == "both":
        print(
            "| rule | answers | scorio ms | before ms | kscore ms | speed-up | before's "
            "| scorio CPU ms | before CPU ms | kscore CPU ms | CPU speed-up | before's |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    else:
        print("| rule | answers | scorio ms | before ms | kscore ms | speed-up | before's |")
        print("|---|---|---|---|---|---|---|")
    rules = RULES if args.only is None else [r for r in RULES if r[0] in args.only.split(",")]
    for name, options in rules:
        mine, theirs = getattr(aggregate, name), getattr(scorio_aggregate, name)
        for label, answers in inputs.items():
            call = (answers,) if name == "majority_vote" else (answers, scores)
            got, want = mine(*call, **options, return_index=True), theirs(*call, **options, return_index=True)
            assert list(got[1]) == list(want[1]) and list(got[0]) == list(want[0]), (name, label)
            if args.clock == "both":
                sw, sc = medians_both(partial(theirs, *call, **options), args.scorio_repeat)
                bw, bc = (
                    medians_both(partial(getattr(old, name), *call, **options), args.repeat)
                    if old
                    else (float("nan"), float("nan"))
                )
                kw, kc = medians_both(partial(mine, *call, **options), args.repeat)
                print(
                    f"| {name} | {label} | {sw * 1e3:.1f} | {bw * 1e3:.1f} | {kw * 1e3:.1f} | {sw / kw:.0f}x "
                    f"| {sw / bw:.0f}x | {sc * 1e3:.1f} | {bc * 1e3:.1f} | {kc * 1e3:.1f} "
                    f"| {sc / kc:.0f}x | {sc / bc:.0f}x |",
                    flush=True,
                )
                continue
            s = median_s(partial(theirs, *call, **options), args.scorio_repeat)
            b = median_s(partial(getattr(old, name), *call, **options), args.repeat) if old else float("nan")
            k = median_s(partial(mine, *call, **options), args.repeat)
            print(
                f"| {name} | {label} | {s * 1e3:.1f} | {b * 1e3:.1f} | {k * 1e3:.1f} | {s / k:.0f}x | {s / b:.0f}x |",
                flush=True,
            )
    one, one_s = strings[0].tolist(), scores[0]
    if args.no_single:
        rules = []
    else:
        print(f"\none question of {n} candidates (list of str), medians of 200 calls:")
    for name, options in rules:
        call = (one,) if name == "majority_vote" else (one, one_s)
        mine, theirs = getattr(aggregate, name), getattr(scorio_aggregate, name)
        k = median_s(partial(mine, *call, **options), 200)
        s = median_s(partial(theirs, *call, **options), 200)
        print(f"| {name} | {k * 1e6:.0f} us | {s * 1e6:.0f} us | {s / k:.1f}x |")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
