"""How far a reader walks through the package to follow one call: files visited, and returns.

A reader follows a call path as execution does: from the first function,
into each function it calls, and so on. ``sys.settrace`` records that path
over the files of the ``kscore`` package (frames of numpy, DuckDB, rich ...
are passed through: a call from them back into kscore is a call of the
kscore frame below them). Each call edge (caller function -> callee
function) is followed once, the first time it runs: a call repeated in a
loop, or a function called again from the same place, is read once.

- ``visited``: the distinct files the walk enters.
- ``returns``: the calls that lead into a file already visited, other than
  the caller's own: the reader must go back to a file read before (issue 34:
  "returns to an already visited file"; at most 5 per walk). Coming back to
  the caller when a callee is done is not a return: the reader never left
  it. ``back up the stack``: those of them into a file still running
  further up (a callee calling back into its caller's file: a callback or
  an import cycle in disguise).
- ``re-entries``: the same without either allowance, for reference: every
  change of the innermost kscore file during execution into a file left
  before (a call in a loop counts each time; so does unwinding to the caller).

Two walks, on the shipped sample (python/kscore/data/sample_results.csv.gz):

- ``reading``: ``kscore.leaderboard(sample)``, from entering
  ``read_columns`` (leaderboard/read/reader.py) until it returns.
- ``output``: ``kscore leaderboard sample`` on the command line (the default
  table; ``--format`` another), from the return of ``leaderboard()``
  (leaderboard/_run.py) to the end of the command: everything the CLI does to
  show a finished board.

Each walk is run once untraced first (first-use imports and caches), then
traced. Usage::

    python scripts/walks.py                   # both walks, returns per file
    python scripts/walks.py output --format html
    python scripts/walks.py reading --steps   # also the files in walk order, and each return's call
    python scripts/walks.py --json
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import kscore

PACKAGE = Path(kscore.__file__).resolve().parent
SAMPLE = PACKAGE / "data" / "sample_results.csv.gz"


def _inline(code: CodeType) -> bool:
    """A comprehension, generator expression or lambda (``<listcomp>``, ...), not ``<module>``."""
    return code.co_name.startswith("<") and code.co_name != "<module>"


class Walk:
    """The calls between package files inside a window of execution.

    The window opens when a frame running ``start`` (a package file, a
    function name) is entered and closes when it returns (``after=False``),
    or opens when that frame returns and stays open (``after=True``)."""

    def __init__(self, start: tuple[str, str], after: bool = False, by: str = "file") -> None:
        self.start, self.after, self.by = start, after, by
        self.order: list[str] = []  # files in the order first entered
        self.returns: Counter[str] = Counter()
        self.calls: list[str] = []  # each return: "caller file:function -> callee file:function"
        self.back_up = 0  # the returns into a file that is still running further up the stack
        self.raw: list[str] = []  # the innermost package file, each change
        self._edges: set[tuple[object, object]] = set()
        self._open = False
        self._window: FrameType | None = None
        self._names: dict[str, str | None] = {}

    def _name(self, code: CodeType) -> str | None:
        """The file's path inside the package, or None outside it."""
        path = code.co_filename
        if path not in self._names:
            try:
                self._names[path] = Path(path).resolve().relative_to(PACKAGE).as_posix()
            except ValueError:
                self._names[path] = None
        return self._names[path]

    def _outer(self, frame: FrameType | None) -> tuple[CodeType | None, str | None]:
        """The innermost package function from ``frame`` outwards (a
        comprehension, generator expression or lambda is read as part of the
        function that holds it): its code and file."""
        while frame is not None:
            name = self._name(frame.f_code)
            if name is not None and not _inline(frame.f_code):
                return frame.f_code, name
            frame = frame.f_back
        return None, None

    def _on_stack(self, frame: FrameType | None, name: str) -> bool:
        """Whether a frame of file ``name`` is running below ``frame`` (a call back up)."""
        while frame is not None:
            if frame is self._window and not self.after:
                return self._name(frame.f_code) == name
            if self._name(frame.f_code) == name:
                return True
            frame = frame.f_back
        return False

    def _raw(self, name: str | None) -> None:
        if self._open and name is not None and (not self.raw or self.raw[-1] != name):
            self.raw.append(name)

    def _call(self, frame: FrameType, name: str) -> None:
        if _inline(frame.f_code):
            return
        caller, caller_file = self._outer(frame.f_back)
        on_stack = self._on_stack(frame.f_back, name)
        edge: tuple[object, object] = (caller_file, name) if self.by == "file" else (caller, frame.f_code)
        if edge in self._edges:
            return
        self._edges.add(edge)
        if name == caller_file:
            return
        if name in self.order:
            self.returns[name] += 1
            who = f"{caller_file}:{caller.co_name}" if caller is not None else "?"
            self.calls.append(f"{who} -> {name}:{frame.f_code.co_name}" + (" (back up the stack)" if on_stack else ""))
            self.back_up += on_stack
        else:
            self.order.append(name)

    def trace(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if event != "call":
            return None
        name = self._name(frame.f_code)
        if name is None:
            return None  # (outside the package: its calls back into kscore get their own call events)
        if self._window is None and not self._open and (name, frame.f_code.co_name) == self.start:
            self._window = frame
            if not self.after:
                self._open = True
                self.order.append(name)
                self._raw(name)
            return self.trace_local
        if self._open:
            self._call(frame, name)
            self._raw(name)
        return self.trace_local

    def trace_local(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if event == "return":
            if frame is self._window:
                self._open = self.after
                if not self.after:
                    self._window = None
                return self.trace_local
            self._raw(self._outer(frame.f_back)[1])
        return self.trace_local

    @contextlib.contextmanager
    def tracing(self) -> Iterator[None]:
        sys.settrace(self.trace)
        try:
            yield
        finally:
            sys.settrace(None)

    def summary(self) -> dict[str, Any]:
        seen: set[str] = set()
        raw = 0
        for name in self.raw:
            raw += name in seen
            seen.add(name)
        return {"visited": len(self.order), "returns": sum(self.returns.values()), "back_up": self.back_up,
                "per_file": dict(self.returns.most_common()), "re_entries": raw, "files": self.order,
                "return_calls": self.calls}


def reading(fmt: str, by: str) -> Walk:
    walk = Walk(("leaderboard/read/reader.py", "read_columns"), by=by)
    kscore.leaderboard(str(SAMPLE))  # (first use: lazy imports, caches)
    with walk.tracing():
        kscore.leaderboard(str(SAMPLE))
    return walk


def output(fmt: str, by: str) -> Walk:
    from kscore.cli import main

    walk = Walk(("leaderboard/_run.py", "leaderboard"), after=True, by=by)
    argv = ["leaderboard", str(SAMPLE), *(["--format", fmt] if fmt != "table" else [])]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        main(argv)  # (first use)
        with walk.tracing():
            main(argv)
    return walk


WALKS: dict[str, Callable[[str, str], Walk]] = {"reading": reading, "output": output}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("walks", nargs="*", help=f"which walks: {', '.join(WALKS)} (default: all)")
    parser.add_argument("--format", default="table", help="the output walk's --format (default: table)")
    parser.add_argument("--by", choices=("file", "function"), default="file",
                        help="follow each caller -> callee edge once per pair of files (default) or of functions")
    parser.add_argument("--steps", action="store_true",
                        help="list the files in the order first entered, and the calls that return")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    unknown = [w for w in args.walks if w not in WALKS]
    if unknown:
        parser.error(f"unknown walk {unknown[0]!r}; known: {', '.join(WALKS)}")
    results = {name: WALKS[name](args.format, args.by).summary() for name in args.walks or list(WALKS)}
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    for name, r in results.items():
        per = ", ".join(f"{f} {n}" for f, n in r["per_file"].items())
        label = f"{name} ({args.format})" if name == "output" else name
        print(f"{label}: {r['visited']} files visited, {r['returns']} returns"
              + (f" ({per})" if per else "") + f"; {r['back_up']} of them back up the stack; "
              f"{r['re_entries']} re-entries")
        if args.steps:
            for step in r["files"]:
                print(f"    {step}")
            for call in r["return_calls"]:
                print(f"    return: {call}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
