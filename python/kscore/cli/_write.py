"""Writing outputs safely: never over an input, never half-written.

An output path that is, or links to, one of the input files is refused before
anything is read (``kscore leaderboard results.csv -o results.csv`` would
otherwise replace the results with the leaderboard). Every output is written
to a temporary file in the destination's folder and renamed into place only
once complete (``os.replace`` is atomic on one file system), so an error or
an interrupt leaves the previous file, or none, never a partial one. A
symbolic link is written through (the file it names is replaced, the link
kept); a device or a pipe (``/dev/null``, ``/dev/stdout``) is written in
place: renaming onto it would replace the device itself, which root may do.
Outputs that cannot be written (no such folder, a folder, no permission)
are refused before anything is read. See docs/leaderboard.md, *Output*.
"""

from __future__ import annotations

import os
import secrets
import stat
import sys
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


def refuse_same(outputs: Iterable[tuple[str, str | None]]) -> None:
    """Raise a one-line error if two outputs (``(flag, path)``) are one file
    (a device, ``/dev/null``, may take several)."""
    seen: list[tuple[str, str]] = []
    for flag, out in outputs:
        if out is None or _special(Path(out)):
            continue
        for other_flag, other in seen:
            if _same_file(Path(out), Path(other)):
                raise CliError(f"{other_flag} and {flag} are the same file {out}; each output needs its own")
        seen.append((flag, out))


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _special(path: Path) -> bool:
    """An existing output that is not a regular file or a folder: a device,
    a pipe, a socket (through links)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def check_outputs(outputs: Iterable[str | None]) -> None:
    """Raise a one-line error, before any reading, for an output path that
    cannot be written: a folder, a missing or read-only folder to write in."""
    for out in outputs:
        if out is None:
            continue
        path = Path(out)
        if _special(path):
            if not os.access(path, os.W_OK):
                raise CliError(f"cannot write {out}: permission denied")
            continue
        if path.is_dir():
            raise CliError(f"cannot write {out}: it is a directory")
        folder = Path(os.path.realpath(path)).parent
        shown = folder if path.is_symlink() else path.parent  # a link's target's folder
        if not folder.is_dir():
            raise CliError(f"cannot write {out}: no such directory {shown}")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise CliError(f"cannot write {out}: permission denied (directory {shown})")


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A temporary path beside ``path`` (beside the file a link names);
    renamed onto it when the block ends without an exception, removed
    otherwise. A device or pipe is yielded as it is, written in place."""
    if _special(path):
        yield path
        return
    target = Path(os.path.realpath(path))
    tmp: Path | None = None
    try:
        # The name is chosen before the file exists and the file made inside
        # this block, so that a Ctrl-C at any moment leaves no file behind
        # (with mkstemp, one landing as it returned left its file: found by
        # tests/test_interrupt.py). A shortened name: the longest allowed
        # output name plus a prefix and suffix would be too long a name.
        while tmp is None:
            tmp = target.parent / f".{target.name[:64]}.{secrets.token_hex(8)}.tmp"
            try:
                os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            except FileExistsError:
                tmp = None  # (not ours)
            except OSError as exc:
                tmp = None
                raise CliError(f"cannot write {path}: {_why(exc)}") from exc
        yield tmp
        try:
            mode = target.stat().st_mode & 0o777 if target.exists() else 0o666 & ~_umask()
            os.chmod(tmp, mode)
            os.replace(tmp, target)
        except OSError as exc:
            raise CliError(f"cannot write {path}: {_why(exc)}") from exc
    finally:
        if tmp is not None and tmp.exists():
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
            raise CliError(f"cannot write {path}: {_why(exc)}") from exc


def write_text(output: str | None, text: str) -> None:
    """``text`` written to ``output`` (atomically, :func:`write_atomic`), or
    to standard output without one."""
    if output:
        write_atomic(Path(output), lambda tmp: tmp.write_text(text, encoding="utf-8"))
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
