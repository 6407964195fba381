"""The cyclic garbage collector paused while many long-lived objects are made.

At 100 000 models the statistics make 200 000 row objects and the output a
board of cells in lists of 100 000, none of them garbage; every 700 made
started a collection, and the older generations' collections walk every
object of the run in their turn: 0.2-0.6 s CPU per phase for nothing
(measured: ``compute()`` 1.1-1.65 s with them, 0.76-0.99 s without; the
board's rows 0.72 s with them, 0.42 s without).

A pause's end does not hand the block's objects to the next collection
either: re-enabled as they were, the first object made after the block
started a collection of the youngest generation, which then held every
object of the block (the 100 000-model board's statistics: 0.15 s quiet,
0.4 s under load, in the pause's ``__exit__``). They go straight to the
oldest generation instead (``gc.freeze()`` then ``gc.unfreeze()``: two
list splices, and the youngest generation's count set back to 0), where
only a full collection walks them, as it would have after their first
collections; a cycle among them is still collected then.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def paused_collection() -> Iterator[None]:
    """Collections paused inside the block; re-enabled after it only if they
    were enabled before (a caller's own pause is kept)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            _to_oldest()
            gc.enable()


def _to_oldest() -> None:
    """Every tracked object into the oldest generation, walked by no
    collection now (module docstring); left as they are where something
    froze objects (its frozen ones stay so)."""
    if not gc.get_freeze_count():
        gc.freeze()
        gc.unfreeze()


@contextmanager
def frozen() -> Iterator[None]:
    """Every object made so far left out of the collector's walks inside the
    block (``gc.freeze``: none of it is garbage while a command writes what
    it computed), put back after it unless something froze objects before
    (theirs are kept so)."""
    before = gc.get_freeze_count()
    gc.freeze()
    try:
        yield
    finally:
        if not before:
            gc.unfreeze()


#: What :func:`keep_to_exit` keeps: never freed where the process ends
#: through :func:`leave_at_exit`.
_KEPT: list[Any] = []
_AT_EXIT = [False]


def ending_with_command() -> None:
    """The process ends when the command line's command does (its entry
    point's call): from now on :func:`keep_to_exit` keeps what it is given."""
    _AT_EXIT[0] = True


def keep_to_exit(obj: Any) -> None:
    """Keep ``obj`` (a board: 100 000 rows and their columns) to the end of
    a process that ends with the command (:func:`ending_with_command`), not
    freed object by object as the command returns (0.1-0.2 s at 100 000
    models, for memory the process gives back as it ends); elsewhere (a
    command run from Python) nothing is kept."""
    if _AT_EXIT[0]:
        _KEPT.append(obj)


def leave_at_exit() -> None:
    """Just before the process ends: what :func:`keep_to_exit` kept is left
    to the end (a cycle frozen out of the collector's walks: the
    interpreter's shutdown frees modules' objects one by one, and collects
    every cycle but frozen ones)."""
    if _KEPT:
        _KEPT.append(_KEPT)
        gc.freeze()
