"""Why kscore's (or anyone's) Elo drifts from scorio's in wide fields
(issue 37): scorio.rank.elo's loop transcribed exactly in numpy (its
per-pair formula ``1 / (1 + 10 ** ((R_j - R_i) / 400))``, ``E_j = 1 - E_i``,
each model's terms summed in opponent order), then the same with the
opposite summation order. The two differ only in rounding; the update's
Jacobian diagonal ``1 - K q sum_j E_ij (1 - E_ij)`` (``q = ln 10 / 400``) says
whether the dynamics damp that difference (|.| < 1) or amplify it.

Run: ``python benches/bench_rank_elo_drift.py 60 200 330 [--events 100]
[--scorio]`` (``--scorio`` also runs scorio and kscore on the same board,
minutes at 330 models).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_rank_fit import board  # noqa: E402

K = 32.0


def step(r: np.ndarray, o: np.ndarray, reverse: bool) -> tuple[np.ndarray, float]:
    """One event of scorio's Elo (correct_draw_only), and the largest
    |Jacobian diagonal| at its start."""
    e_i = 1.0 / (1.0 + 10.0 ** ((r[None, :] - r[:, None]) / 400.0))  # pair (i, j): E_i
    s = np.where(o[:, None] > o[None, :], 1.0, np.where(o[:, None] < o[None, :], 0.0, 0.5))
    play = (o[:, None] != o[None, :]) | ((o[:, None] == 1) & (o[None, :] == 1))
    np.fill_diagonal(play, False)
    upper = np.triu(np.ones(play.shape, dtype=bool), 1)
    # row m, opponent o > m: K (S_mo - E_mo); o < m: scorio's j side, K ((1 - S_om) - (1 - E_om))
    terms = np.where(upper, K * (s - e_i), K * ((1.0 - s.T) - (1.0 - e_i.T)))
    terms = np.where(play, terms, 0.0)
    ordered = terms[:, ::-1] if reverse else terms
    delta = np.add.accumulate(ordered, axis=1)[:, -1]
    jac = 1.0 - K * np.log(10.0) / 400.0 * np.where(play, e_i * (1.0 - e_i), 0.0).sum(axis=1)
    return r + delta, float(np.max(np.abs(jac)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("models", type=int, nargs="+")
    parser.add_argument("--events", type=int, default=100)
    parser.add_argument("--scorio", action="store_true")
    args = parser.parse_args()
    for L in args.models:
        R = board(L, args.events, 1, seed=5)
        a = np.full(L, 1500.0)
        b = a.copy()
        print(f"{L} models x {args.events} events")
        for e in range(args.events):
            o = R[:, e, 0].astype(np.int64)
            a, jmax = step(a, o, False)
            b, _ = step(b, o, True)
            if e + 1 in (1, 5, 10, 20, 50, 100, args.events):
                diff = np.max(np.abs(a - b) / np.abs(a))
                print(f"  event {e + 1:4d}: orders apart {diff:.1e}, max |Jacobian diagonal| {jmax:.2f}")
        if args.scorio:
            import scorio.rank as sr

            import kscore.rank as kr

            t0 = time.perf_counter()
            theirs = sr.elo(R, K=K, return_scores=True)[1]
            took = time.perf_counter() - t0
            ours = kr.elo(R, K=K, return_scores=True)[1]
            for label, x in (("transcription", a), ("opposite order", b), ("kscore", ours)):
                print(f"  {label} vs scorio ({took:.0f} s): {np.max(np.abs(x - theirs) / np.abs(theirs)):.1e}")


if __name__ == "__main__":
    main()
