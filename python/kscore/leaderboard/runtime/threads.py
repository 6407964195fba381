"""How many threads a run uses (``--threads N``, ``KSCORE_THREADS``; by
default every core the process may run on): the core's thread pool, the
direct count's reading threads and DuckDB's threads together
(docs/threads.md, *Thread count*). Results never depend on it."""

from __future__ import annotations

import os

from ... import _kscore

#: The count set by :func:`use` (None: from the environment, else every core).
_CHOSEN: int | None = None


def cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def from_environment() -> int | None:
    """``KSCORE_THREADS`` as a count (None where unset); a value that is
    not a positive integer is an error that names it."""
    text = os.environ.get("KSCORE_THREADS", "").strip()
    if not text:
        return None
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise ValueError(f"KSCORE_THREADS must be a positive integer; got {text!r}")
    return n


def count() -> int:
    """The threads a run uses."""
    if _CHOSEN is not None:
        return _CHOSEN
    return from_environment() or cores()


def chosen() -> int | None:
    """The count given (``--threads``, ``KSCORE_THREADS``), None where every
    core is used by default (DuckDB then keeps its own default)."""
    return _CHOSEN if _CHOSEN is not None else from_environment()


def use(n: int | None) -> int:
    """Use ``n`` threads from now on (None: ``KSCORE_THREADS`` or every
    core): the core's pool, pyarrow's, the reading threads and DuckDB's
    connections opened after this. Returns the count."""
    global _CHOSEN
    if n is not None and n < 1:
        raise ValueError(f"the thread count must be at least 1; got {n}")
    _CHOSEN = n
    k = count()
    _kscore._set_threads(k if chosen() is not None else 0)
    try:
        import pyarrow as pa

        pa.set_cpu_count(k)
    except ImportError:  # pragma: no cover - the cli extra installs it
        pass
    return k


def duckdb_setting() -> str | None:
    """The ``SET threads`` of a DuckDB connection, where a count was given."""
    n = chosen()
    return None if n is None else f"SET threads = {n}"
