"""Ctrl-C stops long calls within about a second, not when they end: the
calling thread looks for a pending signal while the kernels run, and they
skip their remaining work once told to stop (rust/kscore-core/src/cancel.rs,
rust/kscore-py/src/enter.rs). Checked in a subprocess sent SIGINT.

The second part sends a real SIGINT to a real ``kscore leaderboard`` as each
phase of its run begins (reading, counting, metrics, writing, plotting;
``KSCORE_PHASES=1`` marks them on stderr) and once inside the reading
query: exit status 130 within a second, one line, nothing left behind
(docs/leaderboard.md, *Interrupting a run*)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .signals import default_sigint

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="needs POSIX signals")

# Each call takes about 10 s or more on this 2-core machine (blocked FFT
# products of degree 2k = 8e6, docs/kernels.md K5; TailPass's exact
# covariance at k = 4000, O(k^2) per state), well past the signal sent
# after 1 s.
LONG_CALLS = {
    "geo_spectrum_at_k_ci": "ke.geo_spectrum_at_k_ci(R, 4_000_000)",
    "auc_at_k_ci": "ke.auc_at_k_ci(W, 4_000_000)",
    "tailpass_covariance": "ke.tailpass(R, 4000).covariance",
}

CHILD = """
import signal, sys, threading, time
# A child started from a background job inherits SIGINT ignored, and Python
# then installs no KeyboardInterrupt handler: install it, as a terminal has it.
signal.signal(signal.SIGINT, signal.default_int_handler)
import numpy as np
from kscore import eval as ke

R = np.random.default_rng(0).random((1000, 64)) < 0.5
W = np.random.default_rng(1).integers(0, 10, (8, 4_000_000), dtype=np.uint8) < 3
small = (ke.pass_at_k(R, 5), ke.geo_spectrum_at_k_ci(R, 50), ke.mg_pass_at_k_ci(R, 64))

# Another thread runs a shorter watched call over the same moment: the stop
# reaches its kernels too, and it must run them again and give the same bits.
side = {}
def other():
    side["value"] = ke.geo_spectrum_at_k_ci(R, 6000)
thread = threading.Thread(target=other)
thread.start()
print("ready", flush=True)
start = time.perf_counter()
try:
    CALL
except KeyboardInterrupt:
    print("interrupted %.3f" % (time.perf_counter() - start), flush=True)
else:
    print("finished %.3f" % (time.perf_counter() - start), flush=True)
    sys.exit(1)
thread.join()
assert side["value"] == ke.geo_spectrum_at_k_ci(R, 6000), "the other thread's call changed"
again = (ke.pass_at_k(R, 5), ke.geo_spectrum_at_k_ci(R, 50), ke.mg_pass_at_k_ci(R, 64))
assert again == small, (again, small)
print("ok", flush=True)
"""

# "Within about a second": polls are 50 ms apart and kernels check between
# states or coefficients; the margin is for a loaded CI machine.
BOUND_S = 5.0


@pytest.mark.parametrize("name", list(LONG_CALLS))
def test_sigint_stops_a_long_call(name: str) -> None:
    code = CHILD.replace("CALL", LONG_CALLS[name])
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, preexec_fn=default_sigint)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.strip() == "ready", line + proc.communicate(timeout=60)[1]
        time.sleep(1.0)  # the call is under way
        assert proc.poll() is None, "the child ended before the signal"
        sent = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        line = proc.stdout.readline()
        waited = time.perf_counter() - sent
        rest, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert line.startswith("interrupted"), line + rest + err
    assert waited < BOUND_S, f"KeyboardInterrupt came {waited:.2f} s after SIGINT"
    assert proc.returncode == 0 and rest.strip() == "ok", rest + err


# ------------------------------------------------------------------ Ctrl-C in each phase of `kscore leaderboard`

#: The issue's bound (issue 29): Ctrl-C ends a leaderboard run within 1 s.
#: A slower CI machine may widen it (the measured exits take 0.02-0.1 s).
RUN_BOUND_S = float(os.environ.get("KSCORE_INTERRUPT_BOUND_S", "1.0"))
PHASES = ["reading", "counting", "metrics", "writing", "plotting"]


@pytest.fixture(scope="module")
def big_board(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3M rows (100 models x 6000 questions x 5 samples, 59 MB of CSV),
    written by DuckDB: each phase of a run takes 0.1-4 s here, so that a
    signal sent as a phase begins lands in it."""
    duckdb = pytest.importorskip("duckdb")
    pytest.importorskip("matplotlib")
    path = tmp_path_factory.mktemp("interrupt") / "board.csv"
    duckdb.connect().execute(
        "COPY (SELECT 'model-' || lpad(CAST(i // 30000 AS VARCHAR), 3, '0') AS model, "
        "'q' || CAST((i // 5) % 6000 AS VARCHAR) AS question_id, i % 5 AS sample, "
        f"CAST((hash(i) % 100) < 40 + (i // 30000) / 2 AS TINYINT) AS correct FROM range(3000000) t(i)) TO '{path}' "
        "(HEADER)")
    return path


