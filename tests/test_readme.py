"""The README and docs/*.md tell the truth: their Python blocks run.

Each file's ```python blocks run in order in one namespace, as a reader would
paste them. A block written as a doctest (``>>>``, with the printed output
below) is checked as a doctest; any other block is executed, and must not
raise. Shell blocks (``kscore leaderboard ...``) are not run here; the CLI has
its own tests. The blocks' own comments that state results are asserted in the
tests below them."""

from __future__ import annotations

import doctest
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
MARKDOWN = [README, *DOCS]

pytestmark = pytest.mark.skipif(not README.exists(), reason="needs the source tree")

# Optional modules the Python blocks of a file import (the cli and distributed extras).
NEEDS = {"leaderboard.md": ("duckdb", "pandas", "dask.dataframe", "distributed")}

FENCE = re.compile(r"^```(?P<lang>[\w+-]*)[ \t]*\n(?P<body>.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # 1-based line of the block's first code line
    source: str

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    @property
    def is_doctest(self) -> bool:
        return any(line.lstrip().startswith(">>> ") for line in self.source.splitlines())


def python_blocks(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    blocks = []
    for match in FENCE.finditer(text):
        if match.group("lang") in ("python", "py", "pycon"):
            line = text.count("\n", 0, match.start("body")) + 1
            blocks.append(Block(path, line, match.group("body")))
    return blocks


def run_block(block: Block, namespace: dict[str, Any]) -> None:
    if block.is_doctest:
        parser = doctest.DocTestParser()
        test = parser.get_doctest(block.source, namespace, block.where, str(block.path), block.line - 1)
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        report: list[str] = []
        runner.run(test, out=report.append, clear_globs=False)
        assert runner.failures == 0, f"doctest failed at {block.where}:\n" + "".join(report)
    else:
        code = compile(block.source, block.where, "exec")
        try:
            exec(code, namespace)
        except Exception as exc:  # pragma: no cover - the failure message
            raise AssertionError(f"the python block at {block.where} raised {exc!r}") from exc


def run_file(path: Path) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "__readme__"}
    for block in python_blocks(path):
        run_block(block, namespace)
    return namespace


def test_readme_has_python_blocks() -> None:
    blocks = python_blocks(README)
    assert len(blocks) >= 3
    assert any(block.is_doctest for block in blocks)


@pytest.mark.parametrize("path", MARKDOWN, ids=[str(p.relative_to(ROOT)) for p in MARKDOWN])
def test_python_blocks_run(path: Path) -> None:
    for module in NEEDS.get(path.name, ()):
        pytest.importorskip(module)
    run_file(path)


def test_readme_pass_at_k_before_and_after_agree() -> None:
    """'With kscore, the same signature and the same numbers': the harness loop
    of the "# before" block and kscore's estimate_pass_at_k of the "# after"
    block give the same pass@k, and the after block's commented shapes hold."""
    blocks = python_blocks(README)
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


# A time or a size quoted in the prose: "2.86 s", "712 MB", "4.51 ms".
FIGURE = re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|us|s|MB|GB|GB/s)(?![\w/])")


def test_leaderboard_doc_quotes_the_readme_figures() -> None:
    """The leaderboard's speed figures are measured in one run with the
    README's Speed tables and live in the README; docs/leaderboard.md may only
    quote figures the README states, so that the two never disagree."""
    readme = README.read_text(encoding="utf-8")
    doc = ROOT / "docs" / "leaderboard.md"
    stray = [f for f in FIGURE.findall(doc.read_text(encoding="utf-8")) if f not in readme]
    assert not stray, f"docs/leaderboard.md quotes figures the README does not: {stray}"
