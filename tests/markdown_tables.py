"""Reading GFM tables back as a renderer shows them (markdown-it-py's table
rule): each table's rows, header first, as the cells' rendered text."""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.token import Token


def tables(text: str) -> list[list[list[str]]]:
    """Each table's rows (header first) as the cells' rendered inline text."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    out: list[list[list[str]]] = []
    row: list[str] = []
    for t in tokens:
        if t.type == "table_open":
            out.append([])
        elif t.type == "tr_open":
            row = []
        elif t.type == "inline" and out and row is not None and _in_cell(tokens, t):
            row.append(_text(t))
        elif t.type == "tr_close":
            out[-1].append(row)
    return out


def _in_cell(tokens: list[Token], t: Token) -> bool:
    i = tokens.index(t)
    return i > 0 and tokens[i - 1].type in ("th_open", "td_open")


def _text(t: Token) -> str:
    """The cell's text as it renders: text and code, no markup (an emphasis
    or a link would show up as a missing or different character)."""
    kinds = {c.type for c in t.children or []}
    assert kinds <= {"text", "text_special"}, kinds
    return "".join(c.content for c in t.children or [])
