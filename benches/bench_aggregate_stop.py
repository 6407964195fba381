"""kscore.aggregate's stopping rules, CGES and KDE vote beside scorio.aggregate 0.2.3 in one run.

M questions x N answers (int ids, a skewed answer distribution so that some questions
stop and some do not), scores in (0, 1). scorio's one-question rules in a Python loop
over the questions (its (M, N) call where it has one: ``cges_vote``,
``kde_weighted_vote``) against kscore's batch; ``adaptive_consistency_dirichlet_stop``
on the first ``--dirichlet-questions`` questions only for scorio (it integrates each
question with ``scipy.integrate.quad``), kscore on those and on all M; the online
replay (the rule called after every sample until it stops) on ``--replay-questions``
for scorio; ``kde_weighted_vote`` on ``--kde-questions`` for both, then kscore on all M.
Medians of ``--repeat`` kscore runs and ``--scorio-repeat`` scorio runs;
every kscore result is checked against scorio's first; the load average is printed.

Usage: ``python benches/bench_aggregate_stop.py [--questions 10000] [--candidates 64]``
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from scorio import aggregate as S

from kscore import aggregate as K

#: CPU-time medians (all threads, ``time.process_time``) of the last ``median_s`` call, beside its wall.
LAST_CPU: list[float] = [float("nan")]


def median_s(f: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, cpu, out = [], [], None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = f()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    LAST_CPU[0] = statistics.median(cpu)
    return statistics.median(times), out


def replay(rule: Callable[..., Any], row: list[Any]) -> int:
    for t in range(1, len(row) + 1):
        if rule(row[:t]):
            return t
    return len(row)


def before_module(path: str | None) -> Any:
    """``kscore_before.aggregate`` from ``path`` (an earlier build; see bench_aggregate.py), or None."""
    if path is None:
        return None
    sys.path.insert(0, path)
    return importlib.import_module("kscore_before.aggregate")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=10_000)
    ap.add_argument("--candidates", type=int, default=64)
    ap.add_argument("--answers", type=int, default=8, help="distinct answers per question")
    ap.add_argument("--dirichlet-questions", type=int, default=50)
    ap.add_argument("--replay-questions", type=int, default=200)
    ap.add_argument("--kde-questions", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--scorio-repeat", type=int, default=1)
    ap.add_argument("--before", default=None, help="folder holding an earlier build as kscore_before")
    ap.add_argument("--only", default=None, help="run only the rows whose name contains this")
    args = ap.parse_args()
    old = before_module(args.before)
    rng = np.random.default_rng(0)
    m, n, k = args.questions, args.candidates, args.answers
    # question difficulty: the share of the most common answer, uniform on [1/k, 1]
    top = rng.uniform(1.0 / k, 1.0, size=m)
    ids = np.where(rng.random((m, n)) < top[:, None], 0, rng.integers(1, k, size=(m, n)))
    rows = ids.tolist()
    scores = np.round(rng.uniform(0.02, 0.98, size=(m, n)), 4)
    cal_scores = np.round(rng.uniform(0.02, 0.98, size=500), 4)
    cal_correct = rng.random(500) < cal_scores
    cal = {A: A.fit_kde_vote_calibration(cal_scores, cal_correct) for A in (K, old) if A is not None}
    theirs_cal = S.fit_kde_vote_calibration(cal_scores, cal_correct)
    print(f"# {m} questions x {n} answers ({k} distinct), load average {os.getloadavg()}")
    print(
        "| rule | scorio | before | kscore | speed-up | before's | checked "
        "| CPU: scorio / before / kscore | CPU speed-up |"
    )
    print("|---|---|---|---|---|---|---|---|---|")

    def row(
        name: str, mine: Callable[[Any], Any], theirs: Callable[[], Any], check: Callable[[Any, Any], bool]
    ) -> None:
        if args.only is not None and args.only not in name:
            return
        t_theirs, want = median_s(theirs, args.scorio_repeat)
        c_theirs = LAST_CPU[0]
        t_before = c_before = float("nan")
        if old is not None:  # the same call on the earlier build
            t_before, _ = median_s(lambda: mine(old), args.repeat)
            c_before = LAST_CPU[0]
        t_mine, got = median_s(lambda: mine(K), args.repeat)
        c_mine = LAST_CPU[0]
        ok = check(got, want)
        print(
            f"| {name} | {t_theirs * 1e3:,.0f} ms | {t_before * 1e3:,.1f} ms | {t_mine * 1e3:,.1f} ms "
            f"| {t_theirs / t_mine:,.0f}x | {t_theirs / t_before:,.0f}x | {ok} "
            f"| {c_theirs * 1e3:,.0f} / {c_before * 1e3:,.1f} / {c_mine * 1e3:,.1f} ms | {c_theirs / c_mine:,.0f}x |",
            flush=True,
        )

    row(
        "adaptive_consistency_stop",
        lambda A: A.adaptive_consistency_stop_batch(ids, return_prob=True),
        lambda: [S.adaptive_consistency_stop(r, return_prob=True) for r in rows],
        lambda got, want: (
            got[0].tolist() == [w[0] for w in want] and bool(np.max(np.abs(got[1] - [w[1] for w in want])) <= 1e-12)
        ),
    )
    d = args.dirichlet_questions
    row(
        f"adaptive_consistency_dirichlet_stop ({d} questions)",
        lambda A: A.adaptive_consistency_dirichlet_stop_batch(ids[:d], return_prob=True),
        lambda: [S.adaptive_consistency_dirichlet_stop(r, return_prob=True) for r in rows[:d]],
        lambda got, want: (
            got[0].tolist() == [w[0] for w in want] and bool(np.max(np.abs(got[1] - [w[1] for w in want])) <= 1e-9)
        ),
    )
    if args.only is None:  # the all-questions rows: kscore alone
        t_all, _ = median_s(lambda: K.adaptive_consistency_dirichlet_stop_batch(ids), args.repeat)
        label = f"adaptive_consistency_dirichlet_stop (all {m} questions)"
        print(f"| {label} | {t_all * 1e3:,.1f} ms | - | - | - |", flush=True)
    row(
        "esc_stop (windows of 8)",
        lambda A: A.esc_stop_batch(ids[:, :8]),
        lambda: [S.esc_stop(r[:8]) for r in rows],
        lambda got, want: got.tolist() == want,
    )
    row(
        "cges_vote",
        lambda A: A.cges_vote(ids, scores, return_index=True),
        lambda: S.cges_vote(ids, scores, return_index=True),
        lambda got, want: got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist(),
    )
    row(
        "cges_stop",
        lambda A: A.cges_stop_batch(ids, scores, return_prob=True),
        lambda: [S.cges_stop(r, s, return_prob=True) for r, s in zip(ids, scores)],
        lambda got, want: (
            got[0].tolist() == [w[0] for w in want] and bool(np.max(np.abs(got[1] - [w[1] for w in want])) <= 1e-12)
        ),
    )
    kq = args.kde_questions
    row(
        f"kde_weighted_vote ({kq} questions, 500 calibration responses)",
        lambda A: A.kde_weighted_vote(ids[:kq], scores[:kq], cal[A], return_index=True),
        lambda: S.kde_weighted_vote(ids[:kq], scores[:kq], theirs_cal, return_index=True),
        lambda got, want: got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist(),
    )
    if args.only is None:  # the all-questions rows: kscore alone
        t_all, _ = median_s(lambda: K.kde_weighted_vote(ids, scores, cal[K]), args.repeat)
        print(f"| kde_weighted_vote (all {m} questions) | {t_all * 1e3:,.1f} ms | - | - | - |", flush=True)
    q = args.replay_questions
    row(
        f"online replay, adaptive_consistency_stop ({q} questions)",
        lambda A: A.adaptive_consistency_stop_points(ids[:q])[0],
        lambda: [replay(S.adaptive_consistency_stop, r) for r in rows[:q]],
        lambda got, want: got.tolist() == want,
    )
    if args.only is None:  # the all-questions rows: kscore alone
        t_all, _ = median_s(lambda: K.adaptive_consistency_stop_points(ids), args.repeat)
        print(f"| online replay, adaptive_consistency_stop (all {m}) | {t_all * 1e3:,.1f} ms | - | - | - |", flush=True)
        t_all, _ = median_s(lambda: K.adaptive_consistency_stop_points(ids, dirichlet=True), args.repeat)
        print(f"| online replay, dirichlet (all {m}) | {t_all * 1e3:,.1f} ms | - | - | - |", flush=True)
    print(f"# load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
