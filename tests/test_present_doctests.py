"""The examples in kscore.present's docstrings hold (and in the curves'
module, computed with the board since issue 34)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [*(f"kscore.present.{name}" for name in ["names", "terminal", "model", "text", "markdown", "plot", "wording",
                                                    "formats"]),
           "kscore.leaderboard.result.curves"]


@pytest.mark.parametrize("name", MODULES)
def test_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, result
