"""Benchmarks: kscore against scorio 0.2.3 and the classic loops, side by
side in one run. Run with ``python -m pytest benches/*.py``; the table of
ratios is printed at the end. No timing is ever asserted."""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import pytest

# workload -> implementation -> seconds
RESULTS: dict[str, dict[str, float]] = {}


def best_time(fn: Callable[[], Any], repeat: int = 5, budget_s: float = 20.0) -> float:
    """Best wall time of `repeat` calls (fewer if the budget runs out)."""
    fn()
    best = float("inf")
    start = time.perf_counter()
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
        if time.perf_counter() - start > budget_s:
            break
    return best


def median_time(fn: Callable[[], Any], calls: int = 1000, gap_s: float = 0.0, budget_s: float = 20.0) -> float:
    """Median wall time of single calls (what a user pays), optionally with
    `gap_s` seconds of idle time between calls (an idle thread pool goes to
    sleep; a spaced caller pays its wake-up)."""
    fn()
    times = []
    start = time.perf_counter()
    for _ in range(calls):
        if gap_s:
            time.sleep(gap_s)
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        if time.perf_counter() - start > budget_s and len(times) >= 5:
            break
    return statistics.median(times)


def interleaved_medians(
    fns: list[Callable[[], Any]], calls: list[int], rounds: int, gap_s: float = 0.0, budget_s: float = 20.0
) -> list[float]:
    """Median wall time of single calls of each function, the functions
    taking turns: each round runs every function's block of `calls[i]`
    timed calls (after one untimed call when the block is back to back),
    the order reversed every other round. Two libraries compared this way
    see the same machine: on this project's shared 2-core VM the same call
    spaced 1 ms apart drifts by 1.5-3x within a minute (np.count_nonzero on
    a 20 x 8 int64 matrix: medians of 8.2 to 13.8 us in loops of 150 calls),
    so medians from separate loops compare moments, not libraries. With
    `gap_s`, every call follows that much idle time. Rounds stop once
    `budget_s` is spent (two at least)."""
    times: list[list[float]] = [[] for _ in fns]
    for fn in fns:
        fn()
    start = time.perf_counter()
    for r in range(rounds):
        if r >= 2 and time.perf_counter() - start > budget_s:
            break
        order = range(len(fns)) if r % 2 == 0 else reversed(range(len(fns)))
        for i in order:
            fn = fns[i]
            if not gap_s:
                fn()
            for _ in range(calls[i]):
                if gap_s:
                    time.sleep(gap_s)
                t0 = time.perf_counter()
                fn()
                times[i].append(time.perf_counter() - t0)
    return [statistics.median(t) for t in times]


def record(group: str, name: str, seconds: float) -> None:
    RESULTS.setdefault(group, {})[name] = seconds


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not RESULTS:
        return
    tr = terminalreporter
    tr.section("kscore side by side (same run)")
    for group, rows in RESULTS.items():
        tr.write_line(f"[{group}]")
        for name, t in rows.items():
            # A reference row is compared with the kscore row of the same spacing.
            suffix = name.partition(",")[2]
            base = rows.get("kscore" + ("," + suffix if suffix else ""), rows.get("kscore"))
            ratio = "" if base is None or name.startswith("kscore") else f"  kscore is {t / base:,.1f}x faster"
            shown = f"{t * 1e6:12.1f} us" if t < 1e-3 else f"{t * 1e3:12.3f} ms"
            tr.write_line(f"  {name:<40} {shown}{ratio}")
    out = os.environ.get("KSCORE_BENCH_JSON")
    if out:
        with open(out, "w") as fh:
            json.dump(RESULTS, fh, indent=1)


@pytest.fixture
def compare(benchmark: Any) -> Callable[..., None]:
    """Time kscore with pytest-benchmark (7 rounds; the median is recorded:
    it is what users pay), then the reference with `best_time`. kscore goes
    first: for a tenth of a second after a call that frees a large bank's
    temporaries (scorio's, hundreds of MB on 1e6 x 64), a multi-threaded
    kscore call on this 2-core VM ran 2-3x slower (max_at_k 1e6 x 64, 4
    categories: 3.3-3.9 ms before scorio's call, 5.4-13.4 ms in the ten
    calls after it, 3.2-3.5 ms three seconds later), a state no user who
    calls only kscore is in. So after a reference call of more than 50 ms
    the machine is left idle for 3 s before the next workload."""

    def run(workload: str, kscore_fn: Callable[[], Any], reference: tuple[str, Callable[[], Any]] | None,
            repeat_ref: int = 2) -> None:
        benchmark.pedantic(kscore_fn, rounds=7, iterations=1, warmup_rounds=1)
        record(workload, "kscore", benchmark.stats.stats.median)
        if reference is not None:
            name, ref_fn = reference
            seconds = best_time(ref_fn, repeat=repeat_ref)
            record(workload, name, seconds)
            if seconds > 0.05:
                time.sleep(3.0)

    return run
