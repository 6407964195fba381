"""kscore.rl against verl 0.9.1's own process_validation_metrics, same batch.

Run: ``python benches/bench_rl.py`` in an environment with verl's wheel
(``pip install --no-deps verl==0.9.1``; without it only kscore's rows are
timed). verl's functions are compiled from the installed file as
tests/test_rl_verl.py does (its module imports torch; these functions need
numpy alone).

Workloads, laid out as verl lays out a validation batch (each prompt's
responses side by side, uids as strings, two data sources):

* 128 prompts x 16 responses, ``acc`` and ``pred``: verl vs kscore, taking
  turns (conftest.interleaved_medians), medians of single calls.
* 1024 prompts x 16 responses, ``acc``, ``score`` and ``pred``: kscore alone
  (verl takes minutes).

kscore's rows: "later calls" (the tables of the batch's answer partitions
kept from an earlier call, as from the second validation step on), "first
call" (every table kscore.rl keeps forgotten before each call, in this
process), and "first call, fresh process": a new interpreter per run that
imports kscore.rl, builds the batch and times its first and second calls
(median of the runs). Each row gives the median wall time, the median CPU
time of the calling process (``time.process_time``) and the fastest wall
time: on a shared machine the wall median includes waiting for a core. No
timing is asserted anywhere.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "python"), str(ROOT)]

from tests.test_rl_verl import VERL  # noqa: E402

from kscore.rl import process_validation_metrics  # noqa: E402
from kscore.rl._per_prompt import clear_caches  # noqa: E402

from conftest import interleaved_medians  # noqa: E402


def batch(prompts: int, responses: int, fields: tuple[str, ...], seed: int = 0) -> tuple[
        list[str], list[str], dict[str, list[Any]]]:
    """Answers drawn per prompt from 4 candidates with Dirichlet(0.5) weights
    (answer "0" correct), a noisy continuous score."""
    rng = np.random.default_rng(seed)
    ds: list[str] = []
    uids: list[str] = []
    cols: dict[str, list[Any]] = {"acc": [], "score": [], "pred": []}
    for p in range(prompts):
        picks = rng.choice(4, size=responses, p=rng.dirichlet(np.full(4, 0.5)))
        for a in picks.tolist():
            ds.append("gsm8k" if p % 2 else "math")
            uids.append(f"{p:08x}-uid")
            cols["acc"].append(float(a == 0))
            cols["score"].append(float(a == 0) + 0.25 * float(rng.standard_normal()))
            cols["pred"].append(str(a))
    return ds, uids, {name: cols[name] for name in fields}


def cold(fn: Callable[[], Any]) -> Callable[[], Any]:
    def run() -> Any:
        clear_caches()
        return fn()
    return run


def cpu_median(fn: Callable[[], Any], calls: int = 30) -> tuple[float, float]:
    """Median CPU time of single calls (this process) and the fastest wall
    time: on a shared machine the median wall time includes waiting for a
    core; these two say what a call costs when it has one."""
    fn()
    cpu, wall = [], []
    for _ in range(calls):
        t0, w0 = time.process_time(), time.perf_counter()
        fn()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - t0)
    return float(np.median(cpu)), min(wall)


def first_calls(prompts: int, fields: tuple[str, ...], seed: int) -> None:
    """In a fresh interpreter: the first and second call's wall and CPU time, as JSON."""
    ds, uids, infos = batch(prompts, 16, fields, seed)
    out = []
    for _ in range(2):
        t0, w0 = time.process_time(), time.perf_counter()
        process_validation_metrics(ds, uids, infos)
        out += [time.perf_counter() - w0, time.process_time() - t0]
    print(json.dumps(out))


def fresh(prompts: int, fields: tuple[str, ...], seed: int, runs: int = 7) -> list[float]:
    """Medians over fresh processes of :func:`first_calls`: first wall, first
    CPU, second wall, second CPU."""
    rows = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, __file__, "--first-calls", str(prompts), ",".join(fields), str(seed)],
                              capture_output=True, text=True, check=True)
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return [float(x) for x in np.median(np.array(rows), axis=0)]


