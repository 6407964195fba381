"""Leaderboards from pairwise battles and judges (``kscore arena``,
:func:`kscore.arena`; docs/arena.md): Bradley-Terry ratings on LMArena's
scale, exact (Newton's method in the compiled core), with sandwich or
bootstrap intervals, rank ranges, style control and the fragility of #1."""

from .read import ArenaError
from .result import ArenaBoard, ArenaResult, Fragility
from .run import arena

__all__ = ["ArenaBoard", "ArenaError", "ArenaResult", "Fragility", "arena"]
