"""Every public function of kscore.eval documents itself, and every example
in kscore.eval holds.

Each name in ``kscore.eval.__all__`` must have, in its docstring, a formula
(a ``.. math::`` block or an inline ``:math:``), a ``Reference:`` or
``References:`` line, and an ``Examples:`` section with ``>>>`` lines.

The examples of ``_pass``, ``_gpass``, ``_maj``, ``_auc`` and ``_geom`` run
in tests/test_point_parity.py, those of ``_bayes`` and ``_max`` in
tests/test_categorical.py; this file runs every other module of the package.
It also runs every module's examples once more with scorio 0.2.3's functions
in place of kscore's: the printed values must be scorio's (they are rounded,
so last-bit differences between the two do not show).
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import re
from types import ModuleType
from typing import Any

import pytest
import scorio.eval as se

import kscore.eval as ke

#: Modules whose examples other test files run (see the module docstring).
COVERED_ELSEWHERE = frozenset({"_pass", "_gpass", "_maj", "_auc", "_geom", "_bayes", "_max"})

FORMULA = re.compile(r"\.\. math::|:math:`")
REFERENCE = re.compile(r"^\s*References?:", re.MULTILINE)
FLAGS = doctest.NORMALIZE_WHITESPACE


def submodules() -> list[str]:
    """Names of the modules inside the kscore.eval package (those of its
    subpackages too: ``_tailpass.build``)."""
    prefix = "kscore.eval."
    return sorted(info.name.removeprefix(prefix) for info in pkgutil.walk_packages(ke.__path__, prefix)
                  if not info.ispkg)


#: kscore.eval's public functions, bound in every module's examples (an
#: example in one module of a subpackage may call a function another defines).
KSCORE_NAMES: dict[str, Any] = {n: getattr(ke, n) for n in ke.__all__}


def calls_public(mod: ModuleType) -> bool:
    """Whether an example of ``mod`` calls a public kscore.eval function."""
    called = re.compile(r"\b(" + "|".join(map(re.escape, ke.__all__)) + r")\(")
    return any(called.search(ex.source) for test in doctest.DocTestFinder().find(mod) for ex in test.examples)


def module(name: str) -> ModuleType:
    return importlib.import_module(f"kscore.eval.{name}")


def public_in(mod: ModuleType) -> list[str]:
    """The public kscore.eval functions defined in ``mod``."""
    return [n for n in ke.__all__ if getattr(getattr(ke, n), "__module__", None) == mod.__name__]


def test_covered_modules_exist() -> None:
    assert COVERED_ELSEWHERE <= set(submodules())


@pytest.mark.parametrize("name", ke.__all__)
def test_public_function_has_formula_reference_and_example(name: str) -> None:
    fn = getattr(ke, name)
    assert inspect.isfunction(fn), name
    doc = inspect.getdoc(fn) or ""
    assert FORMULA.search(doc), f"{name}: no formula (.. math:: or :math:)"
    assert REFERENCE.search(doc), f"{name}: no 'Reference:' / 'References:' line"
    _, found, examples = doc.partition("Examples:")
    assert found and ">>>" in examples, f"{name}: no 'Examples:' section with >>> lines"
    assert doctest.DocTestFinder().find(fn, name, globs={})[0].examples, name


@pytest.mark.thread_unsafe(reason="doctest patches linecache and redirects stdout")
@pytest.mark.parametrize("name", [n for n in submodules() if n not in COVERED_ELSEWHERE])
def test_docstring_examples(name: str) -> None:
    """Every other module's examples hold (helper modules may have none)."""
    mod = module(name)
    result = doctest.testmod(mod, extraglobs=KSCORE_NAMES, optionflags=FLAGS)
    assert result.failed == 0
    if public_in(mod):
        assert result.attempted > 0


def test_package_docstring_examples() -> None:
    assert doctest.testmod(ke, optionflags=FLAGS).failed == 0


@pytest.mark.parametrize("name", [n for n in submodules() if public_in(module(n)) or calls_public(module(n))])
def test_examples_are_scorio_values(name: str) -> None:
    """The documented outputs are scorio 0.2.3's: the same examples pass
    with every public name bound to scorio's function (in every module that
    defines a public function or whose examples call one)."""
    scorio_names: dict[str, Any] = {n: getattr(se, n) for n in ke.__all__}
    result = doctest.testmod(module(name), extraglobs=scorio_names, optionflags=FLAGS)
    assert result.attempted > 0 and result.failed == 0
