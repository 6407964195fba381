"""How a run runs (docs/threads.md): ``--threads`` / ``KSCORE_THREADS``,
``--profile`` / ``KSCORE_PROFILE`` and ``--verbose``, through the real
command line in fresh processes (the thread count is process-wide)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kscore.leaderboard.runtime import profile

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("duckdb")

ROOT = Path(__file__).resolve().parent.parent


def kscore(*argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k not in ("KSCORE_THREADS", "KSCORE_PROFILE")}
    full.update(env)
    return subprocess.run([sys.executable, "-m", "kscore", *argv], cwd=ROOT, env=full, capture_output=True,
                          text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six models' Parquet files (enough rows for every reading thread to get a unit)."""
    folder = tmp_path_factory.mktemp("runs")
    rng = np.random.default_rng(39)
    for m in range(6):
        q = np.repeat(np.arange(300), 8)
        pq.write_table(pa.table({"model": [f"m{m}"] * len(q), "question": [f"q{i:03d}" for i in q],
                                 "sample": np.tile(np.arange(8), 300).astype(np.int16),
                                 "correct": (rng.random(len(q)) < 0.3 + 0.1 * m).astype(np.int8)}),
                       folder / f"m{m}.parquet", row_group_size=500)
    return folder


def test_thread_counts_give_the_same_bytes(runs: Path, tmp_path: Path) -> None:
    outs = []
    for n in ("1", "2", "3"):
        out = tmp_path / f"board{n}.csv"
        done = kscore("leaderboard", str(runs / "*.parquet"), "--format", "csv", "-o", str(out), "--threads", n,
                      "--metric", "pass@1,pass@4,bayes@N")
        assert done.returncode == 0, done.stderr
        outs.append(out.read_bytes())
    env_out = tmp_path / "env.csv"
    done = kscore("leaderboard", str(runs / "*.parquet"), "--format", "csv", "-o", str(env_out),
                  "--metric", "pass@1,pass@4,bayes@N", KSCORE_THREADS="2")
    assert done.returncode == 0, done.stderr
    assert outs[0] == outs[1] == outs[2] == env_out.read_bytes()
    assert outs[0].count(b"\n") == 7  # a header and six models


@pytest.mark.parametrize("flag, env", [(["--threads", "0"], {}), ([], {"KSCORE_THREADS": "many"}),
                                       ([], {"KSCORE_THREADS": "-2"})])
def test_a_bad_thread_count_is_a_one_line_error(runs: Path, flag: list[str], env: dict[str, str]) -> None:
    done = kscore("leaderboard", str(runs / "*.parquet"), *flag, **env)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert ("--threads" in lines[0]) if flag else ("KSCORE_THREADS" in lines[0])


def test_profile_has_each_phase_and_adds_up(runs: Path, tmp_path: Path) -> None:
    done = kscore("leaderboard", str(runs / "*.parquet"), "--format", "csv", "-o", str(tmp_path / "b.csv"),
                  "--threads", "2", "--profile")
    assert done.returncode == 0, done.stderr
    text = done.stderr
    assert "kscore profile (2 threads" in text
    rows = {}
    for line in text.splitlines():
        found = re.match(r"^(\S.*?)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+([\d.]+)$", line)
        if found:
            rows[found.group(1)] = (float(found.group(2)), float(found.group(3)), int(found.group(4)))
    for name in ("start (imports, options)", "read (setup)", "read + count", "statistics", "output"):
        assert name in rows, text  # (merge and name: under 0.5 ms on this board, left out of the table)
    assert rows["read + count"][2] == 2 and rows["statistics"][2] == 1
    total = re.search(r"^total\s+([\d.]+)\s+([\d.]+)$", text, re.M)
    assert total is not None
    # The rows split the run: their sums are the totals (each rounded to the ms; rows under 0.5 ms left out).
    assert abs(sum(r[0] for r in rows.values()) - float(total.group(1))) < 0.001 * (len(rows) + 6)
    serial = re.search(r"serial\): ([\d.]+)% of the CPU time; Amdahl bound (.*) cores", text)
    assert serial is not None
    f = float(serial.group(1)) / 100
    assert 0 < f < 1
    quoted = dict((int(n), float(x)) for x, n in re.findall(r"([\d.]+)x at (\d+)", serial.group(2)))
    assert sorted(quoted) == [2, 16, 64, 128]
    for n, x in quoted.items():  # Amdahl's law by hand, from the printed (rounded) fraction
        assert x == pytest.approx(1 / (f + (1 - f) / n), rel=0.06)
    # The CPU spent before the profile began (the interpreter, the imports) is said apart, and the
    # fraction with it is the one-thread rows plus it over the total plus it.
    before = re.search(r"^before the profile \(start-up, imports\): ([\d.]+) s CPU on one thread; with it "
                       r"([\d.]+)% \(Amdahl ([\d.]+)x at 16 cores\)$", text, re.M)
    assert before is not None, text
    b, g = float(before.group(1)), float(before.group(2)) / 100
    assert b > 0.05  # (numpy and kscore are imported by then)
    one = sum(cpu for _, cpu, threads in rows.values() if threads == 1)
    assert g == pytest.approx((one + b) / (float(total.group(2)) + b), abs=0.002 + 0.002 * len(rows))
    assert g > f


def test_profile_by_environment_for_the_library(runs: Path) -> None:
    code = f"import kscore; kscore.leaderboard({str(runs / '*.parquet')!r})"
    full = dict(os.environ, KSCORE_PROFILE="1", KSCORE_THREADS="1")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=full, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "kscore profile (1 thread," in done.stderr and "read + count" in done.stderr


def test_amdahl() -> None:
    assert profile.amdahl(0.0, 16) == 16.0
    assert profile.amdahl(1.0, 128) == 1.0
    assert profile.amdahl(0.05, 16) == pytest.approx(1 / (0.05 + 0.95 / 16))
    assert profile.amdahl(0.05, 16) > 9.1  # the 5%: at least 9x at 16 cores


def test_verbose_says_where_the_count_went(runs: Path, tmp_path: Path) -> None:
    done = kscore("leaderboard", str(runs / "*.parquet"), "--verbose", "--threads", "2")
    assert done.returncode == 0, done.stderr
    assert "counted directly on 2 threads" in done.stderr
    done = kscore("leaderboard", str(runs / "*.parquet"), "--verbose", "--memory-limit", "1GB")
    assert done.returncode == 0, done.stderr
    assert "counted by DuckDB's query" in done.stderr and "memory limit" in done.stderr
    quiet = kscore("leaderboard", str(runs / "*.parquet"))
    assert "counted" not in quiet.stderr
