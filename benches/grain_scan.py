"""Measure where threads start to pay (the core's parallel grain, docs/threads.md).

For matrices and budgets of growing size, the median time of single calls
with the grain forced to "never split" against "always split", back to back
and 1 ms apart. Run: ``python benches/grain_scan.py`` (about a minute).
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


def main() -> None:
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
