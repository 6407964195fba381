"""Benchmarks: kscore against scorio 0.2.3 (and the classic loops) side by
side in one run. Run with ``python -m pytest benches``; the ratio table is
printed at the end (one line per reference implementation of a workload).
No timing is ever asserted. ``record(workload, implementation, seconds)`` is
shared by every bench file (bench_counts.py and bench_leaderboard.py import it)."""

from __future__ import annotations

import time
from typing import Any, Callable

import pytest

RESULTS: list[tuple[str, str, float]] = []


def best_time(fn: Callable[[], Any], repeat: int = 5, budget_s: float = 20.0) -> float:
    """Best wall time of `repeat` calls (fewer if one call exceeds the budget)."""
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


def record(workload: str, impl: str, seconds: float) -> None:
    RESULTS.append((workload, impl, seconds))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not RESULTS:
        return
    by_workload: dict[str, dict[str, float]] = {}
    for workload, impl, seconds in RESULTS:
        by_workload.setdefault(workload, {})[impl] = seconds
    tr = terminalreporter
    tr.section("kscore vs reference (best of runs)")
    tr.write_line(f"{'workload':58} {'reference':>12} {'kscore':>10} {'ratio':>8}")
    for workload, times in by_workload.items():
        ks = times.get("kscore")
        # Every other implementation timed on the workload, one line each.
        for ref_name in [k for k in times if k != "kscore"] or [None]:
            ref = times.get(ref_name) if ref_name else None
            ratio = f"{ref / ks:8.1f}x" if ks and ref else ""
            ref_s = f"{ref * 1e3:10.1f}ms" if ref else ""
            ks_s = f"{ks * 1e3:8.2f}ms" if ks else ""
            tr.write_line(f"{workload:58} {ref_s:>12} {ks_s:>10} {ratio:>8}  ({ref_name or ''})")


@pytest.fixture
def compare(benchmark: Any) -> Callable[..., None]:
    """Time the reference with `best_time`, kscore with pytest-benchmark."""

    def run(workload: str, kscore_fn: Callable[[], Any], reference: tuple[str, Callable[[], Any]] | None,
            repeat_ref: int = 2) -> None:
        if reference is not None:
            name, ref_fn = reference
            record(workload, name, best_time(ref_fn, repeat=repeat_ref))
        benchmark.pedantic(kscore_fn, rounds=7, iterations=1, warmup_rounds=1)
        record(workload, "kscore", benchmark.stats.stats.min)

    return run
