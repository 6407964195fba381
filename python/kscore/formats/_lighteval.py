"""lighteval details: ``details_<task>_<date>.parquet`` (placeholder)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

NAME = "lighteval"


def sniff(path: Path) -> bool:
    """Not yet."""
    return False


def read(path: Path, score: str | None = None, model: str | None = None) -> Any:
    """Not yet."""
    raise NotImplementedError
