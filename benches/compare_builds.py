"""Compare two installed builds of kscore on the same workloads, in one run.

Each build lives in its own virtual environment (for an older commit:
``git worktree add /tmp/old REV && cd /tmp/old && python3 -m venv /tmp/oldvenv
&& /tmp/oldvenv/bin/pip install numpy maturin && maturin build --release -o /tmp/oldwheel
&& /tmp/oldvenv/bin/pip install /tmp/oldwheel/*.whl``). The two interpreters
take turns, round after round, so that machine noise falls on both alike;
the table gives each workload's median over the rounds of each build's own
median of single calls.

    python benches/compare_builds.py /tmp/oldvenv/bin/python .venv/bin/python
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys

WORKER = r"""
import json, sys, time
import numpy as np
import kscore.eval as K

rng = np.random.default_rng(0)
shapes = {"30x64": (30, 64, 8), "500x8": (500, 8, 4), "164x200": (164, 200, 10), "5000x16": (5000, 16, 4)}
work = {}
for label, (m, n, k) in shapes.items():
    R = (rng.random((m, n)) < 0.6).astype(np.int64)
    C = rng.integers(0, 3, (m, n))
    w = np.array([0.0, 0.5, 1.0])
    work[f"pass_at_k {label}"] = (lambda R=R, k=k: K.pass_at_k(R, k))
    work[f"maj_at_k {label}"] = (lambda R=R, k=k: K.maj_at_k(R, k))
    work[f"mg_pass_at_k {label}"] = (lambda R=R, k=k: K.mg_pass_at_k(R, k))
    work[f"pass_at_k_ci {label}"] = (lambda R=R, k=k: K.pass_at_k_ci(R, k))
    work[f"geom_at_k_ci {label}"] = (lambda R=R, k=k: K.geom_at_k_ci(R, k))
    work[f"bayes {label}"] = (lambda C=C: K.bayes(C, w))
    work[f"max_at_k {label}"] = (lambda C=C, k=k: K.max_at_k(C, k, w))
    work[f"avg {label}"] = (lambda C=C: K.avg(C, w))
    work[f"bayes_ci {label}"] = (lambda C=C: K.bayes_ci(C, w))
    work[f"max_at_k_ci {label}"] = (lambda C=C, k=k: K.max_at_k_ci(C, k, w))
    work[f"bayes {label} float64"] = (lambda C=C.astype(np.float64): K.bayes(C, w))
    work[f"bayes {label} int8"] = (lambda C=C.astype(np.int8): K.bayes(C, w))
big = rng.random((10**6, 64)) < 0.5
work["pass_at_k 1e6x64 bool"] = lambda: K.pass_at_k(big, 8)
work["pass_at_k_ci 1e6x64 bool"] = lambda: K.pass_at_k_ci(big, 8)
big_int8 = big.astype(np.int8)
work["pass_at_k 1e6x64 int8"] = lambda: K.pass_at_k(big_int8, 32)
four = rng.integers(0, 4, (10**6, 64)).astype(np.int8)
binary_int8 = (four >= 2).astype(np.int8)
work["pass_at_k_ci 1e6x64 int8 (binary, same bytes)"] = lambda: K.pass_at_k_ci(binary_int8, 32)
w4 = np.array([0.0, 0.3, 0.6, 1.0])
work["max_at_k 1e6x64 int8 4 cats"] = lambda: K.max_at_k(four, 32, w4)
work["bayes 1e6x64 int8 4 cats"] = lambda: K.bayes(four, w4)
work["max_at_k_ci 1e6x64 int8 4 cats"] = lambda: K.max_at_k_ci(four, 32, w4)
out = {}
for name, f in work.items():
    f()
    reps = 5 if "1e6" in name else 200
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    times.sort()
    out[name] = times[len(times) // 2]
print(json.dumps(out))
"""


def run(python: str) -> dict[str, float]:
    done = subprocess.run([python, "-c", WORKER], capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(done.stdout)
    return result


def fmt(t: float) -> str:
    return f"{t * 1e6:.1f} us" if t < 1e-3 else f"{t * 1e3:.2f} ms"


def main(before: str, after: str, rounds: int = 5) -> None:
    runs: dict[str, list[dict[str, float]]] = {before: [], after: []}
    for _ in range(rounds):
        for python in (before, after):
            runs[python].append(run(python))
    print("| workload | before | after | after / before |")
    print("|---|---|---|---|")
    for name in runs[before][0]:
        b = statistics.median(r[name] for r in runs[before])
        a = statistics.median(r[name] for r in runs[after])
        print(f"| {name} | {fmt(b)} | {fmt(a)} | {a / b:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 5)
