"""Peak memory beyond the input, measured in a fresh interpreter.

The peak resident set (``VmHWM``) is reset before each call through
``/proc/self/clear_refs`` (Linux) after returning freed heap to the system
(``malloc_trim``), so each figure is what that one call added on top of the
input it was given:

- every ``kscore.eval`` function on a 1e6 x 512 int8 matrix: the binary ones
  keep O(N) (a histogram of row counts), the categorical ones O(M) (a row of
  category counts per question, 12 bytes a row for 3 categories);
- ``kscore.counts`` means and intervals on 1e7 problems: O(distinct states)
  beyond the counts, whatever the layout of n.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import kscore.eval as K

MB = 2**20
CATEGORICAL = {"bayes", "bayes_ci", "avg", "avg_ci", "max_at_k", "max_at_k_ci"}

PROBE = r"""
import ctypes, json, sys
import numpy as np

libc = ctypes.CDLL("libc.so.6")

def rss(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1]) * 1024

def grown(call):
    libc.malloc_trim(0)
    base = rss("VmRSS:")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    call()
    return rss("VmHWM:") - base

out = {}
if sys.argv[1] == "eval":
    import kscore.eval as K
    M, N = 10**6, 512
    rng = np.random.default_rng(0)
    B = rng.integers(0, 2, (M, N), dtype=np.int8)
    C = rng.integers(0, 3, (M, N), dtype=np.int8)
    w = [0.0, 0.5, 1.0]
    for name in K.__all__:
        f = getattr(K, name)
        if name in ("bayes", "bayes_ci", "avg", "avg_ci"):
            call = lambda: f(C, w=w)
        elif name in ("max_at_k", "max_at_k_ci"):
            call = lambda: f(C, 8, w=w)
        elif name.startswith("tailpass"):
            call = lambda: f(B, 8).mean if name == "tailpass" else f(B, 8)
        elif "tau" in name:
            call = lambda: f(B, 8, 0.5)
        elif name.startswith("threshold"):
            call = lambda: f(B, 8, [0.125] * 8)
        else:
            call = lambda: f(B, 8)
        out[name] = grown(call)
else:
    import kscore.counts as KC
    M = 10**7
    rng = np.random.default_rng(0)
    layouts = {
        "uniform": (np.full(M, 16, dtype=np.int64), rng.integers(0, 17, M)),
        "ragged": (rng.integers(8, 20, M), None),
        "scalar": (16, rng.integers(0, 17, M)),
    }
    n, _ = layouts["ragged"]
    layouts["ragged"] = (n, (n * rng.random(M)).astype(np.int64))
    for label, (n, c) in layouts.items():
        out[f"{label} pass_at_k mean"] = grown(lambda: KC.pass_at_k(n, c, 4, mean=True))
        out[f"{label} g_pass_at_k_tau mean"] = grown(lambda: KC.g_pass_at_k_tau(n, c, 4, 0.5, mean=True))
        out[f"{label} avg_at_n mean"] = grown(lambda: KC.avg_at_n(n, c, mean=True))
        out[f"{label} pass_at_k_ci"] = grown(lambda: KC.pass_at_k_ci(n, c, 4))
        out[f"{label} curve mean"] = grown(lambda: KC.curve(n, c, ks=[1, 2, 4, 8]))
print(json.dumps(out))
"""


def probe(which: str) -> dict[str, int]:
    if not Path("/proc/self/clear_refs").exists():
        pytest.skip("needs Linux /proc/self/clear_refs to reset the peak resident set")
    done = subprocess.run([sys.executable, "-c", PROBE, which], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    result: dict[str, int] = json.loads(done.stdout)
    return result


def test_eval_memory_beyond_the_matrix() -> None:
    grown = probe("eval")
    assert sorted(grown) == sorted(K.__all__)
    for name, extra in grown.items():
        # binary: a histogram of N + 1 counts; categorical: 3 u32 counts a row
        # (12 MB) plus the posterior's per-row work (max_at_k_ci: 32 bytes a row).
        # TailPass keeps a profile of k + 1 thresholds per question (8 bytes each).
        limit = 48 * MB if name in CATEGORICAL else 80 * MB if name.startswith("tailpass") else 8 * MB
        assert extra < limit, f"{name} grew the peak by {extra / MB:.1f} MB (limit {limit / MB:.0f} MB)"


def test_counts_memory_beyond_the_counts() -> None:
    grown = probe("counts")
    assert len(grown) == 15
    for name, extra in grown.items():
        # 1e7 problems: a per-question index alone would be 40 MB.
        assert extra < 8 * MB, f"{name} grew the peak by {extra / MB:.1f} MB on 1e7 problems"
