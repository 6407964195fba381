"""Runtime behaviour of the compiled core: fork safety of the rayon pool,
results independent of thread count, no copies of R."""

from __future__ import annotations

import multiprocessing as mp
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kscore import eval as ke

ROOT = Path(__file__).resolve().parent.parent


def _child(q: mp.Queue[float]) -> None:
    R = np.random.default_rng(1).random((20000, 33)) < 0.5
    q.put(ke.maj_at_k(R, 9))


@pytest.mark.thread_unsafe(reason="forks the process")
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_parallel_call_works_after_fork() -> None:
    R = np.random.default_rng(1).random((20000, 33)) < 0.5
    expected = ke.maj_at_k(R, 9)  # spins up the parent's rayon pool first
    ctx = mp.get_context("fork")
    q: mp.Queue[float] = ctx.Queue()
    proc = ctx.Process(target=_child, args=(q,))
    proc.start()
    proc.join(timeout=60)
    if proc.is_alive():
        proc.kill()
        pytest.fail("kscore hung in a forked child")
    assert q.get(timeout=5) == expected


def test_results_do_not_depend_on_thread_count() -> None:
    """Every public function (the table of tests/test_threads.py) gives the
    same bits with 1, 2, 3 or 5 threads (rayon's, and the direct count's
    reading threads: KSCORE_THREADS)."""
    outs = {}
    for threads in ("1", "2", "3", "5"):
        env = dict(os.environ, RAYON_NUM_THREADS=threads, KSCORE_THREADS=threads)
        outs[threads] = subprocess.run([sys.executable, "-m", "tests.test_threads"], cwd=ROOT, env=env,
                                       capture_output=True, text=True, check=True).stdout
    assert len(outs["1"].strip()) == 64
    assert len(set(outs.values())) == 1, outs


def test_input_is_not_modified_or_copied() -> None:
    R = np.random.default_rng(5).random((3000, 50)) < 0.3
    before = R.copy()
    R.setflags(write=False)
    ke.pass_at_k(R, 5)
    ke.pass_at_k(R[:, ::2], 5)
    assert np.array_equal(R, before)
