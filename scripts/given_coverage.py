"""Coverage of the intervals *given the questions* (issue 36, item 5): the
target is each model's mean over its own questions of the metric's expected
per-question value, the only randomness the sampling of answers. Each
simulated board of tests/coverage_families.py is a model of one leaderboard
(as tests/test_default_interval.py does); ``interval="answers"``
(stats/answers.py) through ``kscore.leaderboard`` (``interval="posterior"``
targets the population's mean, as the default does: scripts/coverage.py).

    PYTHONPATH=python python scripts/given_coverage.py [--boards 1000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.coverage_families import FAMILIES, boards, given_truth  # noqa: E402
from tests.test_default_interval import board_of  # noqa: E402

import kscore  # noqa: E402

CASES = [("8 models x 40 questions, heterogeneous", ("pass@1", "pass@2", "maj@3", "bayes@N")),
         ("near the ceiling: 0.97-0.995, 30 x 4", ("pass@1", "pass@4", "bayes@N")),
         ("near 0: 0.005-0.03, 30 x 4", ("pass@1", "pass@4")),
         ("pass@4 on 40 x 8", ("pass@4", "pass@1")),
         ("ragged 1-16 samples, 15% missing, 100 q", ("pass@1", "bayes@N")),
         ("5 questions", ("pass@1", "pass@4")),
         ("1 sample per question, 50 q", ("pass@1",))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", type=int, default=1000)
    args = ap.parse_args()
    print(f"Coverage of the mean over the board's own questions at 95%, {args.boards} boards: mean over models (MC "
          "error) / worst model / mean width.\n")
    print("| family | metric | answers |")
    print("|---|---|---:|")
    for name, metrics in CASES:
        fam = next(f for f in FAMILIES if f.name == name)
        chunk = next(boards(fam, args.boards, seed=21, chunk=args.boards))
        counts = board_of(chunk.c, chunk.n)
        B, L, _ = chunk.c.shape
        for metric in metrics:
            target = given_truth(metric, chunk)
            cells = []
            for interval in ("answers",):
                board = kscore.leaderboard(counts, metrics=metric, interval=interval, adjust="none")
                lo, hi = np.full(B * L, np.nan), np.full(B * L, np.nan)
                for r in board.rows:
                    v = r.values[metric]
                    if v is not None:
                        lo[int(r.model[1:])], hi[int(r.model[1:])] = v.lo, v.hi
                lo, hi = lo.reshape(B, L), hi.reshape(B, L)
                hit = ((lo - 1e-12 <= target) & (target <= hi + 1e-12)).astype(float)
                pb, pm = hit.mean(axis=1), hit.mean(axis=0)
                cells.append(f"{100 * pb.mean():.1f}±{100 * pb.std(ddof=1) / np.sqrt(B):.1f} / {100 * pm.min():.1f} / "
                             f"{np.nanmean(hi - lo):.3f}")
            print(f"| {name} | {metric} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
