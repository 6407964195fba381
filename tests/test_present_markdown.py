"""The Markdown of a Board parses as GFM tables (markdown-it-py's table rule):
a row per model, a cell per column, each name and cell read back whole."""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.token import Token

from kscore.present.markdown import escape, render_markdown
from kscore.present.model import rank_text
from kscore.present.text import compact_cell

from .present_boards import board


def _tables(text: str) -> list[list[list[str]]]:
    """Each table's rows (header first) as the cells' rendered inline text."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    tables: list[list[list[str]]] = []
    row: list[str] = []
    for t in tokens:
        if t.type == "table_open":
            tables.append([])
        elif t.type == "tr_open":
            row = []
        elif t.type == "inline" and tables and row is not None and _in_cell(tokens, t):
            row.append(_text(t))
        elif t.type == "tr_close":
            tables[-1].append(row)
    return tables


def _in_cell(tokens: list[Token], t: Token) -> bool:
    i = tokens.index(t)
    return i > 0 and tokens[i - 1].type in ("th_open", "td_open")


def _text(t: Token) -> str:
    """The cell's text as it renders: text and code, no markup (an emphasis
    or a link would show up as a missing or different character)."""
    kinds = {c.type for c in t.children or []}
    assert kinds <= {"text", "text_special"}, kinds
    return "".join(c.content for c in t.children or [])


def test_markdown_parses_as_a_table_with_whole_names_and_cells() -> None:
    b = board(40, 5, subsets=2)
    text = render_markdown(b)
    tables = _tables(text)
    assert len(tables) == 3
    main = tables[0]
    head = ["rank", "model", *(m.name for m in b.metrics), *(c.name for c in b.info)]
    assert main[0] == head
    assert len(main) == 1 + len(b.models)
    for i, row in enumerate(main[1:]):
        assert len(row) == len(head)
        assert row[0] == rank_text(b.ranks[i])
        assert row[1] == b.models[i]  # '|', '*', '_', '<', '&' in a name come back whole
        assert row[2:2 + len(b.metrics)] == [compact_cell(m.values[i], m.digits) for m in b.metrics]
    assert any("|" in name for name in b.models)
    assert b.footer in text
    for name, sub in b.subsets.items():
        assert f"### {escape(sub.title or name)}" in text


def test_escape_keeps_a_pipe_inside_its_cell() -> None:
    tables = _tables("| a | b |\n| --- | --- |\n| " + escape("x|y") + " | " + escape("*z*") + " |\n")
    assert tables == [[["a", "b"], ["x|y", "*z*"]]]