@pytest.fixture(scope="module")
def big_parquet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """20M rows in 20 Parquet files (a model each, named for it: 100,000 questions x 10
    samples), counted outside DuckDB (read/parquet_rows.py) for some 2 s on a
    quiet 2-core machine."""
    return _model_files(tmp_path_factory.mktemp("interrupt-parquet"), 20, "parquet", "(FORMAT parquet)")


def _model_files(folder: Path, models: int, suffix: str, options: str) -> Path:
    """``models`` files written by DuckDB, a model each: 100,000 questions x 10 samples."""
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    for m in range(models):
        con.execute(f"COPY (SELECT 'q' || CAST(i // 10 AS VARCHAR) AS question_id, CAST(i % 10 AS SMALLINT) AS sample, "
                    "CAST(hash(i) % 2 AS TINYINT) AS correct FROM range(1000000) t(i)) "
                    f"TO '{folder / f'model-{m:02d}.{suffix}'}' {options}")
    return folder


def _interrupt_run(board: Path, folder: Path, phase: str, delay: float,
                   limit: bool = True) -> tuple[int, float, str]:
    """Start ``kscore leaderboard`` on ``board`` with outputs in ``folder``,
    send SIGINT ``delay`` s after ``phase`` begins: (status, seconds from the
    signal to the exit, what stderr said after the phase began)."""
    out, plot, tmp = folder / "out" / "board.txt", folder / "out" / "curves.png", folder / "tmp"
    out.parent.mkdir()
    tmp.mkdir()
    env = dict(os.environ, KSCORE_PHASES="1", TMPDIR=str(tmp), PYTHONUNBUFFERED="1")
    cmd = [sys.executable, "-m", "kscore", "leaderboard", str(board), "--wide", "-o", str(out),
           "--plot", str(plot), "--quiet", *(["--memory-limit", "1GB"] if limit else [])]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=default_sigint)
    try:
        assert proc.stderr is not None
        seen = []
        for line in proc.stderr:
            seen.append(line)
            if line.strip() == f"kscore: phase {phase}":
                break
        assert seen and seen[-1].strip() == f"kscore: phase {phase}", "".join(seen)
        time.sleep(delay)
        sent = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        rc = proc.wait(timeout=60)
        return rc, time.perf_counter() - sent, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


# The reading query of the big board lasts about 0.32 s on a quiet 2-core
# machine (longer on a busy one): 0.1 s after it began is inside it. (0.5 s
# was past its end on a quiet machine, and the signal landed in a later phase.)
@pytest.mark.parametrize(("phase", "delay"), [(p, 0.0) for p in PHASES] + [("reading", 0.1)])
def test_sigint_in_each_phase_of_a_leaderboard_run(big_board: Path, tmp_path: Path, phase: str, delay: float) -> None:
    """A real SIGINT to a real ``kscore leaderboard`` as ``phase`` begins
    (``delay`` later: inside the reading query): exit status 130 within
    :data:`RUN_BOUND_S`, the one line ``kscore: interrupted``, no
    traceback, no output or temporary file next to the outputs (one written
    whole before plotting began stays), no spill folder left in TMPDIR. The
    counting and metrics phases last 0.1-0.2 s: a signal that a busy machine
    delivers after the next phase began is sent again in a new run (up to
    three)."""
    for attempt in range(3):
        folder = tmp_path / str(attempt)
        folder.mkdir()
        rc, waited, rest = _interrupt_run(big_board, folder, phase, delay)
        if "kscore: phase" not in rest:
            break
    assert rc == 130, (rc, rest)
    assert rest == "kscore: interrupted\n", f"the signal missed the {phase} phase, or more was said: {rest!r}"
    assert waited < RUN_BOUND_S, f"exit {waited:.2f} s after SIGINT in the {phase} phase"
    left = sorted(p.name for p in (folder / "out").iterdir())
    assert left == (["board.txt"] if phase == "plotting" else []), left
    assert not list((folder / "tmp").iterdir()), list((folder / "tmp").iterdir())


@pytest.mark.parametrize("delay", [0.0, 0.3])
def test_sigint_while_parquet_rows_are_counted_outside_duckdb(big_parquet: Path, tmp_path: Path,
                                                                delay: float) -> None:
    """The direct count of Parquet rows (reader threads, the core counting
    batches): a SIGINT in it ends the run as in any phase, within the bound,
    with one line and nothing left behind."""
    rc, waited, rest = _interrupt_run(big_parquet, tmp_path, "reading", delay, limit=False)
    assert rc == 130, (rc, rest)
    assert rest == "kscore: interrupted\n", rest
    assert waited < RUN_BOUND_S, f"exit {waited:.2f} s after SIGINT"
    assert not list((tmp_path / "out").iterdir())


