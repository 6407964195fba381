"""Measure where threads start to pay (the core's parallel grain and piece,
docs/threads.md).

1. For matrices and budgets of growing size, the median time of single calls
   with the grain forced to "never split" against "always split", back to
   back and 1 ms apart: the hand-off cost, which sets the grain (a call
   below twice the grain stays on the calling thread).
2. Per-task costs: for the heavy kernels of issue 39 (mg_pass_at_k_ci,
   geo_spectrum_at_k_ci, the interval kernels at large k), the time of one
   call on one thread divided by its tasks (states, blocks), beside the
   estimate the core splits by: the estimates must be within a few times
   of the measured cost for the split to be right on any core count.
3. The piece: one call of a few milliseconds split into pieces of 5 us to
   1 ms (``_set_parallel_piece``) on every thread: the per-piece overhead
   is the slope of time against pieces; the default piece keeps it under a
   few percent while 16 threads still get a piece each.

Run: ``python benches/grain_scan.py`` (a few minutes). ``--part 2 3`` runs some.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from kscore import _kscore
from kscore import eval as ke

from conftest import median_time

NEVER = 1 << 60


def median_us(fn: Callable[[], Any], calls: int, gap_s: float) -> float:
    return median_time(fn, calls=calls, gap_s=gap_s) * 1e6


def scan(label: str, fn: Callable[[], Any]) -> None:
    cells = []
    for gap in (0.0, 1e-3):
        for grain in (NEVER, 1):
            _kscore._set_parallel_grain(grain)
            cells.append(median_us(fn, 200 if gap else 600, gap))
    _kscore._set_parallel_grain(0)
    print(f"| {label} | {cells[0]:.1f} | {cells[1]:.1f} | {cells[2]:.1f} | {cells[3]:.1f} |")


def tasks() -> None:
    """Per-task cost on one thread (a fresh pool of one, via the grain) against the core's estimates."""
    rng = np.random.default_rng(1)
    print("\n| kernel | tasks | one thread, per task | core's estimate per task |\n|---|---|---|---|")
    _kscore._set_parallel_grain(NEVER)
    cases = [
        ("mg_pass_at_k_ci 1e5 x 256, k = 128 (state walks of 2k)", lambda: ke.mg_pass_at_k_ci(
            rng.random((10**5, 256)) < rng.random((10**5, 1)), 128), 257, 20 * (2 * 128 + 1)),
        ("geo_spectrum_at_k_ci 1000 x 64, k = 1e5 (endpoint + walks)", lambda: ke.geo_spectrum_at_k_ci(
            rng.random((1000, 64)) < 0.5, 100_000), 65, 60 * 100_000 + 20 * 200_001),
        ("mg_pass_at_k_ci 300 x 2048, k = 1024 (blocked brackets + walks)", lambda: ke.mg_pass_at_k_ci(
            rng.random((300, 2048)) < rng.random((300, 1)), 1024), 300, 20 * 2049),
    ]
    for label, make, n_tasks, estimate in cases:
        t = median_time(make, calls=3, budget_s=30.0)
        print(f"| {label} | {n_tasks} | {t / n_tasks * 1e6:.1f} us (whole call {t * 1e3:.1f} ms) | "
              f"{estimate / 1e3:.1f} us |")
    _kscore._set_parallel_grain(0)


def pieces() -> None:
    """One multi-millisecond call cut into pieces of growing size."""
    rng = np.random.default_rng(2)
    R = rng.random((10**5, 256)) < rng.random((10**5, 1))
    print("\n| piece | mg_pass_at_k_ci 1e5 x 256, k = 128 | geo_spectrum_at_k_ci 1000 x 64, k = 2e4 |\n|---|---|---|")
    G = rng.random((1000, 64)) < 0.5
    for piece in (5_000, 10_000, 25_000, 50_000, 100_000, 200_000, 1_000_000):
        _kscore._set_parallel_piece(piece)
        a = median_time(lambda: ke.mg_pass_at_k_ci(R, 128), calls=30, budget_s=20.0)
        b = median_time(lambda: ke.geo_spectrum_at_k_ci(G, 20_000), calls=10, budget_s=20.0)
        print(f"| {piece / 1000:.0f} us | {a * 1e3:.2f} ms | {b * 1e3:.1f} ms |")
    _kscore._set_parallel_piece(0)


def main() -> None:
    import argparse
    import os

    parser = argparse.ArgumentParser()
    parser.add_argument("--part", type=int, nargs="*", default=[1, 2, 3])
    parts = parser.parse_args().part
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    if 2 in parts:
        tasks()
    if 3 in parts:
        pieces()
    if 1 not in parts:
        return
    rng = np.random.default_rng(0)
    ke.pass_at_k(rng.random((200_000, 64)) < 0.5, 8)  # the pool has been used
    print("| work | one thread | split, back to back | one thread, 1 ms apart | split, 1 ms apart |")
    print("|---|---|---|---|---|")
    for rows in (512, 2048, 8192, 32768):
        R = (rng.random((rows, 16)) < 0.5).astype(np.int64)
        scan(f"pass_at_k intake, {rows * 128 // 1024} KB int64 ({rows} x 16)", lambda R=R: ke.pass_at_k(R, 4))
    R = (rng.random((2000, 4096)) < rng.random((2000, 1))).astype(np.int8)
    for k in (64, 512, 4096):
        scan(f"mg_pass_at_k state walks, {k + 1} terms x ~2000 states", lambda k=k: ke.mg_pass_at_k(R, k))
    R = (rng.random((300, 2048)) < rng.random((300, 1))).astype(np.int8)
    for k in (16, 128, 1024):
        scan(f"mg_pass_at_k_ci, ~300 states, k = {k}", lambda k=k: ke.mg_pass_at_k_ci(R, k))


if __name__ == "__main__":
    main()
