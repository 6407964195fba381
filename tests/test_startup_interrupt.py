"""Ctrl-C while the ``kscore`` command starts up (importing numpy, the
compiled core, the command line: tenths of a second, more on a busy machine)
prints one line, ``kscore: interrupted``, and exits with status 130; no
traceback (python/kscore/_interrupt.py).

Each run is a real ``kscore`` console script sent a real SIGINT at a moment
read from the process itself: as soon as /proc/PID/maps shows the shared
library being loaded (numpy's core, then kscore's own), that is, in the
middle of kscore's imports. Linux only (/proc)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .signals import default_sigint

pytestmark = pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/PID/maps (Linux)")

KSCORE = Path(sys.executable).parent / "kscore"


def _interrupt_when_mapped(argv: list[str], library: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_sigint)
    maps = Path(f"/proc/{proc.pid}/maps")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if library in maps.read_text():
                break
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            pass
        time.sleep(0.0005)
    else:
        proc.kill()
        pytest.fail(f"{library} was never loaded")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


@pytest.mark.skipif(not KSCORE.exists(), reason="the kscore console script is not installed beside this Python")
@pytest.mark.parametrize("library", ["_multiarray_umath", "_kscore"])
def test_ctrl_c_during_start_up_is_one_line(library: str) -> None:
    done = _interrupt_when_mapped([str(KSCORE), "leaderboard"], library)
    assert (done.returncode, done.stderr, done.stdout) == (130, "kscore: interrupted\n", "")


@pytest.mark.parametrize("library", ["_multiarray_umath", "_kscore"])
def test_python_m_kscore_the_same(library: str) -> None:
    done = _interrupt_when_mapped([sys.executable, "-m", "kscore", "leaderboard"], library)
    assert (done.returncode, done.stderr, done.stdout) == (130, "kscore: interrupted\n", "")


def test_a_library_user_keeps_its_ctrl_c() -> None:
    """``import kscore`` in a program: its SIGINT handling is untouched."""
    code = ("import signal, kscore\n"
            "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          preexec_fn=default_sigint, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"
