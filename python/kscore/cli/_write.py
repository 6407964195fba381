"""Writing outputs safely: never over an input, never half-written.

An output path that is, or links to, one of the input files is refused before
anything is read (``kscore leaderboard results.csv -o results.csv`` would
otherwise replace the results with the leaderboard). Every output is written
to a temporary file in the destination's folder and renamed into place only
once complete (``os.replace`` is atomic on one file system), so an error or
an interrupt leaves the previous file, or none, never a partial one.
See docs/leaderboard.md, *Output*.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ._errors import CliError


def _same_file(a: Path, b: Path) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)  # hard links
    except OSError:
        return False


def refuse_inputs(outputs: Iterable[tuple[str, str | None]], inputs: Iterable[Path]) -> None:
    """Raise a one-line error if an output (``(flag, path)``) is an input file."""
    files = list(inputs)
    for flag, out in outputs:
        if out is None:
            continue
        for src in files:
            if _same_file(Path(out), src):
                raise CliError(f"{flag} {out} is the input file {src}; refusing to overwrite it "
                               "(choose another output path)")


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A temporary path beside ``path``; renamed onto ``path`` when the block
    ends without an exception, removed otherwise."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise CliError(f"cannot write {path}: {exc}") from exc
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        try:
            mode = path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_umask()
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except OSError as exc:
            raise CliError(f"cannot write {path}: {exc}") from exc
    finally:
        if tmp.exists():
            tmp.unlink()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: Path, write: Callable[[Path], object]) -> None:
    """Run ``write(tmp)`` then move ``tmp`` onto ``path``; OSError -> CliError."""
    with atomic_path(path) as tmp:
        try:
            write(tmp)
        except OSError as exc:
            raise CliError(f"cannot write {path}: {exc}") from exc
