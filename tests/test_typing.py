"""The package is typed: the hand-written stub matches the compiled module
(mypy.stubtest), and mypy --strict passes on the package and the tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False)


def test_stub_matches_binary() -> None:
    result = run("mypy.stubtest", "kscore._kscore")
    assert result.returncode == 0, result.stdout + result.stderr


def test_py_typed_is_shipped() -> None:
    import kscore

    assert (Path(kscore.__file__).parent / "py.typed").exists()
    assert (Path(kscore.__file__).parent / "_kscore.pyi").exists()


@pytest.mark.skipif(not (ROOT / "pyproject.toml").exists(), reason="needs the source tree")
def test_mypy_strict() -> None:
    result = run("mypy", "--config-file", str(ROOT / "pyproject.toml"))
    assert result.returncode == 0, result.stdout + result.stderr
