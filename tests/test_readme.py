"""The README and the counts guide tell the truth about the harness loop.

Every Python block of README.md and docs/*.md runs in tests/test_docs.py
(doctests checked, other blocks executed; its marks for blocks that cannot
run everywhere). Here: the README has runnable examples, and the claims the
blocks' comments state about the harness loop they replace are asserted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from .test_docs import ROOT, python_blocks, run_block

README = ROOT / "README.md"
BEFORE_AFTER = [p for p in (README, ROOT / "docs" / "counts.md")
                if any(b.source.startswith("# before") for b in python_blocks(p))] if README.exists() else []

pytestmark = pytest.mark.skipif(not README.exists(), reason="needs the source tree")


def test_readme_has_python_blocks() -> None:
    blocks = python_blocks(README)
    assert len(blocks) >= 3
    assert any(block.is_doctest for block in blocks)


@pytest.mark.parametrize("path", BEFORE_AFTER, ids=[str(p.relative_to(ROOT)) for p in BEFORE_AFTER])
def test_pass_at_k_before_and_after_agree(path: Path) -> None:
    """'With kscore, the same signature and the same numbers': the harness loop
    of the "# before" block and kscore's estimate_pass_at_k of the "# after"
    block give the same pass@k, and the after block's commented shapes hold."""
    blocks = python_blocks(path)
    before = next(b for b in blocks if b.source.startswith("# before"))
    after = next(b for b in blocks if b.source.startswith("# after"))
    namespace: dict[str, Any] = {"__name__": "__readme__"}
    run_block(before, namespace)
    harness = dict(namespace["pass_at_k"])
    run_block(after, namespace)
    ours = namespace["pass_at_k"]
    assert harness.keys() == ours.keys() == {f"pass@{k}" for k in namespace["ks"]}
    for key, value in harness.items():
        assert ours[key] == pytest.approx(value, rel=1e-13, abs=1e-15), key
    kc = namespace["kc"]
    total, correct, R = namespace["total"], namespace["correct"], namespace["R"]
    assert kc.curve(total, correct).shape == (int(np.min(total)),)  # pass@1..min(n)
    assert kc.model_scores(R, "pass_at_k", [1, 10, 100]).shape == (R.shape[0], 3)  # one row per model
    assert len(kc.maj_at_k_ci(total, correct, 5)) == 4  # (mu, sigma, lo, hi)
