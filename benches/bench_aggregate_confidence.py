"""kscore.aggregate's confidence signals against a loop of scorio's, in the same run.

    python benches/bench_aggregate_confidence.py [--quick] [--only GROUP] [--before DIR]

(``--before DIR``: also time an earlier build in the same run, its package copied as
``DIR/kscore_before``; see bench_aggregate.py.)

Three boards: DeepConf's trace confidence on 1000 traces x 8192 tokens x top-20
(issue 37's size; scorio called per trace on each trace's (T, k) array), the
sequence signals and prm_aggregate on 10,000 questions x 64 samples (a padded
array and lengths; scorio looped over the 640,000 traces), and the top-k signals on
1000 x 64 traces of 64 tokens x top-5. Every result is checked against scorio's
before it is timed. kscore: median of 5 calls; scorio: one loop (seconds each).
Prints the load average: the machine is shared.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import scorio.aggregate as sa

from kscore import aggregate as ka


def _median(f: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


#: The earlier build's module (``--before``), or None.
OLD: Any = None


def _row(name: str, size: str, ours: float, theirs: float, before: float = float("nan")) -> None:
    print(
        f"| `{name}` | {size} | {theirs * 1e3:,.0f} ms | {before * 1e3:,.1f} ms | {ours * 1e3:,.1f} ms "
        f"| {theirs / ours:,.0f}x | {theirs / before:,.0f}x |",
        flush=True,
    )


def _timed(call: Callable[[Any], Any], runs: int) -> tuple[float, float]:
    """(this build, the earlier build) medians of ``call(module)``."""
    before = _median(lambda: call(OLD), runs) if OLD is not None else float("nan")
    return _median(lambda: call(ka), runs), before


def _check(got: Any, want: Any, exact: bool) -> None:
    got, want = np.asarray(got, dtype=float).reshape(-1), np.asarray(want, dtype=float).reshape(-1)
    if exact:
        assert np.array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def deepconf(traces: int, tokens: int, k: int, runs: int) -> None:
    rng = np.random.default_rng(0)
    topk = -np.sort(rng.exponential(1.0, size=(traces, tokens, k)), axis=2)
    lengths = np.full(traces, tokens)
    size = f"{traces} x {tokens} x top-{k}"
    for kw in (
        {"mode": "mean"},
        {"mode": "tail"},
        {"mode": "lowest_group"},
        {"mode": "bottom_group"},
    ):
        t0 = time.perf_counter()
        want = [sa.deepconf_confidence(topk[i], **kw) for i in range(traces)]
        theirs = time.perf_counter() - t0
        _check(ka.deepconf_confidence(topk, lengths=lengths, **kw), want, True)
        ours, before = _timed(lambda m: m.deepconf_confidence(topk, lengths=lengths, **kw), runs)  # noqa: B023
        _row(f"deepconf_confidence {kw['mode']}", size, ours, theirs, before)
    t0 = time.perf_counter()
    want_cut = [sa.deepconf_online_stop(topk[i], 1.2) for i in range(traces)]
    theirs = time.perf_counter() - t0
    got = ka.deepconf_online_stop(topk, 1.2, lengths=lengths)
    assert got.tolist() == [-1 if c is None else c for c in want_cut]
    ours, before = _timed(lambda m: m.deepconf_online_stop(topk, 1.2, lengths=lengths), runs)
    _row("deepconf_online_stop", size, ours, theirs, before)


def sequences(questions: int, samples: int, tokens: int, runs: int) -> None:
    rng = np.random.default_rng(1)
    lp = -rng.exponential(0.5, size=(questions, samples, tokens))
    lengths = rng.integers(1, tokens + 1, size=(questions, samples))
    flat = lp.reshape(-1, tokens)
    lens = lengths.reshape(-1)
    size = f"{questions:,} x {samples} x {tokens}"
    for name, kw, exact in (
        ("mean_logprob", {}, True),
        ("sequence_logprob", {}, True),
        ("perplexity", {}, True),
        ("picsar", {"answer_start": 1}, True),
    ):
        f_s = getattr(sa, name)
        t0 = time.perf_counter()
        want = [f_s(flat[i, : lens[i]], **kw) for i in range(len(lens))]
        theirs = time.perf_counter() - t0
        _check(getattr(ka, name)(lp, lengths=lengths, **kw), want, exact)
        ours, before = _timed(lambda m: getattr(m, name)(lp, lengths=lengths, **kw), runs)  # noqa: B023
        _row(name, size, ours, theirs, before)
    steps = np.exp(lp / 20)
    for method in ("min", "mean", "prod"):
        t0 = time.perf_counter()
        want = [sa.prm_aggregate(steps.reshape(-1, tokens)[i, : lens[i]], method=method) for i in range(len(lens))]
        theirs = time.perf_counter() - t0
        _check(ka.prm_aggregate(steps, method=method, lengths=lengths), want, True)
        ours, before = _timed(lambda m: m.prm_aggregate(steps, method=method, lengths=lengths), runs)  # noqa: B023
        _row(f"prm_aggregate {method}", f"{size} steps", ours, theirs, before)


def topk_signals(questions: int, samples: int, tokens: int, k: int, runs: int) -> None:
    rng = np.random.default_rng(2)
    topk = -np.sort(rng.exponential(1.0, size=(questions, samples, tokens, k)), axis=3)
    lengths = np.full((questions, samples), tokens)
    flat = topk.reshape(-1, tokens, k)
    size = f"{questions:,} x {samples} x {tokens} x top-{k}"
    for name, exact in (
        ("token_entropy", False),
        ("varentropy", False),
        ("self_certainty", False),
        ("max_softmax_probability", False),
        ("logprob_margin", True),
    ):
        f_s = getattr(sa, name)
        t0 = time.perf_counter()
        want = [f_s(flat[i]) for i in range(len(flat))]
        theirs = time.perf_counter() - t0
        _check(getattr(ka, name)(topk, lengths=lengths), want, exact)
        ours, before = _timed(lambda m: getattr(m, name)(topk, lengths=lengths), runs)  # noqa: B023
        _row(name, size, ours, theirs, before)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    ap.add_argument("--only", choices=["deepconf", "sequences", "topk"], default=None)
    ap.add_argument("--before", default=None, help="folder holding an earlier build as kscore_before")
    args = ap.parse_args()
    global OLD
    if args.before is not None:
        sys.path.insert(0, args.before)
        OLD = importlib.import_module("kscore_before.aggregate")
    runs = 5
    print(f"load average before: {os.getloadavg()}", flush=True)
    print(
        "| signal | traces | scorio loop | before | kscore | speed-up | before's |\n|---|---|---|---|---|---|---|",
        flush=True,
    )
    if args.only in (None, "deepconf"):
        deepconf(*((50, 1024, 20) if args.quick else (1000, 8192, 20)), runs)
    if args.only in (None, "sequences"):
        sequences(*((500, 64, 32) if args.quick else (10_000, 64, 32)), runs)
    if args.only in (None, "topk"):
        topk_signals(*((50, 64, 64, 5) if args.quick else (1000, 64, 64, 5)), runs)
    print(f"load average after: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
