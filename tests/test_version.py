"""One version: the workspace Cargo.toml's [workspace.package] version is the
package's (pyproject.toml declares it dynamic; maturin reads it from the
binding crate, which inherits it), the compiled module's (CARGO_PKG_VERSION)
and kscore.__version__."""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path
from typing import Any

import pytest

import kscore
from kscore import _kscore

ROOT = Path(__file__).resolve().parent.parent
needs_source = pytest.mark.skipif(not (ROOT / "Cargo.toml").exists(), reason="needs the source tree")


def load_toml(name: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10 has no tomllib
        tomllib = pytest.importorskip("tomli")
    with (ROOT / name).open("rb") as fh:
        data: dict[str, Any] = tomllib.load(fh)
    return data


def cargo_version() -> str:
    version = load_toml("Cargo.toml")["workspace"]["package"]["version"]
    assert isinstance(version, str)
    return version


@needs_source
def test_version_is_cargo_workspace_version() -> None:
    version = cargo_version()
    assert kscore.__version__ == version
    assert _kscore.__version__ == version


def test_version_is_installed_distribution_version() -> None:
    # Cargo's semver and the wheel's PEP 440 version are spelled the same for a
    # plain release (0.1.0); maturin would rewrite a pre-release such as
    # 0.2.0-alpha.1 to 0.2.0a1, which this test would then have to normalise.
    assert importlib.metadata.version("kscore") == kscore.__version__ == _kscore.__version__


@needs_source
def test_pyproject_takes_the_version_from_cargo() -> None:
    project = load_toml("pyproject.toml")["project"]
    assert "version" not in project
    assert "version" in project["dynamic"]
    binding = load_toml("rust/kscore-py/Cargo.toml")["package"]
    assert binding["version"] == {"workspace": True}
