"""On a free-threaded interpreter (python3.14t), the module declares that it
needs no GIL (`gil_used = false`, rust/kscore-py/src/lib.rs): importing
kscore must not turn the GIL back on (CPython would say so with a
RuntimeWarning and run with it from then on), nor may a call that hands
work to the core's thread pool from several Python threads at once.
Skipped on GIL builds; docs/threads.md says how the suite was run on one."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig

import pytest

FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))

pytestmark = pytest.mark.skipif(not FREE_THREADED, reason="needs a free-threaded CPython build (python3.14t)")

# Run in a fresh interpreter: in this one, any module imported before (by
# pytest or another test's dependencies) may have enabled the GIL already.
# RuntimeWarnings are errors there, so the import itself fails if CPython
# enables the GIL to load a module.
CHECK = """
import sys
from concurrent.futures import ThreadPoolExecutor

assert not sys._is_gil_enabled(), "GIL enabled at start-up"
import numpy as np
assert not sys._is_gil_enabled(), "numpy enabled the GIL"

import kscore
import kscore.eval as ke
from kscore import _kscore
assert not sys._is_gil_enabled(), "import kscore enabled the GIL"

rng = np.random.default_rng(5)
R = (rng.random((4000, 32)) < rng.beta(0.6, 0.6, size=(4000, 1))).astype(np.int64)
serial = ke.mg_pass_at_k_ci(R, 16)
_kscore._set_parallel_grain(1)  # every parallel iterator of the core splits: the pool runs
try:
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: ke.mg_pass_at_k_ci(R, 16), range(8)))
finally:
    _kscore._set_parallel_grain(0)
assert all(r == serial for r in results), "threads gave other results"
assert not sys._is_gil_enabled(), "a call on the thread pool enabled the GIL"
print("gil disabled")
"""


def test_gil_stays_disabled_after_import_and_pool_calls() -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHON_GIL"}  # PYTHON_GIL=1 would force it on
    done = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-c", CHECK],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "gil disabled"
