"""The examples in kscore.present's docstrings hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["names", "terminal", "model", "text", "markdown", "curves", "plot"]


@pytest.mark.parametrize("name", MODULES)
def test_examples(name: str) -> None:
    module = importlib.import_module(f"kscore.present.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, result
