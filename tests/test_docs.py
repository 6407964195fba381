"""The documentation tells the truth, and the site builds.

Every ```python (or ```py, ```pycon) block of docs/*.md and README.md runs,
each page's blocks in order in one namespace, as a reader would paste them.
A block written as a doctest (``>>>`` lines with the printed output below)
is checked as a doctest; any other block is executed and must not raise.
Blocks in other languages (```bash, ```text) are not run.

Marking blocks (an HTML comment on the line just before the fence; the site
does not show it):

- ``<!-- docs-test: skip REASON -->``: this block is not run (an excerpt that
  needs a trainer, a cluster, a file the reader has, ...). Give the reason.
- ``<!-- docs-test: needs MODULE, MODULE -->``: this block and every later
  block of the page need these modules (an extra's packages): where one
  does not import, the rest of the page is skipped with the reason.

``test_site_builds_strictly`` builds the site with ``mkdocs build --strict``
(warnings are errors) when mkdocs is installed (the ``test`` and ``docs``
extras install it)."""

from __future__ import annotations

import doctest
import importlib
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [ROOT / "README.md", *DOCS]

pytestmark = pytest.mark.skipif(not (ROOT / "mkdocs.yml").exists(), reason="needs the source tree")

# A fenced block: the fence (``` or ~~~, 3 or more, indented or not), its info string, its body.
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)\n"
                   r"(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$", re.MULTILINE | re.DOTALL)
MARK = re.compile(r"<!--\s*docs-test:\s*(?P<verb>skip|needs)\b(?P<arg>.*?)-->\s*\Z", re.DOTALL)
PYTHON = ("python", "py", "pycon")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # 1-based line of the block's first code line
    source: str
    lang: str
    skip: str | None = None  # the reason given by a skip mark
    needs: tuple[str, ...] = field(default=())  # modules this block (and the page's later ones) need

    @property
    def where(self) -> str:
        path = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{path}:{self.line}"

    @property
    def is_doctest(self) -> bool:
        return any(line.lstrip().startswith(">>> ") for line in self.source.splitlines())


def _language(info: str) -> str:
    """The language of a fence's info string: ``python``, ``{.python .x}``,
    ``python title="a.py"``, ``pycon`` all name one."""
    info = info.strip()
    if info.startswith("{"):
        classes = re.findall(r"\.([\w+-]+)", info)
        return classes[0] if classes else ""
    return info.split()[0] if info else ""


def _dedent(body: str, indent: str) -> str:
    return "".join(line[len(indent):] if line.startswith(indent) else line for line in body.splitlines(True))


def blocks(path: Path) -> list[Block]:
    """Every fenced block of a page with its language and marks."""
    text = path.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        before = text[:match.start()].rstrip("\n")
        last = before.rsplit("\n", 1)[-1]
        mark = MARK.search(last)
        skip: str | None = None
        needs: tuple[str, ...] = ()
        if mark and mark.group("verb") == "skip":
            skip = mark.group("arg").strip() or "marked not runnable"
        elif mark:
            needs = tuple(m.strip() for m in mark.group("arg").split(",") if m.strip())
        line = text.count("\n", 0, match.start("body")) + 1
        found.append(Block(path, line, _dedent(match.group("body"), match.group("indent")),
                           _language(match.group("info")), skip, needs))
    return found


def python_blocks(path: Path) -> list[Block]:
    return [b for b in blocks(path) if b.lang in PYTHON]


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


def _missing(modules: tuple[str, ...]) -> list[str]:
    missing = []
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing


def run_page(path: Path) -> tuple[int, str | None]:
    """Run a page's blocks in order; returns how many ran and, where the rest
    of the page was skipped for a missing module, why."""
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    ran = 0
    for block in python_blocks(path):
        missing = _missing(block.needs)
        if missing:
            return ran, f"{block.where} and later blocks need {', '.join(missing)}"
        if block.skip is None:
            run_block(block, namespace)
            ran += 1
    return ran, None


