"""A Griffe extension for the API reference: the docstrings' reStructuredText
markup, written for Sphinx-style readers and ``help()``, turned into the
Markdown the site renders. ``:math:`x``` and ``.. math::`` blocks become
arithmatex's ``$x$`` and ``$$ ... $$`` (MathJax draws them); ``:func:`name```,
``:class:``, ``:mod:`` and the other cross-reference roles become code
spans (``~a.b.c`` shows ``c``, as in Sphinx). The docstrings themselves stay
as they are. Loaded by mkdocs.yml (mkdocstrings' ``extensions`` option)."""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension, Object

ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|data|attr|exc|obj|const|ref):`~?([^`]+)`")
MATH_ROLE = re.compile(r":math:`([^`]+)`")
MATH_BLOCK = re.compile(r"^(?P<indent>[ \t]*)\.\. math::[ \t]*\n(?P<body>(?:(?P=indent)[ \t]+\S.*\n|[ \t]*\n)+)",
                        re.MULTILINE)


def _role(match: re.Match[str]) -> str:
    target = match.group(1)
    shown = target.rsplit(".", 1)[-1] if match.group(0).split("`", 1)[1].startswith("~") else target
    return f"`{shown}`"


def _block(match: re.Match[str]) -> str:
    indent = match.group("indent")
    lines = [line.strip() for line in match.group("body").splitlines() if line.strip()]
    return f"{indent}$$\n" + "".join(f"{indent}{line}\n" for line in lines) + f"{indent}$$\n\n"


def markdown(text: str) -> str:
    """The docstring's RST markup as Markdown (see the module's docstring).

    >>> markdown("With :math:`\\\\nu_\\\\alpha` see :func:`~kscore.eval.pass_at_k`.")
    'With $\\\\nu_\\\\alpha$ see `pass_at_k`.'
    """
    text = MATH_BLOCK.sub(_block, text if text.endswith("\n") else text + "\n").rstrip("\n")
    text = MATH_ROLE.sub(lambda m: f"${m.group(1).strip()}$", text)
    return ROLE.sub(_role, text)


class RstMarkup(Extension):
    def on_object(self, *, obj: Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
