"""The extras the README and docs tell users to install: each exists in
pyproject.toml under the spelling the docs use, and every extra's name is in
PEP 685's normal form. pip 23.0.1 and 23.2.1 (the pips of fresh Python
3.10-3.12 venvs) compare an extra as typed with the wheel's metadata, which
writes the normal form: ``kscore[lm_eval]`` installed nothing there. The
resolution by those pips themselves is .ci/run's extras step
(scripts/check_extras.py, network needed)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_extras", ROOT / "scripts" / "check_extras.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(sys.version_info < (3, 11), reason="reads pyproject.toml with tomllib")
def test_documented_extras_exist_in_their_normal_form() -> None:
    script = _script()
    documented, declared = script.documented(), script.declared()
    assert {"cli", "inspect", "lm-eval", "lighteval", "distributed"} <= set(documented)
    for extra in documented:
        assert extra in declared, extra
    for extra in declared:
        assert extra == script.normalize(extra), f"extra {extra!r} is not in PEP 685's normal form"