@pytest.mark.parametrize("path", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_python_blocks_run(path: Path) -> None:
    _, skipped = run_page(path)
    if skipped:
        pytest.skip(skipped)


def test_marks_are_read(tmp_path: Path) -> None:
    """The conventions above, on a page written for the purpose: a skipped
    block is not run, a needs mark on a missing module skips the rest of the
    page, an indented fence and a fence with attributes are found."""
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nx = 1\n```\n\n"
        "<!-- docs-test: skip needs a GPU -->\n```python\nraise SystemExit('ran')\n```\n\n"
        "- item\n\n    ```python\n    x += 1\n    ```\n\n"
        "```{.python .numberLines}\n>>> x\n2\n\n```\n\n"
        "```bash\nexit 1\n```\n\n"
        "<!-- docs-test: needs kscore_no_such_module -->\n```python\nraise SystemExit('ran')\n```\n"
        "```python\nraise SystemExit('ran')\n```\n", encoding="utf-8")
    found = blocks(page)
    assert [b.lang for b in found] == ["python", "python", "python", "python", "bash", "python", "python"]
    assert found[1].skip == "needs a GPU" and found[5].needs == ("kscore_no_such_module",)
    ran, skipped = run_page(page)  # the doctest sees x = 2: the indented block ran, the skipped one did not
    assert ran == 3 and skipped is not None and "kscore_no_such_module" in skipped
    page.write_text(page.read_text(encoding="utf-8").replace(">>> x\n2", ">>> x\n3"), encoding="utf-8")
    with pytest.raises(AssertionError, match="doctest failed"):
        run_page(page)


def test_every_page_is_in_the_nav() -> None:
    """A page of docs/ that the nav does not list is unreachable on the site
    (and the strict build refuses it): each page is one line of mkdocs.yml's
    nav. The integrations' pages have their line there, commented out until
    the page lands."""
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\s*-\s[^:\n]+:\s*(\S+\.md)\s*$", nav, re.MULTILINE))
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert listed <= pages, f"the nav lists pages that do not exist: {sorted(listed - pages)}"
    unlisted = pages - listed
    assert not unlisted, f"pages of docs/ not in mkdocs.yml's nav (uncomment or add their line): {sorted(unlisted)}"


# A time or a size quoted in the prose: "2.86 s", "712 MB", "4.51 ms".
FIGURE = re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|us|s|MB|GB|GB/s)(?![\w/])")


def test_leaderboard_doc_quotes_the_benchmarks_page() -> None:
    """The leaderboard's speed figures are measured in the runs the
    benchmarks page dates and describes; docs/leaderboard.md may only quote
    figures that page states, so that the two never disagree."""
    bench = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    doc = (ROOT / "docs" / "leaderboard.md").read_text(encoding="utf-8")
    stray = [f for f in FIGURE.findall(doc) if f not in bench]
    assert not stray, f"docs/leaderboard.md quotes figures docs/benchmarks.md does not: {stray}"


# The two set-up commands, as the README has always given them (issue 30: unchanged).
SETUP = ["pip install '.[cli]' && kscore leaderboard", "pip install '.[test]' && python -m pytest"]


def test_user_readme_is_short_and_keeps_the_setup_commands() -> None:
    """The README a user reads:
    at most 200 lines, the two set-up commands unchanged as bash blocks, and
    links to the documentation that resolve."""
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200, len(text.splitlines())
    shell = [b.source.strip() for b in blocks(readme) if b.lang == "bash"]
    assert all(command in shell for command in SETUP), shell[:2]
    shown = re.sub(r"<!--.*?-->", "", text, flags=re.S)  # the placeholders' links are the lead's to fill in
    for target in re.findall(r"\]\(((?:docs/)?[\w./-]+\.md)(?:#[\w-]+)?\)", shown):
        assert (ROOT / target).is_file(), f"{readme.name} links to {target}, which does not exist"


def test_changelog_is_included_in_the_site() -> None:
    page = (ROOT / "docs" / "changelog.md").read_text(encoding="utf-8")
    assert '--8<-- "CHANGELOG.md"' in page
    log = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert log.startswith("# Changelog") and "## [Unreleased]" in log


def _mkdocs() -> list[str] | None:
    try:
        importlib.import_module("mkdocs")
        importlib.import_module("material")
        importlib.import_module("mkdocstrings_handlers.python")
    except ImportError:
        return None
    return [sys.executable, "-m", "mkdocs"]


@pytest.mark.skipif(_mkdocs() is None, reason="mkdocs, mkdocs-material or mkdocstrings[python] is not installed "
                    "(pip install '.[docs]')")
def test_site_builds_strictly(tmp_path: Path) -> None:
    mkdocs = _mkdocs()
    assert mkdocs is not None
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # material's notice about its successor, not a warning
    run = subprocess.run([*mkdocs, "build", "--strict", "--site-dir", str(tmp_path / "site")], cwd=ROOT,
                         capture_output=True, text=True, timeout=600, env=env)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-5000:]
    site = tmp_path / "site"
    for page in ("index.html", "api/eval/index.html", "kernels/index.html", "benchmarks/index.html",
                 "changelog/index.html"):
        assert (site / page).is_file(), page
    api = (site / "api" / "eval" / "index.html").read_text(encoding="utf-8")
    assert "pass_at_k_ci" in api and "Chen" in api  # generated from the docstrings
    assert 'class="arithmatex"' in api and ":math:" not in api and ":func:" not in api  # docs/_ext/griffe_rst.py
    core = (site / "api" / "core" / "index.html").read_text(encoding="utf-8")
    assert "BinaryBank" in core  # from the compiled module's typed stub
    assert "Keep a Changelog" in (site / "changelog" / "index.html").read_text(encoding="utf-8")


@pytest.mark.skipif(_mkdocs() is None, reason="griffe (mkdocstrings[python]) is not installed (pip install '.[docs]')")
def test_rst_markup_extension_examples() -> None:
    """docs/_ext/griffe_rst.py, which turns the docstrings' RST roles into
    Markdown for the API reference, does what its examples say."""
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        module = importlib.import_module("griffe_rst")
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0, result
    block = module.markdown("Text:\n\n.. math::\n\n    a = b\n    + c\n\nAfter.")
    assert block == "Text:\n\n$$\na = b\n+ c\n$$\n\nAfter."
