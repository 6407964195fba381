"""A fast subset of scripts/arena_coverage.py (the full table is in
docs/arena.md): on boards drawn from a known model with ties, skewed pairs
and clustered prompts, the default interval (the sandwich clustered by
prompt) covers the pseudo-true ratings near 95% and the simultaneous rank
sets hold the true ranks jointly."""

from __future__ import annotations

import pytest
from scripts.arena_coverage import run

pytest.importorskip("pyarrow")


def test_clustered_sandwich_covers_and_rank_sets_hold() -> None:
    got = run("plain", 40, 0, seed=1, only="sandwich")
    cov, joint = got["sandwich (clustered by prompt)"]
    assert 0.91 <= cov <= 0.99, got
    assert joint >= 0.85, got
