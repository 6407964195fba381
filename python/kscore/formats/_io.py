"""File access shared by the readers: every failure becomes a one-line
``ValueError`` naming the file (and the line of a JSON Lines file)."""

from __future__ import annotations

import json
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: How much of a file detection may read.
HEAD_BYTES = 4096

#: The ZIP method number of Zstandard (inspect_ai writes .eval logs with it).
ZIP_ZSTANDARD = 93


def fail(path: Path, what: str, line: int | None = None) -> ValueError:
    """A one-line error about ``path`` (and ``line``)."""
    where = f"{path}, line {line}" if line is not None else str(path)
    return ValueError(f"{where}: {' '.join(what.split())}")


def head(path: Path, size: int = HEAD_BYTES) -> bytes:
    """The first ``size`` bytes of ``path`` (empty when unreadable)."""
    try:
        with path.open("rb") as f:
            return f.read(size)
    except OSError:
        return b""


def first_json_line(path: Path) -> dict[str, Any] | None:
    """The first line of a JSON Lines file as an object, or None when the
    first line is not one (reads up to the first newline, at most 1 MiB)."""
    try:
        with path.open("rb") as f:
            line = f.readline(1 << 20)
        value = json.loads(line)
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line, one line at a time."""
    try:
        f = path.open("rb")
    except OSError as exc:
        raise fail(path, f"cannot open: {exc.strerror}") from None
    with f:
        for number, raw in enumerate(f, start=1):
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise fail(path, f"invalid UTF-8 at byte {exc.start} of the line", number) from None
            try:
                value = json.loads(text)
            except ValueError as exc:
                truncated = not raw.endswith(b"\n")
                why = "truncated JSON (the file ends inside this line)" if truncated else f"invalid JSON ({exc})"
                raise fail(path, why, number) from None
            if not isinstance(value, dict):
                raise fail(path, f"expected a JSON object, found {type(value).__name__}", number)
            yield number, value


def parse_json(path: Path, data: bytes, what: str = "") -> Any:
    """Decode UTF-8 JSON ``data`` read from ``path`` (``what``: the ZIP member)."""
    inside = f" in {what}" if what else ""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise fail(path, f"invalid UTF-8{inside} at byte {exc.start}") from None
    try:
        return json.loads(text)
    except ValueError as exc:
        if not text.strip():
            raise fail(path, f"empty{inside}, expected JSON") from None
        raise fail(path, f"invalid or truncated JSON{inside} ({exc})") from None


def read_json(path: Path) -> Any:
    """The whole JSON document in ``path``."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise fail(path, f"cannot read: {exc.strerror}") from None
    return parse_json(path, data)


def open_zip(path: Path) -> zipfile.ZipFile:
    """``path`` as a ZIP archive."""
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise fail(path, f"not a readable ZIP archive (truncated or corrupt: {exc})") from None


def zip_member(path: Path, archive: zipfile.ZipFile, name: str) -> bytes:
    """The bytes of member ``name``, checked against its CRC. Stored and
    deflated members go through :mod:`zipfile`; Zstandard members (method 93,
    which Python's zipfile reads only from 3.14) are decompressed by pyarrow."""
    info = archive.getinfo(name)
    try:
        if info.compress_type != ZIP_ZSTANDARD or hasattr(zipfile, "ZIP_ZSTANDARD"):
            return archive.read(info)
        data = _zstd_member(archive, info)
    except Exception as exc:  # any decompressor's error (zlib, pyarrow, or a zstd module patched into zipfile)
        raise fail(path, f"corrupt ZIP member {name} ({type(exc).__name__}: {exc})") from None
    if zlib.crc32(data) != info.CRC or len(data) != info.file_size:
        raise fail(path, f"corrupt ZIP member {name} (CRC or size mismatch)")
    return data


def _zstd_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """Decompress a Zstandard ZIP member with pyarrow's codec."""
    import pyarrow as pa

    fp = archive.fp
    if fp is None:  # pragma: no cover - the archive is open
        raise ValueError("archive closed")
    fp.seek(info.header_offset)
    local = fp.read(30)
    if len(local) != 30 or local[:4] != b"PK\x03\x04":
        raise ValueError("bad local file header")
    name_len = int.from_bytes(local[26:28], "little")
    extra_len = int.from_bytes(local[28:30], "little")
    fp.seek(info.header_offset + 30 + name_len + extra_len)
    raw = fp.read(info.compress_size)
    if len(raw) != info.compress_size:
        raise ValueError("member data cut short")
    try:
        out = pa.decompress(raw, decompressed_size=info.file_size, codec="zstd", asbytes=True)
    except (pa.ArrowException, OSError) as exc:
        raise ValueError(f"zstd: {exc}") from None
    return bytes(out)
