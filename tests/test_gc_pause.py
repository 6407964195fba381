"""kscore/_gc.py: a pause of the cyclic collector hands the block's objects
to the oldest generation at its end (no collection of the youngest
generation holding all of them), keeps a caller's pause and others' frozen
objects, and a cycle made inside is still collected."""

from __future__ import annotations

import gc
import weakref

from kscore._gc import frozen, paused_collection


class _Node:
    def __init__(self) -> None:
        self.me = self


def test_the_blocks_objects_go_to_the_oldest_generation_uncollected() -> None:
    assert gc.isenabled()
    with paused_collection():
        assert not gc.isenabled()
        kept = [[i] for i in range(20_000)]  # (tracked objects: the youngest generation's count passes 700)
        assert gc.get_count()[0] > 700
        cycle = _Node()
        ref = weakref.ref(cycle)
        del cycle
    assert gc.isenabled()
    assert gc.get_count()[0] < 700  # (no collection is due: none walks the 20 000 lists now)
    assert gc.get_freeze_count() == 0
    assert ref() is not None  # (the cycle waits for a full collection, as it would in the oldest generation)
    gc.collect()
    assert ref() is None and len(kept) == 20_000


def test_a_callers_pause_and_frozen_objects_are_kept() -> None:
    gc.disable()
    try:
        with paused_collection():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
    with frozen():
        n = gc.get_freeze_count()
        assert n > 0
        with paused_collection():
            [[i] for i in range(1000)]
        assert gc.get_freeze_count() == n  # (not unfrozen by the pause's end)
    assert gc.get_freeze_count() == 0
