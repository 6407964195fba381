"""The result of ``leaderboard()``.

board.py           Leaderboard: rows, ranks, comparisons, groups, and its tables

Internal: ``Leaderboard`` is re-exported by ``kscore.leaderboard``."""
