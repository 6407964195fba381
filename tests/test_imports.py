"""The package's imports point down (issue 34; CONTRIBUTING.md, *Rooms*).

The import graph of ``python/kscore`` is read from the source with ``ast``:
every import statement, at module level, inside functions and under
``if TYPE_CHECKING:`` alike (an import hidden in a function still ties the
two modules together). On that graph:

- no cycle;
- no upward or sideways import: every module belongs to a room of
  :data:`LAYERS`, and a room imports only rooms of lower rows (rooms of one
  row are independent of each other);
- no private name across rooms: a module under a ``_name`` component is
  private to the package holding it, a ``_name`` imported from a module is
  private to that module's room;
- one surface per package of :data:`SURFACES`: from outside it, only those
  modules are imported (``kscore.leaderboard.api``: what ``cli/``,
  ``present/`` and the harness integrations use).

Adding a room (a new subpackage, or a new module directly in ``kscore/`` or
``kscore/leaderboard/``) is adding it to a row of :data:`LAYERS`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "python"

#: The rooms, lowest row first: a room may import the rooms of the rows
#: below its own, never a room of its own row or above. A room is a module,
#: or a package with everything in it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("kscore._kscore",),  # the compiled core (stub: _kscore.pyi)
    # leaves: the array types, shared maths, version checks, the shipped sample
    ("kscore._arrays", "kscore._special", "kscore._dirichlet", "kscore._versions", "kscore.data",
     "kscore._interrupt", "kscore._gc"),  # (_interrupt: Ctrl-C while the kscore command starts up)
    ("kscore._inputs", "kscore._interval"),  # input checks and the normal interval, shared by every room
    # the scorio drop-ins; counts in; tools' files read
    ("kscore.eval", "kscore.counts", "kscore.formats", "kscore.aggregate"),
    ("kscore.rank", "kscore.sinf"),  # ranking by metric; sequential decisions
    # the leaderboard, bottom up: its leaves, reading and statistics, the result, the run, the surface
    ("kscore.leaderboard._issues",),
    ("kscore.leaderboard._spec", "kscore.leaderboard._counts", "kscore.leaderboard._options",
     "kscore.leaderboard.runtime"),
    ("kscore.leaderboard.read", "kscore.leaderboard.stats"),
    ("kscore.leaderboard.result",),
    ("kscore.leaderboard._run",),
    ("kscore.leaderboard.api",),
    ("kscore.leaderboard",),  # its __init__: the user's names, from api
    ("kscore.arena",),  # pairwise battles and judges: rates with the leaderboard's rank sets
    # above the leaderboard's surface: output, and the harness integrations
    # (kscore.rl: RL trainers' metrics, with the leaderboard's default interval)
    ("kscore.present", "kscore.inspect", "kscore.lm_eval", "kscore.lighteval", "kscore.rl"),
    ("kscore.cli",),  # flags -> the API -> present -> files
    ("kscore", "kscore.__main__"),  # the package's own names; ``python -m kscore``
)

#: Packages entered from outside only through these modules.
SURFACES: dict[str, tuple[str, ...]] = {
    "kscore.leaderboard": ("kscore.leaderboard", "kscore.leaderboard.api"),
    "kscore.formats": ("kscore.formats", "kscore.formats.api"),
}


@dataclass(frozen=True)
class Import:
    importer: str  # module name
    target: str  # the module imported (a package means its __init__)
    name: str | None  # the name taken from it (``from target import name``), None for the module itself
    line: int
    where: str  # "module", "function" or "TYPE_CHECKING"

    def __str__(self) -> str:
        what = self.target if self.name is None else f"{self.target}.{self.name}"
        return f"{self.importer} (line {self.line}, {self.where}) imports {what}"


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    out: dict[str, Path] = {}
    for path in sorted((SOURCE / "kscore").rglob("*.py")):
        parts = list(path.relative_to(SOURCE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _places(tree: ast.Module) -> dict[ast.AST, str]:
    """Each import node: at module level, in a function, or under TYPE_CHECKING."""
    where: dict[ast.AST, str] = {}

    def visit(node: ast.AST, context: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = context
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                inner = "function"
            elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                inner = "TYPE_CHECKING"
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                where[child] = context
            visit(child, inner)

    visit(tree, "module")
    return where


def imports(known: dict[str, Path]) -> list[Import]:
    """Every import of a kscore module by a kscore module."""
    out: list[Import] = []
    compiled = {"kscore._kscore"}
    for mod, path in known.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node, where in _places(tree).items():
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "kscore":
                        out.append(Import(mod, alias.name, None, node.lineno, where))
                continue
            assert isinstance(node, ast.ImportFrom)
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "kscore":
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in known or sub in compiled:
                    out.append(Import(mod, sub, None, node.lineno, where))
                else:
                    out.append(Import(mod, target, alias.name, node.lineno, where))
    return out


def _private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def room(mod: str) -> str | None:
    """The room of a module: the longest row entry that is it or holds it;
    None where that entry is a package split into rooms of its own (a new
    module there needs a row)."""
    rooms = {r for row in LAYERS for r in row}
    split = {r.rpartition(".")[0] for r in rooms}
    best = max((r for r in rooms if mod == r or mod.startswith(r + ".")), key=len, default=None)
    if best is None or (best != mod and best in split):
        return None
    return best


def layer(r: str) -> int:
    return next(i for i, row in enumerate(LAYERS) if r in row)


KNOWN = modules()
IMPORTS = imports(KNOWN)


def test_the_graph_is_read() -> None:
    """The parse finds the imports this file is about (a check on the check)."""
    found = {(i.importer, i.target) for i in IMPORTS}
    assert ("kscore", "kscore.leaderboard") in found
    assert any(i.where == "function" for i in IMPORTS)
    assert len(KNOWN) > 100


def test_every_module_has_a_room() -> None:
    missing = [m for m in list(KNOWN) + ["kscore._kscore"] if room(m) is None]
    assert not missing, f"modules without a room: {missing}; add them to a row of LAYERS in tests/test_imports.py"
    stale = [r for row in LAYERS for r in row if r not in KNOWN and r != "kscore._kscore"]
    assert not stale, f"rooms of LAYERS that no longer exist: {stale}"


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module, or with a self-import (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in edges.get(v, ()):
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_cycles() -> None:
    edges: dict[str, set[str]] = {}
    for i in IMPORTS:
        edges.setdefault(i.importer, set()).add(i.target)
    found = cycles(edges)
    lines = []
    for comp in found:
        inside = set(comp)
        lines.append(" <-> ".join(comp) + ": " + "; ".join(
            str(i) for i in IMPORTS if i.importer in inside and i.target in inside))
    assert not found, "import cycles:\n" + "\n".join(lines)


def test_no_upward_or_sideways_imports() -> None:
    bad = []
    for i in IMPORTS:
        a, b = room(i.importer), room(i.target)
        if a is None or b is None or a == b:
            continue
        if layer(b) >= layer(a):
            how = "sideways (rooms of one row are independent)" if layer(a) == layer(b) else "upward"
            bad.append(f"{i}: {how}, {a} -> {b}")
    assert not bad, "imports that do not point down (LAYERS in tests/test_imports.py):\n" + "\n".join(bad)


def test_no_private_names_across_rooms() -> None:
    bad = []
    for i in IMPORTS:
        parts = i.target.split(".")
        at = next((k for k, p in enumerate(parts) if _private(p)), None)
        if at is not None:
            owner = ".".join(parts[:at])
            if not (i.importer == owner or i.importer.startswith(owner + ".")):
                bad.append(f"{i}: {i.target} is private to {owner}")
                continue
        if i.name is not None and _private(i.name) and room(i.importer) != room(i.target):
            bad.append(f"{i}: {i.name} is private to {i.target}")
    assert not bad, "private names imported across rooms:\n" + "\n".join(bad)


@pytest.mark.parametrize("package", sorted(SURFACES))
def test_one_surface(package: str) -> None:
    allowed = SURFACES[package]
    bad = [str(i) for i in IMPORTS
           if (i.target == package or i.target.startswith(package + "."))
           and not (i.importer == package or i.importer.startswith(package + "."))
           and i.target not in allowed]
    assert not bad, f"imports into {package} past its surface ({', '.join(allowed)}):\n" + "\n".join(bad)