@pytest.fixture(scope="module")
def big_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """6M rows in 6 CSV files (a model each, 100,000 questions x 10
    samples), counted outside DuckDB (read/text_rows.py)."""
    return _model_files(tmp_path_factory.mktemp("interrupt-csv"), 6, "csv", "(HEADER)")


@pytest.mark.parametrize("delay", [0.0, 0.3])
def test_sigint_while_csv_lines_are_counted_outside_duckdb(big_csv: Path, tmp_path: Path, delay: float) -> None:
    """The direct count of CSV lines (reading threads handing byte ranges to
    the core): a SIGINT in it ends the run within the bound, with one line."""
    rc, waited, rest = _interrupt_run(big_csv, tmp_path, "reading", delay, limit=False)
    assert rc == 130, (rc, rest)
    assert rest == "kscore: interrupted\n", rest
    assert waited < RUN_BOUND_S, f"exit {waited:.2f} s after SIGINT"
    assert not list((tmp_path / "out").iterdir())


def test_an_error_raised_while_handling_ctrl_c_is_an_interrupt() -> None:
    """Ctrl-C inside a library's try/finally can come out as that block's own
    error (matplotlib: "Invalid bounding box"); it ends as interrupted."""
    from kscore.cli import _after_interrupt

    def drawing() -> None:
        try:
            raise KeyboardInterrupt
        finally:
            raise ValueError("Invalid bounding box")

    with pytest.raises(ValueError) as caught:
        drawing()
    assert _after_interrupt(caught.value)
    assert not _after_interrupt(ValueError("plain"))


# DuckDB's module is imported where a read starts; a KeyboardInterrupt raised inside its initialisation
# (nanobind's C++) aborted the process ("Critical nanobind error", status -6) when Ctrl-C came a tenth of a
# second into a run on a loaded machine. The import now holds Ctrl-C and delivers it after.
HELD_IMPORT = """
import os, signal, sys
from kscore.leaderboard.read.source import duckdb_module
assert "duckdb" not in sys.modules

class SignalOnFind:  # a real SIGINT each time the import system looks up one of duckdb's modules
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "duckdb":
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, SignalOnFind())
try:
    duckdb_module()
    print("not interrupted")
except KeyboardInterrupt:
    print("interrupted after the import:", "duckdb" in sys.modules)
print(sys.modules["duckdb"].connect().sql("select 42").fetchall())
"""


def test_ctrl_c_while_duckdb_initialises_comes_after_it() -> None:
    done = subprocess.run([sys.executable, "-c", HELD_IMPORT], capture_output=True, text=True, timeout=120,
                          preexec_fn=default_sigint)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "interrupted after the import: True\n[(42,)]\n", (done.stdout, done.stderr)


# rust-numpy finds numpy's C tables on first use by running numpy's own Python code
# (`numpy.lib.NumpyVersion`) and panics if that raises: a Ctrl-C landing there came out of the first call
# that made an array as a PanicException (CI: status 1, not 130, in the metrics phase). The compiled
# module now finds them as it is imported, with Ctrl-C held, and the signal comes after the import.
HELD_NUMPY_TABLES = """
import os, signal, sys
import numpy  # imported first: only the look-up of numpy's C tables is watched
fired = []

def watch(frame, event, arg):  # a real SIGINT as numpy's version check begins
    if (event == "call" and not fired and frame.f_code.co_name == "__init__"
            and frame.f_code.co_filename.endswith(os.path.join("numpy", "lib", "_version.py"))):
        fired.append(1)
        os.kill(os.getpid(), signal.SIGINT)

sys.setprofile(watch)
try:
    import kscore.eval
    print("not interrupted", kscore.eval.avg(numpy.ones((2, 3)))[0])
except KeyboardInterrupt:
    print("interrupted after the import:", bool(fired), "kscore._kscore" in sys.modules)
sys.setprofile(None)
import kscore.eval
print(kscore.eval.avg(numpy.ones((2, 3)))[0])
"""


def test_ctrl_c_while_numpy_tables_are_found_comes_after_the_import() -> None:
    done = subprocess.run([sys.executable, "-c", HELD_NUMPY_TABLES], capture_output=True, text=True, timeout=120,
                          preexec_fn=default_sigint)
    assert done.returncode == 0, done.stderr
    assert "panicked" not in done.stderr, done.stderr
    assert done.stdout == "interrupted after the import: True True\n1.0\n", (done.stdout, done.stderr)
