"""FastChat's procedure (benches/fastchat_procedure.py) beside kscore's core
at growing scale, in one run: battles drawn as bench_arena.py draws them
(skewed pair counts, ties 15%), from 3M battles among 200 models up to
LMArena's next sizes. Per size: FastChat's dedup, fit (L-BFGS-B, gtol 1e-6,
100 iterations) and 100 bootstrap rounds (fork pool), with its fit's
distance from the maximum; kscore's aggregation from codes, fit and 100
rounds. Wall seconds (the load average is printed: on the shared machine
they count other engineers' work too).

Usage: ``python benches/bench_arena_fastchat.py [--sizes 3000000x200,10000000x500] [--rounds 100]``
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benches"))

ELO = 400.0 / math.log(10.0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="3000000x200,10000000x500")
    ap.add_argument("--rounds", type=int, default=100)
    args = ap.parse_args()
    import fastchat_procedure as fc
    from bench_arena import make

    from kscore import _kscore

    # (scipy's import and first call outside the timings)
    fc.fit(np.array([[0, 1], [1, 0]]), np.array([1.0, 1.0]), 2, np.array([1.0, 1.0]))

    print("| battles | models | FastChat dedup s | FastChat fit s | FastChat fit: Elo from the maximum | "
          f"FastChat {args.rounds} rounds s | kscore aggregation s | kscore fit s | kscore {args.rounds} rounds s "
          "| load |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for size in args.sizes.split(","):
        n, L = (int(v) for v in size.split("x"))
        d = make(n, L)
        a, b, y = d["a"].astype(np.uint32), d["b"].astype(np.uint32), d["y"]
        t0 = time.perf_counter()
        board = _kscore.battle_board(L, a, b, np.rint(2 * y).astype(np.uint8))
        t1 = time.perf_counter()
        theta, _ = board.fit()
        t2 = time.perf_counter()
        board.bootstrap(np.asarray(theta), args.rounds, 0)
        t3 = time.perf_counter()
        got = fc.run(d["a"], d["b"], y, L, rounds=args.rounds)
        ours = ELO * np.asarray(theta)
        theirs = np.asarray(got["rating"], np.float64)
        theirs = theirs - theirs.mean()
        dist = float(np.max(np.abs(theirs - ours)))
        load = os.getloadavg()
        print(f"| {n:,} | {L} | {got['dedup_s']:.2f} | {got['fit_s']:.2f} | {dist:.3f} | {got['bootstrap_s']:.1f} | "
              f"{t1 - t0:.2f} | {t2 - t1:.3f} | {t3 - t2:.1f} | {load[0]:.1f} |", flush=True)


if __name__ == "__main__":
    main()
