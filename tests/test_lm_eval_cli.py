"""``python -m kscore.lm_eval`` and ``import kscore.lm_eval`` where lm_eval is
too old: one line naming what is needed (exit status 2 on the command line).

An lm_eval 0.4.9 install is stood for by its metadata alone (a
``lm_eval-0.4.9.dist-info`` folder put first on the path, which
``importlib.metadata`` reads before any installed lm_eval); nothing of lm_eval
is imported before the check, so this runs with or without lm_eval installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NEEDS = "kscore.lm_eval needs lm_eval>=0.4.12,<0.5 (found 0.4.9): pip install 'kscore[lm-eval]'"


def _old_lm_eval(tmp_path: Path) -> dict[str, str]:
    info = tmp_path / "lm_eval-0.4.9.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lm_eval\nVersion: 0.4.9\n")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}


def test_command_line_with_an_old_lm_eval(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "kscore.lm_eval", "run", "--tasks", "x"], env=_old_lm_eval(tmp_path),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr == f"kscore: error: {NEEDS}\n"
    assert done.stdout == ""


def test_import_with_an_old_lm_eval(tmp_path: Path) -> None:
    code = "import kscore.lm_eval"
    done = subprocess.run([sys.executable, "-c", code], env=_old_lm_eval(tmp_path), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == f"ImportError: {NEEDS}"


def test_kscore_alone_imports_no_harness() -> None:
    """``import kscore`` (and its formats and leaderboard) loads neither
    integration nor its tool: the extras stay optional."""
    code = ("import sys, kscore, kscore.formats, kscore.leaderboard, kscore.counts, kscore.eval; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('lm_eval', 'lighteval', 'torch') "
            "or m.startswith(('kscore.lm_eval', 'kscore.lighteval'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
