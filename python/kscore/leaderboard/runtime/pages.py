"""Small memory pages while the leaderboard runs (docs/leaderboard.md,
*Memory pages*).

numpy asks Linux for 2 MB pages (``madvise``) for every array of 4 MB or
more. In a virtual machine whose host backs the guest's free memory only
when it is first written, every fresh 2 MB page is a fault on the host: on
the 2-core VM of our benchmarks the first write of a new 80 MB array took
140-210 ms with them and 32-36 ms without, and a 100M-row board makes some
twenty arrays of that size. With 4 KB pages the kernel hands back pages the
process (or the engine) has just freed, already backed. The job turns the
advice off for its duration; the first job in restores numpy's setting when
the last one leaves (jobs may overlap on threads)."""

from __future__ import annotations

import functools
import importlib
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar, cast

P = ParamSpec("P")
T = TypeVar("T")

_lock = threading.Lock()
_inside = 0
_before = True


def _setter() -> Callable[[bool], bool] | None:
    """numpy's ``_set_madvise_hugepage`` (it returns the setting it replaces)."""
    for name in ("numpy._core.multiarray", "numpy.core.multiarray"):  # numpy 2, numpy 1
        try:
            setter = getattr(importlib.import_module(name), "_set_madvise_hugepage", None)
        except ImportError:
            continue
        if setter is not None:
            return cast("Callable[[bool], bool]", setter)
    return None  # pragma: no cover - a numpy without it: nothing to turn off


@contextmanager
def small_pages() -> Iterator[None]:
    """numpy's large arrays on small pages inside the block."""
    global _inside, _before
    setter = _setter()
    if setter is None:
        yield
        return
    with _lock:
        if _inside == 0:
            _before = bool(setter(False))
        _inside += 1
    try:
        yield
    finally:
        with _lock:
            _inside -= 1
            if _inside == 0:
                setter(_before)


def on_small_pages(job: Callable[P, T]) -> Callable[P, T]:
    """``job`` run inside :func:`small_pages`."""
    @functools.wraps(job)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        with small_pages():
            return job(*args, **kwargs)
    return run
