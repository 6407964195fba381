"""One-line messages for inputs the engine refused: the malformed CSV row or
JSON line, the line with invalid UTF-8, the compressed file that is cut
short, found by re-reading the file in Python (only on this error path)."""

from __future__ import annotations

import csv
import io
import json
import re
import zlib
from pathlib import Path
from typing import Any

from .compressed import compression, open_binary
from .source import Source, any_field_size

#: What reading a file can raise: the file system (OSError, which pyarrow's
#: and gzip's decompression errors are too), a stream cut short, corrupt
#: deflate data.
_READ_ERRORS = (OSError, EOFError, zlib.error)


#: DuckDB's refusal of a CSV line longer than its ``max_line_size`` (the
#: line number it gives is the sniffer's, 1, where the sniffer met it).
_LONG_LINE = re.compile(r"Maximum line size of (\d+) bytes exceeded")


def _open_text(path: Path) -> Any:
    return io.TextIOWrapper(open_binary(path), encoding="utf-8-sig", newline="")


def _cannot_read(path: Path, exc: BaseException) -> str:
    kind = compression(path)
    if kind is not None and not (isinstance(exc, OSError) and exc.errno is not None):
        return f"{path}: truncated or corrupt {kind} data ({exc})"
    return f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}"


def explain_read_error(source: Source, exc: BaseException) -> str | None:
    """The message for a file DuckDB could not read, or None to use DuckDB's."""
    text = str(exc)
    for path in source.files:
        if path.stat().st_size == 0:
            return f"{path} is empty"
    if source.kind in ("csv", "tsv"):
        long_line = _LONG_LINE.search(text)
        if long_line is not None:
            limit = int(long_line.group(1))
            for path in source.files:
                found = _long_line(path, limit)
                if found:
                    return found
        for path in source.files:
            found = _csv_line(path, source.delimiter)
            if found:
                return found
    if source.kind == "jsonl" and ("json" in text.lower() or "malformed" in text.lower()):
        for path in source.files:
            found = json_line(path)
            if found:
                return found
    return None


def _long_line(path: Path, limit: int) -> str | None:
    """The first line of ``path`` longer than ``limit`` bytes, as a message.
    Read in chunks no longer than ``limit`` (never a whole long line in
    memory; pyarrow's zstd stream has no readline): a line inside one chunk
    is shorter than the limit, so only the line running across chunks is
    measured."""
    size = max(1, min(limit, 1 << 20))
    try:
        with open_binary(path) as fh:
            lineno, length = 1, 0
            while chunk := fh.read(size):
                first = chunk.find(b"\n")
                length += len(chunk) if first < 0 else first
                if length > limit:
                    return (f"{path}: line {lineno} is longer than the {limit} bytes DuckDB reads as one CSV line; "
                            "shorten it (e.g. a hash of a long question text as its id)")
                if first >= 0:
                    lineno += chunk.count(b"\n")
                    length = len(chunk) - chunk.rfind(b"\n") - 1
    except _READ_ERRORS as exc:
        return _cannot_read(path, exc)
    return None


def _bad_utf8(path: Path) -> str:
    """The first line of ``path`` that is not UTF-8, as a message (the bytes
    that are not UTF-8 read as lone surrogates, U+DC80..U+DCFF)."""
    try:
        with io.TextIOWrapper(open_binary(path), encoding="utf-8", errors="surrogateescape", newline="") as fh:
            for lineno, line in enumerate(fh, 1):
                bad = next((ord(ch) - 0xDC00 for ch in line if "\udc80" <= ch <= "\udcff"), None)
                if bad is not None:
                    shown = line.encode("utf-8", "surrogateescape").decode("utf-8", "replace").strip()[:80]
                    return f"{path}: invalid UTF-8 at line {lineno} (byte 0x{bad:02x}): {shown!r}; kscore reads UTF-8"
    except _READ_ERRORS as exc:
        return _cannot_read(path, exc)
    return f"{path}: invalid UTF-8"  # pragma: no cover - the text reader found some


def _csv_line(path: Path, delimiter: str) -> str | None:
    try:
        with _open_text(path) as fh, any_field_size():
            reader = csv.reader(fh, delimiter=delimiter)
            head = next(reader, None)
            if head is None:
                return f"{path} is empty"
            for row in reader:
                if row and len(row) != len(head):
                    return (f"{path}: malformed row at line {reader.line_num}: expected {len(head)} fields, "
                            f"got {len(row)}: {delimiter.join(row)[:80]!r}")
    except UnicodeDecodeError:
        return _bad_utf8(path)
    except csv.Error as exc:
        return f"{path}: malformed CSV: {exc}"
    except _READ_ERRORS as exc:
        return _cannot_read(path, exc)
    return None


def json_line(path: Path) -> str | None:
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
    except UnicodeDecodeError:
        return _bad_utf8(path)
    except _READ_ERRORS as exc:
        return _cannot_read(path, exc)
    return None


def error_line(source: Source, exc: BaseException) -> str:
    text = str(exc).strip()
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), type(exc).__name__)
    if source.kind == "parquet" and ("magic bytes" in text.lower() or "not a parquet" in text.lower()
                                     or "too small" in text.lower()):
        return f"{source.label} is not a readable Parquet file: {first}"
    return f"{source.label}: cannot read {source.kind}: {first}"
