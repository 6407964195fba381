"""One check for the tools kscore plugs into (lm_eval, lighteval): the
installed version read from its distribution's metadata, before anything of
the tool is imported, so that a missing or unsupported version is one line
naming what is needed rather than an AttributeError deep inside the tool."""

from __future__ import annotations

import importlib.metadata as md
import re


def version_tuple(text: str) -> tuple[int, ...]:
    """The leading numbers of a version string: ``"0.4.13"`` -> ``(0, 4, 13)``,
    ``"0.5.0.dev1"`` -> ``(0, 5, 0)``.

    Examples:
        >>> version_tuple("0.5.0.dev1")
        (0, 5, 0)
    """
    m = re.match(r"\d+(?:\.\d+)*", text)
    return tuple(int(x) for x in m.group(0).split(".")) if m else ()


def require(who: str, dist: str, requires: str, low: tuple[int, ...], high: tuple[int, ...], install: str,
            installed: str | None = None) -> str:
    """The installed version of ``dist`` (or ``installed``, as given); ImportError
    ``"{who} needs {dist}{requires} (found ...): {install}"`` when it is missing
    or outside ``low <= version < high``."""
    if installed is None:
        try:
            installed = md.version(dist)
        except md.PackageNotFoundError:
            raise ImportError(f"{who} needs {dist}{requires} (not installed): {install}") from None
    if not low <= version_tuple(installed) < high:
        raise ImportError(f"{who} needs {dist}{requires} (found {installed}): {install}")
    return installed
