"""Compressed inputs (docs/leaderboard.md, *Input*): DuckDB reads ``.gz``
and ``.zst`` files itself; this module checks what it would not and opens
them for the Python diagnostics.

DuckDB reads a ``.zst`` file cut short as the rows before the cut, without
an error (it does notice a cut ``.gz``), so :func:`check_whole` walks the
zstd frame and block headers (a few bytes per 128 KiB block, no
decompression) and refuses a file that ends inside a frame. Other
compressions (``.bz2``, ``.lz4``) DuckDB would read as if plain text: they
are refused with a one-line message.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import IO, Any

from .._issues import LeaderboardError

_ZSTD_MAGIC = 0xFD2FB528
_SKIPPABLE = 0x184D2A50  # to 0x184D2A5F: skippable frames (RFC 8878, 3.1.2)
UNREAD = (".bz2", ".lz4")


def compression(path: Path) -> str | None:
    low = path.name.lower()
    for suffix, name in ((".gz", "gzip"), (".zst", "zstd"), (".bz2", "bzip2"), (".lz4", "lz4")):
        if low.endswith(suffix):
            return name
    return None


def check_whole(path: Path) -> None:
    """Raise a one-line error if ``path`` is compressed in a way DuckDB
    cannot read, or is a zstd stream cut short."""
    kind = compression(path)
    if kind in ("bzip2", "lz4"):
        raise LeaderboardError(f"{path}: {kind} files are not read (.gz and .zst are); decompress it first")
    if kind != "zstd":
        return
    try:
        with open(path, "rb") as f:
            problem = _zstd_problem(f, path.stat().st_size)
    except OSError as exc:
        raise LeaderboardError(f"cannot read {path}: {exc.strerror or exc}") from None
    if problem:
        raise LeaderboardError(f"{path}: truncated or corrupt zstd data ({problem})")


def _zstd_problem(f: IO[bytes], size: int) -> str | None:
    """Why the frames of a zstd file do not end exactly at its end (RFC
    8878, 3.1.1: frame header, then blocks until the one flagged last, then
    an optional 4-byte checksum), or None."""
    at = 0
    while at < size:
        f.seek(at)
        head = f.read(14)  # magic, descriptor and the longest optional header fields
        if len(head) < 4:
            return f"a frame is cut short at byte {at}"
        magic = int.from_bytes(head[:4], "little")
        if magic & 0xFFFFFFF0 == _SKIPPABLE:
            if len(head) < 8:
                return f"a skippable frame is cut short at byte {at}"
            at += 8 + int.from_bytes(head[4:8], "little")
            continue
        if magic != _ZSTD_MAGIC:
            return f"no zstd frame at byte {at}"
        if len(head) < 5:
            return f"a frame header is cut short at byte {at}"
        desc = head[4]
        single = (desc >> 5) & 1
        fcs = (1 if single else 0, 2, 4, 8)[desc >> 6]
        at += 5 + (0 if single else 1) + (0, 1, 2, 4)[desc & 3] + fcs
        while True:
            f.seek(at)
            block = f.read(3)
            if len(block) < 3:
                return "the data ends inside a frame"
            header = int.from_bytes(block, "little")
            kind, length = (header >> 1) & 3, header >> 3
            if kind == 3:
                return f"a reserved block type at byte {at}"
            at += 3 + (1 if kind == 1 else length)
            if header & 1:
                break
        at += 4 if desc & 4 else 0
    return "the data ends inside a frame" if at > size else None


def open_binary(path: Path) -> Any:
    """``path`` decompressed (gzip, zstd) or as it is, for reading bytes."""
    kind = compression(path)
    if kind == "gzip":
        return gzip.open(path, "rb")
    if kind == "zstd":
        import pyarrow as pa  # (optional and heavy: imported for a .zst input only)

        return pa.input_stream(str(path), compression="zstd")
    return open(path, "rb")
