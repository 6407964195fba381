"""Collect the side-by-side timings of bench_counts.py and print the ratios."""

from __future__ import annotations

from typing import Any

RESULTS: dict[str, dict[str, float]] = {}


def record(group: str, name: str, seconds: float) -> None:
    RESULTS.setdefault(group, {})[name] = seconds


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not RESULTS:
        return
    tr = terminalreporter
    tr.section("kscore.counts: side by side (median seconds, same run)")
    for group, rows in RESULTS.items():
        base = rows.get("kscore")
        tr.write_line(f"[{group}]")
        for name, t in rows.items():
            ratio = "" if base is None or name.startswith("kscore") else f"  kscore is {t / base:,.1f}x faster"
            tr.write_line(f"  {name:<34} {t * 1e3:12.3f} ms{ratio}")
