"""The wheel a user installs: built as the release is (`maturin build
--release --zig`, pyproject's manylinux2014 compatibility), it carries the
abi3 and manylinux2014 tags, a stripped extension that needs glibc <= 2.17,
exactly the package's files, and it works from a fresh virtual environment
whose PATH has no Rust toolchain.

Building takes minutes, so the test needs the build tools in the test
environment: maturin and ziglang from PyPI and cargo; it skips, saying which
is missing, where they are not. `.ci/run` builds the release wheel once, with
the same command, installs it for the whole test suite and names it in
KSCORE_TEST_WHEEL: this module then checks that wheel instead of building
its own."""

from __future__ import annotations

import os
import platform
import re
import shutil
import struct
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "kscore"


# A wheel built by `maturin build --release --zig` from this tree (.ci/run sets it).
PREBUILT = os.environ.get("KSCORE_TEST_WHEEL", "")


def missing_tools() -> str | None:
    if sys.platform != "linux":
        return "the manylinux wheel is built and checked on Linux"
    if not (ROOT / "pyproject.toml").exists():
        return "needs the source tree"
    if PREBUILT:
        return None
    if find_spec("maturin") is None:
        return "maturin is not installed here (pip install maturin ziglang; .ci/run does)"
    if find_spec("ziglang") is None:
        return "ziglang is not installed here (pip install ziglang; .ci/run does)"
    if shutil.which("cargo") is None:
        return "cargo is not on PATH"
    return None


pytestmark = [
    pytest.mark.skipif(missing_tools() is not None, reason=missing_tools() or ""),
    pytest.mark.thread_unsafe(reason="builds once per module, minutes"),
]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    if PREBUILT:
        assert Path(PREBUILT).is_file(), f"KSCORE_TEST_WHEEL={PREBUILT} is not a file"
        yield Path(PREBUILT)
        return
    import ziglang

    out = tmp_path_factory.mktemp("dist")
    env = dict(os.environ)
    # maturin finds zig on PATH (its `python -m ziglang` fallback is not reliable).
    env["PATH"] = str(Path(ziglang.__file__).parent) + os.pathsep + env.get("PATH", "")
    build = subprocess.run(
        [sys.executable, "-m", "maturin", "build", "--release", "--zig", "--out", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )
    assert build.returncode == 0, build.stdout[-4000:] + build.stderr[-4000:]
    wheels = list(out.glob("*.whl"))
    assert len(wheels) == 1, wheels
    yield wheels[0]


def test_tags_are_abi3_and_manylinux2014(wheel: Path) -> None:
    from packaging.utils import parse_wheel_filename

    name, _, _, tags = parse_wheel_filename(wheel.name)
    assert name == "kscore"
    machine = platform.machine()
    assert {(t.interpreter, t.abi) for t in tags} == {("cp310", "abi3")}
    assert f"manylinux2014_{machine}" in {t.platform for t in tags}, wheel.name
    assert all(t.platform.startswith(("manylinux2014_", "manylinux_2_17_")) for t in tags), wheel.name


def expected_package_files() -> set[str]:
    """The files of python/kscore as the wheel names them (no caches, no
    locally built extension)."""
    files = set()
    for path in PACKAGE.rglob("*"):
        if path.is_dir() or "__pycache__" in path.parts or path.suffix in {".so", ".pyd", ".pyc"}:
            continue
        files.add("kscore/" + path.relative_to(PACKAGE).as_posix())
    return files


def test_contents_are_the_package_and_one_extension(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    dist_info = {n for n in names if n.split("/")[0].endswith(".dist-info")}
    extensions = {n for n in names if n.endswith((".so", ".pyd", ".dylib"))}
    assert extensions == {"kscore/_kscore.abi3.so"}, extensions
    for required in ("kscore/_kscore.pyi", "kscore/py.typed", "kscore/data/sample_outcomes.npz",
                     "kscore/data/sample_results.csv.gz"):
        assert required in names, required
    assert names - dist_info - extensions == expected_package_files()
    assert {n.split("/", 1)[1] for n in dist_info} >= {"METADATA", "WHEEL", "RECORD", "entry_points.txt"}


def elf_section_names(blob: bytes) -> set[str]:
    """Section names of a 64-bit little-endian ELF file."""
    assert blob[:4] == b"\x7fELF" and blob[4] == 2 and blob[5] == 1
    shoff, = struct.unpack_from("<Q", blob, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", blob, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", blob, shoff + i * shentsize) for i in range(shnum)]
    strtab_off = headers[shstrndx][4]
    names = set()
    for name_off, *_ in headers:
        end = blob.index(b"\0", strtab_off + name_off)
        names.add(blob[strtab_off + name_off:end].decode())
    return names


def test_extension_is_stripped_and_needs_old_glibc_only(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        blob = zf.read("kscore/_kscore.abi3.so")
    sections = elf_section_names(blob)
    assert ".dynsym" in sections
    assert ".symtab" not in sections and ".debug_info" not in sections, "not stripped"
    versions = {tuple(int(x) for x in m.group(1).split(b".")) for m in re.finditer(rb"GLIBC_(2(?:\.\d+)+)", blob)}
    assert versions, "no glibc symbol versions found"
    assert max(versions) <= (2, 17), f"needs glibc {max(versions)}"


VENV_CHECK = """
import os, shutil, subprocess, sys
import numpy as np
import kscore
from kscore import eval as ke
assert shutil.which("cargo") is None and shutil.which("rustc") is None, "a Rust toolchain is on PATH"
assert os.path.realpath(kscore.__file__).startswith(os.path.realpath(sys.prefix)), kscore.__file__
main = subprocess.run([sys.executable, "-m", "kscore"], capture_output=True, text=True, check=True).stdout
assert "pass@k" in main and "GeoSpectrum*@k" in main, main
R = np.random.default_rng(7).random((300, 24)) < 0.4
print(repr((kscore.__version__, ke.pass_at_k(R, 5), ke.maj_at_k_ci(R, 9), ke.mg_pass_at_k(R, 16),
            ke.bayes(R.astype(np.int64), np.array([0.0, 1.0])))))
"""


def toolchain_free_path() -> str:
    keep = []
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if entry and not any(Path(entry, tool).exists() for tool in ("cargo", "rustc", "rustup")):
            keep.append(entry)
    return os.pathsep.join(keep)


def test_installs_and_runs_without_a_toolchain(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CARGO", "RUSTUP", "PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = str(venv / "bin") + os.pathsep + toolchain_free_path()
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], env=env, cwd=tmp_path,
                             capture_output=True, text=True, check=False)
    assert install.returncode == 0, install.stdout + install.stderr
    run = subprocess.run([str(python), "-c", VENV_CHECK], env=env, cwd=tmp_path, capture_output=True, text=True,
                         check=False)
    assert run.returncode == 0, run.stdout + run.stderr

    import numpy as np

    import kscore
    from kscore import eval as ke

    R = np.random.default_rng(7).random((300, 24)) < 0.4
    here = (kscore.__version__, ke.pass_at_k(R, 5), ke.maj_at_k_ci(R, 9), ke.mg_pass_at_k(R, 16),
            ke.bayes(R.astype(np.int64), np.array([0.0, 1.0])))
    assert run.stdout.strip() == repr(here)