def show(name: str, seconds: float, base: float | None = None, cpu: tuple[float, float] | None = None,
         verl: float | None = None) -> None:
    ratio = "" if verl is None else f"   verl / this = {verl / seconds:,.0f}x"
    spent = "" if cpu is None else f"   (cpu median {cpu[0] * 1e3:.3f} ms, fastest wall {cpu[1] * 1e3:.3f} ms)"
    print(f"  {name:<46} {seconds * 1e3:12.3f} ms{spent}{ratio}")


def show_fresh(name: str, row: list[float], verl: float | None = None) -> None:
    for label, wall, cpu in ((f"{name}: first call", row[0], row[1]), (f"{name}: second call", row[2], row[3])):
        ratio = "" if verl is None else f"   verl / this = {verl / wall:,.0f}x"
        print(f"  {label:<46} {wall * 1e3:12.3f} ms   (cpu {cpu * 1e3:.3f} ms){ratio}")


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; numpy {np.__version__}")
    ds, uids, infos = batch(128, 16, ("acc", "pred"))

    def ks_warm() -> Any:
        return process_validation_metrics(ds, uids, infos)

    print("[128 prompts x 16 responses, acc + pred]  (wall medians; verl / this from wall medians)")
    verl_t: float | None = None
    if VERL is not None:
        verl_pvm: Callable[..., Any] = VERL["process_validation_metrics"]

        def verl_fn() -> Any:
            return verl_pvm(ds, uids, infos)

        t0 = time.perf_counter()
        verl_fn()
        rounds = 3 if time.perf_counter() - t0 < 30 else 2
        verl_t, warm_t, cold_t = interleaved_medians([verl_fn, ks_warm, cold(ks_warm)], [1, 30, 10], rounds=rounds,
                                                     budget_s=300.0)
    else:
        print("  verl 0.9.1 not installed: pip install --no-deps verl==0.9.1")
        warm_t, cold_t = interleaved_medians([ks_warm, cold(ks_warm)], [30, 10], rounds=4)
    show("kscore, later calls", warm_t, cpu=cpu_median(ks_warm), verl=verl_t)
    show("kscore, first call (caches emptied)", cold_t, cpu=cpu_median(cold(ks_warm), 10), verl=verl_t)
    show_fresh("kscore, fresh process", fresh(128, ("acc", "pred"), 0), verl_t)
    if verl_t is not None:
        show("verl 0.9.1 process_validation_metrics", verl_t)

    print("[1024 prompts x 16 responses, acc + score + pred: kscore alone]")
    ds_b, uids_b, infos_b = batch(1024, 16, ("acc", "score", "pred"), seed=1)
    order = np.random.default_rng(2).permutation(len(ds_b)).tolist()
    ds_s, uids_s = [ds_b[i] for i in order], [uids_b[i] for i in order]
    infos_s = {k: [v[i] for i in order] for k, v in infos_b.items()}

    def big() -> Any:
        return process_validation_metrics(ds_b, uids_b, infos_b)

    def unbiased() -> Any:
        return process_validation_metrics(ds_b, uids_b, infos_b, unbiased=True)

    def shuffled() -> Any:
        return process_validation_metrics(ds_s, uids_s, infos_s)

    fns = [big, cold(big), unbiased, shuffled]
    times = interleaved_medians(fns, [30, 10, 30, 30], rounds=4)
    for name, t, fn in zip(["kscore, later calls", "kscore, first call (caches emptied)",
                            "kscore, later calls, unbiased=True (+pass@k...)", "kscore, later calls, shuffled"],
                           times, fns):
        show(name, t, cpu=cpu_median(fn, 10 if fn is fns[1] else 50))
    show_fresh("kscore, fresh process", fresh(1024, ("acc", "score", "pred"), 1))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--first-calls"]:
        first_calls(int(sys.argv[2]), tuple(sys.argv[3].split(",")), int(sys.argv[4]))
    else:
        main()
