"""One-line messages for inputs the engine refused: the malformed CSV row or
JSON line, found by re-reading the file in Python (only on this error path)."""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path
from typing import Any

from ._source import Source


def _open_text(path: Path) -> Any:
    if path.name.lower().endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8-sig", newline="")
    return open(path, encoding="utf-8-sig", newline="")


def explain_read_error(source: Source, exc: BaseException) -> str | None:
    """The message for a file DuckDB could not read, or None to use DuckDB's."""
    text = str(exc)
    for path in source.files:
        if path.stat().st_size == 0:
            return f"{path} is empty"
    if source.kind in ("csv", "tsv"):
        delim = "\t" if source.kind == "tsv" else ","
        for path in source.files:
            found = _csv_line(path, delim)
            if found:
                return found
    if source.kind == "jsonl" and ("json" in text.lower() or "malformed" in text.lower()):
        for path in source.files:
            found = _json_line(path)
            if found:
                return found
    return None


def _csv_line(path: Path, delimiter: str) -> str | None:
    try:
        with _open_text(path) as fh:
            reader = csv.reader(fh, delimiter=delimiter)
            head = next(reader, None)
            if head is None:
                return f"{path} is empty"
            for row in reader:
                if row and len(row) != len(head):
                    return (f"{path}: malformed row at line {reader.line_num}: expected {len(head)} fields, "
                            f"got {len(row)}: {delimiter.join(row)[:80]!r}")
    except (csv.Error, UnicodeDecodeError, OSError) as exc:
        return f"{path}: malformed CSV: {exc}"
    return None


def _json_line(path: Path) -> str | None:
    try:
        with _open_text(path) as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    return f"{path}: malformed JSON at line {lineno}: {exc.msg}: {line.strip()[:80]!r}"
                if not isinstance(obj, dict):
                    return f"{path}: line {lineno} is not a JSON object: {line.strip()[:80]!r}"
    except (UnicodeDecodeError, OSError) as exc:
        return f"{path}: cannot read: {exc}"
    return None
