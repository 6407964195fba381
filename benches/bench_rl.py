"""kscore.rl against verl 0.9.1's own process_validation_metrics, same batch.

Run: ``python benches/bench_rl.py`` in an environment with verl's wheel
(``pip install --no-deps verl==0.9.1``; without it only kscore's rows are
timed). verl's functions are compiled from the installed file as
tests/test_rl_verl.py does (its module imports torch; these functions need
numpy alone).

Workloads, laid out as verl lays out a validation batch (each prompt's
responses side by side, uids as strings, two data sources):

* 128 prompts x 16 responses, ``acc`` and ``pred``: verl vs kscore, the two
  taking turns (conftest.interleaved_medians), medians of single calls.
* 1024 prompts x 16 responses, ``acc``, ``score`` and ``pred``: kscore alone.

kscore's rows: "warm" (the vote tables of the batch's answer partitions
already cached, as from the second validation step on) and "cold" (cache
emptied before every call: a first call in a fresh process). No timing is
asserted anywhere.
"""

from __future__ import annotations

import os
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
from kscore.rl._majority import win_table  # noqa: E402

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
        win_table.cache_clear()
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


def show(name: str, seconds: float, base: float | None = None, cpu: tuple[float, float] | None = None) -> None:
    ratio = "" if base is None else f"   verl / kscore warm = {seconds / base:,.0f}x"
    spent = "" if cpu is None else f"   (cpu median {cpu[0] * 1e3:.3f} ms, fastest {cpu[1] * 1e3:.3f} ms)"
    print(f"  {name:<44} {seconds * 1e3:12.3f} ms{spent}{ratio}")


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; numpy {np.__version__}")
    ds, uids, infos = batch(128, 16, ("acc", "pred"))
    def ks_warm() -> Any:
        return process_validation_metrics(ds, uids, infos)

    print("[128 prompts x 16 responses, acc + pred]")
    if VERL is not None:
        verl_pvm: Callable[..., Any] = VERL["process_validation_metrics"]

        def verl_fn() -> Any:
            return verl_pvm(ds, uids, infos)

        t0 = time.perf_counter()
        verl_fn()
        rounds = 3 if time.perf_counter() - t0 < 30 else 2
        verl_t, warm_t, cold_t = interleaved_medians([verl_fn, ks_warm, cold(ks_warm)], [1, 30, 10], rounds=rounds,
                                                     budget_s=300.0)
        show("kscore warm", warm_t, cpu=cpu_median(ks_warm))
        show("kscore cold", cold_t, cpu=cpu_median(cold(ks_warm), 10))
        show("verl 0.9.1 process_validation_metrics", verl_t, warm_t)
    else:
        print("  verl 0.9.1 not installed: pip install --no-deps verl==0.9.1")
        warm_t, cold_t = interleaved_medians([ks_warm, cold(ks_warm)], [30, 10], rounds=4)
        show("kscore warm", warm_t)
        show("kscore cold", cold_t)

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

    times = interleaved_medians([big, cold(big), unbiased, shuffled], [30, 10, 30, 30], rounds=4)
    fns = [big, cold(big), unbiased, shuffled]
    for name, t, fn in zip(["kscore warm", "kscore cold", "kscore warm, unbiased=True (+pass@k...)",
                            "kscore warm, responses shuffled"], times, fns):
        show(name, t, cpu=cpu_median(fn, 10 if fn is fns[1] else 30))


if __name__ == "__main__":
    main()
