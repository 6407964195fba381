"""kscore/_gc.py: a pause of the cyclic collector hands the block's objects
to the oldest generation at its end (no collection of the youngest
generation holding all of them), keeps a caller's pause and others' frozen
objects, and a cycle made inside is still collected."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref

import pytest

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


_EXIT = """
import sys
from kscore import _gc

class Board:
    def __del__(self):
        print("freed", flush=True)

if sys.argv[1] == "command":
    _gc.ending_with_command()
_gc.keep_to_exit(Board())
_gc.leave_at_exit()
sys.exit(0)
"""


@pytest.mark.parametrize("how", ["command", "python"])
def test_a_board_is_left_to_the_end_only_of_a_process_that_ends_with_the_command(how: str) -> None:
    # (the command line's entry point: its board is not freed object by object as the process ends; a command
    # run from Python keeps nothing)
    p = subprocess.run([sys.executable, "-c", _EXIT, how], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout == ("" if how == "command" else "freed\n")
